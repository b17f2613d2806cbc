"""A/A pull-request checks decided as the sweep decides them: how often a check of 16 comparisons calls anything."""

from types import SimpleNamespace

import numpy as np
import pytest

from benches import family_rate as fr
from suite import sequential
from sweepkit import looks

CHECKS = 300  # 4800 comparisons a design: seconds, not minutes
SEED = 1
FAMILY_ALPHA = 0.05


@pytest.fixture(scope="module")
def tallies():
    return fr.Study(CHECKS, seed=SEED).run()


def test_a_check_with_alpha_held_over_its_comparisons_is_not_shown_to_call_a_a_differences_over_5_percent(tallies):
    # Each comparison spends nearly all its α / 16 and they rarely err together, so the rate is only just under 5 %:
    # no study of a few hundred checks can show it below, so the test asks that this one does not show it above.
    held = tallies["held"]
    low, high = held.interval()
    assert held.checks == CHECKS and held.comparisons == CHECKS * 16
    assert low <= FAMILY_ALPHA, (held.wrong_checks, low, high)


def test_the_same_checks_with_alpha_per_comparison_call_a_difference_in_far_more_than_5_percent(tallies):
    # The control: a study that cannot tell a held α from an unheld one would pass the test above either way.
    low, _ = tallies["unheld"].interval()
    assert low > 5 * FAMILY_ALPHA, tallies["unheld"].wrong_checks


def test_the_studys_interval_is_the_sweeps_own_to_the_last_bit():
    rng = np.random.default_rng(SEED)
    design = fr.Study(1).designs()["held"]
    for look in fr.looks_of(design):
        for n in (2, 5, look.round):
            diffs = rng.standard_t(3, n).tolist()
            assert fr.shift(diffs, look.confidence) == sequential.shift(diffs, look.confidence)


def rotation_decisions(values: np.ndarray, design: sequential.Design) -> list[sequential.Decision]:
    """The check's comparisons decided by the sweep's own Rotation, its runs fed round by round as the runner does."""
    lines = {fr.BASE: "tokio-base", fr.HEAD: "tokio-head"}
    points = [SimpleNamespace(framework=lines[line], setting=(transport, 64, str(interval), tasks), skipped=None,
                              stem=f"{lines[line]}-{transport}-64B-{interval}s-{tasks}t")
              for transport, interval, tasks, *_ in fr.SETTINGS for line in (fr.BASE, fr.HEAD)]
    bases, against_std = looks.pairs({"base": {"label": lines[fr.BASE]}, "head": {"label": lines[fr.HEAD]}}, ())
    rotation = looks.Rotation(design, points, bases, against_std)
    runs, records = [], []
    for done in range(1, design.maximum + 1):
        for i, point in enumerate(points):
            run = SimpleNamespace(point=point, round=done)
            if rotation.keeps(run):
                p50, p99 = values[done - 1, i // 2, i % 2]
                runs.append(run)
                records.append({"status": "ok", "p50_ns": p50, "p99_ns": p99, "samples": 1000})
        if rotation.due(design, done):
            rotation.look(design, done, runs, records)
    by = {(c.setting[0], c.setting[2], c.setting[3], c.figure): d for c, d in rotation.decisions.items()}
    return [by[(transport, str(interval), tasks, figure)]
            for transport, interval, tasks, *_ in fr.SETTINGS for figure in fr.FIGURES]


@pytest.mark.parametrize("which", ["held", "unheld"])
def test_the_study_decides_each_comparison_as_the_sweeps_rotation_does(which):
    design = fr.Study(1).designs()[which]
    looks_taken = fr.looks_of(design)
    values = fr.simulate(20, design.maximum, fr.Noise(), np.random.default_rng(SEED))
    mine = [fr.decide_check(check, design, looks_taken) for check in values]
    # The checks where something was called, if any, and one more: early stops and false calls are compared too.
    called = [i for i, found in enumerate(mine) if any(d.verdict in (sequential.SLOWER, sequential.FASTER)
                                                       for d in found)]
    chosen = sorted({*called[:2], 0})
    for i in chosen:
        assert mine[i] == rotation_decisions(values[i], design)
    verdicts = {d.verdict for i in chosen for d in mine[i]}
    early = {d.decided_at for i in chosen for d in mine[i]} - {None, design.maximum}
    assert which == "held" or (verdicts & {sequential.SLOWER, sequential.FASTER} and early), (verdicts, early)
