"""Intervals and verdicts from one number per repeat: pure functions, no I/O, no pandas.

A point's quantiles are pooled (quantiles.py); here is what works on one figure per run or per pair: a mean's t
interval across runs, a median's order-statistic interval, the paired Hodges–Lehmann shift with its signed-rank
interval, a ratio's Welch interval, the minimum detectable effect and the verdict. The method and its sources:
docs/analysis.md, "Repeats, intervals and verdicts".
"""

import math
from dataclasses import dataclass

from suite.percentile import TAIL_BEYOND, min_samples  # noqa: F401  (re-exported: the analysis' rule)
from suite import sequential, signed_rank
from suite.signed_rank import EXACT_UP_TO, z_quantile  # noqa: F401  (re-exported: the analysis' names)
from suite.tdist import CONFIDENCE, POWER, detectable_factor, t_quantile

NOISE = 0.02  # default noise threshold: a change below 2 % is never called slower or faster
ACROSS_RUNS = "across runs"
SIGNED_RANK = "signed rank"
WITHIN_RUN = "within-run only"
PAIRED_POOLED = "pooled, paired by round"  # a difference of pooled quantiles (quantiles.paired_deltas)
ACROSS_RUNS_POOLED = "pooled, across runs"  # a pooled quantile's interval from its runs' spread (Woodruff)
# How an interval was computed, as the CSV files name it (a script must not take one for the other).
INTERVAL_METHOD = {ACROSS_RUNS: "t-across-repeats", SIGNED_RANK: "hodges-lehmann-signed-rank",
                   WITHIN_RUN: "within-run", PAIRED_POOLED: "woodruff-paired-by-round",
                   ACROSS_RUNS_POOLED: "woodruff-across-runs"}


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    repeats: int
    method: str  # how the interval was found: a key of INTERVAL_METHOD
    df: int = 0  # the t interval's degrees of freedom; 0 for an interval of another kind

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high


def _mean_sd(values) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def across_runs(values, confidence: float = CONFIDENCE, floor: float | None = None) -> Estimate:
    """Mean of the repeats' values with its t interval (two repeats or more). A quantity that
    cannot go below `floor` (a latency, a rate: 0) has its interval cut there: a wide interval
    of a few repeats may reach past it, and the cut loses no coverage."""
    values = [float(v) for v in values]
    if len(values) < 2:
        raise ValueError("an interval across runs needs two repeats or more")
    mean, sd = _mean_sd(values)
    half = t_quantile(len(values) - 1, confidence) * sd / math.sqrt(len(values))
    low = mean - half if floor is None else max(floor, mean - half)
    return Estimate(mean, low, mean + half, len(values), ACROSS_RUNS, len(values) - 1)


def within_run_quantile(sorted_samples, q: float, confidence: float = CONFIDENCE) -> Estimate:
    """One run's nearest-rank quantile q (0–1) with the distribution-free interval of order
    statistics: the ranks n·q ± z·√(n·q·(1−q)), by the normal approximation to the binomial. Its
    bounds are NaN below min_samples(q): the samples cannot carry the quantile."""
    n = len(sorted_samples)
    if n == 0:
        raise ValueError("no samples")
    if n < min_samples(q):
        value = float(sorted_samples[max(1, math.ceil(q * n - 1e-9)) - 1])
        return Estimate(value, math.nan, math.nan, 1, WITHIN_RUN)
    z = z_quantile(confidence)
    rank = max(1, math.ceil(q * n - 1e-9))
    spread = z * math.sqrt(n * q * (1 - q))
    low_rank = min(max(1, math.floor(n * q - spread)), rank)
    high_rank = max(min(n, math.ceil(n * q + spread) + 1), rank)
    value = float(sorted_samples[rank - 1])
    return Estimate(value, float(sorted_samples[low_rank - 1]), float(sorted_samples[high_rank - 1]), 1,
                    WITHIN_RUN)


