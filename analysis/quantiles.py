"""A point's quantiles from all its runs' samples pooled, their intervals across runs, and the rule that refuses
a quantile its samples cannot carry."""

# A point's q-quantile is the nearest-rank quantile of its runs' samples pooled, each run weighted equally whatever
# its count (the run, one fresh process pair, is the unit of repetition): the smallest sample at which the runs'
# mean ECDF reaches q. Its interval is Woodruff's across the runs (woodruff), a difference's pairs the rounds
# (paired_deltas); one run keeps the order-statistic interval of its own samples. A quantile its samples cannot
# carry (suite.percentile.min_samples) is refused. The method, its sources and its coverage: docs/analysis.md,
# "Repeats, intervals and verdicts" and "How often the intervals cover the truth".

import math
from dataclasses import dataclass

import numpy as np

from suite import percentile
from suite.tdist import t_quantile

from . import uncertainty as u

_EPS = 1e-9  # cumulative weights are sums of floats: a rank exactly at q must count as reaching it


@dataclass(frozen=True)
class Refused:
    """Why a quantile is not printed: its point's (effective) sample count and the count it needs."""

    n: int
    needed: int
    name: str  # p99
    total: int | None = None  # the samples counted plainly, where runs of unequal size make n smaller

    def __str__(self) -> str:
        counted = f"n_eff = {self.n}" if self.total not in (None, self.n) else f"n = {self.n}"
        return f"{counted}: too few for {label(self.name)}"


def label(name: str) -> str:
    """A quantile's column name as people read it: p999 → p99.9, latency_p9999 → latency p99.99."""
    prefix, _, digits = name.rpartition("p")
    shown = digits[:2] + ("." + digits[2:] if len(digits) > 2 else "")
    return f"{prefix.replace('_', ' ')}p{shown}"


effective_n, carried = percentile.effective_n, percentile.carried  # one rule for the sweep and the analysis


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


def _half_width(shares: np.ndarray, confidence: float, skewed: bool) -> np.ndarray:
    """The half-width of the 95 % interval of the mean of the runs' shares (axis 0: one row a run), t · sd / √R:
    t(R−1), or where `skewed`, t(R−1) widened on both sides by the Cornish–Fisher term of a studentized mean,
    |γ| (2t² + 1) / (6√R), γ the shares' sample skewness (Edgeworth; Hall 1992)."""
    # Where runs drift, their ECDF values at a p99 are very skewed (the slowest few hold most of the tail): a
    # plain t interval then undercovers. Both ends are widened (the conservative half of Hall's correction); a
    # difference's paired shares are not skewed where its two sides are alike, and keep the plain t.
    rounds = shares.shape[0]
    t = t_quantile(rounds - 1, confidence)
    sd = shares.std(axis=0, ddof=1)
    if not skewed:
        return t * sd / math.sqrt(rounds)
    third = np.mean((shares - shares.mean(axis=0)) ** 3, axis=0)
    skew = np.abs(np.divide(third, sd ** 3, out=np.zeros_like(sd), where=sd > 0))
    return (t + skew * (2 * t * t + 1) / (6 * math.sqrt(rounds))) * sd / math.sqrt(rounds)


@dataclass(frozen=True)
class Intervals:
    """Pooled quantiles with their intervals, one entry a quantile asked for: `inside` False where an end falls
    beyond the samples (the interval is then refused)."""

    values: np.ndarray
    lows: np.ndarray
    highs: np.ndarray
    inside: np.ndarray


def woodruff(runs: list[np.ndarray], qs, confidence: float = u.CONFIDENCE, skewed: bool = True) -> Intervals:
    """The pooled q-quantiles with their intervals by Woodruff's method for clustered samples (Woodruff 1952;
    Francisco & Fuller 1991): the pooled ECDF at the estimate is the mean of the runs' own ECDFs there, so its
    standard error comes from their spread across runs; q ± t·se in probability (t widened by the runs' skewness
    where `skewed`) is read back through the pooled ECDF, one sample further out at each end (the ECDF is a
    step function)."""
    values, cumulative = _pooled(runs)
    qs = np.asarray(qs, dtype=np.float64)
    at = np.minimum(_at(cumulative, qs), len(values) - 1)
    estimate = values[at].astype(np.float64)
    own = np.stack([np.searchsorted(r, estimate, side="right") / len(r) for r in runs])  # a loop over runs
    half = _half_width(own, confidence, skewed)
    low_at, high_at = _at(cumulative, qs - half) - 1, _at(cumulative, qs + half) + 1
    inside = (low_at >= 0) & (high_at <= len(values) - 1)
    last = len(values) - 1
    return Intervals(estimate, values[np.clip(low_at, 0, last)].astype(np.float64),
                     values[np.clip(high_at, 0, last)].astype(np.float64), inside)


