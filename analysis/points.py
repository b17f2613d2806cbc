"""Repeats combined into points: each statistic's mean over the repeats, and each metric's 95 % interval."""

# A point is a kind's keys (RTT: framework, transport, payload, interval, tasks, connections, load);
# its runs are its repeats, each a fresh process. The statistics and their intervals are
# uncertainty.py's: the mean over repeats of each repeat's nearest-rank statistic with a t interval
# across them, or with one repeat the within-run interval that stats.py computed from that run's
# samples. What else a kind derives per point (RTT: Δ vs std and its verdict) is its `finish`.

import math

import numpy as np
import pandas as pd

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
    firsts = [c for c in runs.columns if c not in {*point, *means, *sums, "max", "min", "starved", "complete",
                                                  "round", "started_at", "disturbed"}]
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


def combine(runs: pd.DataFrame, kind, noise: float = u.NOISE) -> pd.DataFrame:
    """One row per point: every column of a run (means over repeats, sums of counts), and for each of
    the kind's metrics its interval (p50_low, p50_high…), `repeats` (runs with samples) and `method`;
    then what the kind's `finish` adds (RTT: Δp50 vs std paired by round and its verdict)."""
    table = _aggregate(runs, kind)
    groups = runs.groupby(list(kind.keys), sort=False)
    columns: dict[str, list] = {"repeats": [], "method": []}
    for metric in kind.metrics:
        columns[f"{metric}_low"], columns[f"{metric}_high"] = [], []
    for _, group in groups:  # a loop over points, not samples
        estimates = [_estimate(group[m], group[f"{m}_wlow"], group[f"{m}_whigh"]) for m in kind.metrics]
        for metric, e in zip(kind.metrics, estimates):
            columns[f"{metric}_low"].append(e.low)
            columns[f"{metric}_high"].append(e.high)
        first = estimates[0]  # the repeats with samples (the corrected latency has none in a closed loop)
        columns["repeats"].append(first.repeats)
        columns["method"].append(first.method if first.repeats else "")
    return kind.finish(table.assign(**columns), runs, noise)