def median_interval_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int] | None:
    """The 1-based ranks (k, n + 1 − k) of the exact distribution-free interval of a median: the
    largest k with P(B ≤ k − 1) ≤ (1 − confidence)/2, B ~ Binomial(n, ½) (Conover, Practical
    Nonparametric Statistics, §3.2); it covers the median with probability ≥ confidence whatever
    the distribution. None for fewer than 6 values at 95 %: no such interval exists. rtt-core's
    stats::median_interval_ranks is the same function, summed the same way (in logarithms)."""
    tail = (1 - confidence) / 2
    ln_half_n = n * math.log(0.5)
    ln_choose, cumulative, k = 0.0, 0.0, 0
    for j in range(n):
        if j > 0:
            ln_choose += math.log((n - j + 1) / j)
        cumulative += math.exp(ln_choose + ln_half_n)
        if cumulative > tail + 1e-12:  # P(B ≤ j) exactly at the tail still qualifies
            break
        k = j + 1
    return (k, n + 1 - k) if 1 <= k <= n + 1 - k else None


def median_interval(sorted_values, confidence: float = CONFIDENCE) -> Estimate:
    """The nearest-rank median (rank ⌈n/2⌉) of a few sorted values, such as the timed repeats of a
    micro benchmark, with the exact order-statistic interval of median_interval_ranks; the bounds
    are NaN below 6 values. within_run_quantile's normal approximation suits the thousands of
    samples of a run, not ten repeats: at n = 10 it gives ranks 1 and 10, the exact interval 2 and 9."""
    n = len(sorted_values)
    if n == 0:
        raise ValueError("no values")
    value = float(sorted_values[max(1, math.ceil(n / 2)) - 1])
    ranks = median_interval_ranks(n, confidence)
    if ranks is None:
        return Estimate(value, math.nan, math.nan, n, WITHIN_RUN)
    return Estimate(value, float(sorted_values[ranks[0] - 1]), float(sorted_values[ranks[1] - 1]), n, WITHIN_RUN)


def paired_shift(values, baseline, confidence: float = CONFIDENCE) -> Estimate:
    """values − baseline, paired by position (round): the Hodges–Lehmann shift with the signed-rank
    interval (6 pairs or more at 95 %), the mean with a t interval (2 to 5), and with one pair the bare
    difference and an empty interval marked within-run only."""
    diffs = [float(a) - float(b) for a, b in zip(values, baseline, strict=True)]
    if len(diffs) == 1:
        return Estimate(diffs[0], math.nan, math.nan, 1, WITHIN_RUN)
    found = signed_rank.hodges_lehmann(diffs, confidence)
    if found is None:
        return across_runs(diffs, confidence)
    shift, low, high = found
    return Estimate(shift, low, high, len(diffs), SIGNED_RANK, len(diffs) - 1)


def signed_rank_critical(n: int, confidence: float = CONFIDENCE) -> int | None:
    """suite.signed_rank.critical, at 95 % unless told."""
    return signed_rank.critical(n, confidence)


def ratio(new, old, confidence: float = CONFIDENCE) -> Estimate:
    """new / old as exp(mean log new − mean log old), with a Welch t interval on the logarithms
    (degrees of freedom rounded down: a slightly wider, conservative interval). Needs two repeats
    or more on each side; else the bare ratio with no interval, marked within-run only."""
    logs_new = [math.log(v) for v in new]
    logs_old = [math.log(v) for v in old]
    point = math.exp(sum(logs_new) / len(logs_new) - sum(logs_old) / len(logs_old))
    if len(logs_new) < 2 or len(logs_old) < 2:
        return Estimate(point, math.nan, math.nan, min(len(new), len(old)), WITHIN_RUN)
    (_, sd_new), (_, sd_old) = _mean_sd(logs_new), _mean_sd(logs_old)
    a, b = sd_new**2 / len(logs_new), sd_old**2 / len(logs_old)
    se = math.sqrt(a + b)
    repeats = min(len(new), len(old))
    if se == 0:
        return Estimate(point, point, point, repeats, ACROSS_RUNS, repeats - 1)
    df = max(1, math.floor((a + b) ** 2 / (a**2 / (len(logs_new) - 1) + b**2 / (len(logs_old) - 1))))
    half = t_quantile(df, confidence) * se
    return Estimate(point, point * math.exp(-half), point * math.exp(half), repeats, ACROSS_RUNS, df)


