"""A point's quantiles from all its runs' samples pooled, their intervals by resampling whole runs, and
the rule that refuses a quantile its samples cannot carry."""

# A point's q-quantile is the nearest-rank quantile of its runs' samples pooled, each run weighted
# equally whatever its count (a run is the unit of repetition: one fresh process pair): the smallest
# sample at which the runs' mean ECDF reaches q. With runs of equal size it is suite/percentile.py's
# nearest rank of the pooled samples, to the sample.
#
# Its 95 % interval resamples whole rounds (Kalibera & Jones 2013, §5: resample every level that
# varies). A point has one run per round, and under ORDER=blocks a round's runs of one setting ran back
# to back, so resampling rounds resamples the blocks; a difference between two runtimes resamples the
# rounds they share, both sides with the same draw, which keeps each pair together as the Δp50's
# signed-rank test does. A replicate's quantile is read from the runs' ECDFs on a grid of the pooled
# samples (every one up to GRID, else GRID ranks, dense in both tails), so a replicate costs one matrix
# product, not a sort. The interval is the replicates' 2.5 and 97.5 % percentiles. One run keeps the
# order-statistic interval of its own samples.
#
# Refusal: a q-quantile needs uncertainty.min_samples(q) samples (effective ones, see effective_n), or it is
# not printed (docs/analysis.md, "Which quantiles are printed").

import math
from dataclasses import dataclass

import numpy as np

from suite.tdist import t_quantile

from . import uncertainty as u

BOOTSTRAP = 1000  # replicates: the 2.5 % tail is the 25th of them
GRID = 4096  # ECDF points a replicate's quantiles are read from
SEED = 39  # the replicates are drawn the same way every time: a table does not change when read again
_CHUNK = 250  # replicates per matrix product: 250 × GRID floats at a time
_EPS = 1e-9  # cumulative weights are sums of floats: a rank exactly at q must count as reaching it


@dataclass(frozen=True)
class Refused:
    """Why a quantile is not printed: its point's (effective) sample count and the count it needs."""

    n: int
    needed: int
    name: str  # p99

    def __str__(self) -> str:
        return f"n = {self.n}: too few for {label(self.name)}"


def label(name: str) -> str:
    """A quantile's column name as people read it: p999 → p99.9, latency_p9999 → latency p99.99."""
    prefix, _, digits = name.rpartition("p")
    shown = digits[:2] + ("." + digits[2:] if len(digits) > 2 else "")
    return f"{prefix.replace('_', ' ')}p{shown}"


def effective_n(sizes) -> int:
    """How many samples runs of these sizes are worth when each run weighs the same: R² / Σ 1/n_r, R times
    the sizes' harmonic mean (Kish's effective sample size); the plain total when the sizes are equal."""
    sizes = np.asarray([s for s in sizes if s > 0], dtype=np.float64)
    if len(sizes) == 0:
        return 0
    return int(math.floor(len(sizes) ** 2 / np.sum(1.0 / sizes) + 1e-6))


def carried(sizes, q: float) -> bool:
    return effective_n(sizes) >= u.min_samples(q)


