"""MODE=wrk: wrk's report read back from wrk itself, the sweep run end to end on stand-ins and on the real HTTP pongs."""

import shutil
import subprocess
import sys

import pytest

from sweep_helpers import BIN_DIR, REPO, load_json, require_binaries, run_script, shim, sweep_dir
from sweepkit import procs, wrk_log
from sweepkit.modes import wrk as wrk_mode

WRK = shutil.which("wrk")
needs_wrk = pytest.mark.skipif(WRK is None, reason="wrk is not installed (Debian: apt-get install wrk)")
STANDINS = REPO / "tests" / "standins"

CANNED = """Running 10s test @ http://127.0.0.1:9009/echo
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   275.10us   40.02us   1.20ms   91.00%
    Req/Sec   153.03k     4.10k  160.00k    80.00%
  Latency Distribution
     50%  262.00us
     75%  290.50us
     90%  330.00us
     99%    1.01ms
  1522590 requests in 10.00s, 180.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
Requests/sec: 152259.12
Transfer/sec:     18.00MB
"""


def test_a_report_is_read_in_its_own_units_and_its_errors_flag_it():
    log = wrk_log.log(CANNED, 0, {"framework": "tokio"})
    assert log["complete"] and log["requests"] == 1522590 and log["req_per_s"] == 152259.12
    assert log["latency_ns"] == {"mean": 275100.0, "stdev": 40020.0, "max": 1200000.0, "p50": 262000.0,
                                 "p75": 290500.0, "p90": 330000.0, "p99": 1010000.0}
    assert log["errors"] == {"connect": 0, "read": 2, "write": 0, "timeout": 1, "non_2xx": 0}
    assert log["flagged"] and log["flags"] == ["3 socket errors (read 2, timeout 1)"]
    assert log["raw"] == CANNED
    failed = wrk_log.log("unable to connect to 127.0.0.1:1 Connection refused\n", 1, {})
    assert not failed["complete"] and failed["error"] == "wrk exited with status 1: unable to connect to 127.0.0.1:1 " \
                                                         "Connection refused"


class Pong:
    """The stand-in HTTP pong, started on 127.0.0.1:0 and stopped by its PID."""

    def __init__(self, *args):
        self.child = procs.Child([sys.executable, STANDINS / "http_pong.py", *args], stdout=subprocess.PIPE)
        rc, found = self.child.await_line(procs.re.compile(r"listening on (.+) \(http\)"), 10)
        assert rc == 0, "the stand-in pong did not listen within 10 s"
        self.address = found[1]

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.child.stop(5)


def drive(address: str, seconds: int = 1) -> dict:
    argv = [WRK, "-t1", "-c4", f"-d{seconds}", "--latency", "-s", wrk_mode.SCRIPT, f"http://{address}/echo", "--", "64"]
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=seconds + 20)
    return wrk_log.log(done.stdout, done.returncode, {})


@needs_wrk
def test_wrk_itself_posts_to_echo_and_its_report_is_read_back():
    with Pong() as pong:  # 404 for anything but POST /echo: a clean report says wrk sent the ping's request
        log = drive(pong.address)
    assert log["complete"], log
    assert log["requests"] > 0 and not log["flagged"], log["raw"]
    assert log["req_per_s"] == pytest.approx(log["requests"] / log["elapsed_s"], rel=0.05)
    latency = log["latency_ns"]
    assert 0 < latency["p50"] <= latency["p75"] <= latency["p90"] <= latency["p99"] <= latency["max"]


@needs_wrk
def test_non_2xx_replies_flag_a_run():
    with Pong("--status", "503") as pong:
        log = drive(pong.address)
    assert log["complete"] and log["flagged"], log["raw"]
    assert log["errors"]["non_2xx"] == log["requests"] > 0
    assert log["flags"] == [f"{log['requests']} non-2xx or 3xx responses"]


def test_without_wrk_the_sweep_is_skipped_in_one_line(tmp_path):
    run = run_script("run-localhost.sh", ["-S"], tmp_path / "out", timeout=30, MODE="wrk", WRK="no-such-wrk")
    assert run.rc == 0, run.output
    assert run.errlines == ["run-localhost.sh: MODE=wrk skipped: wrk is not installed (no 'no-such-wrk' on PATH; "
                            "Debian: apt-get install wrk, or WRK=/path/to/wrk); nothing was run\n"]
    assert run.stdout == [] and not (tmp_path / "out").exists()


