"""The pooled quantiles' intervals on synthetic sweeps with a known truth (a reduced analysis/tests/coverage.py):
they cover it, they are refused exactly where the rule says, the old estimator's bias shows, and an interval too
narrow fails the same check."""

import functools
import math

import numpy as np
import pytest

from analysis import quantiles
from analysis import uncertainty as u
from suite import percentile

from . import coverage, synthetic

POINTS = 200
MARGIN = 0.90  # 0.95 at 200 points has sd 0.015: 0.90 is three of them below, 0.93 would be one


def shares(cell: coverage.Cell) -> dict[str, tuple[float, float]]:
    """name → (share printed, share of the printed covering the truth) over the cell's points, one CPU."""
    outcomes = coverage.coverage([cell], workers=1)[cell]
    out = {}
    for j, name in enumerate(coverage.QUANTILES):
        printed = outcomes[:, j, 0] > 0
        out[name] = (printed.mean(), outcomes[printed, j, 1].mean() if printed.any() else math.nan)
    return out


def test_the_truth_is_the_mixture_s_quantile():
    for model in (synthetic.VM, synthetic.DISTURBED, synthetic.TIMES_THREE):
        qs = np.array(list(coverage.QUANTILES.values()))
        truths = np.array([synthetic.truth(model, q) for q in qs])
        assert synthetic.cdf(model, truths) == pytest.approx(qs, abs=1e-9)
        rng = np.random.default_rng(1)
        big = np.concatenate([np.concatenate(synthetic.point(model, rng, 400, 1000)) for _ in range(3)])
        assert np.quantile(big, qs) == pytest.approx(truths, rel=0.03)  # 1.2 M samples: p99.9 within 3 %


@pytest.mark.parametrize(("rounds", "size", "wanted"), [
    (80, 1, ("p50",)), (14, 10, ("p50",)), (80, 100, ("p50", "p99")), (80, 1000, ("p50", "p99", "p999")),
])
def test_printed_intervals_cover_the_truth(rounds, size, wanted):
    found = shares(coverage.Cell(synthetic.VM, rounds, size, POINTS))
    for name in wanted:
        printed, covers = found[name]
        assert printed > 0.9 and covers >= MARGIN, (name, printed, covers)


def test_the_skewness_term_is_what_brings_the_p99_to_its_level():
    # 80 runs of 1 000: the runs' values beyond the p99 are very skewed, and the plain t interval of their mean
    # misses more often than the widened one (on these 200 points: 0.905 against 0.949; the study: 0.920, 0.964).
    outcomes = coverage.coverage([coverage.Cell(synthetic.VM, 80, 1000, POINTS)], workers=1)
    o = next(iter(outcomes.values()))[:, list(coverage.QUANTILES).index("p99"), :]
    widened, plain = o[o[:, 0] > 0, 1].mean(), o[o[:, 6] > 0, 7].mean()
    assert widened >= 0.93 and plain < widened - 0.02, (widened, plain)


def test_an_interval_too_narrow_fails_the_same_check(monkeypatch):
    monkeypatch.setattr(quantiles, "estimates", functools.partial(quantiles.estimates, confidence=0.6))
    found = shares(coverage.Cell(synthetic.VM, 80, 100, POINTS))
    assert found["p50"][1] < MARGIN and found["p99"][1] < MARGIN


@pytest.mark.parametrize(("rounds", "size"), [(14, 1), (80, 1), (14, 10), (80, 10), (14, 100), (80, 100),
                                              (14, 1000), (3, 5000), (1, 999), (1, 1000)])
def test_quantiles_are_refused_exactly_where_the_samples_cannot_carry_them(rounds, size):
    runs = synthetic.point(synthetic.VM, np.random.default_rng(rounds * size), rounds, size)
    found = quantiles.estimates(runs, coverage.QUANTILES)
    n = quantiles.effective_n([size] * rounds)
    assert n == rounds * size
    for name, q in coverage.QUANTILES.items():
        e = found[name]
        if n < u.min_samples(q):  # the rule: TAIL_BEYOND samples beyond the quantile
            assert e == quantiles.Refused(n, u.min_samples(q), name, rounds * size), name
            assert str(e) == f"n = {n}: too few for {quantiles.label(name)}"  # runs of one size: n is the total
        elif math.isnan(e.low):  # carried, but the runs differ more than their number bounds: no interval
            assert rounds > 1 and not quantiles.woodruff(runs, [q]).inside[0] and math.isnan(e.high)
        else:
            assert min(r[0] for r in runs) <= e.low <= e.value <= e.high <= max(r[-1] for r in runs), name
    assert [u.min_samples(q) for q in (0.5, 0.9, 0.99, 0.999, 0.9999)] == [20, 100, 1_000, 10_000, 100_000]


def test_the_old_estimator_gives_single_samples_a_mean_for_every_quantile():
    runs = synthetic.point(synthetic.VM, np.random.default_rng(3), 80, 1)
    matrix = np.stack(runs)
    old = {p: matrix[:, percentile.index(1, p)].mean() for p in (50, 99, 99.9)}
    assert old[50] == old[99] == old[99.9] == matrix.mean()
    assert old[99] < 0.6 * synthetic.truth(synthetic.VM, 0.99)  # the "p99" of 80 single samples: half the truth
    truths = np.array([synthetic.truth(synthetic.VM, q) for q in coverage.QUANTILES.values()])
    ratios = coverage.point_outcomes(synthetic.point(synthetic.VM, np.random.default_rng(4), 80, 100), truths)[:, 5]
    assert ratios[2] < 0.5  # at 100 a run, its p99.9 is the mean of the runs' maxima


def test_a_planted_rare_delay_moves_the_p99_and_not_the_p50():
    rng = np.random.default_rng(5)
    calls = []
    for _ in range(6):
        base, delayed = synthetic.paired(synthetic.VM, rng, 80, 300, delay_every=50, delay_ns=200_000.0)
        change = quantiles.paired_deltas(delayed, base, {"p50": 0.5, "p99": 0.99})
        reference = quantiles.pooled_quantiles(base, [0.5, 0.99])
        calls.append((u.verdict(change["p99"], reference[1]), u.verdict(change["p50"], reference[0])))
    assert {p99 for p99, _ in calls} == {"slower"}, calls
    # The median moves by what one sample in 50 shifts it, under 1 %: called at about the A/A rate (6 % in the study).
    assert sum(p50 in ("slower", "faster") for _, p50 in calls) <= 1, calls


def test_runs_of_unequal_size_count_as_their_effective_n_and_say_so():
    rng = np.random.default_rng(7)
    runs = [np.sort(rng.integers(10_000, 30_000, size)) for size in [1, *[100] * 9]]  # one run stalled: 1 sample
    n = quantiles.effective_n([len(r) for r in runs])
    assert n == 10**2 * 1 // (1 + 9 / 100) and n < sum(len(r) for r in runs) == 901  # 91 of 901
    refused = quantiles.estimates(runs, {"p99": 0.99})["p99"]
    assert str(refused) == "n_eff = 91: too few for p99"
