"""What each point's runs really cost, start to stop, learned as they end: the ETA's, and BUDGET's rounds re-planned.

The plan's guess of a run is its window and warm-up plus a fixed overhead (each mode's `run_estimate_s`); a
point whose processes start or stop slowly (1 000 decoys, 1 000 connections, HTTP, ssh) costs more, and only its
runs tell how much. Only times are learned here, never a latency: what is measured cannot choose how often it is
measured (docs/sweeps.md, "A budget holds").
"""

import math
from dataclasses import dataclass

from suite.fmt import duration, seconds

from .checks import MAX_REPEATS

MIN_ROUNDS = 2  # the fewest that measure a spread: BUDGET never plans fewer
COSTLIEST = 3  # points named when the plan changes
MIN_SEEN = 3  # points seen before their runs scale an unseen point's guess


class Costs:
    """Each point's runs' wall times (start to stop, its record included), by stem, and the plan's guesses."""

    def __init__(self, guesses: dict[str, float]):
        self.guesses = guesses  # point stem → the plan's guess of one run, s
        self.seen: dict[str, list[float]] = {}
        self.dropped: set[str] = set()  # points given up: their later runs start nothing

    def add(self, stem: str, wall_s: float) -> None:
        self.seen.setdefault(stem, []).append(wall_s)

    def drop(self, stem: str) -> None:
        self.dropped.add(stem)

    def scale(self) -> float:
        """How the points seen compare with their guesses (the median of their runs' mean over their guess, once
        MIN_SEEN points ran): what an unseen point's guess is multiplied by. A median, as one slow point (std with
        1 000 timer threads: 66 times its guess) first in a round would otherwise make every other a 66-fold guess."""
        ratios = sorted(sum(walls) / len(walls) / self.guesses[stem] for stem, walls in self.seen.items()
                        if stem not in self.dropped and self.guesses.get(stem, 0.0) > 0)
        if len(ratios) < MIN_SEEN:
            return 1.0
        middle = len(ratios) // 2
        return ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2

    def of(self, stem: str) -> float:
        """A run of the point from now on: the mean of its runs so far, else its guess scaled; 0 when given up."""
        if stem in self.dropped:
            return 0.0
        walls = self.seen.get(stem)
        return sum(walls) / len(walls) if walls else self.guesses.get(stem, 0.0) * self.scale()

    def left_s(self, stems) -> float:
        """What runs of these points (a stem per run still to come) will take."""
        return sum(self.of(stem) for stem in stems)

    def as_fixed(self, stems, retired: dict[str, int], done: int, elapsed_s: float) -> tuple[float, float]:
        """A round of every point (`stems`) and the time `done` rounds would have taken, as if none had left the
        rotation: a retired point's runs skipped since its last round (`retired`: stem → that round) at its cost."""
        skipped_s = sum(max(done - after, 0) * self.of(stem) for stem, after in retired.items())
        return self.left_s(stems), elapsed_s + skipped_s

    def costliest(self, stems, count: int = COSTLIEST) -> list[tuple[str, float]]:
        """The points (of `stems`) whose runs cost most, with a run's cost."""
        return sorted(((stem, self.of(stem)) for stem in dict.fromkeys(stems) if stem in self.seen),
                      key=lambda pair: -pair[1])[:count]


@dataclass(frozen=True)
class Fit:
    """The rounds that fit what is left of a budget, after `done` rounds."""

    rounds: int
    short: bool  # even MIN_ROUNDS do not fit: the sweep runs them and overruns
    ends_s: float  # the sweep's projected wall time at `rounds`


def fit(budget_s: float, elapsed_s: float, done: int, round_s: float, planned: int | None = None) -> Fit:
    """The most rounds whose projected end (elapsed + each further round at `round_s`) is within the budget,
    never fewer than the rounds done, nor than MIN_ROUNDS, nor more than MAX_REPEATS. The `planned` rounds are
    kept when they are one off and end less than half a round past the budget: a round's cost wobbles, and a
    plan that flips between two counts says nothing."""
    more = math.floor((budget_s - elapsed_s) / round_s + 1e-9) if round_s > 0 else MAX_REPEATS
    rounds = min(MAX_REPEATS, done + max(0, more))
    short = rounds < MIN_ROUNDS
    rounds = max(rounds, MIN_ROUNDS)
    if (planned is not None and not short and abs(planned - rounds) == 1 and planned >= max(done, MIN_ROUNDS)
            and elapsed_s + (planned - done) * round_s <= budget_s + round_s / 2):
        rounds = planned
    return Fit(rounds, short, elapsed_s + (rounds - done) * round_s)


def line(budget: str, fitted: Fit, before: int, done: int, round_s: float, planned_round_s: float,
         costliest: list[tuple[str, float]]) -> str:
    """The one line that says the plan changed: rounds before and after, what a round costs, the costliest points."""
    names = ", ".join(f"{stem} {seconds(wall)} s" for stem, wall in costliest)
    said = (f"Budget: after round {done} a round takes about {duration(round_s)}, not the {duration(planned_round_s)} "
            f"planned (costliest runs: {names}): ")
    if fitted.short:
        return said + (f"even {MIN_ROUNDS} rounds (the fewest that measure a spread) take about "
                       f"{duration(fitted.ends_s)} in all, past BUDGET={budget}: running {MIN_ROUNDS}, not {before}")
    return said + f"{fitted.rounds} rounds, not {before}, fit BUDGET={budget} (ends in about {duration(fitted.ends_s)})"
