"""The group-sequential design's parts: its boundaries against a simulation, its looks, and verdicts on hand-made
sequences of looks whose answers are known (suite/sequential.py, suite/boundaries.py)."""

import math

import numpy as np
import pytest

from analysis import uncertainty as u
from suite import boundaries, sequential, signed_rank


def simulated_crossings(fractions, cs, paths=200_000, seed=1):
    """The share of Brownian paths whose z first crosses ±c_k at each look k (standardised at fraction t_k)."""
    rng = np.random.default_rng(seed)
    steps = rng.normal(size=(paths, len(fractions))) * np.sqrt(np.diff([0.0, *fractions]))
    z = np.cumsum(steps, axis=1) / np.sqrt(fractions)
    crossed = np.abs(z) >= np.array(cs)
    first = np.argmax(crossed, axis=1)
    return np.array([np.mean(crossed.any(axis=1) & (first == k)) for k in range(len(fractions))])


@pytest.mark.parametrize("spending", ["hsd-2", "obf", "pocock"])
def test_each_boundary_spends_what_its_function_allows_by_then(spending):
    fractions = [10 / 87, 20 / 87, 40 / 87, 60 / 87, 80 / 87, 1.0]
    cs = boundaries.boundaries(fractions, 0.05, spending)
    spent = np.cumsum(simulated_crossings(fractions, cs))
    allowed = [boundaries.spent(t, 0.05, spending) for t in fractions]
    assert spent == pytest.approx(allowed, abs=0.0025)  # 200 000 paths: a share's sd is under 0.0005
    assert spent[-1] == pytest.approx(0.05, abs=0.0025)


def test_one_look_is_the_fixed_design_and_o_brien_fleming_starts_high():
    assert boundaries.boundaries([1.0], 0.05, "obf") == pytest.approx([1.959964], abs=1e-5)
    first, *_, last = boundaries.boundaries([0.25, 0.5, 0.75, 1.0], 0.05, "obf")
    assert first == pytest.approx(3.92, abs=0.01) and 2.0 < last < 2.06


def test_the_default_design_looks_every_tenth_of_the_rounds_and_runs_a_few_more():
    design = sequential.plan("decided", 80)
    assert design.rounds() == [10, 20, 30, 40, 50, 60, 70, 80, 87] and design.maximum == 87
    assert sequential.plan("fixed", 80).rounds() == [80]
    assert sequential.plan("decided", 12).rounds() == [12]  # too few rounds to look before the last
    assert sequential.plan("decided", 80, inflate=False).maximum == 80  # under BUDGET its rounds are the most


def test_looks_replayed_from_their_record_give_the_same_boundaries_and_a_closing_look_spends_the_rest():
    design = sequential.plan("decided", 80)
    looks = sequential.Looks(design)
    for r in (10, 20, 30):
        looks.add(r, design.maximum)
    again = sequential.Looks(design).replay([look.record() for look in looks.taken])
    assert [look.boundary for look in again.taken] == pytest.approx([look.boundary for look in looks.taken])
    closed = sequential.Schedule(design, tuple(looks.taken)).through(35)  # stopped at round 35: Ctrl-C
    assert [look.round for look in closed] == [10, 20, 30, 35] and closed[-1].spent == pytest.approx(0.05)
    assert sequential.Schedule().through(14)[0].confidence == pytest.approx(0.95)


def deltas(values, base=100.0):
    return {r: base + v for r, v in enumerate(values, 1)}, {r: base for r in range(1, len(values) + 1)}


def decide(mine, theirs, rounds, maximum, margin=0.05, floor=0.02, over=True):
    design = sequential.Design("decided", rounds[0], rounds[0], maximum, margin)
    looks = sequential.Looks(design)
    taken = [looks.add(r, maximum) for r in rounds]
    return sequential.decide(mine, theirs, taken, margin=margin, floor=floor, over=over)