def test_the_plan_pairs_each_runtime_with_wrk_and_leaves_references_out(tmp_path):
    run = run_script("run-localhost.sh", ["-StP"], tmp_path / "out", timeout=30, MODE="wrk", DRY_RUN="1",
                     REPEATS="6", DURATION="3", SEED="1")
    assert run.rc == 0, run.output
    assert "Plan: 4 points × 6 repeats = 24 runs" in run.output
    for stem in ("std-http-64B-0s-0t-50c", "std-http-64B-0s-0t-50c-wrk", "tokio-http-64B-0s-0t-50c-wrk"):
        assert f"  {stem}\n" in run.output
    assert "wrk -t1 -c50 -d3 --latency" in run.output and "--connections 50 --interval 0" in run.output
    assert "-P: ping is a reference, not a runtime's HTTP server; skipped with MODE=wrk" in run.stderr


def test_whole_seconds_only(tmp_path):
    run = run_script("run-localhost.sh", ["-S"], tmp_path / "out", timeout=30, MODE="wrk", DURATION="0.5")
    assert run.rc == 2 and "DURATION='0.5': MODE=wrk takes whole seconds" in run.stderr, run.output


@needs_wrk
def test_a_sweep_on_stand_ins_writes_both_clients_logs_and_closes_with_parse_py_wrk(tmp_path):
    bins = tmp_path / "bin"
    bins.mkdir()
    shim(bins, "std-pong", f'exec "{sys.executable}" "{STANDINS / "http_pong.py"}" "$@"')
    shim(bins, "std-ping", f'PYTHONPATH="{REPO}" exec "{sys.executable}" "{STANDINS / "http_ping.py"}" "$@"')
    run = run_script("run-localhost.sh", ["-S"], tmp_path / "out", timeout=120, MODE="wrk", REPEATS="2",
                     DURATION="1", BIN_DIR=bins, PONG_CPUS="", PING_CPUS="", NICE="0", TUNE="0")
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path / "out")
    info = load_json(folder / "sweep.json")
    assert info["counts"]["ok"] == 4, info["runs"]
    for k in (1, 2):
        log = load_json(folder / f"std-http-64B-0s-0t-50c-wrk-r{k}.json")
        assert log["schema"] == "wrk-log/1" and log["complete"] and not log["flagged"], log
        assert log["command"][1:6] == ["-t1", "-c50", "-d1", "--latency", "-s"] and log["command"][-2:] == ["--", "64"]
        ping = load_json(folder / f"std-http-64B-0s-0t-50c-r{k}.json")
        assert ping["transport"] == "http" and ping["connections"] == 50
    assert "req/s (wrk)" in run.output  # the progress lines
    assert "suite/wrk req/s" in run.output and "rank the servers the same way" in run.output  # parse.py wrk


@needs_wrk
def test_a_sweep_of_the_real_http_pong_cross_checks_std(tmp_path):
    # Needs the Rust HTTP transport: a pong that refuses --protocol http fails here, never skips.
    require_binaries("std")
    check = subprocess.run([BIN_DIR / "std-pong", "--protocol", "http", "--connections", "64", "--check-options"],
                           capture_output=True, text=True, timeout=10)
    assert check.returncode == 0, f"std-pong refuses --protocol http (build main's HTTP transport): {check.stderr}"
    run = run_script("run-localhost.sh", ["-S"], tmp_path / "out", timeout=120, MODE="wrk", REPEATS="1",
                     DURATION="1")
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path / "out")
    wrk = load_json(folder / "std-http-64B-0s-0t-50c-wrk-r1.json")
    ping = load_json(folder / "std-http-64B-0s-0t-50c-r1.json")
    assert wrk["complete"] and not wrk["flagged"] and wrk["requests"] > 0, wrk["raw"]
    assert ping["transport"] == "http" and ping["complete"] and set(ping["http"]["statuses"]) == {"200"}
    assert "suite/wrk req/s" in run.output
