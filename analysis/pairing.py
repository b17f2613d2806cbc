"""Two lines paired by round: one statistic's Δ with its interval, a verdict and the smallest Δ it could call."""

# Every Δ of the analysis is made here: the Δp50 and the Δp99 vs std, a variant's Δ vs its base, each cost's Δ.
# A line is {round: what it measured in that round}; only the rounds both measured are paired, so that what a
# round did to both lines cancels (docs/analysis.md, "Differences between runtimes").

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from suite import sequential

from . import quantiles
from . import uncertainty as u

# A statistic's paired difference: (mine, theirs, confidence), one entry per shared round, to an estimate, a
# refusal (the samples cannot carry a quantile), or None (nothing to pair).
Statistic = Callable[[list, list, float], "u.Estimate | quantiles.Refused | None"]


def per_round(mine: list, theirs: list, confidence: float) -> u.Estimate:
    """One value per round on each side (a run's p50, a cost per message): their paired shift
    (uncertainty.paired_shift: signed rank from 6 pairs, t below)."""
    return u.paired_shift(mine, theirs, confidence)


def pooled(name: str, q: float) -> Statistic:
    """Each round's sorted samples on each side: the Δ of the pooled q-quantile with its interval from the
    rounds' paired shares (quantiles.paired_deltas); `name` (p99) names a refusal."""
    def statistic(mine: list, theirs: list, confidence: float) -> u.Estimate | quantiles.Refused | None:
        return quantiles.paired_deltas(mine, theirs, {name: q}, confidence).get(name)
    return statistic


@dataclass(frozen=True)
class Paired:
    """One comparison: the Δ (None: no round to pair, or refused), its verdict, the minimum detectable Δ
    in the Δ's unit and as a percentage of the reference, the rounds both lines measured, and a refusal."""

    delta: u.Estimate | None
    verdict: str  # pairing.verdict's
    mde: float
    mde_pct: float
    rounds: int
    refused: quantiles.Refused | None = None
    decided_at: int | None = None  # the look's round that decided it (suite/sequential.py); None: undecided
    confidence: float = u.CONFIDENCE  # its interval's level: the look's, wider than 95 % before the last look
    look: int | None = None  # the round of the look whose interval it is (None: after every round)

    @property
    def method(self) -> str:
        """How the Δ's interval was found (uncertainty.py's method names); empty without a Δ."""
        return self.delta.method if self.delta else ""


def verdict(delta: u.Estimate | None, reference: float, refused: quantiles.Refused | None, noise: float,
            margin: float = sequential.MARGIN) -> str:
    """The call on a paired Δ: empty where the quantile is refused; `unknown` without a Δ or its interval (one
    round); else suite.sequential.verdict's slower, faster, same (within ±margin × reference) or undecided, the
    floor `noise` × reference (where the reference, the compared line's value, is unknown: no floor and no
    `same`). The one rule every paired comparison follows."""
    if refused is not None:
        return ""
    if delta is None or math.isnan(delta.low):
        return "unknown"
    known = reference if math.isfinite(reference) else 0.0
    return sequential.verdict(delta.low, delta.value, delta.high, known, margin=margin, floor=noise, last=True)


def detectable(delta: u.Estimate | None, reference: float, called: str, confidence: float, noise: float) -> float:
    """The smallest Δ this comparison could have called: its test's, never below the noise threshold (max keeps
    the test's where the reference is unknown); NaN where nothing was called."""
    if delta is None or called in ("", "unknown"):
        return math.nan
    return max(u.detectable(delta, confidence), noise * reference)


def pair(mine: Mapping, theirs: Mapping, reference: float, *, statistic: Statistic = per_round,
         confidence: float = u.CONFIDENCE, noise: float = u.NOISE, margin: float = sequential.MARGIN,
         through: int | None = None) -> Paired:
    """mine − theirs over the rounds both measured ({round: value or sorted samples}, in mine's order; up to round
    `through` if given), by `statistic` (per_round, or pooled(name, q)), at `confidence`; `reference` is theirs'
    value at the point, which the floor (`noise`) and the margin scale."""
    common = [r for r in mine if r in theirs and (through is None or r <= through)]
    found = statistic([mine[r] for r in common], [theirs[r] for r in common], confidence) if common else None
    delta = found if isinstance(found, u.Estimate) else None
    refused = found if isinstance(found, quantiles.Refused) else None
    called = verdict(delta, reference, refused, noise, margin)
    mde = detectable(delta, reference, called, confidence, noise)
    return Paired(delta, called, mde, 100 * mde / reference if math.isfinite(mde) else math.nan, len(common),
                  refused, confidence=confidence)


def decide(mine: Mapping, theirs: Mapping, reference: float, schedule: sequential.Schedule,
           noise: float = u.NOISE, figure: str = "p50") -> Paired:
    """Two lines' values by round (their runs' p50s, or p99s: `figure`) compared as the sweep compared them, look by
    look (suite/sequential.py: the look that decided it, else the last); `reference` (theirs') scales the MDE."""
    common = [r for r in mine if r in theirs]
    margin = schedule.margin_of(figure)
    if not common:
        return pair(mine, theirs, reference, noise=noise, margin=margin)
    looks = schedule.through(max(common))
    found = sequential.decide(dict(mine), dict(theirs), looks, margin=margin, floor=noise, over=True)
    if found.look is None:  # one round in common: no interval
        return pair(mine, theirs, reference, noise=noise, margin=margin)
    paired = pair(mine, theirs, reference, noise=noise, margin=margin, confidence=found.look.confidence,
                  through=found.look.round)
    return replace(paired, verdict=found.verdict, decided_at=found.decided_at, look=found.look.round)
