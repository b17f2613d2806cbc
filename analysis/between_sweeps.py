"""The spread between sweeps: how far a series of per-sweep values moves from sweep to sweep, and what it lets one call.

A sweep's own interval counts its repeats; the level of a whole sweep moves by more than that on a shared machine
(Kalibera & Jones 2013: each level of repetition has its own variance, and the sweep is the level above the
repeats). So a series is judged by the sweeps themselves, each one value (a level's logarithm, or a paired Δ as
it is), and its spread is theirs:
- the newest sweep against the sweeps before it: a prediction interval for one more value of the window,
  mean ± t(n−1) · s · √(1 + 1/n) (the textbook interval for a new observation of a normal sample);
- a step between two segments: a t interval for the difference of their means, s the spread within segments,
  pooled over every segment of the series.
Each is given on the series' own scale, as a difference (after − before).
"""

import math

import numpy as np

from suite.tdist import t_quantile

from . import uncertainty as u

# The fewest sweeps a window must have before its spread is known well enough to judge one more: with 3, t(2)
# at 99 % is 9.9 and an interval that wide calls nothing; with 4, t(3) is 5.8.
MIN_SWEEPS = 4
BETWEEN_SWEEPS = "prediction interval between sweeps"
SEGMENTS = "t between segments, spread within them"


def robust_sd(values) -> float:
    """The spread of a series from sweep to sweep, which a step does not inflate: the median absolute difference
    of successive values (of two, the smaller: a step is in one of them), scaled to a normal sd (1.4826 / √2);
    NaN with fewer than three values."""
    values = np.asarray(values, dtype=float)
    if len(values) < 3:
        return math.nan
    steps = np.abs(np.diff(values))
    return float(1.4826 * (np.median(steps) if len(steps) >= 3 else steps.min()) / math.sqrt(2))


def predicted(window, newest: float, confidence: float) -> u.Estimate | None:
    """The newest value minus the window's mean, with the prediction interval's half-width around it: the
    interval excludes 0 exactly when the newest value falls outside the window's prediction interval. None with
    fewer than MIN_SWEEPS values in the window: too few sweeps to know their spread."""
    window = np.asarray(window, dtype=float)
    n = len(window)
    if n < MIN_SWEEPS:
        return None
    shift = float(newest - window.mean())
    half = t_quantile(n - 1, confidence) * float(window.std(ddof=1)) * math.sqrt(1 + 1 / n)
    return u.Estimate(shift, shift - half, shift + half, n, BETWEEN_SWEEPS, n - 1)


def within_segments(values, bounds: list[int]) -> tuple[float, int]:
    """The sd of the values about their own segment's mean, pooled over the segments (bounds: 0, each change's
    position, len(values)), and its degrees of freedom."""
    values = np.asarray(values, dtype=float)
    parts = [values[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    df = sum(len(p) - 1 for p in parts)
    if df < 1:
        return math.nan, 0
    return math.sqrt(sum(float(((p - p.mean()) ** 2).sum()) for p in parts) / df), df


def step(before, after, sd: float, df: int, confidence: float) -> u.Estimate | None:
    """mean(after) − mean(before) with its t interval (sd, df: within_segments'); None without a spread."""
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    if df < 1 or not math.isfinite(sd) or not len(before) or not len(after):
        return None
    shift = float(after.mean() - before.mean())
    half = t_quantile(df, confidence) * sd * math.sqrt(1 / len(before) + 1 / len(after))
    return u.Estimate(shift, shift - half, shift + half, min(len(before), len(after)), SEGMENTS, df)
