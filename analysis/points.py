"""Repeats combined into points: each quantile from the runs' samples pooled, each other statistic's mean over
the repeats, and each metric's 95 % interval."""

# A point is a kind's keys (RTT: framework, transport, payload, interval, tasks, connections, load);
# its runs are its repeats, each a fresh process. A kind's `pooled` quantiles (RTT: p5 … p99.99 of the
# round-trip time, and open load's latency) are quantiles.py's: of all the runs' samples pooled, each run
# weighted equally, with an interval that resamples whole rounds, and refused (NaN, with the reason in
# METRIC_refused) where the samples cannot carry them. A kind's other `metrics` (throughput's msg/s) are
# uncertainty.py's: the mean over repeats of each repeat's statistic with a t interval across them, or
# with one repeat the within-run interval that stats.py computed from that run's samples. What else a
# kind derives per point (RTT: Δ vs std and its verdict) is its `finish`.

import math

import numpy as np
import pandas as pd

from . import quantiles
from . import uncertainty as u


def _estimate(values: pd.Series, wlow: pd.Series, whigh: pd.Series) -> u.Estimate:
    """The repeats' values (NaN: a run without samples) as one estimate with its interval, which
    stops at 0: latencies and rates are never negative."""
    measured = values.notna().to_numpy()
    if measured.sum() >= 2:
        return u.across_runs(values[measured], floor=0.0)
    if measured.sum() == 1:
        i = int(np.flatnonzero(measured)[0])
        return u.Estimate(float(values.iloc[i]), float(wlow.iloc[i]), float(whigh.iloc[i]), 1, u.WITHIN_RUN)
    return u.Estimate(math.nan, math.nan, math.nan, 0, u.WITHIN_RUN)


def _aggregate(runs: pd.DataFrame, kind) -> pd.DataFrame:
    """One row per point, in the runs' display order: means, sums and the first of each fact."""
    point, means, sums = list(kind.keys), list(kind.means), list(kind.sums)
    firsts = [c for c in runs.columns if c not in {*point, *means, *sums, *kind.pooled, "max", "min", "starved",
                                                  "complete", "round", "started_at", "disturbed"}]
    numeric = runs[means].apply(pd.to_numeric, errors="coerce")  # None (not recorded) → NaN
    grouped = numeric.groupby([runs[c] for c in point], sort=False)
    table = grouped.mean()
    for column in sums:
        table[column] = pd.to_numeric(runs[column], errors="coerce").groupby(
            [runs[c] for c in point], sort=False).sum(min_count=1)
    by = runs.groupby(point, sort=False)
    table = table.join(by[firsts].first()).assign(
        complete=by["complete"].all(), runs=by.size(),
        started_at=by["started_at"].min(), last_started_at=by["started_at"].max(),
        rounds=by["round"].agg(lambda r: tuple(sorted(r))),
        disturbed=by["disturbed"].agg(lambda d: int(d.notna().sum())) if "disturbed" in runs else 0)
    return table.reset_index()


def _pooled(group: pd.DataFrame, kind, columns: dict) -> None:
    """Append to `columns` this point's pooled quantiles, their intervals and refusals (kind.pooled)."""
    for samples, wanted in kind.pooled.items():
        found = quantiles.estimates(list(group[samples]), wanted)
        for metric in wanted:
            e = found.get(metric)
            estimate = e if isinstance(e, u.Estimate) else None
            columns[metric].append(estimate.value if estimate else math.nan)
            columns[f"{metric}_low"].append(estimate.low if estimate else math.nan)
            columns[f"{metric}_high"].append(estimate.high if estimate else math.nan)
            columns[f"{metric}_refused"].append(str(e) if isinstance(e, quantiles.Refused) else "")


def combine(runs: pd.DataFrame, kind, noise: float = u.NOISE) -> pd.DataFrame:
    """One row per point: every column of a run (means over repeats, sums of counts), each pooled quantile of
    the kind with its interval (p50, p50_low, p50_high) or why it is refused (p50_refused), and for each of the
    kind's other metrics its interval; `repeats` (runs with samples) and `method`; then what the kind's
    `finish` adds (RTT: Δp50 and Δp99 vs std paired by round and their verdicts)."""
    table = _aggregate(runs, kind)
    groups = runs.groupby(list(kind.keys), sort=False)
    columns: dict[str, list] = {"repeats": [], "method": []}
    for metric in kind.metrics:
        columns[f"{metric}_low"], columns[f"{metric}_high"] = [], []
    for wanted in kind.pooled.values():
        for metric in wanted:
            for suffix in ("", "_low", "_high", "_refused"):
                columns[f"{metric}{suffix}"] = []
    for _, group in groups:  # a loop over points, not samples
        estimates = [_estimate(group[m], group[f"{m}_wlow"], group[f"{m}_whigh"]) for m in kind.metrics]
        for metric, e in zip(kind.metrics, estimates):
            columns[f"{metric}_low"].append(e.low)
            columns[f"{metric}_high"].append(e.high)
        _pooled(group, kind, columns)
        if kind.pooled:  # the runs with samples, and how the quantiles' intervals were found
            first = next(iter(kind.pooled))
            repeats = int(sum(len(s) > 0 for s in group[first]))
            method = u.ACROSS_RUNS_POOLED if repeats > 1 else u.WITHIN_RUN
        else:  # the repeats of the first metric (the corrected latency has none in a closed loop)
            repeats, method = estimates[0].repeats, estimates[0].method
        columns["repeats"].append(repeats)
        columns["method"].append(method if repeats else "")
    return kind.finish(table.assign(**columns), runs, noise)
