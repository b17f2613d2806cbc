"""The confidence intervals on synthetic repeats with a known answer: t quantiles, coverage of
the interval across runs (and the failure of an interval from one run's samples), paired
differences, ratios and verdicts."""

import math

import numpy as np
import pytest

from analysis import uncertainty as u


@pytest.mark.parametrize("df, expected", [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452)])
def test_t_quantiles_match_the_tables(df, expected):
    assert u.t_quantile(df) == pytest.approx(expected, abs=1e-4)


def synthetic_runs(rng, repeats, *, median=60_000.0, run_spread=0.10, within=0.4, n=5_000):
    """Each repeat: lognormal RTTs whose median is `median` shifted by a run offset (lognormal,
    sd `run_spread`), as fresh processes on a noisy machine differ. Returns each run's sorted
    samples; the true value of the estimand (the mean over runs of a run's p50) is
    median · exp(run_spread² / 2)."""
    offsets = rng.normal(0.0, run_spread, repeats)
    return [np.sort(median * np.exp(o + rng.normal(0.0, within, n))) for o in offsets]


def p50(sorted_samples):
    return float(sorted_samples[math.ceil(0.5 * len(sorted_samples)) - 1])


def test_the_interval_across_runs_covers_the_true_value_95_times_in_100():
    truth = 60_000.0 * math.exp(0.10**2 / 2)
    covered = within_covered = 0
    for seed in range(100):
        runs = synthetic_runs(np.random.default_rng(seed), repeats=3)
        covered += u.across_runs([p50(r) for r in runs]).contains(truth)
        # What a bootstrap over one run's samples would say: far too narrow.
        within_covered += u.within_run_quantile(runs[0], 0.5).contains(truth)
    assert covered >= 90, covered
    assert within_covered < 50, within_covered


def test_one_repeat_gets_a_within_run_interval():
    runs = synthetic_runs(np.random.default_rng(1), repeats=1)
    estimate = u.within_run_quantile(runs[0], 0.5)
    assert estimate.method == u.WITHIN_RUN and estimate.repeats == 1
    assert estimate.low < estimate.value < estimate.high
    assert estimate.value == p50(runs[0])


def test_a_paired_difference_removes_what_a_round_shares():
    rng = np.random.default_rng(7)
    rounds = rng.normal(0.0, 0.2, 5)  # each round's drift hits both runtimes alike
    baseline = 60_000 * np.exp(rounds + rng.normal(0, 0.01, 5))
    runtime = 66_000 * np.exp(rounds + rng.normal(0, 0.01, 5))
    delta = u.paired_shift(runtime, baseline)
    assert 0 < delta.low < 6_000 < delta.high * 1.05
    assert u.verdict(delta, float(baseline.mean())) == "slower"
    # Unpaired, the drift would hide the difference: the two intervals overlap.
    assert u.across_runs(runtime).low < u.across_runs(baseline).high


def test_a_ratio_calls_a_planted_shift_and_not_noise():
    rng = np.random.default_rng(3)
    old = 60_000 * np.exp(rng.normal(0, 0.05, 10))
    same = 60_000 * np.exp(rng.normal(0, 0.05, 10))
    slower = 66_000 * np.exp(rng.normal(0, 0.05, 10))
    unchanged = u.ratio(same, old)  # 10 repeats of 5 % spread: an interval about ±5 % wide, holding 1
    assert unchanged.contains(1.0) and u.verdict(unchanged, 1.0, no_change=1.0, margin=0.10) == "same"
    assert u.verdict(unchanged, 1.0, no_change=1.0, margin=0.01) == "undecided"  # not within ±1 %: not known
    r = u.ratio(slower, old)
    assert r.low > 1.0 and r.contains(1.1)
    assert u.verdict(r, 1.0, no_change=1.0) == "slower"
    assert u.verdict(u.ratio(old, slower), 1.0, no_change=1.0) == "faster"


def test_verdicts_follow_the_noise_threshold_the_margin_and_the_direction():
    tiny = u.Estimate(1.01, 1.005, 1.015, 5, u.ACROSS_RUNS)
    assert u.verdict(tiny, 1.0, 0.02, no_change=1.0) == "same"
    assert u.verdict(tiny, 1.0, 0.005, no_change=1.0) == "slower"
    # An interval around no change is `same` only within the margin; wider, the data do not say.
    wide = u.Estimate(1.0, 0.9, 1.1, 5, u.ACROSS_RUNS)
    assert u.verdict(wide, 1.0, no_change=1.0) == "undecided" and u.verdict(wide, 1.0, margin=0.12, no_change=1.0) == "same"
    assert u.verdict(u.Estimate(2.0, -30.0, 34.0, 5, u.SIGNED_RANK), 100.0) == "undecided"
    assert u.verdict(u.Estimate(2.0, -3.0, 4.0, 5, u.SIGNED_RANK), 100.0) == "same"
    more_msgs = u.Estimate(1.2, 1.1, 1.3, 5, u.ACROSS_RUNS)
    assert u.verdict(more_msgs, 1.0, higher_is_slower=False, no_change=1.0) == "faster"
    alone = u.paired_shift([70_000], [60_000])
    assert alone.method == u.WITHIN_RUN and u.verdict(alone, 60_000) == "unknown"


def test_an_interval_stops_at_a_floor_the_quantity_cannot_pass():
    wide = u.across_runs([100.0, 900.0, 200.0], floor=0.0)
    assert wide.low == 0.0 and wide.high > 900.0 and u.across_runs([100.0, 900.0, 200.0]).low < 0