def estimates(runs: list[np.ndarray], quantiles: dict[str, float],
              confidence: float = u.CONFIDENCE) -> dict[str, u.Estimate | Refused]:
    """name → the point's estimate of each quantile of `quantiles` (name → q) from its runs' sorted samples
    (empty runs left out): the pooled quantile with Woodruff's interval across runs, or one run's with its
    order-statistic interval; a Refused where the samples cannot carry it; {} without samples."""
    runs = [r for r in runs if len(r)]
    if not runs:
        return {}
    n, total = effective_n([len(r) for r in runs]), sum(len(r) for r in runs)
    out: dict[str, u.Estimate | Refused] = {
        name: Refused(n, u.min_samples(q), name, total) for name, q in quantiles.items() if n < u.min_samples(q)}
    wanted = {name: q for name, q in quantiles.items() if name not in out}
    if not wanted:
        return out
    if len(runs) == 1:
        return out | {name: u.within_run_quantile(runs[0], q, confidence) for name, q in wanted.items()}
    found = woodruff(runs, list(wanted.values()), confidence)
    for j, name in enumerate(wanted):
        # Enough samples, but runs that differ more than their number can bound: the quantile is carried, its
        # interval is not (it reaches past the samples), and is left open (NaN) rather than cut at them.
        low, high = (float(found.lows[j]), float(found.highs[j])) if found.inside[j] else (math.nan, math.nan)
        out[name] = u.Estimate(float(found.values[j]), low, high, len(runs), u.ACROSS_RUNS_POOLED)
    return out


def _influence(runs: list[np.ndarray], q: float, confidence: float) -> tuple[float, np.ndarray] | None:
    """The pooled q-quantile and each run's share in its error, linearised as Woodruff's interval implies
    (Francisco & Fuller 1991): x̂ − x ≈ −(F̄(x) − q) / f, so a run moves x̂ by −(F_r(x̂) − F̄(x̂)) / f, with f the
    pooled ECDF's slope across the plain t interval (its width in probability over its width in ns: the widened
    one reaches into the flat far tail, where one slow run's samples stand apart, and would read a slope that is not
    the estimate's). None where that interval reaches past the samples or has no width: no slope to read."""
    plain = woodruff(runs, [q], confidence, skewed=False)
    estimate, low, high = plain.values[0], plain.lows[0], plain.highs[0]
    own = np.array([np.searchsorted(r, estimate, side="right") / len(r) for r in runs])  # a loop over runs
    width = 2 * float(_half_width(own, confidence, skewed=False))
    if not plain.inside[0] or high <= low or width == 0:
        return None
    return float(estimate), -(own - own.mean()) / (width / (high - low))


def paired_deltas(mine: list[np.ndarray], theirs: list[np.ndarray], quantiles: dict[str, float],
                      confidence: float = u.CONFIDENCE) -> dict[str, u.Estimate | Refused]:
    """name → each quantile's difference between two points over the rounds both measured (mine[i] and theirs[i]
    ran in one round; empty runs drop their pair): pooled(mine) − pooled(theirs), with the interval
    Δ ± t(R−1) · sd(d) / √R of the rounds' paired shares d in the two errors (_influence), so that what a round
    did to both cancels. A Refused where either side cannot carry the quantile; no interval where either side's
    plain interval reaches past its samples, or with one pair."""
    pairs = [(a, b) for a, b in zip(mine, theirs, strict=True) if len(a) and len(b)]
    if not pairs:
        return {}
    a_runs, b_runs = [a for a, _ in pairs], [b for _, b in pairs]
    n = min(effective_n([len(r) for r in a_runs]), effective_n([len(r) for r in b_runs]))
    total = None  # two sides: n is the smaller side's effective count
    out: dict[str, u.Estimate | Refused] = {
        name: Refused(n, u.min_samples(q), name, total) for name, q in quantiles.items() if n < u.min_samples(q)}
    for name, q in quantiles.items():
        if name in out:
            continue
        value = float(pooled_quantiles(a_runs, [q])[0] - pooled_quantiles(b_runs, [q])[0])
        sides = (_influence(a_runs, q, confidence), _influence(b_runs, q, confidence)) if len(pairs) > 1 else ()
        if len(pairs) == 1 or None in sides:
            out[name] = u.Estimate(value, math.nan, math.nan, len(pairs), u.WITHIN_RUN)
            continue
        shares = sides[0][1] - sides[1][1]
        half = float(_half_width(shares, confidence, skewed=False))
        out[name] = u.Estimate(value, value - half, value + half, len(pairs), u.PAIRED_POOLED, len(pairs) - 1)
    return out
