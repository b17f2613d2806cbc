"""A/A pull-request checks simulated and decided as the sweep decides them: how often a check calls anything."""

# A check compares HEAD with BASE at 8 settings, the runs' p50s and p99s paired by round (docs/pr-check.md).
# In an A/A check both lines draw from one distribution, so every slower or faster call is a false one; the
# check's false-call rate is the share of checks with at least one. Each comparison is decided by
# suite/sequential.py's decide at the looks sweepkit/looks.py's Rotation takes, with the same arguments.

import math
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from suite import sequential, signed_rank
from sweepkit import defaults, pr

FIGURES = ("p50", "p99")  # what the check compares: STOP_ON=p50,p99
BASE, HEAD = 0, 1  # the lines' index in a simulated round
BLOCK = 100  # checks simulated at a time, each block from its own seed: a check's draws depend on seed and BLOCK
# The check's grid (sweepkit/pr.py's DEFAULTS): transport, interval (s) and decoy tasks, each with a typical p50
# of a 64-byte round trip on a loopback (ns) and its p99 ÷ p50. Only the ratios matter: verdicts scale with the base.
SETTINGS = (("tcp", 0.001, 0, 40_000, 2.5), ("tcp", 0.001, 10, 60_000, 4.0), ("tcp", 0.0, 0, 25_000, 2.0),
            ("tcp", 0.0, 10, 38_000, 4.0), ("udp", 0.001, 0, 35_000, 2.5), ("udp", 0.001, 10, 52_000, 4.0),
            ("udp", 0.0, 0, 20_000, 2.0), ("udp", 0.0, 10, 30_000, 4.0))


@dataclass(frozen=True)
class Noise:
    """How a run's p50 and p99 scatter, on the log scale (0.05: about 5 %), in parts that rounds, settings, lines
    and runs share: both lines of a round move together, and the comparisons of a round's settings correlate."""

    round_sd: float = 0.03  # the machine's state in a round: every run of it
    setting_sd: float = 0.03  # a round at one setting: both lines' runs there
    line_sd: float = 0.02  # a line's runs across a round's settings (where it falls in the round's order)
    p50_sd: float = 0.05  # a run's own
    p99_sd: float = 0.15
    within_run: float = 0.5  # the correlation of a run's own p50 and p99 noise
    tail_scale: float = 2.0  # the p99 feels what runs share this many times as much as the p50
    disturbed_rounds: float = 0.03  # share of rounds disturbed: each run of one hit by a share of its own
    hit_runs: float = 0.02  # share of runs hit alone
    hit_p50: float = 0.15  # a hit's size: |N(0, sd)| on the log scale
    hit_p99: float = 0.5


def simulate(checks: int, rounds: int, noise: Noise, rng: np.random.Generator) -> np.ndarray:
    """The runs' p50 and p99 (ns) of `checks` A/A checks: shape (checks, rounds, settings, line, figure)."""
    settings = len(SETTINGS)
    shape = (checks, rounds, settings, 2, 2)
    figure = np.array([1.0, noise.tail_scale])
    shared = (rng.normal(0, noise.round_sd, (checks, rounds, 1, 1, 1))
              + rng.normal(0, noise.setting_sd, (checks, rounds, settings, 1, 1))
              + rng.normal(0, noise.line_sd, (checks, rounds, 1, 2, 1))) * figure
    z = rng.standard_normal(shape)
    rho = noise.within_run
    own = np.stack([z[..., 0] * noise.p50_sd,
                    (rho * z[..., 0] + math.sqrt(1 - rho * rho) * z[..., 1]) * noise.p99_sd], axis=-1)
    hit = np.abs(rng.standard_normal(shape)) * np.array([noise.hit_p50, noise.hit_p99])
    struck = ((rng.random((checks, rounds, 1, 1, 1)) < noise.disturbed_rounds)
              | (rng.random((checks, rounds, settings, 2, 1)) < noise.hit_runs))
    level = np.log([[p50, p50 * tail] for *_, p50, tail in SETTINGS])[None, None, :, None, :]
    return np.exp(level + shared + own + hit * struck)


def looks_of(design: sequential.Design) -> list[sequential.Look]:
    """The looks a sweep of `design` takes when it runs to its most rounds: Rotation.look's, one per due round."""
    looks = sequential.Looks(design)
    for done in design.rounds():
        looks.add(done, design.maximum, final=done >= design.maximum)
    return looks.taken


def shift(diffs: list[float], confidence: float) -> tuple[float, float, float] | None:
    """sequential.shift, the same floats in numpy: the Walsh averages are the same sums halved, and a partition
    finds the same order statistics the pure-Python sort does, a hundred times sooner at 87 pairs."""
    n = len(diffs)
    rank = signed_rank.critical(n, confidence) if n else None
    if rank is None:
        return sequential.shift(diffs, confidence)  # its t interval: cheap
    i, j = _pairs(n)
    d = np.asarray(diffs, dtype=float)
    walsh = (d[i] + d[j]) / 2
    middle, last = len(walsh) // 2, len(walsh) - 1
    kth = sorted({rank, last - rank, middle, middle - 1 + len(walsh) % 2})
    walsh = np.partition(walsh, kth)
    value = walsh[middle] if len(walsh) % 2 else (walsh[middle - 1] + walsh[middle]) / 2
    return float(value), float(walsh[rank]), float(walsh[last - rank])


