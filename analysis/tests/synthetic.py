"""Synthetic sweeps whose samples come from a known distribution, and that distribution's exact quantiles: the
ground truth analysis/tests/coverage.py holds the pooled quantiles' intervals against."""

# A run's samples: a lognormal body whose log-median is shifted by the run's offset (a fresh process pair
# on a VM lands fast or slow: this VM's sd of a run's log p50 is 0.15–0.22), and a rare heavy tail (a
# stall: a descheduled vCPU, a timer's slack) in which a sample takes a stall's time instead. Each run
# weighs the same in a point, so the estimand is the quantile of the runs' mixture F̄(x) = E_run F_run(x).
# Every random part of the model is a normal in log-space or enters F linearly, so F̄ is a finite sum of
# normal CDFs, E_δ Φ((y − δ)/σ) = Φ(y / √(σ² + τ²)) for δ ~ N(0, τ²): its quantiles come from bisection on
# that closed form, exact to 1e-12, not from a Monte-Carlo sample whose own error would blur the coverage.

import math
from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class Model:
    """How a point's runs are drawn. Offsets are log-space: 0.2 is a run about 22 % slower."""

    median_ns: float = 20_000.0  # the body's median in a run without offset
    body_sigma: float = 0.25  # sd of a sample's log within a run
    drift: float = 0.19  # sd of a run's log offset
    disturbed: float = 0.0  # share of runs on a disturbed machine (a neighbour's burst) …
    disturbed_by: float = 0.4  # … whose offset is this much higher
    tail_share: float = 0.003  # mean share of a run's samples in the tail (each run's share ~ exponential)
    tail_scale: float = 10.0  # the tail's median, as a multiple of the body's
    tail_sigma: float = 0.8  # sd of a tail sample's log
    tail_drifts: bool = False  # whether the tail moves with the run's offset (a ×k tail) or not (a stall)
    shared: float = 0.7  # share of the offset's variance two points of one round have in common (paired)

    def name(self) -> str:
        tail = f"×{self.tail_scale:g} σ {self.tail_sigma:g}" + (" drifting" if self.tail_drifts else "")
        runs = f"drift {self.drift:g}" + (f" + {self.disturbed:.0%} at +{self.disturbed_by:g}" if self.disturbed else "")
        return f"body σ {self.body_sigma:g}, {runs}, tail {self.tail_share:.1%} {tail}"


VM = Model()  # this VM's sd of a run's log p50, 0.15–0.22; p99 at the body's end, p99.9 in the stalls
# A harder machine: one run in 20 on a disturbed host, a rare event that carries a quarter of the p99's tail.
DISTURBED = replace(VM, drift=0.17, disturbed=0.05)  # sd of a run's log p50 √(0.17² + 0.05·0.95·0.4²) = 0.19
TIMES_THREE = Model(drift=0.2, disturbed=0.0, tail_share=0.003, tail_scale=3.0, tail_sigma=0.25, tail_drifts=True)


def _phi(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    return 0.5 * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))


def cdf(model: Model, x) -> np.ndarray:
    """F̄(x): the share of the runs' mixture at or below x (ns), averaged over the offsets' distribution."""
    y = np.log(np.asarray(x, dtype=np.float64)) - math.log(model.median_ns)
    body, tail = 0.0, 0.0
    tail_y = y - math.log(model.tail_scale)
    for weight, shift in ((1 - model.disturbed, 0.0), (model.disturbed, model.disturbed_by)):
        body = body + weight * _phi((y - shift) / math.hypot(model.body_sigma, model.drift))
        spread = math.hypot(model.tail_sigma, model.drift) if model.tail_drifts else model.tail_sigma
        tail = tail + weight * _phi((tail_y - (shift if model.tail_drifts else 0.0)) / spread)
    return (1 - model.tail_share) * body + model.tail_share * tail


def truth(model: Model, q: float) -> float:
    """The exact q-quantile (0–1) of F̄, in ns: bisection in log-space until the bracket is 1e-12 wide."""
    low, high = math.log(model.median_ns) - 20.0, math.log(model.median_ns) + 20.0
    while high - low > 1e-12:
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(model, math.exp(mid)) < q else (low, mid)
    return math.exp((low + high) / 2)


def _offsets(model: Model, rng: np.random.Generator, rounds: int) -> np.ndarray:
    return (rng.normal(0.0, model.drift, rounds)
            + model.disturbed_by * (rng.random(rounds) < model.disturbed))


def _samples(model: Model, rng: np.random.Generator, offsets: np.ndarray, size: int) -> np.ndarray:
    """A rounds × size matrix of unsorted RTTs (ns, float) of runs with these offsets."""
    rounds = len(offsets)
    logs = math.log(model.median_ns) + offsets[:, None] + rng.normal(0.0, model.body_sigma, (rounds, size))
    share = model.tail_share * rng.exponential(1.0, rounds)
    row, col = np.nonzero(rng.random((rounds, size)) < share[:, None])
    logs[row, col] = (math.log(model.median_ns * model.tail_scale) + (offsets[row] if model.tail_drifts else 0.0)
                      + rng.normal(0.0, model.tail_sigma, len(row)))
    return np.exp(logs)


def _runs(matrix: np.ndarray) -> list[np.ndarray]:
    """Each row as a run's sorted int64 samples, as the analysis reads them from a CSV."""
    return list(np.sort(np.rint(matrix).astype(np.int64), axis=1))


def point(model: Model, rng: np.random.Generator, rounds: int, size: int) -> list[np.ndarray]:
    """One point: `rounds` runs of `size` samples each, every run's sorted."""
    return _runs(_samples(model, rng, _offsets(model, rng, rounds), size))


def paired(model: Model, rng: np.random.Generator, rounds: int, size: int, *, delay_every: int = 0,
           delay_ns: float = 0.0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two points measured in the same rounds (a block: the same machine state), each run's offset the round's
    shared part plus one of its own (model.shared of the variance shared). The second point's pong may plant
    `delay_ns` on one echo in `delay_every`, counted from a random phase (the pong's count starts before the
    run's window), as rtt-net's PlantedDelay does: ⌊size / every⌋ or one more of a run's samples. A/A without."""
    common = _offsets(replace(model, drift=model.drift * math.sqrt(model.shared)), rng, rounds)
    own = replace(model, drift=model.drift * math.sqrt(1 - model.shared), disturbed=0.0)
    a = _samples(model, rng, common + _offsets(own, rng, rounds), size)
    b = _samples(model, rng, common + _offsets(own, rng, rounds), size)
    if delay_every:
        phase = rng.integers(0, delay_every, rounds)
        delayed = (np.arange(size)[None, :] + phase[:, None]) % delay_every == delay_every - 1
        b = b + delay_ns * delayed  # the samples are independent of their order: any positions will do
    return _runs(a), _runs(b)
