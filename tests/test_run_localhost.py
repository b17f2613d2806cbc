"""run-localhost.sh, run for real on loopback with short points."""

import os
import signal
import stat

import pytest

from sweep_helpers import (BIN_DIR, REPO, Run, check_log_pair, load_json, process_name,
                      require_binaries, run_script, script_env, session_pids, sweep_dir,
                      wait_until)

SCRIPT = "run-localhost.sh"


def test_a_short_sweep_writes_every_log_pair_and_its_sweep_json(tmp_path):
    require_binaries("std", "tokio")
    run = run_script(SCRIPT, ["-tS", "-P"], tmp_path, INTERVALS="0.01 0", PROTOCOLS="tcp udp")
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    stems = [(fw, proto, f"{fw}-{proto}-64B-{iv}s-0t")
             for fw in ("std", "tokio") for proto in ("tcp", "udp") for iv in ("0.01", "0")]
    stems += [("ping", "icmp", f"ping-icmp-64B-{iv}s-0t") for iv in ("0.01", "0")]
    for fw, proto, stem in stems:
        log = check_log_pair(folder, stem, fw, proto)
        assert log["payload"] == 64
    icmp = load_json(folder / "ping-icmp-64B-0.01s-0t.json")
    assert icmp["interval_s"] == 0.01 and icmp["target_rate"] == 100
    assert icmp["decoy"] is None and icmp["rustc"] is None

    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "complete"
    assert sweep["knobs"]["INTERVALS"] == "0.01 0" and sweep["knobs"]["DURATION"] == "1"
    assert "INTERVALS" in sweep["knobs_given"] and "SIZE" not in sweep["knobs_given"]
    (facts,) = sweep["hosts"].values()
    assert facts["kernel"] and facts["cpus_online"] >= 1 and facts["suite_commit"]
    assert [p["stem"] for p in sweep["points"]] == [s for _, _, s in stems]
    assert all(p["status"] == "ok" and p["p50_ns"] > 0 for p in sweep["points"])
    assert sweep["wall_s"] > 0 and sweep["measured_s"] == 10
    # The plan first, a progress line per point, the folder last.
    assert "Plan: 10 points" in run.output
    assert sum(line.startswith("[") for line in run.stdout) == 10
    assert str(folder) in run.stdout[-1]
    # Nothing but the logs and sweep.json in the folder.
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{s}.{ext}" for _, _, s in stems for ext in ("csv", "json")] + ["sweep.json"])


def shim(directory, name, body):
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def shim_bins(tmp_path):
    """A BIN_DIR of the real binaries, in which a test can replace one with a shim."""
    require_binaries("std", "tokio")
    directory = tmp_path / "bin"
    directory.mkdir()
    for name in ("std-ping", "std-pong", "tokio-ping", "tokio-pong"):
        (directory / name).symlink_to(BIN_DIR / name)
    return directory


