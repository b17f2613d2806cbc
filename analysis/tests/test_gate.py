"""The gate's test of a Δ series on its rounds: one disturbed round, in the newest sweep or in the window, neither
hides a change nor makes one."""

import numpy as np
import pytest

from analysis import between_sweeps as between

# Five earlier sweeps of three rounds each, a Δ's per-round log ratios about 0 with a round-to-round sd of 0.02.
WINDOW = [np.array(r) for r in ([0.01, -0.02, 0.00], [0.02, 0.01, -0.01], [-0.01, 0.00, 0.03], [0.00, -0.03, 0.01],
                                [0.01, 0.02, -0.02])]


def called(window, newest) -> bool:
    return not between.robust_predicted(window, np.array(newest), 0.95).contains(0)


def test_a_planted_ten_percent_is_called_though_one_of_its_rounds_was_disturbed():
    assert called(WINDOW, [0.10, 0.09, 0.11])
    assert called(WINDOW, [0.10, 0.09, -0.40])  # its mean (-0.07) would say faster; its median says +10 %


def test_one_disturbed_round_in_an_identical_sweep_is_not_a_change():
    assert not called(WINDOW, [0.01, -0.01, 0.40])


def test_a_disturbed_sweep_in_the_window_does_not_hide_a_change():
    disturbed = WINDOW[:4] + [np.array([0.35, 0.30, 0.02])]
    assert called(disturbed, [0.10, 0.09, 0.11])
    # The textbook interval on the sweeps' means is widened by it past the +10 %.
    means = [float(np.mean(r)) for r in disturbed]
    assert between.predicted(means, 0.10, 0.95).contains(0)


def test_the_spread_is_never_below_what_the_rounds_imply():
    """Five sweeps whose medians happen to agree exactly: their MAD is 0, the rounds' spread still counts (the
    median pairwise difference inside a sweep, 0.03, is a round sd of 1.4826 · 0.03 / √2)."""
    from suite.tdist import t_quantile

    window = [np.array([m - 0.03, m, m + 0.03]) for m in (0.0,) * 5]
    found = between.robust_predicted(window, np.array([0.02, 0.02, 0.02]), 0.95)
    assert found.contains(0) and found.high - found.value == pytest.approx(
        t_quantile(4, 0.95) * np.sqrt(np.pi / 6 * (1.4826 * 0.03) ** 2 / 2 * (1 + np.pi / 10)))


def test_too_few_sweeps_are_not_judged():
    assert between.robust_predicted(WINDOW[:3], np.array([0.5, 0.5, 0.5]), 0.95) is None


def test_the_window_is_cut_at_a_step_with_two_sweeps_after_it_not_at_one_disturbed_sweep():
    from analysis import gate

    flat = [np.array([m - 0.01, m, m + 0.01]) for m in (0.0, 0.01, -0.01, 0.0, 0.005, -0.005)]
    assert gate._since(flat[:5] + [np.array([0.30, 0.32, 0.31])], 0.02) == 0  # the newest-but-one, disturbed
    stepped = flat[:4] + [r + 0.2 for r in flat[4:]] + [np.array([0.21, 0.2, 0.19])]
    assert gate._since(stepped, 0.02) == 4


def test_the_noise_threshold_holds_for_a_delta_judged_on_its_rounds(tmp_path, capsys):
    """--noise reaches the gate's own test: a +10 % on one runtime is called at 2 %, not at 15 %."""
    from .conftest import cli
    from .test_history import recorded

    db = recorded(tmp_path, capsys, [{"drift": d} for d in (1.0, 1.3, 0.8, 1.2, 0.9)] + [{"slower_x": 1.1}])
    assert cli(capsys, "history", "--db", db, "--fail-on-change")[0] == 1
    status, out, err = cli(capsys, "history", "--db", db, "--fail-on-change", "--noise", "15")
    assert status == 0, out + err