def _pooled(runs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The runs' samples pooled and sorted, and the weighted ECDF at each (each run weighing 1/R)."""
    values = np.concatenate(runs)
    weights = np.concatenate([np.full(len(r), 1.0 / (len(runs) * len(r))) for r in runs])
    order = np.argsort(values, kind="stable")
    return values[order], np.cumsum(weights[order])


def _at(cumulative: np.ndarray, ps) -> np.ndarray:
    """The index of the first pooled sample at which the weighted ECDF reaches each p."""
    return np.searchsorted(cumulative, np.asarray(ps, dtype=np.float64) - _EPS, side="left")


def pooled_quantiles(runs: list[np.ndarray], qs) -> np.ndarray:
    """The nearest-rank q-quantiles (0–1) of sorted runs pooled, each run weighted 1/R: for each q the
    smallest sample at which the weighted ECDF reaches q."""
    values, cumulative = _pooled(runs)
    return values[np.minimum(_at(cumulative, qs), len(values) - 1)].astype(np.float64)


def woodruff(runs: list[np.ndarray], qs, confidence: float = u.CONFIDENCE) -> tuple[np.ndarray, ...]:
    """The pooled q-quantiles and their 95 % intervals by Woodruff's method for clustered samples (Woodruff
    1952; Francisco & Fuller 1991): the pooled ECDF at the estimate is the mean of the runs' own ECDFs there,
    so its standard error comes from their spread across runs (drift and sampling alike); the interval
    q ± t(R−1)·se in probability is read back through the pooled ECDF, one sample further out at each end
    (the ECDF is a step function: at one sample a run, the nearest step alone covers 92 %). Returns
    (values, lows, highs, inside): `inside` False where an end falls beyond the samples (refused).
    Its coverage on synthetic sweeps with a known truth: docs/analysis.md, python3 -m analysis.tests.coverage."""
    # Where runs drift, the runs' ECDF values at a p99 are very skewed (the slowest few runs hold most of the
    # tail), and this t interval of their mean covers a p99 0.92–0.93 at 80 runs, 0.90–0.92 at 14 (most misses
    # below the truth). Hall's skewness correction (1992) leaves a third (80 runs) to three quarters (14) of p99s
    # with an end beyond the samples and still covers < 0.93; a logit scale moves the interval the wrong way at
    # the estimate. Neither is used.
    values, cumulative = _pooled(runs)
    qs = np.asarray(qs, dtype=np.float64)
    at = np.minimum(_at(cumulative, qs), len(values) - 1)
    estimate = values[at].astype(np.float64)
    own = np.stack([np.searchsorted(r, estimate, side="right") / len(r) for r in runs])  # a loop over runs
    half = t_quantile(len(runs) - 1, confidence) * own.std(axis=0, ddof=1) / math.sqrt(len(runs))
    low_at, high_at = _at(cumulative, qs - half) - 1, _at(cumulative, qs + half) + 1
    inside = (low_at >= 0) & (high_at <= len(values) - 1)
    last = len(values) - 1
    return (estimate, values[np.clip(low_at, 0, last)].astype(np.float64),
            values[np.clip(high_at, 0, last)].astype(np.float64), inside)


def _grid(runs: list[np.ndarray]) -> np.ndarray:
    """The values a replicate's ECDF is read at: every distinct sample, or GRID of them at ranks spread
    evenly and geometrically towards both ends, where the tail quantiles lie."""
    pooled = np.sort(np.concatenate(runs))
    if len(pooled) <= GRID:
        return np.unique(pooled)
    n = len(pooled)
    tail = np.geomspace(1, n, GRID // 4)
    ranks = np.concatenate([np.linspace(0, n - 1, GRID // 2), tail - 1, n - tail])
    return np.unique(pooled[np.clip(ranks.astype(np.int64), 0, n - 1)])


def _ecdfs(runs: list[np.ndarray], grid: np.ndarray) -> np.ndarray:
    """Each run's ECDF at the grid: R × G."""
    return np.stack([np.searchsorted(r, grid, side="right") / len(r) for r in runs])  # a loop over runs


def _draws(rounds: int, replicates: int, seed: int) -> np.ndarray:
    """How often each round is drawn in each replicate: replicates × rounds counts, each row summing to rounds."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, rounds, size=(replicates, rounds))
    return np.apply_along_axis(np.bincount, 1, picks, minlength=rounds).astype(np.float64)


def _replicates(cdf: np.ndarray, grid: np.ndarray, draws: np.ndarray, qs) -> np.ndarray:
    """Each replicate's q-quantiles: the first grid value where its mean ECDF reaches q; replicates × len(qs)."""
    out = np.empty((len(draws), len(qs)))
    for start in range(0, len(draws), _CHUNK):
        mixed = draws[start:start + _CHUNK] @ cdf / cdf.shape[0]
        for j, q in enumerate(qs):
            out[start:start + _CHUNK, j] = grid[np.argmax(mixed >= q - _EPS, axis=1)]
    return out


def _percentile_interval(replicates: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    tail = 100 * (1 - confidence) / 2
    return np.percentile(replicates, tail, axis=0), np.percentile(replicates, 100 - tail, axis=0)


def estimates(runs: list[np.ndarray], quantiles: dict[str, float],
              confidence: float = u.CONFIDENCE) -> dict[str, u.Estimate | Refused]:
    """name → the point's estimate of each quantile of `quantiles` (name → q) from its runs' sorted samples
    (empty runs left out): the pooled quantile with Woodruff's interval across runs, or one run's with its
    order-statistic interval; a Refused where the samples cannot carry it; {} without samples."""
    runs = [r for r in runs if len(r)]
    if not runs:
        return {}
    n = effective_n([len(r) for r in runs])
    out: dict[str, u.Estimate | Refused] = {
        name: Refused(n, u.min_samples(q), name) for name, q in quantiles.items() if n < u.min_samples(q)}
    wanted = {name: q for name, q in quantiles.items() if name not in out}
    if not wanted:
        return out
    if len(runs) == 1:
        return out | {name: u.within_run_quantile(runs[0], q, confidence) for name, q in wanted.items()}
    values, lows, highs, inside = woodruff(runs, list(wanted.values()), confidence)
    for j, name in enumerate(wanted):
        # Enough samples, but runs that differ more than their number can bound: the quantile is carried, its
        # interval is not (it reaches past the samples), and is left open (NaN) rather than cut at them.
        low, high = (float(lows[j]), float(highs[j])) if inside[j] else (math.nan, math.nan)
        out[name] = u.Estimate(float(values[j]), low, high, len(runs), u.ACROSS_RUNS_POOLED)
    return out


def paired_difference(mine: list[np.ndarray], theirs: list[np.ndarray], quantiles: dict[str, float],
                      confidence: float = u.CONFIDENCE, replicates: int = BOOTSTRAP) -> dict[str, u.Estimate | Refused]:
    """name → the difference of each quantile between two points over the rounds both measured (mine[i] and
    theirs[i] ran in one round; empty runs drop their pair): pooled(mine) − pooled(theirs) with the interval
    of the replicates that draw the same rounds on both sides. A Refused where either side cannot carry the
    quantile; one pair: the bare difference with no interval (its spread across rounds is unknown)."""
    pairs = [(a, b) for a, b in zip(mine, theirs, strict=True) if len(a) and len(b)]
    if not pairs:
        return {}
    a_runs, b_runs = [a for a, _ in pairs], [b for _, b in pairs]
    n = min(effective_n([len(r) for r in a_runs]), effective_n([len(r) for r in b_runs]))
    out: dict[str, u.Estimate | Refused] = {
        name: Refused(n, u.min_samples(q), name) for name, q in quantiles.items() if n < u.min_samples(q)}
    wanted = {name: q for name, q in quantiles.items() if name not in out}
    if not wanted:
        return out
    qs = list(wanted.values())
    values = pooled_quantiles(a_runs, qs) - pooled_quantiles(b_runs, qs)
    if len(pairs) == 1:
        return out | {name: u.Estimate(float(values[j]), math.nan, math.nan, 1, u.WITHIN_RUN)
                      for j, name in enumerate(wanted)}
    draws = _draws(len(pairs), replicates, SEED)
    grid_a, grid_b = _grid(a_runs), _grid(b_runs)
    spread = (_replicates(_ecdfs(a_runs, grid_a), grid_a, draws, qs)
              - _replicates(_ecdfs(b_runs, grid_b), grid_b, draws, qs))
    low, high = _percentile_interval(spread, confidence)
    for j, name in enumerate(wanted):
        out[name] = u.Estimate(float(values[j]), min(float(low[j]), values[j]), max(float(high[j]), values[j]),
                               len(pairs), u.RESAMPLED, len(pairs) - 1)
    return out
