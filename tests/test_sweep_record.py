"""sweep.json and what is read back from the logs (sweepkit state and table), and a sweep's steps in
one process (check, plan, start, record, a signal, finish), on synthetic logs."""

import json
import os
import re
import signal
import subprocess

import pytest

from sweep_helpers import load_json, require_binaries, run_script, sweep_dir

from sweepkit import (disturbance, entry, knobs, local, modes, outcome, plan, prepare, procs, records, runner, signals,  # noqa: E402
                      state, summary, table)

RTT_LOG = {"schema": "rtt-log/1", "kind": "rtt", "framework": "tokio", "transport": "tcp",
           "payload": 64, "interval_s": 0.001, "target_rate": 1000.0, "achieved_rate": 999.5, "tasks": 0,
           "lost": 0, "complete": True, "rtt_ns": {"n": 10, "p50": 21000, "p99": 40000, "p999": 41000,
                                                   "max": 42000}}
THROUGHPUT_LOG = {"schema": "rtt-log/1", "kind": "throughput", "framework": "async-std",
                  "transport": "udp", "payload": 64, "tasks": 2, "windows": 5, "lost": 12,
                  "complete": False, "msg_per_s": {"mean": 4.1e6, "p5": 3.9e6, "p50": 4.2e6, "p95": 4.4e6},
                  "gbit_per_s": {"mean": 2.1, "p5": 2.0, "p50": 2.15, "p95": 2.25}}


def write_logs(folder, **logs):
    for stem, log in logs.items():
        (folder / f"{stem}.json").write_text(json.dumps(log))


def cells(line):
    """A table row's cells: columns are two spaces or more apart."""
    return re.split(r" {2,}", line.strip())


def test_a_point_has_p50_rtt_and_rate_or_p50_throughput(tmp_path):
    write_logs(tmp_path, rtt=RTT_LOG, tput=THROUGHPUT_LOG)
    assert summary.log_figures(tmp_path / "rtt.json") == (21000, 999.5, 40000, 10)  # p50, rate, the p99, n
    assert summary.log_figures(tmp_path / "tput.json") == (4.2e6, 2.15)
    assert summary.log_figures(tmp_path / "missing.json") == (None, None)


def test_a_throughput_log_without_windows_gives_empty_figures():
    empty = dict(THROUGHPUT_LOG, windows=0, lost=None,
                 msg_per_s={"mean": None, "p5": None, "p50": None, "p95": None})
    assert summary.figures(empty) == (None, 2.15)
    assert modes.of("throughput").row(empty)[4:8] == ["–", "0", "–", "–"]


def test_the_fallback_table_has_a_throughput_form(tmp_path):
    write_logs(tmp_path, **{"async-std-udp-64B-throughput-2t-r1": THROUGHPUT_LOG, "sweep": {"schema": "rtt-sweep/2"}})
    header, row = summary.summary(tmp_path)
    assert cells(header)[:5] == ["framework", "transport", "payload", "tasks", "run"]
    assert "msg/s p50" in header and "Gb/s p50" in header
    assert cells(row) == ["async-std", "udp", "64 B", "2", "r1", "5", "3.9 M", "4.2 M", "4.4 M", "2", "2.15",
                          "2.25", "12 (incomplete)"]


def test_the_fallback_table_shows_each_kind_it_finds(tmp_path):
    write_logs(tmp_path, rtt=RTT_LOG, tput=THROUGHPUT_LOG)
    lines = summary.summary(tmp_path)
    assert "p50 µs" in lines[0] and "" in lines and any("msg/s p50" in line for line in lines)
    rtt_row = cells(lines[1])  # a log from before --connections: its connections, load, starved unknown
    assert rtt_row == ["tokio", "tcp", "1 k", "1 k", "0", "–", "–", "–", "10", "21", "40", "41", "42", "0", "–"]


