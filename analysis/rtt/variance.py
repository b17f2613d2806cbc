"""Where a point's spread comes from: within a run (its samples), between the runs of a round, and what a round shares."""

# Each run's p50 (p99) is read on a log scale, so that every component is a relative spread (a
# standard deviation of 0.05 is about 5 %) and points of 30 µs and 3 ms can be read side by side.
# The model is additive, after Kalibera & Jones (2013): log q[point, round] = point + round + run,
# and each run's value also carries its own sampling error. The parts:
# - within: the sampling error of one run's quantile, from the order-statistics interval of its
#   own samples (the half-width over z(97.5 %)), averaged over the point's runs;
# - round: what every point of a round shares (the machine was busier in that round), the variance
#   of the rounds' mean offsets across all the points measured in every round, less what their
#   runs' own scatter puts into those means (Searle's method of moments for a two-way table);
# - between: what is left of each point's scatter around its point and round means, less the
#   within part: a fresh process, its heap, its placement, its interrupts.
# A Δ paired by round cancels the round part; a comparison of two sweeps does not.

import io
import math

import numpy as np
import pandas as pd

from suite import fmt

from ..summary import aligned, markdown_table
from ..uncertainty import CONFIDENCE, z_quantile
from .runs import KEYS

METRICS = ("p50", "p99")
PARTS = ("total", "within", "between", "round")
CSV_COLUMNS = ["framework", "transport", "payload", "interval_s", "tasks", "connections", "load", "repeats",
               *(f"{m}_sd_{part}" for m in METRICS for part in PARTS)]
NOTE = ("sd of log p50 / p99 across the repeats (0.05 ≈ 5 %): total = what the t interval sees; within = one "
        "run's own sampling error (its samples); between = fresh process to fresh process in one round; round "
        "= what every point of a round shares (paired Δs cancel it), sweep-wide. total² ≈ within² + between² + "
        "round², each estimated apart, so the sum need not match exactly")


def _round_share(table: pd.DataFrame) -> tuple[float, pd.DataFrame]:
    """The round component's variance (sweep-wide, ≥ 0) and the residuals of the additive fit, from
    the points measured in every round of `table` (rows: points, columns: rounds, log values)."""
    full = table.dropna()
    if full.shape[0] < 2 or full.shape[1] < 2:
        return math.nan, table.sub(table.mean(axis=1), axis=0)
    rows, cols = full.shape
    centred = full.sub(full.mean(axis=1), axis=0)
    offsets = centred.mean(axis=0)  # each round's shared offset
    residual = centred.sub(offsets, axis=1)
    ms_round = rows * float((offsets**2).sum()) / (cols - 1)
    ms_resid = float((residual**2).to_numpy().sum()) / ((rows - 1) * (cols - 1))
    share = max(0.0, (ms_round - ms_resid) / rows)
    # Every point's residuals, its own rounds' offsets taken out (a point may lack a round).
    return share, table.sub(table.mean(axis=1), axis=0).sub(offsets.reindex(table.columns).fillna(0.0), axis=1)


def components(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per point with two repeats or more: each metric's standard deviations (log scale)."""
    point = list(KEYS)
    z = z_quantile(CONFIDENCE)
    out = runs[point].drop_duplicates().set_index(point)
    out["repeats"] = runs.groupby(point, sort=False)[METRICS[0]].count()
    for metric in METRICS:
        values = pd.to_numeric(runs[metric], errors="coerce")
        logs = np.log(values.where(values > 0))
        low = pd.to_numeric(runs[f"{metric}_wlow"], errors="coerce")
        high = pd.to_numeric(runs[f"{metric}_whigh"], errors="coerce")
        sampling = ((np.log(high.where(high > 0)) - np.log(low.where(low > 0))) / (2 * z)) ** 2
        frame = runs[point].assign(log=logs, sampling=sampling, round=runs["round"])
        grouped = frame.groupby(point, sort=False)
        total = grouped["log"].var()
        within = grouped["sampling"].mean()
        table = frame.pivot_table(index=point, columns="round", values="log", aggfunc="mean", sort=False)
        share, residual = _round_share(table)
        counts = table.notna().sum(axis=1)
        # Residual variance per point: its scatter around point and round means (df: its rounds − 2).
        scatter = (residual**2).sum(axis=1) / (counts - 2).where(counts > 2)
        between = (scatter - within.reindex(scatter.index)).clip(lower=0)
        out[f"{metric}_sd_total"] = np.sqrt(total)
        out[f"{metric}_sd_within"] = np.sqrt(within)
        out[f"{metric}_sd_between"] = np.sqrt(between)
        out[f"{metric}_sd_round"] = math.sqrt(share) if not math.isnan(share) else math.nan
    out = out[out["repeats"] >= 2]
    return out.reset_index()


def _sd(value: float) -> str:
    return "–" if pd.isna(value) else f"{value:.3f}"


def _layout(table: pd.DataFrame) -> tuple[list[str], list[list[str]], list[str]]:
    headers = ["framework", "transport", "size B", "target msg/s", "tasks", "repeats",
               *(f"{m} {part}" for m in METRICS for part in PARTS)]
    body = [[r.framework, r.transport, str(r.payload), fmt.rate_label(r.interval_s), str(r.tasks), str(r.repeats),
             *(_sd(getattr(r, f"{m}_sd_{part}")) for m in METRICS for part in PARTS)]
            for r in table.itertuples()]
    medians = [f"median over points: {m} " + ", ".join(f"{part} {_sd(table[f'{m}_sd_{part}'].median())}"
                                                        for part in PARTS) for m in METRICS]
    return headers, body, [NOTE, *medians]


def text(table: pd.DataFrame) -> str:
    return aligned(*_layout(table))


def markdown(table: pd.DataFrame) -> str:
    return markdown_table(*_layout(table))


def csv(table: pd.DataFrame) -> str:
    out = table.reindex(columns=CSV_COLUMNS).copy()
    out["interval_s"] = out["interval_s"].map(fmt.plain)
    for column in CSV_COLUMNS[8:]:
        out[column] = out[column].astype(float).round(4)
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
