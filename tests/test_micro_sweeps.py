"""MODE=micro in run-localhost.sh, run for real on the micro binaries at tiny sizes: the logs, sweep.json,
the progress lines and the closing table; a failing and an interrupted run; run-network.sh refusing it."""

import os
import re
import signal

import pytest

from sweep_helpers import (shim, BIN_DIR, REPO, Run, load_json, process_name, progress_lines, run_script, script_env,
                           session_pids, sweep_dir, wait_until)

SCRIPT = "run-localhost.sh"
TINY = {"MODE": "micro", "BENCHES": "spawn_many notify channel", "MICRO_INSTANCES": "200",
        "MICRO_WORKERS": "4", "MICRO_EVENT_TYPES": "int", "MICRO_REPEAT": "3", "MICRO_TIMEOUT": "60"}
MICRO_PREFIX = {"std": "std", "tokio": "tokio", "async-std": "asyncstd", "smol": "smol", "monoio": "monoio",
                "compio": "compio", "glommio": "glommio", "go": "go", "kotlin": "kotlin"}


def require_micro(*frameworks):
    """Fails (never skips) when a micro binary is missing: `make` builds them (go-micro needs go, kotlin-micro
    java and mvn)."""
    missing = [f"{MICRO_PREFIX[fw]}-micro" for fw in frameworks if not (BIN_DIR / f"{MICRO_PREFIX[fw]}-micro").is_file()]
    if missing:
        pytest.fail(f"missing {', '.join(missing)} in {BIN_DIR}: run `make` first")


def test_a_tiny_micro_sweep_logs_every_point_and_its_sweep_json(tmp_path):
    require_micro("std", "tokio")
    run = run_script(SCRIPT, ["-tS"], tmp_path, timeout=300, **TINY)
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    points = [f"{fw}-{what}" for fw in ("std", "tokio") for what in ("spawn_many", "notify-i200", "channel-int-w4")]
    ops = {"spawn_many": 10_000, "notify": 200, "channel": 4 * 10_000}
    for stem in points:
        log = load_json(folder / f"{stem}-r1.json")
        assert log["kind"] == "micro" and log["schema"] == "rtt-log/1", log
        assert log["framework"] == stem.split("-")[0] and log["bench"] == stem.split("-")[1]
        assert log["complete"] is True and log["error"] is None and log["not_run"] is None, log
        assert len(log["times_ns"]) == log["repeat"] == 3 and log["ops"] == ops[log["bench"]]
        assert log["ns_per_op"]["median"] > 0 and log["ops_per_s"]["median"] > 0 and log["peak_rss_bytes"] > 0
    assert log["params"]["workers"] == 4 and log["params"]["event_type"] == "int"

    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "complete" and sweep["repeats"] == 1 and sweep["frameworks"] == ["std", "tokio"]
    assert sweep["knobs"]["MODE"] == "micro" and sweep["knobs"]["BENCHES"] == "spawn_many notify channel"
    assert sweep["target"] == "in-process" and sweep["pinning"] == "micro: none (every CPU)"
    assert [p["stem"] for p in sweep["points"]] == points
    assert all(p["status"] == "ok" and p["repeats_ok"] == 1 and p["estimated_s"] > 0 for p in sweep["points"])
    assert all(r["status"] == "ok" and r["ns_per_op_median"] > 0 and r["ops_per_s_median"] > 0
               for r in sweep["runs"])
    assert sweep["warmup_total_s"] is None and sweep["measured_s"] > 0
    (facts,) = sweep["hosts"].values()
    assert facts["binaries"]["tokio-micro"].startswith("tokio-micro ")

    assert "Plan: 6 points × 1 repeat = 6 runs of 1 warm-up + 3 timed repeats (micro)" in run.output
    progress = progress_lines(run.stdout)
    assert len(progress) == 6
    assert all(re.search(r"median +[0-9.]+ (ns|µs|ms|s)/op +[0-9.]+( [kMG])? op/s", line) for line in progress), \
        progress
    # The closing table is parse.py -k micro's, then the closing lines.
    assert any(line.startswith("framework") and "time/op [95 % CI]" in line for line in run.stdout), run.output
    assert "6 of 6 runs measured in" in run.output and str(folder) in run.stdout[-1]
    assert "DURATION, WARMUP, PROBED do not apply to MODE=micro" in run.stderr  # the test helper's FAST knobs
    assert "Traceback" not in run.output
    assert sorted(p.name for p in folder.iterdir()) == sorted([f"{s}-r1.json" for s in points] + ["sweep.json"])


def test_a_failing_micro_run_is_reported_and_the_sweep_goes_on(tmp_path):
    require_micro("std")
    bins = tmp_path / "bin"
    bins.mkdir()
    (bins / "std-micro").symlink_to(BIN_DIR / "std-micro")
    shim(bins, "tokio-micro", "echo 'shim: tokio-micro refuses' >&2; exit 3")
    run = run_script(SCRIPT, ["-St"], tmp_path / "out", BIN_DIR=bins, **TINY | {"BENCHES": "spawn_many"})
    assert run.rc == 1, run.output
    folder = sweep_dir(tmp_path / "out")
    assert load_json(folder / "std-spawn_many-r1.json")["complete"] is True
    assert "FAILED (1):" in run.output and "  tokio-spawn_many-r1: exited with status 3" in run.output
    assert "shim: tokio-micro refuses" in run.output
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "failed" and [p["status"] for p in sweep["points"]] == ["ok", "failed"]