def test_the_fallback_table_shows_connections_load_and_starved_connections(tmp_path):
    write_logs(tmp_path, **{"tokio-tcp-64B-0.001s-0t-4c-open-r1": RTT_LOG | {
        "connections": 4, "load": "open", "per_connection": {"starved": 1}}})
    assert cells(summary.summary(tmp_path)[1]) == ["tokio", "tcp", "1 k", "1 k", "0", "4", "open", "r1", "10", "21",
                                                 "40", "41", "42", "0", "1"]
    assert table.starved(RTT_LOG) is None


def test_the_fallback_table_keeps_a_points_repeats_together_in_order(tmp_path):
    write_logs(tmp_path, **{f"tokio-tcp-64B-0.001s-0t-r{k}": dict(RTT_LOG, rtt_ns={"n": k}) for k in (10, 2, 1)})
    write_logs(tmp_path, **{"tokio-tcp-64B-0.001s-0t-x-r3": RTT_LOG})
    runs = [cells(line)[7:9] for line in summary.summary(tmp_path)[1:]]
    assert runs == [["r1", "1"], ["r2", "2"], ["r10", "10"], ["r3", "10"]]


def test_sweep_json_names_the_results_of_each_kind_of_run_and_tallies_the_points(tmp_path):
    env = {"MODE": "throughput", "SIZES": "64 100000", "REPEATS": "2"}
    checked = knobs.check(env, "S")
    points = plan.build(checked.spec(), checked.selection)
    runs = plan.runs(points, 2, seed=5)
    rtt_spec = knobs.check({"INTERVALS": "0.001", "PROTOCOLS": "tcp"}, "S").spec()
    rtt_point = plan.build(rtt_spec, checked.selection)[0]
    doc = {"kind": "localhost", "estimated_s": 7.5, "knobs": checked.knobs, "knobs_given": checked.given,
           "repeats": 2, "seed": 5, "points": [p.record() for p in points + [rtt_point]],
           "runs": [r.record() for r in runs + [plan.Run(rtt_point, 1)]]}
    tput = next(r for r in doc["runs"] if r["stem"] == "std-tcp-64B-throughput-0t-r1")
    state.settle(tput, "ok", None, 0.8123, {"msg_per_s_p50": 4200000.5, "gbit_per_s_p50": 2.15})
    state.settle(doc["runs"][-1], "ok", None, 1.2, {"p50_ns": 21000, "achieved_rate": 999.5})
    out = tmp_path / "sweep.json"
    state.save(out, doc)
    doc = json.loads(out.read_text())
    assert list(doc)[:2] == ["schema", "kind"]
    assert doc["schema"] == "rtt-sweep/2" and doc["repeats"] == 2 and doc["seed"] == 5
    assert list(doc)[-4:] == ["counts", "point_counts", "points", "runs"]
    assert doc["knobs"]["MODE"] == "throughput" and doc["knobs"]["SIZES"] == "64 100000"
    assert doc["knobs_given"] == ["MODE", "REPEATS", "SIZES"] and doc["estimated_s"] == 7.5
    tput = next(r for r in doc["runs"] if r["stem"] == "std-tcp-64B-throughput-0t-r1")
    assert tput == {"stem": "std-tcp-64B-throughput-0t-r1", "point": "std-tcp-64B-throughput-0t", "round": 1,
                    "status": "ok", "start_s": None, "wall_s": 0.81, "msg_per_s_p50": 4200000.5,
                    "gbit_per_s_p50": 2.15, "message": None}
    first, skipped, rtt = doc["points"][0], doc["points"][3], doc["points"][-1]
    assert first == {"stem": "std-tcp-64B-throughput-0t", "framework": "std", "transport": "tcp", "payload": 64,
                     "tasks": 0, "status": "partial", "repeats_ok": 1, "empty": 0,
                     "message": "1 of 2 repeats"}
    assert skipped["status"] == "skipped" and "65507" in skipped["message"]
    assert not any(r["point"] == skipped["stem"] for r in doc["runs"]), "a skipped point has no run"
    assert rtt["interval_s"] == 0.001 and (rtt["status"], rtt["repeats_ok"]) == ("ok", 1)
    assert doc["runs"][-1]["p50_ns"] == 21000 and doc["runs"][-1]["achieved_rate"] == 999.5
    assert doc["counts"] == {"ok": 2, "empty": 0, "failed": 0, "skipped": 0, "interrupted": 0, "planned": 5}
    assert doc["point_counts"] == {"ok": 1, "partial": 1, "empty": 0, "failed": 0, "skipped": 1, "interrupted": 0,
                                   "planned": 2}
    assert not list(tmp_path.glob(".*tmp")), "the temporary file is renamed over sweep.json"


