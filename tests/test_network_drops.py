"""Two hosts: a dropped connection to host B is an interruption, not a loss. A run whose ssh connection dies is
measured again; a link down for 5 s is retried, or stops the sweep naming --continue, which finishes it; no pong
is left on B. The remote pong also ends by itself, past a run's longest time, when no EOF reaches B."""

import os
import signal
import subprocess
import time

import pytest

from netns_lab import Lab, missing_prerequisites
from sweep_helpers import REPO, Run, load_json, process_name, require_binaries, script_env, sweep_dir, wait_until
from sweepkit import commands

SCRIPT = str(REPO / "run-network.sh")
KNOBS = {"INTERVALS": "0", "PROTOCOLS": "tcp", "DURATION": "2", "WARMUP": "0.2", "REPEATS": "2", "TUNE": "0"}
why_not = missing_prerequisites()
two_hosts = pytest.mark.skipif(why_not is not None, reason=f"two-host test skipped: {why_not}")


def test_the_remote_pong_ends_by_itself_after_its_lifetime_when_no_eof_comes(tmp_path):
    shell = subprocess.Popen(["sh", "-c", commands.remote_pong(str(tmp_path), ["sleep", "600"], 1)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # stdin stays open: a link gone quiet
    try:
        start = time.monotonic()
        assert shell.wait(timeout=10) == 124  # timeout's status: it stopped the pong
        assert time.monotonic() - start < 5
    finally:
        shell.kill()
        shell.wait()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if why_not is not None:
        pytest.skip(f"two-host test skipped: {why_not}")
    require_binaries("std")
    lab = Lab(tmp_path_factory.mktemp("lab"), subnet="10.203.9")
    try:
        yield lab.up()
    finally:
        lab.down()


def started(lab, out, *args):
    """A two-host sweep of std from A, once its first pong runs in B."""
    argv = lab.in_ns(lab.ns_a, [SCRIPT, "--remote", f"root@{lab.addr_b}", *args, "-S"])
    run = Run(argv, script_env(out, SSH_OPTS=lab.ssh_opts, **KNOBS)).start()
    run.expect_line("Logs:", timeout=60)  # past the preflight's own pong
    wait_until(lambda: any(process_name(p) == "std-pong" for p in lab.pids(lab.ns_b)), 60, "the pong in B")
    return run


def nothing_left_on_b(lab, within_s=30):
    """B holds nothing of the sweep: sshd's per-connection processes go a moment after their client; a pong whose
    link dropped, at its lifetime."""
    wait_until(lambda: not lab.strays(), within_s, "the namespaces to hold nothing but sshd")


@two_hosts
def test_a_run_whose_ssh_connection_dies_is_measured_again(lab, tmp_path):
    run = started(lab, tmp_path)
    ssh = [p for p in lab.pids(lab.ns_a) if process_name(p) == "ssh"]
    assert ssh, "the pong's ssh in A"
    os.kill(ssh[0], signal.SIGKILL)
    run.finish(timeout=120)
    assert run.rc == 0, run.output
    assert "measured again once" in run.output
    doc = load_json(sweep_dir(tmp_path, f"network-{lab.addr_b}") / "sweep.json")
    assert doc["status"] == "complete" and [r["status"] for r in doc["runs"]] == ["ok", "ok"]
    assert len(doc["retries"]) == 1 and "ssh" in doc["retries"][0]["why"]
    nothing_left_on_b(lab)


@two_hosts
def test_a_link_down_for_5_s_is_an_interruption_and_the_sweep_continues_to_its_end(lab, tmp_path):
    run = started(lab, tmp_path)
    subprocess.run(["ip", "-n", lab.ns_a, "link", "set", lab.veth_a, "down"], check=True)
    try:
        time.sleep(5)
    finally:
        subprocess.run(["ip", "-n", lab.ns_a, "link", "set", lab.veth_a, "up"], check=True)
    run.finish(timeout=180)
    folder = sweep_dir(tmp_path, f"network-{lab.addr_b}")
    if run.rc != 0:  # stopped: it says how to go on
        assert run.rc == 1 and f"--continue {folder}" in run.output, run.output
        argv = lab.in_ns(lab.ns_a, [SCRIPT, "--continue", str(folder)])
        resumed = Run(argv, script_env(tmp_path, SSH_OPTS=lab.ssh_opts, **KNOBS)).start().finish(timeout=120)
        assert resumed.rc == 0, resumed.output
    doc = load_json(folder / "sweep.json")
    assert doc["status"] == "complete" and [r["status"] for r in doc["runs"]] == ["ok", "ok"], run.output
    nothing_left_on_b(lab)


@two_hosts
def test_a_two_host_sweep_killed_with_kill_9_continues_against_its_own_host_b(lab, tmp_path):
    run = started(lab, tmp_path)
    os.kill(run.proc.pid, signal.SIGKILL)
    run.proc.wait(timeout=10)
    nothing_left_on_b(lab, within_s=5)
    folder = sweep_dir(tmp_path, f"network-{lab.addr_b}")
    argv = lab.in_ns(lab.ns_a, [SCRIPT, "--continue", str(folder)])  # B, its address and its folder: sweep.json's
    resumed = Run(argv, script_env(tmp_path, SSH_OPTS=lab.ssh_opts, **KNOBS)).start().finish(timeout=120)
    assert resumed.rc == 0, resumed.output
    doc = load_json(folder / "sweep.json")
    assert doc["status"] == "complete" and [r["status"] for r in doc["runs"]] == ["ok", "ok"]
    assert doc["remote"] == f"root@{lab.addr_b}" and len(doc["interruptions"]) == 1
    nothing_left_on_b(lab)
