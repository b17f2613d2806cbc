"""STOP=decided on real sweeps: a decided line leaves the rotation, std stays while a comparison of its setting is
open, the analysis reads the sweep's decisions back, STOP=fixed runs today's sweep, and bad knobs are refused."""

import contextlib
import csv
import io
import os
import signal

import pytest

from analysis import cli, uncertainty as u
from suite import percentile
from sweep_helpers import REPO, Run, load_json, require_binaries, run_script, script_env, sweep_dir

SHORT = {"DURATION": "0.05", "WARMUP": "0.02", "INTERVALS": "0", "PROTOCOLS": "tcp", "SEED": "4242", "COUNTERS": "0"}
# A delay several times std's back-to-back p50 is decided at an early look; an identical line may stay open.
LINES = "std-d=std:pong:--delay-ns 100000 std-aa=std:pong:--delay-ns 0"


def sweep(out_dir, **knobs):
    require_binaries("std")
    run = run_script("run-localhost.sh", ["-S"], out_dir, timeout=300, **(SHORT | {"VARIANTS": LINES} | knobs))
    assert run.rc == 0, run.output
    folder = sweep_dir(out_dir)
    return run, folder, load_json(folder / "sweep.json")


@pytest.fixture(scope="module")
def decided(tmp_path_factory):
    return sweep(tmp_path_factory.mktemp("decided"), REPEATS="30")


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    return sweep(tmp_path_factory.mktemp("fixed"), REPEATS="30", STOP="fixed")


def rounds_run(doc) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for run in doc["runs"]:
        if run["status"] == "ok":
            found.setdefault(run["point"], []).append(run["round"])
    return found


def samples_until(doc, stem: str, last_round: int) -> list[int]:
    """The samples of each ok run of a point up to a round (sweep.json runs[].samples)."""
    return [r["samples"] for r in doc["runs"] if r["point"] == stem and r["status"] == "ok" and r["round"] <= last_round]


def table_rows(folder) -> dict[str, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["table", "-d", str(folder), "--format", "csv"]) == 0
    return {row["framework"]: row for row in csv.DictReader(io.StringIO(out.getvalue()))}


def test_a_decided_line_leaves_the_rotation_and_std_stays_while_a_comparison_is_open(decided):
    run, folder, doc = decided
    assert doc["design"]["stop"] == "decided" and doc["repeats"] == 33
    rounds = [look["round"] for look in doc["looks"]]
    assert rounds == [10, 20, 33][:len(rounds)] and rounds[-1] == max(doc["retired"].values())  # all decided: over
    ran = rounds_run(doc)
    decisions = {d["line"]: d for d in doc["decisions"]}
    delay = decisions["std-d"]
    assert delay["verdict"] == "slower" and delay["decided_at"] in (10, 20)  # a loaded machine may need two looks
    assert max(ran["std-d-tcp-64B-0s-0t"]) == delay["decided_at"] == doc["retired"]["std-d-tcp-64B-0s-0t"]
    last_decided = max(d["decided_at"] or 33 for d in decisions.values())
    assert max(ran["std-tcp-64B-0s-0t"]) == last_decided  # std ran while any comparison was open, no longer
    aa = decisions["std-aa"]
    assert max(ran["std-aa-tcp-64B-0s-0t"]) == (aa["decided_at"] or 33)
    assert "Look after round 10" in run.output and "comparisons decided" in run.output


def test_the_analysis_reads_the_sweeps_decisions_back(decided):
    _, folder, doc = decided
    rows = table_rows(folder)
    for d in doc["decisions"]:
        row = rows[d["line"]]
        assert row["verdict"] == d["verdict"]
        assert row["decided_at"] == ("" if d["decided_at"] is None else str(d["decided_at"]))
    delay = rows["std-d"]
    # Its Δp99 is read at the deciding look (round 10, a 99.8 % interval): slower, or too wide to say, never faster.
    assert float(delay["delta_p50_low_ns"]) > 0 and delay["verdict_p99"] in ("slower", "undecided", "unknown", "")


def test_stop_fixed_runs_every_round_in_the_seeds_order_and_decided_runs_a_part_of_it(fixed, decided):
    _, folder, doc = fixed
    assert doc["design"]["stop"] == "fixed" and doc["looks"] == [] and doc["repeats"] == 30
    order = [r["stem"] for r in doc["runs"]]
    assert len(order) == 3 * 30 and all(r["status"] == "ok" for r in doc["runs"])
    kept = [r["stem"] for r in decided[2]["runs"] if r["round"] <= 30]
    assert kept == [stem for stem in order if stem in set(kept)]  # the same runs, in the same order
    rows = table_rows(folder)
    for line in ("std-d", "std-aa"):
        row = rows[line]
        low, high, std = float(row["delta_p50_low_ns"]), float(row["delta_p50_high_ns"]), float(rows["std"]["p50_ns"])
        assert row["delta_interval_method"] == u.INTERVAL_METHOD[u.SIGNED_RANK] and row["decided_at"] in ("30", "")
        if row["verdict"] == "same":  # only within the margin, never merely because the interval holds 0
            assert -0.05 * std < low and high < 0.05 * std


