"""The one percentile of the Python side: nearest rank, as rtt-core's stats.rs defines it; and how many samples a
quantile needs before it is printed."""

# The p-th percentile of n sorted samples is the sample at 1-based rank ⌈p/100 · n⌉, so it is always
# a value that was really observed. p is taken at its decimal value (99.9 is 999/1000, not the
# binary float just above it) and the rank computed in exact integer arithmetic: p99.9 of 1000
# samples is rank 999, where numpy's float "inverted_cdf" says 1000. Standard library only, so that
# sweepkit/icmp_log.py runs on a bare python3; numpy callers pass an integer array as n.

import math
from fractions import Fraction


def index(n, p):
    """0-based index of the p-th percentile (0 < p ≤ 100) among n ≥ 1 sorted samples. n may be an
    int or a numpy integer array of counts, and the result is then the same."""
    share = Fraction(str(p)) / 100
    if not 0 < share <= 1:
        raise ValueError(f"a percentile is in (0, 100], not {p!r}")
    return -(-share.numerator * n // share.denominator) - 1  # ⌈p/100 · n⌉ - 1, in integers


def of(ordered, p):
    """The p-th percentile of non-empty sorted data (a list or a numpy array)."""
    return ordered[index(len(ordered), p)]


TAIL_BEYOND = 10  # samples beyond a quantile (above it, or below one under the median) before it is printed


def min_samples(q: float) -> int:
    """The samples a q-quantile (0–1) needs before it is printed, or given an interval: TAIL_BEYOND of them
    beyond it, n · min(q, 1 − q) ≥ 10 (p99: 1 000, p99.9: 10 000, p50: 20). Fewer, and the interval's far end
    is one of the few most extreme samples, whose place says little (docs/analysis.md, "Which quantiles are
    printed"). The analysis refuses by it (analysis/quantiles.py), the sweep's plan foretells it (sweepkit/carry.py)."""
    # 1 − 0.9999 is 0.99999999999989e-4 in binary: without the slack p99.99 would need 100 001.
    return max(1, math.ceil(TAIL_BEYOND / min(q, 1 - q) - 1e-6)) if 0 < q < 1 else 1


def effective_n(sizes) -> int:
    """How many samples runs of these sizes are worth when each run weighs the same: R² / Σ 1/n_r, R times the
    sizes' harmonic mean (Kish's effective sample size); the plain total when the sizes are equal. What the
    analysis refuses a pooled quantile by, and the sweep keeps a point running until (sweepkit/looks.py)."""
    sizes = [s for s in sizes if s > 0]
    return math.floor(len(sizes) ** 2 / sum(1.0 / s for s in sizes) + 1e-6) if sizes else 0


def carried(sizes, q: float) -> bool:
    """Whether runs of these sizes, pooled, carry the q-quantile (min_samples)."""
    return effective_n(sizes) >= min_samples(q)
