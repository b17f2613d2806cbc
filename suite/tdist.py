"""Student's t quantiles and the minimum detectable effect (MDE) they give: the sweep's noise line and the analysis share them."""

# Standard library only (suite/ is shared with the sweep): the exact finite series of Abramowitz &
# Stegun 26.7.3–4 and bisection, no scipy. The analysis (analysis/uncertainty.py) builds its
# intervals, verdicts and MDEs on these; the sweep (sweepkit/noise.py) says after its first rounds
# what MDE the machine's noise implies. Both must agree, so the formula lives here once.

import math
from functools import cache

CONFIDENCE = 0.95
POWER = 0.80  # the minimum detectable effect is the change called this often


@cache  # a sweep asks for the same few degrees of freedom hundreds of times
def t_quantile(df: int, confidence: float = CONFIDENCE) -> float:
    """The two-sided Student t quantile: P(|T| < t) = confidence, for a whole number of degrees of
    freedom, from the exact finite series of Abramowitz & Stegun 26.7.3–4 and bisection."""
    if df < 1:
        raise ValueError("a t interval needs at least one degree of freedom (two repeats)")
    low, high = 0.0, 1e6
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if _t_central(mid, df) < confidence else (low, mid)
    return (low + high) / 2


def _t_central(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with `df` degrees of freedom."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:  # odd: 2/π (θ + sinθ cosθ (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + …))
        term, total = 1.0, 1.0 if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):
            term *= 2 * k / (2 * k + 1) * c2
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0  # even: sinθ (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + …)
    for k in range(1, df // 2):
        term *= (2 * k - 1) / (2 * k) * c2
        total += term
    return math.sin(theta) * total


def detectable_factor(df: int, confidence: float = CONFIDENCE, power: float = POWER) -> float:
    """(t(1−α/2) + t(power)) / t(1−α/2): how much wider than an interval's half-width the smallest
    change is that its test calls with probability `power` (one-sided t(power) is the central
    quantile at 2·power − 1)."""
    return 1 + t_quantile(df, 2 * power - 1) / t_quantile(df, confidence)


def detectable(sd: float, n: int, confidence: float = CONFIDENCE, power: float = POWER) -> float:
    """The MDE of a mean of `n` values (paired differences) whose standard deviation is `sd`:
    (t(1−α/2, n−1) + t(power, n−1)) · sd / √n, in sd's unit (Cohen 1988)."""
    return t_quantile(n - 1, confidence) * detectable_factor(n - 1, confidence, power) * sd / math.sqrt(n)
