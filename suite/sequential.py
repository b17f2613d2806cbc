"""The group-sequential design: when a sweep looks at its comparisons, each look's boundary, and a verdict at a look.

Standard library only: the sweep decides with it as it goes, and the analysis reads the same decisions back.
"""

# Each look's boundary spends a share of α (suite/boundaries.py). The interval at look k at the boundary's level is a
# repeated confidence interval (Jennison & Turnbull 1989): all looks' intervals cover together with 1 − α, so
# the one printed where a comparison stopped is valid whichever look stopped it. docs/analysis.md, "Stopping".

import math
import statistics
from dataclasses import dataclass, replace

from . import signed_rank, tdist
from .boundaries import Boundaries, level, spent, z_two_sided

ALPHA = 0.05  # two-sided: the false-call rate of a comparison over all its looks
# Hwang–Shih–DeCani spending with γ = −2: early looks stop nearly as often as Pocock's, and the most rounds grow by
# only INFLATION to keep the fixed design's power at its MDE (docs/analysis.md, "Stopping once decided").
SPENDING = "hsd-2"
INFLATION = 1.08
FIRST_LOOK = 10  # rounds: the signed-rank interval at the first look's level (99.8 %) needs 10 pairs
LOOKS = 8  # looks planned, about: one every REPEATS / LOOKS rounds, FIRST_LOOK at the least
MARGIN, MARGIN_P99 = 0.05, 0.10  # `same` within this share of std's p50, p99
FIGURES = ("p50", "p99")  # what may decide the stopping (STOP_ON): the runs' p50s always, their p99s if asked
FLOOR = 0.02  # a difference under this share of std's is never called slower or faster
POWER = 0.80  # the MDE's: the smallest Δ called this often


# The three answers a comparison can have, and the one it has while looks remain.
SLOWER, FASTER, SAME, UNDECIDED, OPEN = "slower", "faster", "same", "undecided", "open"


def verdict(low: float, value: float, high: float, reference: float, *, margin: float, floor: float,
            last: bool, higher_is_slower: bool = True) -> str:
    """A comparison's answer from its interval [low, high] around `value` (a difference; reference: the baseline's
    level): slower or faster when it excludes 0 and |value| ≥ floor × reference; same when it lies within
    ±max(margin, floor) × reference; else open, or undecided at the last look. No interval (NaN): open, undecided at the last."""
    if math.isnan(low) or math.isnan(high) or not math.isfinite(reference):
        return UNDECIDED if last else OPEN
    if (low > 0 or high < 0) and abs(value) >= floor * abs(reference):
        return SLOWER if (value > 0) == higher_is_slower else FASTER
    bound = max(margin, floor) * abs(reference)  # a floor above the margin widens what counts as the same
    if -bound < low and high < bound:
        return SAME
    return UNDECIDED if last else OPEN


_Z_MDE = z_two_sided(ALPHA) + z_two_sided(2 * (1 - POWER))  # z(1 − α/2) + z(POWER): an MDE in standard errors


@dataclass(frozen=True)
class Look:
    """One look: after which round, its information fraction and boundary, the α spent by then."""

    round: int
    fraction: float
    boundary: float
    spent: float

    @property
    def confidence(self) -> float:
        return level(self.boundary)

    def record(self) -> dict:
        return {"round": self.round, "fraction": self.fraction, "boundary": self.boundary, "spent": self.spent}


@dataclass(frozen=True)
class Design:
    """How a sweep decides its comparisons: STOP=decided looks after `first` rounds and every `every` up to
    `maximum`; STOP=fixed (or too few rounds to look early) only once, after the last round."""

    stop: str  # decided or fixed
    first: int
    every: int
    maximum: int
    margin: float = MARGIN
    margin_p99: float = MARGIN_P99
    floor: float = FLOOR
    spending: str = SPENDING
    alpha: float = ALPHA
    stop_on: tuple[str, ...] = FIGURES[:1]

    @property
    def sequential(self) -> bool:
        return self.stop == "decided" and self.first < self.maximum

    def rounds(self) -> list[int]:
        """The rounds after which it looks: `first`, every `every`, and always the last (a regular look less
        than half a step before the last is left out: it would spend α on almost nothing new)."""
        if not self.sequential:
            return [self.maximum]
        regular = [r for r in range(self.first, self.maximum, self.every) if self.maximum - r >= self.every / 2]
        return [*regular, self.maximum]

    def record(self) -> dict:
        return {"stop": self.stop, "first": self.first, "every": self.every, "maximum": self.maximum,
                "margin": self.margin, "margin_p99": self.margin_p99, "floor": self.floor,
                "spending": self.spending, "alpha": self.alpha, "stop_on": list(self.stop_on)}

    def margin_of(self, figure: str) -> float:
        return self.margin_p99 if figure == "p99" else self.margin