def test_two_roles_of_one_machine_are_two_hosts():
    a = state.parse_tsv("host\tbox\ncpus_online\t8\nversion:std-ping\tstd-ping 0.1.0\n")
    b = state.parse_tsv("host\tbox\ncpus_online\t\n")
    found = state.hosts({"ping": a, "pong": b})
    assert found == {"box": {"host": "box", "cpus_online": 8, "binaries": {"std-ping": "std-ping 0.1.0"},
                             "role": "ping"},
                     "box (pong)": {"host": "box", "cpus_online": None, "role": "pong"}}


def test_a_failed_ping_leaves_no_empty_logs_but_keeps_what_it_wrote(tmp_path):
    stem = tmp_path / "std-tcp-64B-0s-0t"
    (tmp_path / f"{stem.name}.json").write_text("")
    (tmp_path / f"{stem.name}.csv").write_text("seq,t_ns,rtt_ns\n")
    assert state.ping_outcome(124, "3.2", stem) == ("failed", "ping timed out after 3.2 s")
    assert [p.name for p in tmp_path.iterdir()] == [f"{stem.name}.csv"]
    assert state.ping_outcome(1, "3.2", stem) == ("failed", "ping exited with status 1")
    assert state.ping_outcome(0, "3.2", stem) == ("failed", f"ping wrote no {stem}.json/.csv")


class Clock:
    """A wall clock a test sets."""

    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def a_sweep(tmp_path, env, flags, monkeypatch):
    """A sweep checked, planned and started in this process, its folder tmp_path/sweep, its clock at 100 s."""
    monkeypatch.setattr(entry, "missing_binaries", lambda *args: [])
    checked, spec, doc = entry.check(env, flags, "localhost", ["ping", "pong"], "run-x")
    runs, spec, shown = prepare.plan(doc, spec, None, "run-x")
    folder = tmp_path / "sweep"
    folder.mkdir()
    sweep = runner.Sweep("run-x", spec, doc, runs, folder, local.Ends(), None, tmp_path, "127.0.0.1", "v")
    sweep.clock = Clock(100.0)
    sweep.t0 = 100.0
    return checked, sweep, shown


def ended(sweep, index, outcome, t0):
    sweep.pending = records.Ended(index, outcome, t0, disturbance.snapshot())


