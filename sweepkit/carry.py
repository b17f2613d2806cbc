"""Which quantiles a point's pooled samples will carry at the planned rounds and windows, rate by rate, and what
MIN_MESSAGES would carry the p99 where they do not, with its cost in time: the plan's lines of it.

The analysis prints a point's quantile q only with TAIL_BEYOND of its pooled samples beyond it
(suite/percentile.py's min_samples, the rule both sides read). A paced run holds its window ÷ the interval messages, shared by its connections; a point
pools its runs', one a round.
"""

import math

from suite import fmt
from suite.percentile import min_samples
from suite.fmt import duration

QUANTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999), ("p99.99", 0.9999))
QUANTILE_OF = dict(QUANTILES)  # a quantile by its name: p99 → 0.99
BACK_TO_BACK_PER_S = 80_000  # round trips a second back-to-back on loopback, guessed (sweepkit/modes/rtt.py's)


def per_run(interval: str, window_s: float) -> int:
    """The messages a run holds at `interval` (a paced one: at least its first), back-to-back a guess."""
    every = float(interval)
    return max(1, round(window_s / every)) if every > 0 else round(window_s * BACK_TO_BACK_PER_S)


def carried(samples: int) -> tuple[list[str], list[str]]:
    """The quantiles `samples` carry, and those they do not."""
    names = [(name, samples >= min_samples(q)) for name, q in QUANTILES]
    return [n for n, ok in names if ok], [n for n, ok in names if not ok]


def messages_for(name: str, repeats: int) -> int:
    """The MIN_MESSAGES whose runs pool enough samples for quantile `name` over `repeats` runs."""
    return math.ceil(min_samples(QUANTILE_OF[name]) / repeats)


def lines(spec, runs, estimate) -> list[str]:
    """The plan's lines: for each interval of the sweep, the samples a point pools and the quantiles they carry;
    where the p99 is refused, the MIN_MESSAGES that carries it and what it adds to the sweep's time (`estimate`:
    the plan's time of a list of runs under a spec, sweepkit.progress.estimate_s)."""
    repeats = spec.repeats
    intervals = sorted({r.point.interval for r in runs if r.point.interval is not None},
                       key=lambda x: float(x) if float(x) > 0 else -1.0, reverse=True)  # lowest rate first
    if not intervals:
        return []
    rule = ", ".join(f"{name} {fmt.count(min_samples(q))}" for name, q in QUANTILES)
    said = [f"  Samples a point pools over its {repeats} runs, and the quantiles they carry (each needs 10 beyond it: "
            f"{rule}):"]
    base_s = estimate(runs, spec)
    for interval in intervals:
        window = spec.window(interval)
        each = per_run(interval, window.s)
        pooled = repeats * each
        kept, refused = carried(pooled)
        rate = fmt.rate_words(float(interval))
        guess = "about " if float(interval) == 0 else ""
        line = (f"    {rate:>12}: {guess}{fmt.count(pooled)} samples ({guess}{fmt.count(each)} a run of {window} s): "
                f"carries {' '.join(kept) or 'none'}" + (f"; refuses {' '.join(refused)}" if refused else ""))
        if "p99" in refused:
            line += "; " + (within_budget(spec, interval, runs, estimate) if spec.budget_s else
                            longer_runs(spec, interval, runs, estimate, base_s))
        said.append(line)
    return said


def longer_runs(spec, interval: str, runs, estimate, base_s: float) -> str:
    """The MIN_MESSAGES that carries the p99 at `interval` at the sweep's rounds, and what it adds to its time."""
    needed = messages_for("p99", spec.repeats)
    longer = spec.with_knobs(MIN_MESSAGES=str(needed))
    return (f"MIN_MESSAGES={needed} carries p99 here (runs of {longer.window(interval)} s), about "
            f"+{duration(estimate(runs, longer) - base_s)}")


def within_budget(spec, interval: str, runs, estimate, most: int = 100_000) -> str:
    """Under BUDGET longer runs cost rounds, not time: the least MIN_MESSAGES whose rounds (as the plan fits them)
    pool the p99's samples at `interval`, or that none does (rounds × messages approach the budget ÷ a message's
    cost from below)."""
    first = [r for r in runs if r.round == 1]
    want = min_samples(QUANTILE_OF["p99"])
    for count in range(max(spec.min_messages, 1), most + 1):
        longer = spec.with_knobs(MIN_MESSAGES=str(count))
        rounds = min(spec.repeats if count == spec.min_messages else 1000, int(spec.budget_s // estimate(first, longer)))
        if rounds < 2:
            break
        if rounds * per_run(interval, longer.window(interval).s) >= want:
            return (f"MIN_MESSAGES={count} carries p99 here within BUDGET={spec.budget} (runs of "
                    f"{longer.window(interval)} s), at {rounds} rounds, not {spec.repeats}")
    return f"no MIN_MESSAGES carries p99 here within BUDGET={spec.budget}: raise it, or sweep this rate alone"