def plan(stop: str, repeats: int, margin: float = MARGIN, margin_p99: float = MARGIN_P99,
         inflate: bool = True, stop_on: tuple[str, ...] = FIGURES[:1]) -> Design:
    """The design of a sweep of REPEATS rounds: STOP=decided looks about LOOKS times, FIRST_LOOK rounds apart at
    the least, up to REPEATS × INFLATION rounds (`inflate`; under a BUDGET its rounds are the most); with too few
    rounds for a look before the last, or STOP=fixed, one look after REPEATS rounds."""
    every = max(FIRST_LOOK, math.ceil(repeats / LOOKS))
    maximum = math.ceil(repeats * INFLATION - 1e-9) if inflate else repeats
    if stop != "decided" or maximum - every < every / 2:
        return Design(stop, repeats, repeats, repeats, margin, margin_p99, stop_on=stop_on)
    return Design(stop, every, every, maximum, margin, margin_p99, stop_on=stop_on)


def held_over(design: Design, comparisons: int, alpha: float = ALPHA) -> Design:
    """The design with `alpha` held over a family of `comparisons` (Bonferroni: each comparison's looks spend
    alpha / comparisons), so that a check of many is wrong as rarely as one of one (docs/pr-check.md, "The error
    held over the check")."""
    return replace(design, alpha=alpha / max(1, comparisons))


def from_record(record: dict | None) -> Design | None:
    """A sweep.json's `design`, or None (a sweep from before the design: its one look is after its rounds)."""
    if not isinstance(record, dict):
        return None
    fields = {name: record[name] for name in Design.__dataclass_fields__ if name in record}
    return Design(**fields | {"stop_on": tuple(record.get("stop_on") or FIGURES[:1])})


class Looks:
    """The looks a sweep has taken, each boundary from those before it: added one at a time as the rounds end
    (the most rounds may change in between: BUDGET), or replayed from sweep.json's record."""

    def __init__(self, design: Design):
        self.design = design
        self.taken: list[Look] = []
        self._boundaries = Boundaries()

    def add(self, round_: int, maximum: int, final: bool = False) -> Look:
        """The look after `round_` of at most `maximum` rounds; `final` spends all α left."""
        t = min(round_ / maximum, 1.0)
        if self.taken and t <= self.taken[-1].fraction:  # no information since the last look
            t = self.taken[-1].fraction + 1e-6
        alpha = self.design.alpha if final or t >= 1 else spent(t, self.design.alpha, self.design.spending)
        c = self._boundaries.add(t, alpha)
        look = Look(round_, t, c, self._boundaries.cumulative[-1])
        self.taken.append(look)
        return look

    def replay(self, records: list[dict]) -> "Looks":
        """The looks of a record, again, so that later ones spend from where they stopped."""
        for r in records:
            c = self._boundaries.add(float(r["fraction"]), float(r["spent"]))
            self.taken.append(Look(int(r["round"]), float(r["fraction"]), c, float(r["spent"])))
        return self

    def through(self, last_round: int) -> list[Look]:
        """The looks taken, and a closing one after `last_round` spending all α left where the sweep went on
        past its last look (it stopped early: Ctrl-C, or a sweep without looks: STOP=fixed, or before the design)."""
        if self.taken and self.taken[-1].round >= last_round:
            return list(self.taken)
        closing = Looks(self.design).replay([look.record() for look in self.taken])
        closing.add(last_round, max(last_round, self.design.maximum), final=True)
        return closing.taken