def test_a_sweep_from_check_to_finish_in_one_process(tmp_path, monkeypatch, capsys):
    """The steps in the order the scripts take them, with what each prints and writes."""
    env = {"INTERVALS": "0.001 0", "PROTOCOLS": "tcp", "DURATION": "1", "WARMUP": "0", "REPEATS": "2", "SEED": "3",
           "PROBED": "0"}
    checked, sweep, shown = a_sweep(tmp_path, env, "t", monkeypatch)
    assert checked.knobs["INTERVALS"] == "0.001 0" and prepare.measured_prefixes(checked, sweep.spec) == ["tokio"]
    assert prepare.runtime_flags(sweep.doc, sweep.spec) == "-t" and prepare.references(checked) == []
    assert (checked.knobs["REPEATS"], checked.knobs["SEED"]) == ("2", "3")
    assert shown[:2] == ["Plan: 2 points × 2 repeats = 4 runs of 0 s warm-up + 1 s measured, about 4s in all",
                         "  2 rounds, each point once per round, in blocks of one setting's frameworks back to back, "
                         "shuffled with SEED=3 (ORDER=blocks)"]
    order = [r.stem for r in plan.runs(plan.build(knobs.check(env, "t").spec(), knobs.check(env, "t").selection), 2, 3)]
    assert [r.stem for r in sweep.runs] == order
    folder = sweep.folder
    sweep.start({"kind": "localhost", "target": "a=b"}, state.hosts({}))
    doc = state.load(folder / "sweep.json")
    assert doc["status"] == "running" and doc["target"] == "a=b" and doc["estimated_s"] == 4.12  # 4 × (1 + 0.03)
    assert (doc["repeats"], doc["seed"]) == (2, 3) and [r["stem"] for r in doc["runs"]] == order

    first_stem, second_stem = order[:2]
    write_logs(folder, **{first_stem: RTT_LOG})
    (folder / f"{first_stem}.csv").write_text("seq,t_ns,rtt_ns\n1,2,3\n")
    ended(sweep, 0, outcome.Outcome(exit_code=0), 100.0)
    sweep.clock.now = 101.25
    sweep.record()
    # The ETA counts each run left at its point's cost so far: this one's 1.25 s, the other's guess of 1.03 s.
    assert capsys.readouterr().out == (f"[1/4 r1] {first_stem[:-3]:<34} p50    21 µs          1 k msg/s   (1.25 s)   "
                                       "ETA 3s\n")
    (tmp_path / "ping.err").write_text("one\ntwo\n")
    ended(sweep, 1, outcome.Outcome(exit_code=3, tails=(tmp_path / "ping.err", tmp_path / "empty.err")), 101.3)
    sweep.clock.now = 102.3
    sweep.record()
    assert capsys.readouterr().out.splitlines() == [
        f"[2/4 r1] {second_stem[:-3]:<34} FAILED: ping exited with status 3   (1 s)   ETA 2s",  # 1.25 + 1 s left
        "      ping.err:", "      | one", "      | two"]
    sweep.clock.now = 102.5
    assert sweep.finish() == 1
    out = capsys.readouterr().out
    assert f"FAILED (1):\n  {second_stem}: ping exited with status 3\n" in out
    assert f"Incomplete (2):\n  {min(first_stem, second_stem)[:-3]}: " in out
    assert out.endswith(f"Sweep folder: {folder}\n")
    doc = state.load(folder / "sweep.json")
    assert doc["status"] == "failed" and doc["wall_s"] == 2.5 and doc["measured_s"] == 1
    assert [r["status"] for r in doc["runs"]] == ["ok", "failed", "planned", "planned"]
    assert doc["runs"][0]["wall_s"] == 1.25 and doc["runs"][1]["start_s"] == 1.3
    assert all("disturbance" in r for r in doc["runs"][:2])


@pytest.mark.parametrize("ended_first", [False, True], ids=["while it ran", "after its ping ended"])
def test_a_signal_marks_the_run_it_stopped_or_counts_the_one_that_ended(tmp_path, monkeypatch, capsys, ended_first):
    _, sweep, _ = a_sweep(tmp_path, {"INTERVALS": "0 0.01", "PROTOCOLS": "tcp", "REPEATS": "1", "SEED": "0"}, "S",
                          monkeypatch)
    sweep.start({"kind": "localhost"}, {})
    stem = sweep.doc["runs"][1]["stem"]
    write_logs(sweep.folder, **{stem: RTT_LOG})
    (sweep.folder / f"{stem}.csv").write_text("seq,t_ns,rtt_ns\n1,2,3\n")
    if ended_first:
        ended(sweep, 1, outcome.Outcome(exit_code=0), 100.0)
    else:
        sweep.current = 1
    sweep.stopped(signals.Stop(signal.SIGTERM))
    doc = state.load(sweep.folder / "sweep.json")
    assert doc["status"] == "interrupted" and doc["finished_at"]
    if ended_first:
        assert doc["runs"][1]["status"] == "ok" and (sweep.folder / f"{stem}.csv").exists()
        assert capsys.readouterr().out.startswith("[2/2 r1] ")
        return
    assert capsys.readouterr().err == (f"run-x: {stem} was interrupted and removed; finished runs stay in "
                                       f"{sweep.folder}\n")
    assert doc["runs"][1]["status"] == "interrupted" and "SIGTERM" in doc["runs"][1]["message"]
    assert not list(sweep.folder.glob(f"{stem}.*"))
    assert doc["counts"]["interrupted"] == 1 and doc["counts"]["planned"] == 1
    assert doc["point_counts"]["interrupted"] == 1 and doc["point_counts"]["planned"] == 1


