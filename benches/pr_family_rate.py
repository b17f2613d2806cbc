#!/usr/bin/env python3
"""The false-call rate of A/A pull-request checks (16 comparisons, α held over them or not), decided as the sweep does."""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benches import family_rate  # noqa: E402
from suite import sequential  # noqa: E402

EPILOG = """Each check: HEAD and BASE drawn from one distribution (benches/family_rate.py's Noise), compared at 8
settings on the runs' p50s and p99s by round; every slower or faster call is false. `held` is the check's design
(sequential.held_over: α / 16 per comparison), `unheld` the same looks at α per comparison.

    python3 benches/pr_family_rate.py                 # the default study
    python3 benches/pr_family_rate.py --checks 5000 --seed 2
"""


def report(study: family_rate.Study, tallies: dict[str, family_rate.Tally], took_s: float) -> str:
    """The study's figures, one line per design, then where the false calls fell."""
    designs = study.designs()
    rounds = ", ".join(map(str, next(iter(designs.values())).rounds()))
    lines = [f"{study.checks} A/A checks (seed {study.seed}), REPEATS={study.repeats}: looks after rounds {rounds}; "
             f"{study.family} comparisons a check", "",
             f"{'design':<8}{'α each':>9}{'family-wise rate [95 % CI]':>32}{'per comparison':>16}"
             f"{'slower':>8}{'faster':>8}{'same':>8}{'undecided':>11}{'rounds: comparison':>20}{'check':>7}"]
    for name, t in tallies.items():
        low, high = t.interval()
        said = [t.verdicts.get(v, 0) for v in (sequential.SLOWER, sequential.FASTER, sequential.SAME,
                                               sequential.UNDECIDED)]
        rate = f"{100 * t.rate:.2f} % [{100 * low:.2f}, {100 * high:.2f}]"
        lines.append(f"{name:<8}{designs[name].alpha:>9.4f}{rate:>32}{100 * t.wrong_comparisons / t.comparisons:>14.3f} %"
                     + "".join(f"{n:>{w}}" for n, w in zip(said, (8, 8, 8, 11)))
                     + f"{t.comparison_rounds / t.comparisons:>20.1f}{t.check_rounds / t.checks:>7.1f}")
    lines.append("")
    for name, t in tallies.items():
        at = ", ".join(f"{r}: {n}" for r, n in sorted(t.wrong_at.items())) or "none"
        lines.append(f"false calls by the round of their look, {name}: {at}")
    lines.append(f"took {took_s:.1f} s")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checks", type=int, default=2000, help="A/A checks simulated (default 2000)")
    p.add_argument("--repeats", type=int, default=family_rate.Study(1).repeats,
                   help="REPEATS of a check: its planned rounds (default %(default)s, the sweep's)")
    p.add_argument("--seed", type=int, default=1, help="the simulation's seed (default 1)")
    p.add_argument("--pure", action="store_true",
                   help="decide with the sweep's own pure-Python interval (sequential.shift): the same figures, slower")
    args = p.parse_args()
    study = family_rate.Study(args.checks, repeats=args.repeats, seed=args.seed, pure=args.pure)
    start = time.perf_counter()
    tallies = study.run()
    print(report(study, tallies, time.perf_counter() - start))


if __name__ == "__main__":
    main()
