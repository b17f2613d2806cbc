"""sweepkit/noise.py: after round 2, the line that names a loud machine, on planted p50s (no process is started)."""

import math
import random

import pytest

from suite import tdist
from sweepkit import knobs, noise, plan, spec


def planned_runs(flags="tSsa", repeats=14, **env):
    result = knobs.check({"PROTOCOLS": "tcp udp", **env}, flags, "localhost")
    assert not result.errors and not result.usage
    return plan.runs(plan.build(result.spec(), result.selection), repeats, 1)


def planted(runs, block_sd, run_sd, seed=3):
    """Each run's record with a p50 of log = its point's level + its (setting, round) block's shift + its own."""
    rng = random.Random(seed)
    level = {run.point: rng.uniform(9, 11) for run in runs}
    shift = {(run.point.setting, run.round): rng.gauss(0, block_sd) for run in runs}
    return [run.record() | {"status": "ok", "p50_ns": math.exp(level[run.point] + shift[run.point.setting, run.round]
                                                                + rng.gauss(0, run_sd))} for run in runs]


def test_the_line_comes_once_round_two_is_over():
    runs = planned_runs(INTERVALS="0.001 0", repeats=3)
    assert [i for i in range(len(runs)) if noise.due(runs, i)] == [31]  # 16 points a round
    two = planned_runs(INTERVALS="0", repeats=2)
    assert [i for i in range(len(two)) if noise.due(two, i)] == [len(two) - 1]
    assert not any(noise.due(one, i) for one in [planned_runs(INTERVALS="0", repeats=1)] for i in range(len(one)))


def test_the_spreads_come_out_as_planted():
    runs = planned_runs(INTERVALS="0.1 0.01 0.001 0.0001 0")
    between, paired = noise.spreads(runs, planted(runs, block_sd=0.2, run_sd=0.05))
    assert 0.15 < between < 0.27  # the blocks' 0.2 and the runs' own 0.05
    assert 0.05 < paired < 0.09  # what a Δ in its block keeps: √2 × 0.05
    alone = planned_runs("t", INTERVALS="0.1 0.01 0.001 0.0001 0")
    assert noise.spreads(alone, planted(alone, 0.2, 0.05))[1] is None  # no std: no paired Δ


def test_a_burst_in_a_few_runs_does_not_inflate_the_paired_spread():
    """The analysis's Δ interval (signed rank) follows the bulk of the pairs, so the MDE foretold must too."""
    runs = planned_runs(INTERVALS="0.1 0.01 0.001 0.0001 0")
    records = planted(runs, block_sd=0.2, run_sd=0.05)
    burst = [i for i, run in enumerate(runs) if run.round <= 2][::20]  # one run in 20 landed on a burst
    for i in burst:
        records[i]["p50_ns"] *= 5
    _, paired = noise.spreads(runs, records)
    assert 0.05 < paired < 0.13, paired  # √2 × 0.05 = 0.07 planted; 0.087 from these draws without the bursts
    logs = {}  # what a plain pooled sd of the same pairs gives: the bursts' 1.6 in log
    for run, record in zip(runs, records):
        if run.round <= 2:
            logs.setdefault(run.point, {})[run.round] = math.log(record["p50_ns"])
    std = {p.setting: r for p, r in logs.items() if p.framework == "std"}
    plain = noise.pooled_sd([[x - std[p.setting][k] for k, x in r.items()] for p, r in logs.items()
                             if p.framework != "std"])
    assert plain > 3 * paired


def test_a_loud_machine_is_named_with_the_mde_and_the_budget_that_reaches_ten_percent():
    runs = planned_runs(INTERVALS="0.1 0.01 0.001 0.0001 0")
    records = planted(runs, block_sd=0.0, run_sd=0.21)  # drift within seconds: nothing shared by a block
    between, paired = noise.spreads(runs, records)
    said = noise.line(runs, records, 14, round_s=60.0)
    mde = noise.share(tdist.detectable(paired, 14))
    needed = noise.rounds_for(paired)
    assert 0.2 < mde < 0.36 and needed > 14
    assert said == (f"Noise: after 2 rounds a point's runs scatter by {noise.pct(noise.share(between))} (sd of log "
                    f"p50; a quiet machine: about 6 %), so a Δ vs std resolves about {noise.pct(mde)} at REPEATS=14; "
                    f"BUDGET={noise.budget(needed * 60.0)} ({needed} rounds) would reach 10 % "
                    "(docs/sweeps.md, \"Noisy machines\")")
    assert noise.share(tdist.detectable(paired, needed)) <= 0.10 < noise.share(tdist.detectable(paired, needed - 1))


def test_a_quiet_machine_is_not_named():
    runs = planned_runs(INTERVALS="0.1 0.01 0.001 0.0001 0")
    assert noise.line(runs, planted(runs, block_sd=0.03, run_sd=0.04), 14, 60.0) is None
    failed = [r | {"status": "failed", "p50_ns": None} for r in planted(runs, 0.3, 0.3)]
    assert noise.line(runs, failed, 14, 60.0) is None  # nothing measured: nothing to say


def test_without_std_the_mde_is_that_of_two_points_means():
    runs = planned_runs("ts", INTERVALS="0.001 0")
    records = planted(runs, block_sd=0.0, run_sd=0.25)
    between, _ = noise.spreads(runs, records)
    mde = noise.share(tdist.detectable(math.sqrt(2) * between, 14))
    assert f"a difference resolves about {noise.pct(mde)} at REPEATS=14" in noise.line(runs, records, 14, 30.0)


def test_a_loud_machine_whose_blocks_share_the_noise_is_named_without_a_budget():
    runs = planned_runs(INTERVALS="0.1 0.01 0.001 0.0001 0")
    said = noise.line(runs, planted(runs, block_sd=0.2, run_sd=0.03), 14, 60.0)
    assert "so a Δ vs std still resolves about " in said and "BUDGET" not in said
    assert "at REPEATS=14 (pairing with std cancels what a block shares)" in said


@pytest.mark.parametrize("seconds, text", [(59, "1m"), (2820, "47m"), (7140, "119m"), (7200, "2h"), (9000, "2.5h"),
                                           (9001, "2.6h")])
def test_a_budget_is_written_as_budget_takes_it_rounded_up(seconds, text):
    assert noise.budget(seconds) == text and spec.budget_s(text) >= seconds
