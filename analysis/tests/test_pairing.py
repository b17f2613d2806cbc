"""pairing.pair: two lines paired by round, the one place every Δ, its verdict and its MDE are made."""

import math

import numpy as np

from analysis import pairing, quantiles
from analysis import uncertainty as u


def test_only_the_rounds_both_lines_measured_are_paired():
    mine = {1: 110.0, 2: 112.0, 3: 111.0, 5: 500.0}
    theirs = {1: 100.0, 2: 100.0, 3: 100.0, 4: 100.0}
    found = pairing.pair(mine, theirs, 100.0, noise=0.0)
    assert found.rounds == 3
    assert found.delta == u.paired_shift([110.0, 112.0, 111.0], [100.0, 100.0, 100.0])
    assert found.method == u.ACROSS_RUNS and found.verdict == "slower"
    assert found.mde == u.detectable(found.delta) and found.mde_pct == found.mde


def test_the_mde_is_never_below_the_noise_threshold():
    rng = np.random.default_rng(3)
    mine = {r: 100.0 + rng.normal(0, 0.01) for r in range(10)}
    found = pairing.pair(mine, dict.fromkeys(range(10), 100.0), 100.0, noise=0.02)
    assert found.verdict == "same" and found.mde == 2.0 and found.mde_pct == 2.0


def test_a_confidence_is_carried_down_to_the_interval_and_the_mde():
    rng = np.random.default_rng(4)
    mine = {r: 100.0 + rng.normal(5, 3) for r in range(20)}
    theirs = dict.fromkeys(range(20), 100.0)
    usual = pairing.pair(mine, theirs, 100.0, noise=0.0)
    strict = pairing.pair(mine, theirs, 100.0, noise=0.0, confidence=0.9995)
    assert strict.delta.low < usual.delta.low and strict.delta.high > usual.delta.high
    assert strict.mde > usual.mde


def test_the_verdict_rule_without_a_delta_or_a_reference():
    apart = pairing.pair({1: 1.0}, {2: 1.0}, 1.0)  # no round in common
    assert apart.delta is None and apart.verdict == "unknown" and apart.rounds == 0 and math.isnan(apart.mde)
    one = pairing.pair({1: 110.0}, {1: 100.0}, 100.0)
    assert one.delta.value == 10.0 and one.verdict == "unknown" and math.isnan(one.mde)
    # A reference the samples could not give (its p50 refused): the Δ is still called, without a noise threshold.
    unreferenced = pairing.pair({r: 110.0 + r for r in range(8)}, dict.fromkeys(range(8), 100.0), math.nan)
    assert unreferenced.verdict == "slower" and unreferenced.mde == u.detectable(unreferenced.delta)
    assert math.isnan(unreferenced.mde_pct)


def test_a_pooled_quantile_the_samples_cannot_carry_is_refused_with_its_reason():
    rng = np.random.default_rng(5)
    mine = {r: np.sort(rng.exponential(100, 50)) for r in range(4)}
    theirs = {r: np.sort(rng.exponential(100, 50)) for r in range(4)}
    found = pairing.pair(mine, theirs, 100.0, statistic=pairing.pooled("p99", 0.99))
    assert found.delta is None and found.verdict == "" and found.method == ""
    assert found.refused == quantiles.Refused(200, 1000, "p99") and str(found.refused) == "n = 200: too few for p99"


def test_a_pooled_quantile_pairs_as_quantiles_paired_deltas_does():
    rng = np.random.default_rng(6)
    mine = {r: np.sort(rng.exponential(110, 400)) for r in range(8)}
    theirs = {r: np.sort(rng.exponential(100, 400)) for r in range(8)}
    found = pairing.pair(mine, theirs, 70.0, statistic=pairing.pooled("p50", 0.5), noise=0.0)
    expected = quantiles.paired_deltas(list(mine.values()), list(theirs.values()), {"p50": 0.5})["p50"]
    assert found.delta == expected and found.method == u.PAIRED_POOLED and found.rounds == 8
    assert found.verdict == u.verdict(expected, 70.0, 0.0)