def test_stop_on_p99_keeps_a_line_running_until_its_p99_comparison_is_decided_too(tmp_path):
    _, folder, doc = sweep(tmp_path, REPEATS="30", STOP_ON="p50,p99")
    assert doc["design"]["stop_on"] == ["p50", "p99"]
    by = {(d["line"], d["figure"]): d for d in doc["decisions"]}
    assert set(by) == {(line, figure) for line in ("std-d", "std-aa") for figure in ("p50", "p99")}
    last = doc["looks"][-1]["round"]
    for line in ("std-d", "std-aa"):
        stem = next(p["stem"] for p in doc["points"] if p["framework"] == line)
        settled = [by[(line, figure)]["decided_at"] or last for figure in ("p50", "p99")]
        # It ran until both were decided, and its runs carried its own p99 (a loaded machine's short runs may not).
        carried = [look["round"] for look in doc["looks"] if look["round"] >= max(settled) and
                   percentile.carried(samples_until(doc, stem, look["round"]), 0.99)]
        assert doc["retired"].get(stem, last) == (carried[0] if carried else last), (line, by)
    row, p99 = table_rows(folder)["std-d"], by[("std-d", "p99")]
    assert row["verdict"] == "slower" and int(row["decided_at"]) == by[("std-d", "p50")]["decided_at"]
    if row["verdict_p99"] in ("slower", "faster", "same"):  # the pooled Δp99, read at the look that decided the runs'
        assert int(row["decided_at_p99"]) == p99["decided_at"]


def test_under_a_budget_a_line_that_leaves_buys_the_others_no_rounds(tmp_path):
    # std-d is decided at an early look (the first on a quiet machine, CI's loaded one took the second); std-aa,
    # identical to std, stays open for several looks more.
    _, _, doc = sweep(tmp_path, REPEATS="", BUDGET="30s")
    delay = next(d for d in doc["decisions"] if d["line"] == "std-d")
    assert doc["retired"]["std-d-tcp-64B-0s-0t"] == delay["decided_at"] < doc["repeats"], doc["looks"]
    # The control, from this sweep's own runs: the rounds the budget fits when every point runs every round, at
    # its runs' mean wall time. Counting only the lines still running, a third fewer runs a round would have
    # grown the most rounds by half of those left.
    walls: dict[str, list[float]] = {}
    for run in doc["runs"]:
        walls.setdefault(run["point"], []).append(run["wall_s"])
    fixed = 30 / sum(sum(w) / len(w) for w in walls.values())
    assert doc["repeats"] <= 1.15 * fixed, (doc["repeats"], fixed, doc["budget"]["replans"])
    fractions = [look["fraction"] for look in doc["looks"]]
    assert fractions == sorted(set(fractions)), doc["looks"]  # each look adds information, none goes back


@pytest.mark.parametrize("knob, value", [("STOP", "soon"), ("STOP_ON", "p95"), ("MARGIN", "-1"), ("MARGIN_P99", "100")])
def test_a_bad_design_knob_is_refused_naming_it(tmp_path, knob, value):
    run = run_script("run-localhost.sh", ["-S"], tmp_path, timeout=60, **(SHORT | {knob: value}))
    assert run.rc == 2 and f"{knob}='{value}'" in run.stderr, run.output
    assert not list(tmp_path.glob("localhost-*"))  # nothing was started


def test_a_decided_sweep_killed_after_a_look_continues_from_its_looks(tmp_path):
    require_binaries("std")
    run = Run([str(REPO / "run-localhost.sh"), "-S"], script_env(tmp_path, **(SHORT | {"VARIANTS": LINES,
                                                                                      "REPEATS": "30"})))
    run.start()
    run.expect_line("Look after round 10", timeout=120)
    os.kill(run.proc.pid, signal.SIGKILL)  # the sweep's own process, mid-way through round 11 or later
    run.proc.wait(timeout=10)
    folder = sweep_dir(tmp_path)
    again = run_script("run-localhost.sh", ["--continue", str(folder)], tmp_path, timeout=300,
                       **(SHORT | {"VARIANTS": LINES, "REPEATS": "30"}))
    assert again.rc == 0, again.output
    doc = load_json(folder / "sweep.json")
    assert doc["looks"][0]["round"] == 10 and doc["looks"][-1]["round"] == max(doc["retired"].values())
    assert len(doc["interruptions"]) == 1 and all(r["status"] == "ok" for r in doc["runs"])
    points = {r["point"] for r in doc["runs"]}
    retired = doc["retired"]
    assert set(retired) == points and retired["std-d-tcp-64B-0s-0t"] < 33  # the delay left before the end
    for point in points:  # every point ran each round up to the one it left after, once
        assert sorted(r["round"] for r in doc["runs"] if r["point"] == point) == list(range(1, retired[point] + 1))


def test_a_line_decided_before_its_p50_is_carried_runs_until_it_is(tmp_path):
    # At 10 msg/s a run holds one round trip (its window: one interval), and a p50 needs 20 pooled samples: a delay
    # of 50 ms, far above what a loaded machine's wake-ups add to a round trip, is decided before round 20, and each
    # line still runs until its own p50 is carried.
    run, folder, doc = sweep(tmp_path, REPEATS="30", INTERVALS="0.1", VARIANTS="std-d=std:pong:--delay-ns 50000000")
    decision, = doc["decisions"]
    assert decision["verdict"] == "slower", decision
    samples: dict[str, list[int]] = {}
    for record in doc["runs"]:
        if record["status"] == "ok":
            samples.setdefault(record["point"], []).append(record["samples"])
    for stem, left_after in doc["retired"].items():
        assert left_after >= 20 and sum(samples[stem]) >= 20, (stem, left_after, samples[stem])
    rows = table_rows(folder)
    assert set(rows) == {"std", "std-d"}
    for name, row in rows.items():
        assert row["p50_ns"] and "p50" not in row["refused"], (name, row["refused"])