def test_a_runs_disturbance_is_what_else_used_the_machine_during_it():
    hz = disturbance.CLK_TCK
    # 2 s of run: the machine was busy 3 CPU-seconds more, 1 of them the run's own processes', and
    # the hypervisor stole 0.5 s.
    # Interrupts and softirqs (loopback's packets) are the run's own work: not counted as anyone else's.
    before = "100 0 50 1000 0 7 7 10 0 0"
    after = f"{100 + 2 * hz} 0 {50 + hz} 1000 0 {7 + hz} {7 + hz} {10 + hz // 2} 0 0"
    assert disturbance.measure(before, after, 1.51, 2.51, 2.0) == {
        "steal_s": 0.5, "other_cpu_s": 2.0, "own_cpu_s": 1.0, "steal_cpus": 0.25, "other_cpus": 1.0}
    runs = [{"stem": f"p{i}-r1", "round": 1, "disturbance": {"other_cpus": cpus, "steal_cpus": 0.0}}
            for i, cpus in enumerate([0.02, 0.03, 0.9, 0.01])]
    runs += [{"stem": f"p{i}-r2", "round": 2, "disturbance": {"other_cpus": cpus, "steal_cpus": 0.0}}
             for i, cpus in enumerate([0.6, 0.7, 0.9, 0.65])]  # a busy round: every run alike, none stands out
    runs.append({"stem": "p9-r2", "round": 2, "status": "failed"})  # no figures: never flagged
    assert [r["stem"] for r in disturbance.flag(runs)] == ["p2-r1"]
    assert runs[2]["disturbed"] == "other processes used 0.90 CPUs during the run, its round's median 0.03"


def test_a_run_whose_ends_were_preempted_or_moved_far_more_than_its_rounds_is_flagged():
    def run(stem, preempted, moved, pong=True):
        ends = {"ping": {"involuntary_switches": preempted, "migrations": moved}}
        if pong:
            ends["pong"] = {"involuntary_switches": 5, "migrations": 0}
        return {"stem": stem, "round": 1, "disturbance": {"other_cpus": 0.0, "steal_cpus": 0.0, **ends}}
    runs = [run("a", 20, 1), run("b", 35, 1), run("c", 900, 1), run("d", 30, 60),
            run("icmp", 3, 0, pong=False),  # a run with one end read is compared on what it has
            {"stem": "remote", "round": 1, "disturbance": {"other_cpus": 0.0, "steal_cpus": 0.0}}]  # none read
    assert [r["stem"] for r in disturbance.flag(runs)] == ["c", "d"]
    assert runs[2]["disturbed"] == ("its ends were preempted 905 times (involuntary context switches), its "
                                    "round's median 35")
    assert runs[3]["disturbed"] == "its ends' threads moved CPU 60 times, its round's median 1"


def test_a_processs_threads_are_read_while_it_runs_and_not_once_it_has_ended(tmp_path):
    seen = []

    def read_then_stop(pid):  # the command cannot have ended by itself before: it runs 600 s
        seen.append(disturbance.threads(pid))
        os.kill(pid, signal.SIGTERM)

    code = procs.run(["sleep", "600"], subprocess.DEVNULL, subprocess.DEVNULL, 30, at=(0.2, read_then_stop))
    assert code == -signal.SIGTERM and len(seen) == 1
    assert seen[0]["threads"] == 1 and seen[0]["switches"] >= 1 and seen[0]["involuntary_switches"] >= 0
    assert seen[0]["migrations"] is None or seen[0]["migrations"] >= 0
    code = procs.run(["true"], subprocess.DEVNULL, subprocess.DEVNULL, 30, at=(25.0, seen.append))
    assert code == 0 and len(seen) == 1  # it had ended: nothing to read
    assert disturbance.threads(2**22 + 1) is None  # above pid_max: no such process


