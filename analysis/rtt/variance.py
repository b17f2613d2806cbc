"""Where a point's spread comes from: within a run (its samples), between runs, what a round shares and what a block shares."""

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
#   within part: a fresh process, its heap, its placement, its interrupts;
# - block: what every framework of one setting (the point but its framework) shares in one round, by the
#   same method on each setting's table frameworks × rounds: log q = point + block(setting, round) + run.
#   It holds the round part, and under ORDER=blocks, whose block of a setting runs back to back, also the
#   drift of the seconds it took; under ORDER=rounds that drift falls into between instead.
# A Δ vs std pairs the runs of one setting and round, so it cancels the block part (ORDER=blocks) or
# only what a round and a setting share (ORDER=rounds); a comparison of two sweeps cancels nothing.
# The sd of the paired Δ (log runtime − log std in the same round) beside an unpaired one's (the two
# points' variances added) shows what the pairing bought.

import io
import math

import numpy as np
import pandas as pd

from suite import fmt

from ..summary import aligned, markdown_table
from suite.palette import is_reference
from suite.runtimes import BASELINE

from ..uncertainty import CONFIDENCE, z_quantile
from .runs import KEYS, SETTING

METRICS = ("p50", "p99")
PARTS = ("total", "within", "between", "round", "block")
DELTAS = ("delta_sd_paired", "delta_sd_unpaired")  # of log p50, runtime − std at the same setting
SDS = [*(f"{m}_sd_{part}" for m in METRICS for part in PARTS), *DELTAS]
CSV_COLUMNS = [*KEYS, "repeats", *SDS]  # a point's keys: suite/dimensions.py's among them
NOTE = ("sd of log p50 / p99 across the repeats (0.05 ≈ 5 %): total = what the t interval sees; within = one "
        "run's own sampling error (its samples); between = fresh process to fresh process in one round; round "
        "= what every point of a round shares, sweep-wide; block = what the frameworks of one setting share in "
        "one round (round included), per setting. total² ≈ within² + between² + round², each estimated apart, so "
        "the sum need not match exactly. Δ paired / unpaired = sd of log p50 runtime − std, paired in the same "
        "round (and block) / as if unpaired")
ORDER_NOTE = {
    "blocks": "ORDER=blocks: each setting's frameworks ran back to back in a round, so a paired Δ cancels the "
              "block part, drift of those seconds included",
    "rounds": "ORDER=rounds (or a sweep.json from before ORDER): a setting's frameworks ran spread over their "
              "round, so a paired Δ cancels only what round and setting share; drift within seconds stays in between",
}


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


def block_share(table: pd.DataFrame) -> pd.Series:
    """Each point's block variance, its setting's (log scale, ≥ 0; NaN below two frameworks or two rounds):
    the method of moments on the setting's two-way table frameworks × rounds, over the rounds in which
    every framework of it ran. `table`: rows the points (indexed by KEYS), columns the rounds."""
    setting = [table.index.get_level_values(name) for name in SETTING]
    complete = table.notna().groupby(setting).transform("all")
    cells = table.where(complete)
    centred = cells.sub(cells.mean(axis=1), axis=0)
    offsets = centred.groupby(setting).transform("mean")  # each block's shared shift, on each of its rows
    residual = centred - offsets
    frameworks = pd.Series(1.0, index=table.index).groupby(setting).transform("sum")
    rounds = complete.sum(axis=1).astype(float)
    usable = (frameworks >= 2) & (rounds >= 2)
    ms_block = frameworks * (offsets**2).sum(axis=1) / (rounds - 1).where(usable)
    ms_resid = ((residual**2).sum(axis=1).groupby(setting).transform("sum")
                / ((frameworks - 1) * (rounds - 1)).where(usable))
    return ((ms_block - ms_resid) / frameworks).clip(lower=0)


def delta_spreads(table: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Each runtime point's sd of log runtime − log std at its setting: paired round by round, and as if
    unpaired (the two points' variances added), over the rounds both ran; NaN for std, the references and
    a point whose setting std did not run."""
    framework = table.index.get_level_values("framework")
    std = table[framework == BASELINE].droplevel("framework")
    base = std.reindex(table.index.droplevel("framework")).set_axis(table.index)
    diffs = table - base
    paired = diffs.std(axis=1, ddof=1)
    unpaired = np.sqrt(table.where(diffs.notna()).var(axis=1) + base.where(diffs.notna()).var(axis=1))
    runtime = (framework != BASELINE) & ~framework.map(is_reference).to_numpy(dtype=bool)
    return paired.where(runtime), unpaired.where(runtime)


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
        out[f"{metric}_sd_block"] = np.sqrt(block_share(table))
        if metric == "p50":
            out[DELTAS[0]], out[DELTAS[1]] = delta_spreads(table)
    out = out[out["repeats"] >= 2]
    return out.reset_index()


def _sd(value: float) -> str:
    return "–" if pd.isna(value) else f"{value:.3f}"


def _layout(table: pd.DataFrame, order: str | None) -> tuple[list[str], list[list[str]], list[str]]:
    headers = ["framework", "transport", "size B", "target msg/s", "tasks", "repeats",
               *(f"{m} {part}" for m in METRICS for part in PARTS), "Δ paired", "Δ unpaired"]
    body = [[r.framework, r.transport, str(r.payload), fmt.rate_label(r.interval_s), str(r.tasks), str(r.repeats),
             *(_sd(getattr(r, f"{m}_sd_{part}")) for m in METRICS for part in PARTS),
             *(_sd(getattr(r, column)) for column in DELTAS)]
            for r in table.itertuples()]
    medians = [f"median over points: {m} " + ", ".join(f"{part} {_sd(table[f'{m}_sd_{part}'].median())}"
                                                        for part in PARTS) for m in METRICS]
    medians.append(f"median over runtime points: Δ paired {_sd(table[DELTAS[0]].median())}, "
                   f"Δ unpaired {_sd(table[DELTAS[1]].median())}")
    return headers, body, [NOTE, *([ORDER_NOTE[order]] if order in ORDER_NOTE else []), *medians]


def text(table: pd.DataFrame, order: str | None = None) -> str:
    """`order`: the sweep's ORDER (analysis.sweep.order), said under the table; None: not known."""
    return aligned(*_layout(table, order))


def markdown(table: pd.DataFrame, order: str | None = None) -> str:
    return markdown_table(*_layout(table, order))


def csv(table: pd.DataFrame) -> str:
    out = table.reindex(columns=CSV_COLUMNS).copy()
    out["interval_s"] = out["interval_s"].map(fmt.plain)
    for column in SDS:
        out[column] = out[column].astype(float).round(4)
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
