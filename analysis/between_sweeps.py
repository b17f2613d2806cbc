"""The spread between sweeps: how far a series of per-sweep values moves from sweep to sweep, and what it lets one call."""

# A sweep's own interval counts its repeats; the level of a whole sweep moves by more than that on a shared machine
# (Kalibera & Jones 2013: each level of repetition has its own variance, and the sweep is the level above the
# repeats). So a series is judged by the sweeps themselves, each one value (a level's logarithm, or a paired Δ as
# it is), and its spread is theirs:
# - the newest sweep against the sweeps before it: a prediction interval for one more value of the window,
#   mean ± t · √(τ² + se² + s²/n), the level's variance between sweeps, the newest sweep's own (from its
#   repeats) and the window mean's (without sweeps' own intervals, the textbook mean ± t(n−1) · s · √(1 + 1/n));
# - a step between two segments: a t interval for the difference of their means, s the spread within segments,
#   pooled over every segment of the series.
# Each is given on the series' own scale, as a difference (after − before).

import math

import numpy as np

from suite.tdist import t_quantile

from . import uncertainty as u

# The fewest sweeps a window must have before its spread is known well enough to judge one more: with 3, t(2)
# at 99 % is 9.9 and an interval that wide calls nothing; with 4, t(3) is 5.8.
MIN_SWEEPS = 4
BETWEEN_SWEEPS = "prediction interval between sweeps"
SEGMENTS = "t between segments, spread within them"
ROBUST = "robust prediction interval between sweeps, from their rounds"
MAD_SD = 1.4826  # a median absolute deviation scaled to a normal sd


def robust_sd(values) -> float:
    """The spread of a series from sweep to sweep, which a step does not inflate: the median absolute difference
    of successive values (of two, the smaller: a step is in one of them), scaled to a normal sd (1.4826 / √2);
    NaN with fewer than three values."""
    values = np.asarray(values, dtype=float)
    if len(values) < 3:
        return math.nan
    steps = np.abs(np.diff(values))
    return float(1.4826 * (np.median(steps) if len(steps) >= 3 else steps.min()) / math.sqrt(2))


def own_se(low, high, repeats, logs: bool) -> np.ndarray:
    """Each sweep's standard error of its own value, on the series' scale, from its 95 % interval's width and
    the t quantile of its repeats (NaN where the interval is open or there is one repeat)."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    repeats = np.asarray(repeats, dtype=int)
    with np.errstate(invalid="ignore", divide="ignore"):
        width = np.log(high) - np.log(low) if logs else high - low
    quantile = np.array([t_quantile(r - 1, u.CONFIDENCE) if r >= 2 else math.nan for r in repeats])
    return np.where(np.isfinite(width) & (width > 0), width / (2 * quantile), math.nan)


def predicted(window, newest: float, confidence: float, window_se=None, newest_se: float = math.nan,
              newest_df: int = 0) -> u.Estimate | None:
    """The newest value minus the window's mean, with the prediction interval's half-width around it: the
    interval excludes 0 exactly when the newest value falls outside it. None with fewer than MIN_SWEEPS values."""
    # Sweeps and their repeats as two levels (Kalibera & Jones): the window's spread s² is the sweeps' own
    # variance (their repeats', the mean of window_se²) plus the level's between sweeps, τ² = s² − that (never
    # below 0). A new sweep varies by τ² and by its own repeats' variance, newest_se² where its interval gives it
    # (else a window sweep's), and the window's mean by s²/n; the t quantile's degrees of freedom are
    # Welch–Satterthwaite's for that sum (n − 1 for the window, newest_df for the newest sweep's repeats). Without
    # any sweep's own interval it is the textbook mean ± t(n−1) · s · √(1 + 1/n).
    window = np.asarray(window, dtype=float)
    n = len(window)
    if n < MIN_SWEEPS:
        return None
    spread = float(window.var(ddof=1))
    se = np.asarray(window_se if window_se is not None else [math.nan] * n, dtype=float)
    within = float(np.mean(se[np.isfinite(se)] ** 2)) if np.isfinite(se).any() else 0.0
    level = max(spread - within, 0.0) + spread / n
    own, own_df = (newest_se**2, newest_df) if math.isfinite(newest_se) and newest_df >= 1 else (within, n - 1)
    total = level + own
    df = total**2 / (level**2 / (n - 1) + own**2 / own_df) if total > 0 else n - 1
    shift = float(newest - window.mean())
    half = t_quantile(max(int(df), 1), confidence) * math.sqrt(total)
    return u.Estimate(shift, shift - half, shift + half, n, BETWEEN_SWEEPS, max(int(df), 1))


def median_factor(k: int) -> float:
    """The variance of the median of k normal values in units of one's: 1/k for one or two, π/(2k) from three
    on (its large-sample value; for three, 0.52 against the exact 0.45: a little wide)."""
    return 1 / k if k <= 2 else math.pi / (2 * k)


def sweep_spread(window: list, k: int) -> float:
    """The variance of one sweep's median of k rounds (window: each sweep's rounds): the window medians' own
    spread (their MAD), never below what the rounds' spread implies for a median of k (median_factor)."""
    medians = np.array([np.median(r) for r in window], dtype=float)
    between = (MAD_SD * float(np.median(np.abs(medians - np.median(medians))))) ** 2
    pairs = np.concatenate([np.subtract.outer(r, r)[np.triu_indices(len(r), 1)] for r in map(np.asarray, window)])
    rounds = (MAD_SD * float(np.median(np.abs(pairs)))) ** 2 / 2 if len(pairs) else 0.0
    return max(between, median_factor(k) * rounds)


def robust_predicted(window: list, newest, confidence: float) -> u.Estimate | None:
    """The newest sweep's median of its rounds (window: each earlier sweep's rounds) minus the median of the
    window's sweep medians, with a robust prediction interval; None with fewer than MIN_SWEEPS sweeps."""
    # Two levels, each estimated robustly, so that one disturbed round or sweep neither widens the interval for
    # the rest nor, as the newest, is taken for a change: a sweep's median varies by sweep_spread (between
    # sweeps, from their MAD; within one, from its rounds' pairwise differences, pooled); the window's centre,
    # a median of n, by median_factor(n) of that; t with n − 1 df, the sweeps the spread is learnt from.
    n = len(window)
    if n < MIN_SWEEPS:
        return None
    centre = float(np.median([np.median(r) for r in window]))
    shift = float(np.median(newest)) - centre
    half = t_quantile(n - 1, confidence) * math.sqrt(sweep_spread(window, len(newest)) * (1 + median_factor(n)))
    return u.Estimate(shift, shift - half, shift + half, n, ROBUST, n - 1)


def robust_step(before: list, after: list, spread: float, df: int, confidence: float) -> u.Estimate:
    """The median of after's sweep medians minus before's (each a list of sweeps' rounds), with its interval
    from sweep_spread's `spread` and t with `df` degrees of freedom."""
    shift = float(np.median([np.median(r) for r in after]) - np.median([np.median(r) for r in before]))
    half = t_quantile(max(df, 1), confidence) * math.sqrt(spread * (median_factor(len(before))
                                                                    + median_factor(len(after))))
    return u.Estimate(shift, shift - half, shift + half, min(len(before), len(after)), ROBUST, df)


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