@pytest.mark.parametrize("binary, body, knobs, reason", [
    ("tokio-ping", "echo 'shim: ping refuses' >&2; exit 1", {}, "ping exited with status 1"),
    ("tokio-pong", "echo 'shim: pong cannot bind' >&2; exit 3", {}, "exited before listening"),
    ("tokio-pong", "exec sleep 600", {"READY_TIMEOUT": "1"}, "no 'listening on' line"),
    # Opens its logs, as a real ping does, then hangs: the empty files must not stay.
    ("tokio-ping", 'while [ $# -gt 0 ]; do [ "$1" = --out ] && : >"$2.json" && : >"$2.csv"; shift; done\n'
                   "exec sleep 600", {"PING_GRACE": "2"}, "ping timed out after 3.2 s"),
], ids=["ping-fails", "pong-dies", "pong-silent", "ping-hangs"])
def test_a_failed_point_is_reported_and_the_sweep_goes_on(tmp_path, shim_bins, binary, body,
                                                         knobs, reason):
    os.remove(shim_bins / binary)
    shim(shim_bins, binary, body)
    run = run_script(SCRIPT, ["-St"], tmp_path / "out", BIN_DIR=shim_bins, INTERVALS="0",
                     PROTOCOLS="tcp", **knobs)
    assert run.rc == 1, run.output
    folder = sweep_dir(tmp_path / "out")
    check_log_pair(folder, "std-tcp-64B-0s-0t", "std", "tcp")
    assert "FAILED (1):" in run.output and "  tokio-tcp-64B-0s-0t: " in run.output
    assert reason in run.output
    if "shim:" in body:  # the tail of the failing binary's stderr is shown
        assert body.split("'")[1] in run.output
    assert not [p.name for p in folder.iterdir() if p.stat().st_size == 0]
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "failed"
    assert [p["status"] for p in sweep["points"]] == ["ok", "failed"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_sweep_stops_its_children_and_keeps_finished_points(tmp_path, sig, code):
    require_binaries("std")
    run = Run([str(REPO / SCRIPT), "-S"],
              script_env(tmp_path, INTERVALS="0 0.01 0.001", PROTOCOLS="tcp")).start()
    run.expect_line("[1/3]", timeout=30)
    # Interrupt in the middle of the second point, once its ping runs.
    wait_until(lambda: any(process_name(p) == "std-ping" for p in session_pids(run.proc.pid)),
               10, "the second point's std-ping")
    os.kill(run.proc.pid, sig)
    run.finish(timeout=20)
    assert run.rc == code, run.output
    folder = sweep_dir(tmp_path)
    check_log_pair(folder, "std-tcp-64B-0s-0t", "std", "tcp")
    assert not list(folder.glob("std-tcp-64B-0.01s-0t.*")), "the unfinished point was left"
    assert not list(folder.glob("std-tcp-64B-0.001s-0t.*"))
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "interrupted"
    assert [p["status"] for p in sweep["points"]] == ["ok", "interrupted", "planned"]


BAD_KNOBS = [
    {"DURATION": "abc"}, {"DURATION": "-1"}, {"DURATION": "0"}, {"INTERVALS": "-0.5"},
    {"INTERVALS": "0.1 fast"}, {"SIZE": "3"}, {"SIZE": "70000"}, {"PROTOCOLS": "sctp"},
    {"TASKS": "-2"}, {"NICE": "-40"}, {"WARMUP": "1e3"}, {"PING_CPUS": "one"},
    {"PING_GRACE": "0"}, {"READY_TIMEOUT": "soon"},
]


@pytest.mark.parametrize("knobs", BAD_KNOBS, ids=lambda k: " ".join(f"{a}={b}" for a, b in k.items()))
def test_a_bad_knob_exits_2_before_anything_starts(tmp_path, knobs):
    run = run_script(SCRIPT, ["-S"], tmp_path / "out", timeout=20, **knobs)
    assert run.rc == 2, run.output
    (name,) = knobs
    assert name in run.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flags", [["-x"], ["-Sq"], ["S"], []], ids=["-x", "-Sq", "S", "none"])
def test_an_unknown_or_missing_flag_exits_2(tmp_path, flags):
    run = run_script(SCRIPT, flags, tmp_path / "out", timeout=20)
    assert run.rc == 2, run.output
    assert "-h" in run.stderr
    assert not (tmp_path / "out").exists()


def test_help_lists_flags_and_knobs(tmp_path):
    run = run_script(SCRIPT, ["-h"], tmp_path, timeout=20)
    assert run.rc == 0
    for word in ("-a", "-s", "-S", "-t", "-P", "DURATION=10", "INTERVALS=", "PONG_CPUS=0"):
        assert word in run.stdout[0] or word in run.output


def test_missing_binaries_say_to_run_make(tmp_path):
    (tmp_path / "empty").mkdir()
    run = run_script(SCRIPT, ["-t"], tmp_path / "out", timeout=20, BIN_DIR=tmp_path / "empty")
    assert run.rc == 1
    assert "tokio-ping" in run.stderr and "make" in run.stderr
    assert not (tmp_path / "out").exists()


def test_one_cpu_puts_both_ends_on_it_with_a_warning(tmp_path):
    require_binaries("std")
    run = run_script(SCRIPT, ["-S"], tmp_path, prefix=["taskset", "-c", "0"], INTERVALS="0",
                     PROTOCOLS="udp")
    assert run.rc == 0, run.output
    assert "only one CPU" in run.stderr
    log = check_log_pair(sweep_dir(tmp_path), "std-udp-64B-0s-0t", "std", "udp")
    assert log["cpus_allowed"] == "0"
