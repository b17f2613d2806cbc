"""Wilcoxon's signed-rank test of paired differences: its critical rank and the Hodges–Lehmann shift with its interval.

Standard library only: the sweep decides with it as it goes (sweepkit), the analysis prints it (analysis.uncertainty).
"""

import math
from functools import cache

EXACT_UP_TO = 200  # pairs: beyond, the signed-rank statistic's normal approximation (its error is < 1 rank)


def z_quantile(confidence: float) -> float:
    """The standard normal two-sided quantile, by bisection on erf."""
    low, high = 0.0, 10.0
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if math.erf(mid / math.sqrt(2)) < confidence else (low, mid)
    return (low + high) / 2


@cache
def critical(n: int, confidence: float) -> int | None:
    """The largest c with P(T ≤ c) ≤ (1 − confidence)/2, T the signed-rank statistic of n pairs with no
    shift; None when even P(T = 0) = 2⁻ⁿ is above it (fewer than 6 pairs at 95 %). Exact up to EXACT_UP_TO
    pairs, counting the subsets of 1…n by their sum (as probabilities, halved at each step, so that none
    overflows); beyond, the normal approximation with its continuity correction."""
    tail = (1 - confidence) / 2
    if n > EXACT_UP_TO:
        mean, sd = n * (n + 1) / 4, math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        return math.floor(mean - z_quantile(confidence) * sd - 0.5)
    probability = [1.0]  # P(T = s) for the ranks 1…k so far
    for k in range(1, n + 1):
        grown = probability + [0.0] * k
        for s, p in enumerate(probability):
            grown[s + k] += p
        probability = [p / 2 for p in grown]
    cumulative, c = 0.0, None
    for s, p in enumerate(probability):
        cumulative += p
        if cumulative > tail + 1e-12:  # exactly at the tail still qualifies
            break
        c = s
    return c


def hodges_lehmann(diffs: list[float], confidence: float) -> tuple[float, float, float] | None:
    """The Hodges–Lehmann shift of paired differences (the median of their Walsh averages (d_i + d_j)/2) and the
    exact interval of the signed-rank test at `confidence` (Hollander & Wolfe, §3.2–3.3): (shift, low, high);
    None where no such interval exists for so few pairs."""
    n = len(diffs)
    rank = critical(n, confidence) if n else None
    if rank is None:
        return None
    walsh = sorted((diffs[i] + diffs[j]) / 2 for i in range(n) for j in range(i, n))
    middle = len(walsh) // 2
    shift = walsh[middle] if len(walsh) % 2 else (walsh[middle - 1] + walsh[middle]) / 2
    # The interval's ends are the Walsh averages of ranks c + 1 and M − c (1-based): T ≤ c is the test's tail.
    return shift, walsh[rank], walsh[len(walsh) - 1 - rank]