@dataclass(frozen=True)
class Decision:
    """A comparison's answer and the interval it rests on, at the look that decided it or the last one seen."""

    verdict: str
    look: Look | None  # the look of the interval (None: no look had two pairs)
    value: float
    low: float
    high: float
    pairs: int
    reference: float  # the median of the baseline's values over those pairs: what the margin and floor scale

    @property
    def decided_at(self) -> int | None:
        return self.look.round if self.look and self.verdict not in (OPEN, UNDECIDED) else None


def shift(diffs: list[float], confidence: float) -> tuple[float, float, float] | None:
    """The paired shift of differences and its interval, as the analysis prints it (uncertainty.paired_shift): the
    Hodges–Lehmann shift with its signed-rank interval, or where that has none at this level (too few pairs) the
    mean with its t interval; None with one difference."""
    found = signed_rank.hodges_lehmann(diffs, confidence)
    if found is not None or len(diffs) < 2:
        return found
    mean = statistics.fmean(diffs)
    half = tdist.t_quantile(len(diffs) - 1, confidence) * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return mean, mean - half, mean + half


def decide(mine: dict[int, float], theirs: dict[int, float], looks: list[Look], *, margin: float, floor: float,
           over: bool, interval=None) -> Decision:
    """A comparison of two lines' values by round (mine − theirs) at each look in turn, until one decides it:
    the paired shift and its interval at the look's level (`interval(diffs, confidence)` → (value, low, high) or
    None; `shift` unless told), and its verdict. `over`: no look follows the last, so what is still open there is
    undecided."""
    interval = interval or shift
    found, seen = Decision(UNDECIDED if over else OPEN, None, math.nan, math.nan, math.nan, 0, math.nan), 0
    for i, look in enumerate(looks):
        rounds = sorted(r for r in mine if r in theirs and r <= look.round)
        if len(rounds) < 2 or len(rounds) == seen:
            continue
        seen = len(rounds)
        diffs = [mine[r] - theirs[r] for r in rounds]
        reference = statistics.median([theirs[r] for r in rounds])
        estimate = interval(diffs, look.confidence)
        value, low, high = estimate if estimate else (statistics.median(diffs), math.nan, math.nan)
        last = over and i == len(looks) - 1
        # Before the last look `same` must also rule out every Δ the sweep could still call (an inner wedge):
        # stopping there costs none of the power the design promises at its MDE.
        early = margin if last or not reference else min(margin, resolvable(low, high, look) / abs(reference))
        said = verdict(low, value, high, reference, margin=early, floor=floor, last=last)
        found = Decision(said, look, value, low, high, len(rounds), reference)
        if said not in (OPEN, UNDECIDED):
            return found
    if found.verdict == OPEN and over:
        found = replace(found, verdict=UNDECIDED)
    return found


def resolvable(low: float, high: float, look: Look) -> float:
    """The smallest Δ a comparison could still be called at by the most rounds, from its interval at `look`: the
    standard error it implies, shrunk to the most rounds, times z(1 − α/2) + z(POWER) (the fixed design's MDE, a
    lower bound on the sequential one's). NaN without an interval."""
    se = (high - low) / 2 / look.boundary
    return se * math.sqrt(look.fraction) * _Z_MDE


@dataclass(frozen=True)
class Schedule:
    """A sweep's design and the looks it took (sweep.json `design` and `looks`): the looks a comparison's analysis
    reads, with a closing one where the sweep went on past its last (no design: one look after its rounds)."""

    design: Design | None = None
    looks: tuple[Look, ...] = ()

    def through(self, last_round: int) -> list[Look]:
        design = self.design or plan("fixed", last_round)
        return Looks(design).replay([look.record() for look in self.looks]).through(last_round)

    @property
    def margin(self) -> float:
        return (self.design or Design("fixed", 1, 1, 1)).margin

    @property
    def margin_p99(self) -> float:
        return (self.design or Design("fixed", 1, 1, 1)).margin_p99

    def margin_of(self, figure: str) -> float:
        return (self.design or Design("fixed", 1, 1, 1)).margin_of(figure)


def schedule(info: dict) -> Schedule:
    """The Schedule a sweep.json records (an empty one before the design, or where it cannot be read)."""
    try:
        looks = tuple(Look(int(r["round"]), float(r["fraction"]), float(r["boundary"]), float(r["spent"]))
                      for r in info.get("looks") or ())
        return Schedule(from_record(info.get("design")), looks)
    except (KeyError, TypeError, ValueError):
        return Schedule()
