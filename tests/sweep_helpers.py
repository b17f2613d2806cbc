"""Helpers for the sweep-script tests: run a script in its own session, find what it left behind.

The tests drive the real scripts on the real release binaries (`make` builds them), on loopback
or inside network namespaces, with short runs (DURATION=1 WARMUP=0.2) and one repeat unless a test
is about repeats.
"""

import json
import re
import os
import queue
import signal
import stat
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
from suite import logschema, percentile  # noqa: E402  (the CSV headers the logs must have; the percentile)

BIN_DIR = REPO / "target" / "release"
BIN_PREFIX = {e["label"]: e["binary_prefix"] for e in json.loads((REPO / "runtimes.json").read_text())["runtimes"]}
FAST = {"DURATION": "1", "WARMUP": "0.2", "REPEATS": "1", "PROBED": "0"}  # a test that probes asks for it


def require_binaries(*frameworks):
    """Fails (never skips) when the release binaries are missing: `make test` builds them first."""
    missing = [f"{BIN_PREFIX[fw]}-{kind}" for fw in frameworks for kind in ("ping", "pong")
               if not (BIN_DIR / f"{BIN_PREFIX[fw]}-{kind}").is_file()]
    if missing:
        pytest.fail(f"missing {', '.join(missing)} in {BIN_DIR}: run `make` first")


def session_pids(sid):
    """PIDs of every live process in session `sid` (the scripts run in sessions of their own)."""
    pids = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat_file.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(stat_file.parent.name))
    return pids


def process_name(pid):
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def wait_until(predicate, timeout, what):
    """Polls `predicate` until it is true; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def _default_signals():
    """Give the script default SIGINT/SIGTERM handling. A test run started in the background (as
    CI may be) inherits SIGINT ignored, and bash cannot trap a signal ignored on entry."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@dataclass
class Run:
    """A script started in its own session, its output collected line by line."""
    args: list
    env: dict
    proc: subprocess.Popen = None
    lines: "queue.Queue[str]" = field(default_factory=queue.Queue)
    stdout: list = field(default_factory=list)
    errlines: list = field(default_factory=list)

    def start(self):
        self.proc = subprocess.Popen(self.args, cwd=REPO, env=self.env, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True, preexec_fn=_default_signals)
        self._threads = [threading.Thread(target=self._pump, daemon=True),
                         threading.Thread(target=self._pump_err, daemon=True)]
        for thread in self._threads:
            thread.start()
        return self

    def _pump(self):
        for line in self.proc.stdout:
            self.stdout.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self):
        for line in self.proc.stderr:
            self.errlines.append(line)

    def expect_line(self, text, timeout):
        """Waits for a stdout line containing `text`; fails on EOF or after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no line with {text!r} within {timeout} s:\n{self.output}")
            if line is None:
                pytest.fail(f"the script ended before printing {text!r}:\n{self.output}")
            if text in line:
                return line

    def finish(self, timeout):
        """Waits for the script, then checks that it left no process of its session behind."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            pytest.fail(f"{self.args} still running after {timeout} s:\n{self.output}")
        for thread in self._threads:  # a child holding the pipes open is a leak, found below
            thread.join(timeout=5)
        left = session_pids(self.proc.pid)
        if left:
            names = [process_name(p) for p in left]
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            pytest.fail(f"{self.args} left processes behind: {list(zip(left, names))}")
        return self

    @property
    def rc(self):
        return self.proc.returncode

    @property
    def stderr(self):
        return "".join(self.errlines)

    @property
    def output(self):
        return "".join(self.stdout) + "\n--- stderr ---\n" + self.stderr


def script_env(out_dir, **knobs):
    env = dict(os.environ)
    env.update(FAST)
    env["OUT_DIR"] = str(out_dir)
    env.update({k: str(v) for k, v in knobs.items()})
    return env


def run_script(script, flags, out_dir, timeout=120, prefix=(), **knobs):
    """Runs ./script with `flags` to the end; returns the finished Run."""
    run = Run([*prefix, str(REPO / script), *flags], script_env(out_dir, **knobs))
    return run.start().finish(timeout)


def shim(directory, name, body):
    """An executable sh script `directory/name` running `body`: a stand-in binary or a wrapper."""
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def sweep_dir(out_dir, kind="localhost"):
    """The one sweep folder a run made under `out_dir`."""
    dirs = [d for d in Path(out_dir).glob(f"{kind}-*") if d.is_dir()]
    assert len(dirs) == 1, f"expected one {kind}-* folder in {out_dir}, found {dirs}"
    return dirs[0]


def load_json(path):
    return json.loads(Path(path).read_text())


def check_log_pair(folder, stem, framework, transport):
    """Both files of a point exist and agree with the point's name and the log contract."""
    log = load_json(folder / f"{stem}.json")
    assert log["schema"] == "rtt-log/1"
    assert log["framework"] == framework and log["transport"] == transport
    assert log["complete"] is True, log
    assert log["rtt_ns"]["n"] > 0 and log["rtt_ns"]["p50"] > 0
    csv = (folder / f"{stem}.csv").read_text().splitlines()
    assert csv[0] == logschema.schema().csv_header("rtt")
    assert len(csv) - 1 == log["rtt_ns"]["n"]
    return log


def throughput_stem(framework, transport, payload, tasks=0, repeat=1):
    """A throughput run's log name; repeat=None: its point's name."""
    return f"{framework}-{transport}-{payload}B-throughput-{tasks}t" + ("" if repeat is None else f"-r{repeat}")


def check_throughput_pair(folder, framework, transport, payload):
    """Both files of a throughput point exist, agree with each other and with the log contract."""
    stem = throughput_stem(framework, transport, payload)
    log = load_json(folder / f"{stem}.json")
    assert log["schema"] == "rtt-log/1" and log["kind"] == "throughput"
    assert (log["framework"], log["transport"], log["payload"]) == (framework, transport, payload)
    assert log["complete"] is True and log["error"] is None, log
    assert log["windows"] > 0 and log["received"] > 0, log
    assert log["received_bytes"] == log["received"] * payload
    csv = (folder / f"{stem}.csv").read_text().splitlines()
    assert csv[0] == logschema.schema().csv_header("throughput")
    rows = [[int(x) for x in line.split(",")] for line in csv[1:]]
    assert len(rows) == log["windows"]
    assert sum(r[2] for r in rows) == log["received"]
    assert all(r[3] == r[2] * payload for r in rows), "a window holds whole messages"
    # The rates are the windows', whatever they were: a loaded machine may leave most windows of a short run
    # empty, and then the p50 is 0.
    per_s = 1 / log["window_s"]
    assert log["msg_per_s"]["mean"] > 0 and log["gbit_per_s"]["mean"] > 0
    assert log["msg_per_s"]["p50"] == pytest.approx(percentile.of(sorted(r[2] for r in rows), 50) * per_s, rel=1e-9)
    assert log["gbit_per_s"]["p50"] == pytest.approx(
        percentile.of(sorted(r[3] for r in rows), 50) * per_s * 8 / 1e9, rel=1e-9)
    return log


PROGRESS = re.compile(r"\[ *\d+/\d+ r\d+\] ")


def progress_lines(stdout_lines) -> list[str]:
    """The sweep's progress lines (`[17/132 r2] STEM ...`), one per run, and nothing else."""
    return [line for line in stdout_lines if PROGRESS.match(line)]