def test_every_run_of_a_real_sweep_records_its_disturbance(tmp_path):
    require_binaries("std")
    # The ends are read 80 % through the measured second (disturbance.PROBE_AT): 0.19 s before a paced ping
    # may end, a margin that a loaded machine's late timer does not eat as it could 0.05 s of a 0.3 s run's.
    run = run_script("run-localhost.sh", ["-S"], tmp_path, INTERVALS="0.01 0", PROTOCOLS="tcp", REPEATS="2",
                     DURATION="1", WARMUP="0.1")
    assert run.rc == 0, run.output
    runs = load_json(sweep_dir(tmp_path) / "sweep.json")["runs"]
    for r in runs:
        d = r["disturbance"]
        # CPU times count in 10 ms ticks: a paced run may read 0 of its own.
        assert d["own_cpu_s"] >= 0 and d["other_cpu_s"] >= 0 and d["steal_s"] >= 0, r
        # other_cpus is other_cpu_s over the run's wall time, to the roundings of the three (3, 3 and 2 places),
        # however many CPUs were busy.
        low = (d["other_cpu_s"] - 5e-4) / (r["wall_s"] + 5e-3) - 5e-4
        high = (d["other_cpu_s"] + 5e-4) / (r["wall_s"] - 5e-3) + 5e-4
        assert low <= d["other_cpus"] <= high, r
        # Both ends were read while they ran. Their migrations are counted, not bounded: an end's first thread moves
        # between CPUs as a loaded machine's balancer likes until taskset pins it (3 with 2 threads, beside stress-ng).
        for end in ("ping", "pong"):
            assert d[end]["threads"] >= 1 and d[end]["switches"] > 0, r
            assert d[end]["migrations"] is None or isinstance(d[end]["migrations"], int), r
    assert all(r["disturbance"]["own_cpu_s"] > 0 for r in runs if r["stem"].startswith("std-tcp-64B-0s"))


@pytest.mark.parametrize("loud", [True, False], ids=["loud", "quiet"])
def test_the_noise_line_follows_round_two_on_a_loud_machine_only(tmp_path, monkeypatch, capsys, loud):
    env = {"INTERVALS": "0.001 0", "PROTOCOLS": "tcp", "DURATION": "1", "WARMUP": "0", "REPEATS": "3", "SEED": "3"}
    _, sweep, _ = a_sweep(tmp_path, env, "tS", monkeypatch)
    sweep.start({"kind": "localhost"}, {})
    # Round 1 fast and round 2 slow by a factor the runs of a quiet machine never differ by.
    factor = {1: 1.0, 2: 1.6 if loud else 1.02}
    printed = []
    for index, run in enumerate(sweep.runs[:8]):
        p50 = 21000 * factor[run.round] * (1.1 if run.point.framework == "tokio" else 1.0)
        write_logs(sweep.folder, **{run.stem: RTT_LOG | {"rtt_ns": RTT_LOG["rtt_ns"] | {"p50": int(p50)}}})
        (sweep.folder / f"{run.stem}.csv").write_text("seq,t_ns,rtt_ns\n1,2,3\n")
        ended(sweep, index, outcome.Outcome(exit_code=0), 100.0)
        sweep.record()
        printed.append(capsys.readouterr().out.splitlines())
    assert all(len(lines) == 1 for lines in printed[:7])  # a progress line each
    if loud:
        assert len(printed[7]) == 2 and printed[7][1].startswith("Noise: after 2 rounds a point's runs scatter by ")
        assert "a Δ vs std still resolves about " in printed[7][1]  # the pairs' Δ is the same in both rounds
    else:
        assert len(printed[7]) == 1
