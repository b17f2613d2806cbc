"""Repeats combined into points: each statistic's mean with its 95 % interval, and Δ vs std with a verdict."""

# A point is (framework, transport, payload, interval, tasks, connections, load) (throughput:
# framework, transport, payload, tasks); its runs are its repeats, each a fresh process. The
# statistics and their intervals are uncertainty.py's: the mean over repeats of each repeat's
# nearest-rank statistic with a t interval across them, or with one repeat the within-run interval
# that stats.py computed from that run's samples. The corrected latency (open load) is one more.

import math

import numpy as np
import pandas as pd

from . import style
from . import uncertainty as u

MISSED_BY = 0.05  # an achieved rate this far below the target is flagged

# Given an interval; p5, p90, p95 and the rest are plain means over repeats.
RTT_METRICS = ("p50", "p99", "p999", "latency_p99")
THROUGHPUT_METRICS = ("msg_per_s_p50", "gbit_per_s_p50")


def keys(kind: str) -> list[str]:
    """The columns that name a point."""
    if kind == "rtt":
        return ["framework", "transport", "payload", "interval_s", "tasks", "connections", "load"]
    return ["framework", "transport", "payload", "tasks"]


def metrics(kind: str) -> tuple[str, ...]:
    return RTT_METRICS if kind == "rtt" else THROUGHPUT_METRICS


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


def _aggregate(runs: pd.DataFrame, kind: str) -> pd.DataFrame:
    """One row per point, in the runs' display order: means, sums and the first of each fact."""
    point = keys(kind)
    if kind == "rtt":
        means = ["p5", "p50", "p90", "p95", "p99", "p999", "p9999", "mean", "achieved_rate", "latency_p50",
                 "latency_p99", "latency_p999", "conn_p50_min", "conn_p50_max", "conn_p99_min", "conn_p99_max"]
        sums = ["n", "lost"]
    else:
        means = [f"{q}_{s}" for q in ("msg_per_s", "gbit_per_s") for s in ("mean", "p5", "p50", "p95")]
        sums = ["windows", "sent", "received", "lost"]
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
    if kind == "rtt":  # starved: the most connections that starved in any repeat (None: not recorded)
        extremes = runs[["min", "max", "starved"]].apply(pd.to_numeric, errors="coerce")
        table = table.join(extremes.groupby([runs[c] for c in point], sort=False).agg(
            {"min": "min", "max": "max", "starved": "max"}))
    table = table.reset_index()
    if kind == "rtt":
        achieved, target = table["achieved_rate"].astype(float), table["target_rate"].astype(float)
        table["missed_rate"] = np.isfinite(target) & (achieved < (1 - MISSED_BY) * target)
    return table


def combine(runs: pd.DataFrame, kind: str = "rtt", noise: float = u.NOISE) -> pd.DataFrame:
    """One row per point: every column of a run (means over repeats, sums of counts), and for each
    metric its interval (p50_low, p50_high…), `repeats` (runs with samples) and `method`; for RTT,
    Δp50 vs std paired by round (delta_p50, delta_p50_low, delta_p50_high, pairs) and `verdict`."""
    table = _aggregate(runs, kind)
    point = keys(kind)
    groups = runs.groupby(point, sort=False)
    columns: dict[str, list] = {"repeats": [], "method": []}
    for metric in metrics(kind):
        columns[f"{metric}_low"], columns[f"{metric}_high"] = [], []
    for _, group in groups:  # a loop over points, not samples
        estimates = [_estimate(group[m], group[f"{m}_wlow"], group[f"{m}_whigh"]) for m in metrics(kind)]
        for metric, e in zip(metrics(kind), estimates):
            columns[f"{metric}_low"].append(e.low)
            columns[f"{metric}_high"].append(e.high)
        first = estimates[0]  # the repeats with samples (the corrected latency has none in a closed loop)
        columns["repeats"].append(first.repeats)
        columns["method"].append(first.method if first.repeats else "")
    table = table.assign(**columns)
    return _with_deltas(table, runs, noise) if kind == "rtt" else table


def _with_deltas(table: pd.DataFrame, runs: pd.DataFrame, noise: float) -> pd.DataFrame:
    """Δp50 = runtime − std at the same transport, payload, interval, tasks, connections and load,
    paired by round (rounds both measured), with its t interval, a verdict and the minimum
    detectable Δ (mde_p50, ns; NaN with one pair); empty for std and references."""
    point = keys("rtt")
    per_round = runs.groupby([*point, "round"], sort=False)["p50"].mean().dropna()
    rounds = {key: group.droplevel(point) for key, group in per_round.groupby(level=point, sort=False)}
    p50_of = dict(zip(table[point].itertuples(index=False, name=None), table["p50"]))
    values = {c: [] for c in ("delta_p50", "delta_p50_low", "delta_p50_high", "pairs", "verdict", "mde_p50",
                                "mde_p50_pct")}
    for key in table[point].itertuples(index=False, name=None):  # a loop over points
        base = (style.BASELINE, *key[1:])
        mine, theirs = rounds.get(key), rounds.get(base)
        if key[0] == style.BASELINE or style.is_reference(key[0]) or theirs is None:
            change, pairs, call = None, 0, ""
        else:
            common = mine.index.intersection(theirs.index) if mine is not None else []
            pairs = len(common)
            change = u.paired_difference(mine[common], theirs[common]) if pairs else None
            call = u.verdict(change, p50_of[base], noise) if change else "unknown"
        values["delta_p50"].append(change.value if change else math.nan)
        values["delta_p50_low"].append(change.low if change else math.nan)
        values["delta_p50_high"].append(change.high if change else math.nan)
        values["pairs"].append(pairs)
        values["verdict"].append(call)
        # The smallest Δ this sweep could have called: its test's, and never below the noise threshold.
        mde = max(u.detectable(change), noise * p50_of[base]) if change else math.nan
        values["mde_p50"].append(mde)
        values["mde_p50_pct"].append(100 * mde / p50_of[base] if change else math.nan)
    return table.assign(**values)