def test_a_large_difference_is_decided_slower_at_the_first_look():
    mine, theirs = deltas([20 + (r % 3) for r in range(40)])
    found = decide(mine, theirs, [10, 20, 40], 40)
    assert found.verdict == "slower" and found.decided_at == 10 and found.pairs == 10
    assert found.low > 0 and found.look.confidence > 0.99  # the first look's interval is a 99.x % one


def test_a_tight_zero_is_the_same_and_a_wide_one_stays_undecided_to_the_end():
    wiggle = [(-1) ** r * 0.5 for r in range(40)]  # ±0.5 % of std's 100: inside ±5 %
    found = decide(*deltas(wiggle), [10, 20, 40], 40)
    assert found.verdict == "same" and found.decided_at == 10
    wide = list(np.random.default_rng(3).normal(0, 30, 40))  # sd 30 % of std's: neither excludes 0 nor fits ±5 %
    found = decide(*deltas(wide), [10, 20, 40], 40)
    assert found.verdict == "undecided" and found.decided_at is None and found.pairs == 40
    assert decide(*deltas(wide), [10, 20], 40, over=False).verdict == "open"


def test_before_the_last_look_the_same_must_also_rule_out_what_the_sweep_could_still_call():
    zero = list(np.random.default_rng(0).normal(0, 6, 80))  # sd 6 % of std's: a look's interval ±2–4 %
    halfway = decide(*deltas(zero[:40]), [40], 80, over=False)
    assert -5 < halfway.low and halfway.high < 5  # inside the margin ...
    assert sequential.verdict(halfway.low, halfway.value, halfway.high, 100.0, margin=0.05, floor=0.02,
                              last=False) == "same"
    assert halfway.verdict == "open"  # ... but not outside the MDE that 80 rounds could still call
    found = decide(*deltas(zero), [40, 80], 80)
    assert found.verdict == "same" and found.decided_at == 80


def test_a_difference_under_the_floor_is_never_slower_but_may_be_the_same():
    mine, theirs = deltas([1 + 0.01 * (r % 2) for r in range(20)])  # +1 %, a tight interval that excludes 0
    assert decide(mine, theirs, [10, 20], 20).verdict == "same"
    assert sequential.verdict(0.5, 1.0, 1.5, 100.0, margin=0.05, floor=0.02, last=True) == "same"
    assert sequential.verdict(2.5, 3.0, 3.5, 100.0, margin=0.05, floor=0.02, last=True) == "slower"
    assert sequential.verdict(-9, -8, -7, 100.0, margin=0.05, floor=0.02, last=True) == "faster"
    assert sequential.verdict(math.nan, 1.0, math.nan, 100.0, margin=0.05, floor=0.02, last=False) == "open"


def test_the_signed_rank_interval_widens_with_its_level_and_needs_ten_pairs_at_the_first_look():
    diffs = [float(x) for x in range(-4, 16)]
    narrow, wide = signed_rank.hodges_lehmann(diffs, 0.95), signed_rank.hodges_lehmann(diffs, 0.998)
    assert wide[1] < narrow[1] and narrow[2] < wide[2] and narrow[0] == wide[0]
    first = sequential.Looks(sequential.plan("decided", 80)).add(10, 87)
    assert signed_rank.critical(10, first.confidence) is not None
    assert signed_rank.critical(9, first.confidence) is None


def test_the_sweep_decides_on_the_interval_the_analysis_prints_even_with_too_few_pairs_for_the_signed_rank():
    rng = np.random.default_rng(7)
    for n in (2, 5, 6, 9, 10, 17, 40):
        diffs = list(rng.normal(1.0, 3.0, n))
        for confidence in (0.95, 0.998):
            printed = u.paired_shift(diffs, [0.0] * n, confidence)
            assert sequential.shift(diffs, confidence) == pytest.approx((printed.value, printed.low, printed.high))
    assert signed_rank.hodges_lehmann(list(rng.normal(0, 1, 9)), 0.998) is None  # where the two once differed
