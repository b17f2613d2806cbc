"""No process outlives its sweep: after kill -9 of the sweep's own PID (not its group), its pongs, pings and
helpers end within 2 s, on this host and on host B of a two-host sweep; and a findings regeneration stopped with
SIGTERM stops its sweep."""

import os
import signal
import sys
import time

import pytest

from netns_lab import Lab, missing_prerequisites
from sweep_helpers import REPO, Run, process_name, require_binaries, script_env, session_pids, wait_until

GONE_WITHIN_S = 2.0


def started(args, env, names, timeout=60):
    """The script started in its own session, once a process named in `names` runs in it: the Run."""
    run = Run(args, env).start()
    names = {name[:15] for name in names}  # the kernel's comm: 15 characters
    wait_until(lambda: any(process_name(p) in names for p in session_pids(run.proc.pid)), timeout,
               f"one of {names} to run")
    return run


def killed(run) -> list[int]:
    """kill -9 of the sweep's own PID, reaped; the PIDs of its session still alive GONE_WITHIN_S later."""
    os.kill(run.proc.pid, signal.SIGKILL)
    run.proc.wait(timeout=10)
    deadline = time.monotonic() + GONE_WITHIN_S
    while session_pids(run.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = session_pids(run.proc.pid)
    for pid in left:  # the test's own cleanup: it failed already
        os.kill(pid, signal.SIGKILL)
    return [(pid, process_name(pid)) for pid in left]


@pytest.mark.parametrize("what, names, knobs", [
    ("a run's pong and ping", {"std-pong", "tokio-pong"}, {"DURATION": "5", "INTERVALS": "0.001"}),
    ("the probed runs' holder", {"hold-kernel-events"}, {"PROBED": "3", "DURATION": "0.3", "INTERVALS": "0"}),
])
def test_kill_9_of_the_sweep_leaves_no_process(tmp_path, what, names, knobs):
    require_binaries("std", "tokio")
    run = started([str(REPO / "run-localhost.sh"), "-tS"], script_env(tmp_path, PROTOCOLS="tcp", **knobs), names)
    # Both ends run (or the holder does): what the sweep started is a tree of its own session.
    assert len(session_pids(run.proc.pid)) >= 2, what
    assert killed(run) == [], f"{what}: left after kill -9 of the sweep"


lab_missing = missing_prerequisites()


@pytest.mark.skipif(lab_missing is not None, reason=f"two-host test skipped: {lab_missing}")
def test_kill_9_of_a_two_host_sweep_leaves_no_process_on_either_host(tmp_path):
    require_binaries("std")
    lab = Lab(tmp_path / "lab").up()
    try:
        argv = lab.in_ns(lab.ns_a, [str(REPO / "run-network.sh"), "--remote", f"root@{lab.addr_b}", "-S"])
        run = Run(argv, script_env(tmp_path / "out", SSH_OPTS=lab.ssh_opts, DURATION="5", INTERVALS="0.001",
                                   PROTOCOLS="tcp")).start()
        run.expect_line("Logs:", timeout=60)  # past the preflight (on failure: the sweep's output so far)
        wait_until(lambda: any(process_name(p) == "std-pong" for p in lab.pids(lab.ns_b)), 60, "the pong in B")
        assert killed(run) == [], "left on host A"
        deadline = time.monotonic() + GONE_WITHIN_S
        while lab.strays() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [(pid, process_name(pid)) for pid in lab.strays()] == [], "left on host B"
    finally:
        lab.down()


def test_stopping_the_findings_regeneration_stops_its_sweep_and_runs_no_other(tmp_path):
    require_binaries("std", "tokio")
    page = tmp_path / "findings.md"
    page.write_text((REPO / "docs" / "findings.md").read_text())
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "findings.regenerate", "--only", "main", "--only", "pacing", "--page", str(page),
            "--out-dir", str(out)]
    run = started(argv, dict(os.environ), {"std-pong", "tokio-pong", "asyncstd-pong", "smol-pong", "busy-poll-pong"})
    os.kill(run.proc.pid, signal.SIGTERM)  # as a CI job's timeout or `kill` would: not its group
    assert run.proc.wait(timeout=30) == 128 + signal.SIGTERM
    deadline = time.monotonic() + GONE_WITHIN_S
    while session_pids(run.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [(pid, process_name(pid)) for pid in session_pids(run.proc.pid)] == [], "left after the regeneration stopped"
    assert page.read_text() == (REPO / "docs" / "findings.md").read_text()
    assert [p.name for p in out.iterdir()] == ["main"], "a sweep started after the one stopped"
