"""The CI gate of a history (parse.py history --fail-on-change): which series it judges, at what confidence, and its call."""

# It judges the series whose newest sweep is the history's newest. Where the history has paired Δs (tracked.DELTAS:
# a runtime against std, a variant against its base, paired by round inside each sweep) it judges those alone: the
# machine's drift between sweeps moves both lines of a pair alike and cancels in their Δ, where it moves every
# level at once. Without them it judges the levels. The family of judged series shares one false-alarm rate,
# FAMILY, split evenly (Bonferroni): each series is judged at 1 − FAMILY / k, whether or not the series move
# together, so that a history of identical sweeps fails the gate in at most FAMILY of histories.

import pandas as pd

from . import history, summary

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


def calls(series: list, points: pd.DataFrame) -> list[str]:
    """The judged series whose newest sweep starts a change, in words, with what else changed at it."""
    chosen = set(judged(points).groupby(history.SERIES, sort=False).groups)
    out = []
    for s in series:  # a loop over series
        if s.key not in chosen or s.newest is None or s.newest.verdict not in history.CHANGES:
            continue
        change = f"{summary.signed(s.newest.estimate.value)} µs" if s.paired else f"×{s.newest.estimate.value:.3f}"
        also = f"; with {', '.join(s.newest.facts)}" if s.newest.facts else ""
        out.append(f"{s.key[2]} {s.key[3]} {change} ({s.newest.verdict}{also})")
    return out


def unknown(series: list, points: pd.DataFrame) -> int:
    """How many judged series had too few sweeps since their last change to be judged."""
    chosen = set(judged(points).groupby(history.SERIES, sort=False).groups)
    return sum(1 for s in series if s.key in chosen and s.newest is not None and s.newest.verdict == history.TOO_FEW)
