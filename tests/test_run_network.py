"""run-network.sh across two real hosts: network namespaces A and B joined by a veth pair, sshd
in B. Skipped (and said so) when not root or when `ip netns` does not work here."""

import os
import signal
import subprocess

import pytest

from sweep_helpers import (REPO, Run, check_log_pair, check_throughput_pair, load_json, process_name,
                           require_binaries, run_script, script_env, sweep_dir, throughput_stem, wait_until)
from netns_lab import Lab, missing_prerequisites

SCRIPT = "run-network.sh"
why_not = missing_prerequisites()
pytestmark = pytest.mark.skipif(why_not is not None, reason=f"two-host test skipped: {why_not}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    require_binaries("std", "tokio")
    lab = Lab(tmp_path_factory.mktemp("lab"))
    try:
        yield lab.up()
    finally:
        lab.down()


def run_in_a(lab, flags, out_dir, timeout=120, **knobs):
    knobs.setdefault("SSH_OPTS", lab.ssh_opts)
    return run_script(SCRIPT, flags, out_dir, timeout, prefix=lab.in_ns(lab.ns_a, []), **knobs)


def no_strays(lab):
    # sshd's per-connection processes go a moment after their client.
    wait_until(lambda: not lab.strays(), 10, "the namespaces to hold nothing but sshd")


def test_a_sweep_across_the_veth_link_logs_both_hosts(lab, tmp_path):
    run = run_in_a(lab, ["--remote", f"root@{lab.addr_b}", "-tS", "-P"], tmp_path,
                   INTERVALS="0.001", PROTOCOLS="tcp udp")
    assert run.rc == 0, run.output
    no_strays(lab)
    folder = sweep_dir(tmp_path, f"network-{lab.addr_b}")
    for fw in ("std", "tokio"):
        for proto in ("tcp", "udp"):
            log = check_log_pair(folder, f"{fw}-{proto}-64B-0.001s-0t-r1", fw, proto)
            assert log["address"].startswith(f"{lab.addr_b}:")
    icmp = check_log_pair(folder, "ping-icmp-64B-0.001s-0t-r1", "ping", "icmp")
    assert icmp["address"] == lab.addr_b
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "complete" and sweep["kind"] == "network"
    assert sweep["target"] == lab.addr_b and sweep["remote"] == f"root@{lab.addr_b}"
    roles = {facts["role"]: facts for facts in sweep["hosts"].values()}
    assert set(roles) == {"ping", "pong"} and len(sweep["hosts"]) == 2
    assert roles["pong"]["address"] == lab.addr_b and roles["pong"]["kernel"]
    assert roles["pong"]["binaries"]["tokio-pong"].startswith("tokio-pong ")
    # The system check of each host, B's read over the preflight's ssh (sweepkit/hostfacts.py on stdin).
    assert all(isinstance(facts["warnings"], list) and facts["clocksource"] for facts in roles.values())
    assert roles["pong"]["smt_siblings"].startswith("cpu0: ") and roles["ping"]["smt_siblings"].startswith("cpu1: ")
    assert sweep["knobs"]["SSH_OPTS"] == lab.ssh_opts
    assert [p["status"] for p in sweep["points"]] == ["ok"] * 5
    assert [r["status"] for r in sweep["runs"]] == ["ok"] * 5


def test_check_reads_both_hosts_and_runs_nothing(lab, tmp_path):
    run = run_in_a(lab, ["--check", "--remote", f"root@{lab.addr_b}", "-tS"], tmp_path)
    assert run.rc == 0 and "Traceback" not in run.output, run.output
    no_strays(lab)
    heads = [line for line in run.stdout if line[:1] not in (" ", "\n", "S", "C")]
    assert [head.split("(", 2)[-1].split(";")[0] for head in heads] == ["ping: ping on CPU 1", "pong: pong on CPU 0"]
    assert "not applied on the pong's host" in run.output
    assert list(tmp_path.iterdir()) == []  # no sweep folder


THROUGHPUT = {"MODE": "throughput", "DURATION": "0.5", "WARMUP": "0.2"}


def test_a_throughput_sweep_across_the_veth_link_counts_on_the_remote_pong(lab, tmp_path):
    run = run_in_a(lab, ["--remote", f"root@{lab.addr_b}", "-S"], tmp_path, SIZES="64 100000",
                   PROTOCOLS="tcp udp", **THROUGHPUT)
    assert run.rc == 0, run.output
    no_strays(lab)
    folder = sweep_dir(tmp_path, f"network-{lab.addr_b}")
    for proto, size in (("tcp", 64), ("tcp", 100000), ("udp", 64)):
        log = check_throughput_pair(folder, "std", proto, size)
        assert log["address"].startswith(f"{lab.addr_b}:")
    assert not list(folder.glob(f"{throughput_stem('std', 'udp', 100000, repeat=None)}*"))
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "complete" and sweep["mode"] == "remote"
    assert sweep["knobs"]["MODE"] == "throughput" and sweep["knobs"]["SIZES"] == "64 100000"
    assert [p["status"] for p in sweep["points"]] == ["ok", "ok", "ok", "skipped"]


def test_serve_and_peer_sweep_throughput_without_ssh(lab, tmp_path):
    serve = Run(lab.in_ns(lab.ns_b, [str(REPO / SCRIPT), "--serve", "--target", lab.addr_b, "-S"]),
                script_env(tmp_path / "b", BASE_PORT="9501", MODE="throughput")).start()
    try:
        line = serve.expect_line("On host A", timeout=20)
        assert "MODE=throughput" in line
        run = run_in_a(lab, ["--peer", lab.addr_b, "-S"], tmp_path / "a", BASE_PORT="9501",
                       SIZES="1024", PROTOCOLS="tcp udp", **THROUGHPUT)
        assert run.rc == 0, run.output
        folder = sweep_dir(tmp_path / "a", f"network-{lab.addr_b}")
        for proto in ("tcp", "udp"):
            check_throughput_pair(folder, "std", proto, 1024)
        # An RTT sweep against counting pongs is refused before any point, with what to do.
        rtt = run_in_a(lab, ["--peer", lab.addr_b, "-S"], tmp_path / "rtt", timeout=60,
                       BASE_PORT="9501", INTERVALS="0", PROTOCOLS="tcp")
        assert rtt.rc != 0 and "--serve" in rtt.stderr, rtt.output
        assert "MODE=throughput" not in rtt.stderr.splitlines()[-1]
    finally:
        os.kill(serve.proc.pid, signal.SIGTERM)
        serve.finish(timeout=20)
    assert serve.rc == 143, serve.output
    no_strays(lab)


@pytest.mark.parametrize("case", ["unreachable", "wrong-remote-dir", "no-remote-binaries"])
def test_a_bad_remote_fails_before_any_point(lab, tmp_path, case):
    remote, extra = f"root@{lab.addr_b}", []
    if case == "unreachable":
        remote = f"root@{lab.addr_a.rsplit('.', 1)[0]}.3"  # in the /30, nobody there
        expect = "cannot reach"
    elif case == "wrong-remote-dir":
        extra, expect = ["--remote-dir", str(tmp_path / "no-such-checkout")], "there is no"
    else:
        checkout = tmp_path / "checkout"
        (checkout / "target" / "release").mkdir(parents=True)
        extra, expect = ["--remote-dir", str(checkout)], "build there"
    run = run_in_a(lab, ["--remote", remote, *extra, "-tS"], tmp_path / "out", timeout=60,
                   INTERVALS="0", PROTOCOLS="tcp")
    assert run.rc != 0, run.output
    assert expect in run.stderr, run.output
    assert "[1/" not in run.output
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    no_strays(lab)


def test_binaries_from_another_commit_are_refused(lab, tmp_path):
    checkout = tmp_path / "checkout"
    release = checkout / "target" / "release"
    release.mkdir(parents=True)
    fake = release / "std-pong"
    fake.write_text("#!/bin/sh\necho 'std-pong 0.1.0 (git 0000000000)'\n")
    fake.chmod(0o755)
    run = run_in_a(lab, ["--remote", f"root@{lab.addr_b}", "--remote-dir", str(checkout), "-S"],
                   tmp_path / "out", timeout=60, INTERVALS="0", PROTOCOLS="tcp")
    assert run.rc != 0 and "same commit" in run.stderr, run.output
    no_strays(lab)


def test_serve_and_peer_sweep_without_ssh(lab, tmp_path):
    serve = Run(lab.in_ns(lab.ns_b, [str(REPO / SCRIPT), "--serve", "--target", lab.addr_b, "-S"]),
                script_env(tmp_path / "b", BASE_PORT="9301")).start()
    try:
        serve.expect_line("On host A", timeout=20)
        assert f"{lab.addr_b}:9301" in serve.output
        run = run_in_a(lab, ["--peer", lab.addr_b, "-S"], tmp_path / "a", BASE_PORT="9301",
                       INTERVALS="0", PROTOCOLS="tcp udp")
        assert run.rc == 0, run.output
        folder = sweep_dir(tmp_path / "a", f"network-{lab.addr_b}")
        for proto in ("tcp", "udp"):
            check_log_pair(folder, f"std-{proto}-64B-0s-0t-r1", "std", proto)
        sweep = load_json(folder / "sweep.json")
        assert sweep["mode"] == "peer" and len(sweep["hosts"]) == 2
    finally:
        os.kill(serve.proc.pid, signal.SIGTERM)
        serve.finish(timeout=20)
    assert serve.rc == 143, serve.output
    no_strays(lab)


def test_peer_without_a_server_says_how_to_start_one(lab, tmp_path):
    run = run_in_a(lab, ["--peer", lab.addr_b, "-t"], tmp_path, timeout=60, BASE_PORT="9401",
                   INTERVALS="0", PROTOCOLS="tcp")
    assert run.rc != 0 and "--serve" in run.stderr, run.output
    assert not list(tmp_path.glob("network-*"))


def test_an_interrupted_network_sweep_stops_the_remote_pong(lab, tmp_path):
    argv = lab.in_ns(lab.ns_a, [str(REPO / SCRIPT), "--remote", f"root@{lab.addr_b}", "-S"])
    run = Run(argv, script_env(tmp_path, SSH_OPTS=lab.ssh_opts, INTERVALS="0 0.01",
                               PROTOCOLS="tcp")).start()
    run.expect_line("[1/2 r1]", timeout=30)
    # Once the second run's pong listens in B, interrupt.
    wait_until(lambda: any(name == "std-pong" for name in map(process_name, lab.pids(lab.ns_b))),
               10, "the second run's pong in B")
    os.kill(run.proc.pid, signal.SIGINT)
    run.finish(timeout=30)
    assert run.rc == 130, run.output
    no_strays(lab)
    folder = sweep_dir(tmp_path, f"network-{lab.addr_b}")
    first, second = load_json(folder / "sweep.json")["runs"]  # in the order they ran
    assert (first["status"], second["status"]) == ("ok", "interrupted")
    check_log_pair(folder, first["stem"], "std", "tcp")
    assert not list(folder.glob(f"{second['stem']}.*"))


def test_a_lab_taken_down_leaves_another_labs_sshd_serving(tmp_path):
    # The labs of parallel tests share sshd's privilege-separation directory; a teardown that
    # removed it (the first lab made it) cut off the other labs' sshd: a sweep there then waited for B.
    first = Lab(tmp_path / "first", subnet="10.203.8").up()
    second = Lab(tmp_path / "second", subnet="10.203.9")
    try:
        second.up()
        first.down()
        argv = second.in_ns(second.ns_a, ["ssh", *second.ssh_opts.split(), f"root@{second.addr_b}", "echo", "ok"])
        after = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        assert (after.returncode, after.stdout) == (0, "ok\n"), after.stderr
    finally:
        first.down()
        second.down()