def test_a_signal_stops_the_running_benchmark_and_keeps_the_finished_runs(tmp_path):
    require_micro("std")
    bins = tmp_path / "bin"
    bins.mkdir()
    (bins / "std-micro").symlink_to(BIN_DIR / "std-micro")
    # Opens its log as a real binary does, then hangs: the unfinished file must go.
    shim(bins, "tokio-micro", '[ "$1" = --version ] && echo "tokio-micro shim" && exit 0\n'
                              'while [ $# -gt 0 ]; do [ "$1" = --out ] && : >"$2.json"; shift; done\nexec sleep 600')
    run = Run([str(REPO / SCRIPT), "-St"], script_env(tmp_path / "out", BIN_DIR=bins, SEED="1",
                                                      **TINY | {"BENCHES": "spawn_many chained_spawn"})).start()
    run.expect_line("Logs: ", timeout=30)
    wait_until(lambda: any(process_name(p) == "sleep" for p in session_pids(run.proc.pid)), 60, "the hanging run")
    os.kill(run.proc.pid, signal.SIGINT)
    run.finish(timeout=20)
    assert run.rc == 130, run.output
    folder = sweep_dir(tmp_path / "out")
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "interrupted"
    statuses = [r["status"] for r in sweep["runs"]]
    assert statuses.count("interrupted") == 1 and set(statuses) <= {"ok", "interrupted", "planned"}
    interrupted = next(r["stem"] for r in sweep["runs"] if r["status"] == "interrupted")
    assert interrupted.startswith("tokio-") and not list(folder.glob(f"{interrupted}.*"))
    for r in sweep["runs"]:
        if r["status"] == "ok":
            assert load_json(folder / f"{r['stem']}.json")["complete"] is True


def test_a_run_not_run_by_the_binary_is_skipped_with_its_reason(tmp_path):
    bins = tmp_path / "bin"
    bins.mkdir()
    log = ('{"kind": "micro", "schema": "rtt-log/1", "framework": "std", "bench": "notify", "complete": true, '
           '"times_ns": [], "ns_per_op": {"median": null}, "ops_per_s": {"median": null}, '
           '"not_run": "more than 20000 threads"}')
    shim(bins, "std-micro", f"while [ $# -gt 0 ]; do [ \"$1\" = --out ] && echo '{log}' >\"$2.json\"; shift; done")
    run = run_script(SCRIPT, ["-S"], tmp_path / "out", BIN_DIR=bins, **TINY | {"BENCHES": "notify"})
    assert run.rc == 0, run.output
    assert "skipped: not run: more than 20000 threads" in run.output
    assert "Skipped (1):" in run.output and "  std-notify-i200: not run: more than 20000 threads" in run.output
    sweep = load_json(sweep_dir(tmp_path / "out") / "sweep.json")
    assert sweep["points"][0]["status"] == "skipped" and sweep["runs"][0]["status"] == "skipped"