def ratio_of(new: Estimate, old: Estimate, confidence: float = CONFIDENCE) -> Estimate:
    """new.value / old.value of two independent estimates across runs, its interval from theirs: each side's
    standard error of its log from its interval's width and t(repeats − 1) (as if t on the log scale), the two
    added in quadrature with Welch's degrees of freedom, as `ratio` does with the repeats' values. The bare ratio
    without an interval where either side has none."""
    point = new.value / old.value
    repeats = min(new.repeats, old.repeats)
    if min(new.repeats, old.repeats) < 2 or not all(
            math.isfinite(v) and v > 0 for v in (new.low, new.high, old.low, old.high)):
        return Estimate(point, math.nan, math.nan, repeats, WITHIN_RUN)
    a, b = ((math.log(e.high / e.low) / (2 * t_quantile(e.repeats - 1, confidence))) ** 2 for e in (new, old))
    if a + b == 0:
        return Estimate(point, point, point, repeats, ACROSS_RUNS_POOLED, repeats - 1)
    df = max(1, math.floor((a + b) ** 2 / (a**2 / (new.repeats - 1) + b**2 / (old.repeats - 1))))
    half = t_quantile(df, confidence) * math.sqrt(a + b)
    return Estimate(point, point * math.exp(-half), point * math.exp(half), repeats, ACROSS_RUNS_POOLED, df)


def detectable(change: Estimate, confidence: float = CONFIDENCE, power: float = POWER) -> float:
    """The minimum detectable effect of a difference with an interval across runs (across_runs,
    paired_shift, quantiles.paired_deltas): the smallest true change its test calls with probability
    `power`, in the difference's unit, its interval's half-width times the t test's factor. A signed-rank
    interval is not symmetric: its half-width is half its span, and the factor is the t test's of the same pairs,
    which its test matches within a few percent on normal noise (efficiency 3/π ≈ 0.955) and beats
    on the bursty kind. NaN without an interval across runs (one repeat)."""
    if not change.df or math.isnan(change.high):
        return math.nan
    symmetric = change.method != SIGNED_RANK
    half = change.high - change.value if symmetric else (change.high - change.low) / 2
    return half * detectable_factor(change.df, confidence, power)


def detectable_ratio(change: Estimate, confidence: float = CONFIDENCE, power: float = POWER) -> float:
    """The minimum detectable effect of a ratio (uncertainty.ratio) as a share: 0.05 means a 5 %
    change is called with probability `power`. NaN without an interval."""
    if not change.df or math.isnan(change.high) or change.value <= 0:
        return math.nan
    half = math.log(change.high / change.value)
    return math.exp(half * detectable_factor(change.df, confidence, power)) - 1


def verdict(change: Estimate, reference: float, noise: float = NOISE, *, margin: float = sequential.MARGIN,
            higher_is_slower: bool = True, no_change: float = 0.0) -> str:
    """suite.sequential.verdict's answer for a change at its last look (a difference, no_change 0, or a ratio,
    no_change 1 and reference 1): slower or faster, same within ±margin × reference, or undecided; the floor
    `noise` × reference; `unknown` without an interval (one repeat). For throughput: higher_is_slower=False."""
    if math.isnan(change.low):
        return "unknown"
    return sequential.verdict(change.low - no_change, change.value - no_change, change.high - no_change, reference,
                              margin=margin, floor=noise, last=True, higher_is_slower=higher_is_slower)