@pytest.mark.parametrize("repeats", [3, 5, 10])
def test_a_true_difference_of_the_mde_is_called_four_times_in_five(repeats):
    """The minimum detectable effect means what it says: planted at the size the formula gives for the
    spread, a difference is called `slower` in about 80 % of simulated sweeps, and at twice that in nearly
    all; a planted 0 is called at the test's 5 %."""
    rng = np.random.default_rng(repeats)
    sd, trials = 1_000.0, 4_000
    factor = u.t_quantile(repeats - 1) + u.t_quantile(repeats - 1, 2 * u.POWER - 1)
    truth = factor * sd / np.sqrt(repeats)

    def called_at(effect):
        calls = [u.verdict(u.paired_shift(effect + rng.normal(0, sd, repeats), np.zeros(repeats)), 1.0, 0.0)
                 for _ in range(trials)]
        return sum(c == "slower" for c in calls) / trials, sum(c in ("slower", "faster") for c in calls) / trials

    assert 0.72 <= called_at(truth)[0] <= 0.86
    assert called_at(2 * truth)[0] >= 0.97
    assert called_at(0.0)[1] <= 0.065
    # And each sweep's own estimate of it scatters around the truth (its spread is estimated too).
    mdes = [u.detectable(u.paired_shift(rng.normal(0, sd, repeats), np.zeros(repeats))) for _ in range(trials)]
    assert 0.6 * truth < np.median(mdes) < 1.1 * truth


def test_the_mde_of_a_ratio_is_a_share_and_none_without_repeats():
    rng = np.random.default_rng(5)
    old, new = 60_000 * np.exp(rng.normal(0, 0.05, 5)), 60_000 * np.exp(rng.normal(0, 0.05, 5))
    share = u.detectable_ratio(u.ratio(new, old))
    assert 0.03 < share < 0.3
    assert np.isnan(u.detectable_ratio(u.ratio([60_000], [61_000])))
    assert np.isnan(u.detectable(u.paired_shift([70_000], [60_000])))


def test_the_sweep_and_the_analysis_share_one_mde():
    """suite.tdist.detectable, which the sweep's noise line uses, is the MDE the analysis gives a paired Δ:
    exactly with 2 to 5 pairs (a t interval), and within a few percent on normal noise with more (the
    signed-rank interval's half-span times the same factor)."""
    from suite import tdist

    diffs = np.array([3.0, 5.0, 4.0, 7.0, 2.0])
    change = u.paired_shift(diffs, np.zeros(len(diffs)))
    assert change.method == u.ACROSS_RUNS
    assert tdist.detectable(float(np.std(diffs, ddof=1)), len(diffs)) == pytest.approx(u.detectable(change))
    assert tdist.detectable(1.0, 14) == pytest.approx(0.81, abs=0.005)  # docs/sweeps.md: 0.81 · s_Δ at R = 14
    rng = np.random.default_rng(14)
    for pairs in (10, 14, 38):  # at 6 the interval is the pairs' whole range: wider, and it covers 97 %
        ranked = [u.detectable(u.paired_shift(rng.normal(0, 1.0, pairs), np.zeros(pairs))) for _ in range(2000)]
        assert np.median(ranked) == pytest.approx(tdist.detectable(1.0, pairs), rel=0.15), pairs


def test_the_signed_rank_interval_is_exact_where_tables_give_it_and_ignores_a_burst():
    # Critical values of the two-sided 5 % signed-rank test (Hollander & Wolfe, table A.4).
    assert [u.signed_rank_critical(n) for n in (5, 6, 7, 10, 14, 20)] == [None, 0, 2, 8, 21, 52]
    n = u.EXACT_UP_TO + 1  # the normal approximation takes over where the exact count would agree within a rank
    assert abs(u.signed_rank_critical(n) - u.signed_rank_critical(n - 1) - (n - 1) // 2) < n
    quiet = [1_000.0 + 10 * k for k in range(14)]
    burst = quiet[:-1] + [55_000.0]  # a pair that landed on someone else's job
    calm, noisy = u.paired_shift(quiet, [0.0] * 14), u.paired_shift(burst, [0.0] * 14)
    assert calm.method == u.SIGNED_RANK and calm.low < 1_065 < calm.high
    assert noisy.value < 1_100 and noisy.high < 1_200, noisy  # a mean would be 4_900
    assert u.across_runs(burst).low < 0 < u.across_runs(burst).high  # and a t interval would call nothing
    # Two bursts in 14 reach the interval's upper end (more than c = 21 of the 105 pairwise means hold
    # one), not the estimate, which holds until 29 % of the pairs are bursts.
    two = u.paired_shift(quiet[:-2] + [40_000.0, 55_000.0], [0.0] * 14)
    assert two.value < 1_100 and two.low > 1_000 and two.high > 10_000


def test_on_bursty_noise_the_signed_rank_calls_more_and_a_planted_zero_no_more():
    """Noise like a shared VM's (docs/sweeps.md, "Noisy machines"): mostly tight, one pair in eight on a
    burst five times as wide. The signed-rank interval calls a shift the t interval mostly misses, and an
    A/A pair at its level."""
    rng = np.random.default_rng(29)
    pairs, trials, sd = 14, 3_000, 1_000.0

    def noise():
        wide = rng.random(pairs) < 0.125
        return rng.normal(0, sd, pairs) * np.where(wide, 5.0, 1.0)

    def rate(effect, interval):
        return np.mean([not interval(effect + noise()).contains(0.0) for _ in range(trials)])

    ranked = lambda d: u.paired_shift(d, np.zeros(pairs))  # noqa: E731
    assert rate(800.0, ranked) > rate(800.0, u.across_runs) + 0.06  # 0.56 against 0.46 with this seed
    assert rate(0.0, ranked) <= 0.06
