"""After the first rounds: how much the machine's noise scatters the runs, and the MDE that implies, said in one line when loud."""

# How much machines scatter a point's runs, and what that costs a sweep's resolution: docs/sweeps.md, "Choosing
# the defaults" and "Noisy machines". Two rounds are the fewest that measure a spread, so the line comes once
# round 2 is over: the sweep goes on either way (its rounds never depend on what the runs measured), but the
# user learns early what it will be able to tell.

import math

from suite import tdist
from suite.palette import is_reference
from suite.runtimes import BASELINE

from . import modes
from .checks import MAX_REPEATS

FIRST_ROUNDS = 2
QUIET_SD = 0.06  # sd of log p50 between a point's runs on a quiet machine
LOUD_SD = 2 * QUIET_SD  # above it the line is said
TARGET_MDE = 0.10  # what a BUDGET is suggested for


def due(runs, index: int) -> bool:
    """Whether run `index` (of plan.Run) ends round FIRST_ROUNDS."""
    return runs[index].round == FIRST_ROUNDS and (index + 1 == len(runs) or runs[index + 1].round > FIRST_ROUNDS)


def pooled_sd(series: list[list[float]]) -> float | None:
    """The pooled standard deviation of several short series (each about its own mean); None without any df."""
    squares = sum(sum((x - sum(s) / len(s)) ** 2 for x in s) for s in series if len(s) > 1)
    df = sum(len(s) - 1 for s in series if len(s) > 1)
    return math.sqrt(squares / df) if df else None


def robust_pooled_sd(series: list[list[float]]) -> float | None:
    """A standard deviation pooled over short series that a few bursts do not inflate: 1.4826 × the median
    absolute deviation of every value from its series' mean (each scaled by √(n/(n−1)), so that on normal
    noise it estimates the sd); None without any df. The analysis's Δ (a signed-rank interval) follows the
    bulk of the pairs, not a burst, and so must the MDE this line foretells for it."""
    scaled = sorted(abs(x - sum(s) / len(s)) * math.sqrt(len(s) / (len(s) - 1)) for s in series if len(s) > 1
                    for x in s)
    if not scaled:
        return None
    middle = len(scaled) // 2
    return 1.4826 * (scaled[middle] if len(scaled) % 2 else (scaled[middle - 1] + scaled[middle]) / 2)


def spreads(runs, records, rounds: int = FIRST_ROUNDS) -> tuple[float | None, float | None]:
    """From the runs (plan.Run) and their records of the first `rounds` rounds: the pooled sd of log
    figure of a point's runs (between runs), and the robust pooled sd of the paired Δ, log runtime − log std
    of the same setting and round (None without std or without two such rounds)."""
    logs: dict = {}  # point → round → log figure
    for run, record in zip(runs, records):
        value = record.get(modes.of(run.point.kind).figure_keys[0])  # p50 RTT, p50 msg/s, median ns/op
        if run.round <= rounds and record["status"] == "ok" and value and value > 0:
            logs.setdefault(run.point, {})[run.round] = math.log(value)
    std = {point.setting: by_round for point, by_round in logs.items() if point.framework == BASELINE}
    between = pooled_sd([list(by_round.values()) for by_round in logs.values()])
    paired = robust_pooled_sd([[x - std[point.setting][r] for r, x in by_round.items() if r in std[point.setting]]
                        for point, by_round in logs.items()
                        if point.framework != BASELINE and not is_reference(point.framework) and point.setting in std])
    return between, paired


def share(log_mde: float) -> float:
    return math.exp(log_mde) - 1


def rounds_for(sd: float, target: float = TARGET_MDE) -> int | None:
    """The fewest rounds whose MDE for a spread `sd` (log) is `target` or less; None past MAX_REPEATS. The MDE
    falls as the rounds grow, so a bisection: a t quantile each of 1 000 rounds took half a minute of the sweep."""
    def reaches(n: int) -> bool:
        return share(tdist.detectable(sd, n)) <= target

    if not reaches(MAX_REPEATS):
        return None
    low, high = FIRST_ROUNDS, MAX_REPEATS  # the answer is in [low, high]
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle + 1, high)
    return low


def budget(seconds: float) -> str:
    """A BUDGET a sweep takes, rounded up: 47m, 2.5h."""
    minutes = math.ceil(seconds / 60)
    return f"{minutes}m" if minutes < 120 else f"{math.ceil(minutes / 6) / 10:g}h"


def pct(value: float) -> str:
    return f"{100 * value:.0f} %"


def line(runs, records, repeats: int, round_s: float) -> str | None:
    """The one line naming a loud machine after the first rounds, or None on a quiet one. The MDE is the
    paired Δ's (a runtime against std in its setting and round) when std ran, else a difference of two
    points' means (√2 × the between-run spread); when it misses TARGET_MDE, the BUDGET that reaches it."""
    between, paired = spreads(runs, records)
    if between is None or between <= LOUD_SD:
        return None
    sd, what = (paired, "a Δ vs std") if paired is not None else (math.sqrt(2) * between, "a difference")
    said = (f"Noise: after {FIRST_ROUNDS} rounds a point's runs scatter by {pct(share(between))} (sd of log p50; a "
            f"quiet machine: about {pct(share(QUIET_SD))}), so ")
    mde = share(tdist.detectable(sd, repeats))  # due() came after round 2, so repeats ≥ 2
    needed = rounds_for(sd)
    if mde <= TARGET_MDE:
        said += f"{what} still resolves about {pct(mde)} at REPEATS={repeats}" + (
            " (pairing with std cancels what a block shares)" if paired is not None else "")
    elif needed is None:
        said += (f"{what} resolves about {pct(mde)} at REPEATS={repeats}, and no BUDGET up to {MAX_REPEATS} rounds "
                 f"reaches {pct(TARGET_MDE)}")
    else:
        said += (f"{what} resolves about {pct(mde)} at REPEATS={repeats}; BUDGET={budget(needed * round_s)} "
                 f"({needed} rounds) would reach {pct(TARGET_MDE)}")
    return said + ' (docs/sweeps.md, "Noisy machines")'
