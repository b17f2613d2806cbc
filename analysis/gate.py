"""The CI gate of a history (parse.py history --fail-on-change): which series it judges, at what confidence, and its call."""

# It judges the series whose newest sweep is the history's newest. Where the history has paired Δs (tracked.DELTAS:
# a runtime against std, a variant against its base, paired by round inside each sweep) it judges those alone: the
# machine's drift between sweeps moves both lines of a pair alike and cancels in their Δ, where it moves every
# level at once. Without them it judges the levels. The family of judged series shares one false-alarm rate,
# FAMILY, split evenly (Bonferroni): each series is judged at 1 − FAMILY / k, whether or not the series move
# together, so that a history of identical sweeps fails the gate in at most FAMILY of histories.
# A Δ is judged on its rounds: each sweep's per-round paired log ratios (the runtime's round over the same round
# of the line it is against, from the levels' own per-round values), each sweep by their median, against the
# window since the series' last change (between_sweeps.robust_predicted). The recorded Δ is their mean, which
# one disturbed round of three moves far; where a sweep lacks the rounds, the recorded Δ's verdict stands.

import math

import numpy as np
import pandas as pd

from . import between_sweeps, history, summary, tracked
from . import uncertainty as u

FAMILY = 0.05  # the share of histories of identical sweeps the gate may fail


def judged(points: pd.DataFrame) -> pd.DataFrame:
    """The rows (history_db.read's) of the series the gate judges, all their sweeps."""
    keys = points.groupby(history.SERIES, sort=False)["sweep"].transform("last")
    newest = points[keys == points["sweep"].iloc[-1]] if len(points) else points
    paired = newest[newest["against"] != ""]
    return paired if len(paired) else newest


def confidence(points: pd.DataFrame) -> float:
    """The confidence each judged series is tested at: 1 − FAMILY / (the number of judged series)."""
    count = judged(points).groupby(history.SERIES, sort=False).ngroups
    return 1 - FAMILY / max(count, 1)


def _levels(points: pd.DataFrame) -> pd.Series:
    """The levels' per-round values (history_db.read's `values`), by sweep, benchmark and measure."""
    return points[points["against"] == ""].set_index(["sweep", "benchmark", "measure"])["values"]


def rounds(s: history.Series, levels: pd.Series) -> list | None:
    """A Δ series' per-round paired log ratios, one array per sweep (levels: _levels'); None where any sweep
    lacks them or has another count than the Δ's pairs."""
    of = tracked.DELTA_OF.get(s.key[3])
    out = []
    for row in s.sweeps.itertuples():  # a loop over sweeps
        mine = levels.get((row.sweep, row.benchmark, of))
        theirs = levels.get((row.sweep, row.against + row.benchmark[len(row.runtime):], of))
        if mine is None or theirs is None or not len(mine) or not len(mine) == len(theirs) == row.repeats:
            return None
        mine, theirs = np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float)
        if not ((mine > 0) & (theirs > 0)).all():
            return None
        out.append(np.log(mine / theirs))
    return out


def _since(window: list, noise: float) -> int:
    """Where the last change before the newest sweep starts (window: the earlier sweeps' rounds): binary
    segmentation of their medians, as history.analyse finds one, called where the robust step's interval
    excludes no change by at least the noise threshold, with two sweeps after it at least; 0 without one."""
    # The step is judged by the sweeps' robust spread, not the spread within the segments the search chose (which
    # the choice makes small). One sweep after a step cannot tell a change from a disturbed sweep (a tenth of the
    # sweeps on a shared VM): it stays in the window, whose robust centre and spread look past it.
    medians = np.array([np.median(r) for r in window])
    spread, since = between_sweeps.sweep_spread(window, len(window[0])), 0
    bounds = [0, *history.candidates(medians, noise / 2), len(medians)]
    for a, at, b in zip(bounds, bounds[1:-1], bounds[2:]):
        step = between_sweeps.robust_step(window[a:at], window[at:b], spread, len(window) - 1, u.CONFIDENCE)
        if at <= len(window) - 2 and not step.contains(0) and abs(step.value) >= math.log1p(noise):
            since = at
    return since


def verdict(s: history.Series, levels: pd.Series, level: float, noise: float = u.NOISE) -> history.Change | None:
    """The gate's verdict on a series' newest sweep at confidence `level`: on its rounds for a Δ that has them
    (a ratio), else the history's own (s.newest)."""
    per_sweep = rounds(s, levels) if s.paired and s.newest is not None else None
    if per_sweep is None:
        return s.newest
    last = len(per_sweep) - 1
    since = _since(per_sweep[:last], noise)
    found = between_sweeps.robust_predicted(per_sweep[since:last], per_sweep[last], level)
    if found is None:
        return history.Change(last, None, history.TOO_FEW, s.newest.facts)
    ratio = u.Estimate(math.exp(found.value), math.exp(found.low), math.exp(found.high), found.repeats,
                       found.method, found.df)
    said = u.verdict(ratio, 1.0, noise, higher_is_slower=s.lower_is_better, no_change=1.0)
    return history.Change(last, ratio, said, s.newest.facts)


def verdicts(series: list, points: pd.DataFrame, noise: float = u.NOISE) -> list:
    """The judged series and the gate's verdict on each one's newest sweep, (series, Change), in order."""
    chosen, levels, level = set(judged(points).groupby(history.SERIES, sort=False).groups), _levels(points), \
        confidence(points)
    return [(s, c) for s in series if s.key in chosen and (c := verdict(s, levels, level, noise)) is not None]


def _words(s: history.Series, c: history.Change) -> str:
    """A call's size: a ratio judged on rounds as a per cent, a recorded Δ's shift in µs, a level's ratio."""
    if c.estimate.method == between_sweeps.ROBUST:
        return f"{100 * (c.estimate.value - 1):+.1f} % (per-round median)"
    return f"{summary.signed(c.estimate.value)} µs" if s.paired else f"×{c.estimate.value:.3f}"


def calls(series: list, points: pd.DataFrame, noise: float = u.NOISE) -> list[str]:
    """The judged series whose newest sweep starts a change, in words, with what else changed at it."""
    out = []
    for s, c in verdicts(series, points, noise):  # a loop over judged series
        if c.verdict in history.CHANGES:
            also = f"; with {', '.join(c.facts)}" if c.facts else ""
            out.append(f"{s.key[2]} {s.key[3]} {_words(s, c)} ({c.verdict}{also})")
    return out


def unknown(series: list, points: pd.DataFrame, noise: float = u.NOISE) -> int:
    """How many judged series had too few sweeps since their last change to be judged."""
    return sum(1 for _, c in verdicts(series, points, noise) if c.verdict == history.TOO_FEW)