@pytest.mark.parametrize("knobs, named", [
    ({"BENCHES": "spawn_many spawn_lots"}, "BENCHES: 'spawn_lots' is not a benchmark: choose from spawn_many, "
                                           "yield_many, ping_pong, chained_spawn, notify, oneshot, channel"),
    ({"MICRO_INSTANCES": "0"}, "MICRO_INSTANCES: '0'"), ({"MICRO_WORKERS": "many"}, "MICRO_WORKERS: 'many'"),
    ({"MICRO_EVENT_TYPES": "bytes"}, "MICRO_EVENT_TYPES: 'bytes'"), ({"MICRO_REPEAT": "0"}, "MICRO_REPEAT='0'"),
    ({"MICRO_CPUS": "x"}, "MICRO_CPUS='x'")], ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_a_bad_micro_knob_exits_2_before_anything_starts(tmp_path, knobs, named):
    run = run_script(SCRIPT, ["-t"], tmp_path / "out", timeout=20, **TINY | knobs)
    assert run.rc == 2, run.output
    assert named in run.stderr and "Nothing was started" in run.stderr
    assert not (tmp_path / "out").exists()


def test_go_is_refused_outside_micro_and_micro_across_hosts(tmp_path):
    run = run_script(SCRIPT, ["-tG"], tmp_path / "out", timeout=20)
    assert run.rc == 2 and "-G (go) runs only with MODE=micro, not MODE=rtt" in run.stderr, run.output
    for args in (["--peer", "127.0.0.1", "-t"], ["--serve", "-t"], ["--remote", "nobody@nowhere", "-t"]):
        run = run_script("run-network.sh", args, tmp_path / "out", timeout=20, MODE="micro")
        assert run.rc == 2, run.output
        assert run.errlines == ["run-network.sh: MODE=micro runs in-process on one host, with no peer: "
                                "use ./run-localhost.sh\n"]
    assert not (tmp_path / "out").exists()


def test_missing_micro_binaries_say_to_run_make(tmp_path):
    (tmp_path / "empty").mkdir()
    run = run_script(SCRIPT, ["-tG"], tmp_path / "out", timeout=20, BIN_DIR=tmp_path / "empty", MODE="micro",
                     BENCHES="channel")
    assert run.rc == 1, run.output
    assert f"  {tmp_path / 'empty' / 'tokio-micro'}" in run.stderr and "go-micro" in run.stderr
    assert "make" in run.stderr


def test_micro_cpus_pins_the_benchmarks(tmp_path):
    require_micro("tokio")
    run = run_script(SCRIPT, ["-t"], tmp_path, timeout=120, **TINY | {"BENCHES": "spawn_many", "MICRO_CPUS": "0"})
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    log = load_json(folder / "tokio-spawn_many-r1.json")
    assert log["cpus_allowed"] == "0" and log["threads"] == 1, log
    sweep = load_json(folder / "sweep.json")
    assert sweep["pinning"] == "micro: 0" and sweep["knobs"]["MICRO_CPUS"] == "0"


def test_the_go_reference_runs_the_scheduler_and_channel_points(tmp_path):
    require_micro("tokio", "go")
    run = run_script(SCRIPT, ["-tG"], tmp_path, timeout=120, **TINY | {"BENCHES": "spawn_many channel"})
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    sweep = load_json(folder / "sweep.json")
    assert sweep["frameworks"] == ["tokio", "go"]
    assert [p["stem"] for p in sweep["points"]] == ["tokio-spawn_many", "tokio-channel-int-w4", "go-spawn_many",
                                                    "go-channel-int-w4"]
    log = load_json(folder / "go-channel-int-w4-r1.json")
    assert (log["framework"], log["primitive"], log["complete"], len(log["times_ns"])) == ("go", "go chan", True, 3)
    assert log["ops"] == 4 * 10_000
    log = load_json(folder / "go-spawn_many-r1.json")
    assert (log["primitive"], log["complete"], log["ops"]) == ("go statement", True, 10_000)
    (facts,) = sweep["hosts"].values()
    assert "go-micro" in facts["binaries"]  # its --version: see the contract's deviations


def test_the_kotlin_reference_runs_every_point_after_its_jit_warm_up(tmp_path):
    require_micro("kotlin")
    run = run_script(SCRIPT, ["-K"], tmp_path, timeout=120, **TINY)
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    sweep = load_json(folder / "sweep.json")
    stems = ["kotlin-spawn_many", "kotlin-notify-i200", "kotlin-channel-int-w4"]
    assert sweep["frameworks"] == ["kotlin"] and [p["stem"] for p in sweep["points"]] == stems
    assert all(p["status"] == "ok" for p in sweep["points"])
    for stem in stems:
        log = load_json(folder / f"{stem}-r1.json")
        assert (log["framework"], log["complete"], len(log["times_ns"])) == ("kotlin", True, 3)
        assert log["warmup"] == len(log["jvm"]["warmup_times_ns"]) >= 5 and log["jvm"]["coroutines_version"]
    assert log["ops"] == 4 * 10_000 and log["primitive"] == "kotlinx.coroutines.channels.Channel"
    assert "runs of 1 warm-up (kotlin: its JIT warm-up) + 3 timed repeats (micro)" in run.output
    assert re.search(r"timed repeats after one untimed warm-up iteration \(kotlin: [0-9]+, for the JIT\)", run.output)
    (facts,) = sweep["hosts"].values()
    assert facts["binaries"]["kotlin-micro"].startswith("kotlin-micro ")


def test_a_reference_make_left_out_is_skipped_with_one_line(tmp_path):
    bins = tmp_path / "bin"
    bins.mkdir()
    log = ('{"kind": "micro", "schema": "rtt-log/1", "framework": "std", "bench": "spawn_many", "complete": true, '
           '"times_ns": [], "ns_per_op": {"median": null}, "ops_per_s": {"median": null}, "not_run": "a shim"}')
    shim(bins, "std-micro", f"while [ $# -gt 0 ]; do [ \"$1\" = --out ] && echo '{log}' >\"$2.json\"; shift; done")
    run = run_script(SCRIPT, ["-SK"], tmp_path / "out", BIN_DIR=bins, **TINY | {"BENCHES": "spawn_many"})
    assert run.rc == 0, run.output
    skipped = [line for line in run.errlines if "-K" in line]
    assert skipped == [f"run-localhost.sh: warning: -K: no {bins / 'kotlin-micro'} (make builds it where java and "
                       "mvn are installed); skipped\n"], run.stderr
    assert load_json(sweep_dir(tmp_path / "out") / "sweep.json")["frameworks"] == ["std"]
    # Alone, it is a missing binary like any other.
    run = run_script(SCRIPT, ["-K"], tmp_path / "out2", BIN_DIR=bins, **TINY)
    assert run.rc == 1 and f"  {bins / 'kotlin-micro'}" in run.stderr and "make" in run.stderr, run.output
