"""The one percentile of the Python side: nearest rank, as rtt-core's stats.rs defines it."""

# The p-th percentile of n sorted samples is the sample at 1-based rank ⌈p/100 · n⌉, so it is always
# a value that was really observed. p is taken at its decimal value (99.9 is 999/1000, not the
# binary float just above it) and the rank computed in exact integer arithmetic: p99.9 of 1000
# samples is rank 999, where numpy's float "inverted_cdf" says 1000. Standard library only, so that
# sweepkit/icmp_log.py runs on a bare python3; numpy callers pass an integer array as n.

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