@cache
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n)


def decide_check(values: np.ndarray, design: sequential.Design, looks: list[sequential.Look], interval=shift
                 ) -> list[sequential.Decision]:
    """Each comparison of one check (values: rounds × settings × line × figure), HEAD − BASE, by setting then
    figure: decided at the first look that decides it, as Rotation.look decides it look by look (a decision at a
    look depends only on the rounds up to it, so one call over every look, `over`, reaches the same).
    `interval`: decide's, this module's shift unless told (sequential.shift: the sweep's own, slower)."""
    rounds = range(1, values.shape[0] + 1)
    found = []
    for s in range(values.shape[1]):
        for f, figure in enumerate(FIGURES):
            head, base = (dict(zip(rounds, values[:, s, line, f].tolist())) for line in (HEAD, BASE))
            found.append(sequential.decide(head, base, looks, margin=design.margin_of(figure), floor=design.floor,
                                           over=True, interval=interval))
    return found


@dataclass
class Tally:
    """What a design decided over many A/A checks."""

    checks: int = 0
    wrong_checks: int = 0  # checks with at least one slower or faster call
    comparisons: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    wrong_at: dict[int, int] = field(default_factory=dict)  # the round of each false call's look → how many
    comparison_rounds: int = 0  # summed over comparisons: the rounds each ran (its deciding look's, or the last)
    check_rounds: int = 0  # summed over checks: the rounds until its last comparison was decided

    def add(self, decisions: list[sequential.Decision], maximum: int) -> None:
        wrong = [d for d in decisions if d.verdict in (sequential.SLOWER, sequential.FASTER)]
        used = [d.look.round if d.look else maximum for d in decisions]
        self.checks += 1
        self.wrong_checks += bool(wrong)
        self.comparisons += len(decisions)
        for d in decisions:
            self.verdicts[d.verdict] = self.verdicts.get(d.verdict, 0) + 1
        for d in wrong:
            self.wrong_at[d.look.round] = self.wrong_at.get(d.look.round, 0) + 1
        self.comparison_rounds += sum(used)
        self.check_rounds += max(used)

    @property
    def wrong_comparisons(self) -> int:
        return self.verdicts.get(sequential.SLOWER, 0) + self.verdicts.get(sequential.FASTER, 0)

    @property
    def rate(self) -> float:
        return self.wrong_checks / self.checks

    def interval(self) -> tuple[float, float]:
        """The exact (Clopper–Pearson) 95 % interval of the family-wise rate."""
        return clopper_pearson(self.wrong_checks, self.checks)


@dataclass(frozen=True)
class Study:
    """A/A checks of `rounds` planned rounds, each decided by a design and by the same design with α unheld."""

    checks: int
    repeats: int = int({**defaults.DEFAULTS, **pr.DEFAULTS}["REPEATS"])  # the check's REPEATS
    seed: int = 1
    noise: Noise = Noise()
    family: int = len(SETTINGS) * len(FIGURES)  # the comparisons α is held over
    pure: bool = False  # decide with sequential.shift itself, the sweep's pure-Python interval, not this module's twin

    def designs(self) -> dict[str, sequential.Design]:
        """`held` (α / family per comparison, as the check runs) and `unheld` (α per comparison)."""
        plain = sequential.plan("decided", self.repeats, stop_on=FIGURES)
        return {"held": sequential.held_over(plain, self.family), "unheld": plain}

    def run(self) -> dict[str, Tally]:
        designs = self.designs()
        looks = {name: looks_of(d) for name, d in designs.items()}
        tallies = {name: Tally() for name in designs}
        maximum = max(d.maximum for d in designs.values())
        interval = sequential.shift if self.pure else shift
        seeds = np.random.SeedSequence(self.seed).spawn(math.ceil(self.checks / BLOCK))
        for i, seed in enumerate(seeds):
            values = simulate(min(BLOCK, self.checks - i * BLOCK), maximum, self.noise, np.random.default_rng(seed))
            for check in values:
                for name, design in designs.items():
                    tallies[name].add(decide_check(check[:design.maximum], design, looks[name], interval),
                                       design.maximum)
        return tallies


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X ~ Binomial(n, p), summed in logs."""
    if p <= 0:
        return 1.0
    if p >= 1:
        return 1.0 if k >= n else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    return min(1.0, sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp
                                 + (n - i) * lq) for i in range(k + 1)))


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact binomial interval of k in n (Clopper & Pearson 1934), by bisection on the binomial's tails."""
    tail = (1 - confidence) / 2

    def solve(below) -> float:  # the p where `below(p)` turns false, below(p) falling in p
        low, high = 0.0, 1.0
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if below(mid) else (low, mid)
        return (low + high) / 2

    lower = 0.0 if k == 0 else solve(lambda p: 1 - _binomial_cdf(k - 1, n, p) < tail)
    upper = 1.0 if k == n else solve(lambda p: _binomial_cdf(k, n, p) > tail)
    return lower, upper
