"""Real logs: each runtime's pong and a short ping on loopback, RTT and throughput, TCP and UDP."""

import json
import re
import selectors
import subprocess
from pathlib import Path

import pytest

from suite import runtimes

REPO = Path(__file__).resolve().parents[2]
BIN_DIR = REPO / "target" / "release"
PROTOCOLS = ("tcp", "udp")
MODES = {"rtt": ["--duration", "0.3", "--warmup", "0.05"],
         "throughput": ["--mode", "throughput", "--duration", "0.5", "--warmup", "0.05"]}
_LISTENING = re.compile(r"listening on (\S+) \((tcp|udp)\)")


def _binary(prefix: str, end: str) -> Path:
    path = BIN_DIR / f"{prefix}-{end}"
    if not path.is_file():  # never a skip: `make test` builds them first
        pytest.fail(f"missing {path}: run `make` first")
    return path


def _address(pong: subprocess.Popen, deadline_s: float = 10.0) -> str:
    """The address from the pong's `listening on ADDR (proto)` line, waited for with a deadline."""
    with selectors.DefaultSelector() as selector:
        selector.register(pong.stdout, selectors.EVENT_READ)
        if not selector.select(deadline_s):
            pytest.fail(f"{pong.args[0]} printed nothing in {deadline_s} s")
        line = pong.stdout.readline()
    match = _LISTENING.search(line)
    if not match:
        pytest.fail(f"{pong.args[0]} said {line!r}, not `listening on ADDR (proto)`")
    return match.group(1)


def run_point(folder: Path, entry: runtimes.Entry, protocol: str, mode: str) -> Path:
    """One pong and one ping of `entry`, run again once if its window measured nothing; returns the ping's --out
    stem. The tests beside these run sweeps pinned to both CPUs at nice −10, which can starve an unpinned 0.3 s
    run whole (an async-std ping sent nothing in its window once, its counting thread 60 ms late): its log is
    then complete and empty, and says nothing of the statistics these tests compare."""
    stem = _run_point(folder, entry, protocol, mode)
    if mode == "rtt" and json.loads(Path(f"{stem}.json").read_text())["sent"] == 0:
        stem = _run_point(folder, entry, protocol, mode)
    return stem


def _run_point(folder: Path, entry: runtimes.Entry, protocol: str, mode: str) -> Path:
    mode_args = ["--mode", mode] if mode == "throughput" else []
    pong = subprocess.Popen([_binary(entry.binary_prefix, "pong"), "--address", "127.0.0.1:0",
                             "--protocol", protocol, *mode_args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        name = f"{entry.label}-{protocol}-64B-{'throughput' if mode == 'throughput' else '0s'}-0t"
        stem = folder / name
        ping = subprocess.run([_binary(entry.binary_prefix, "ping"), "--address", _address(pong),
                               "--protocol", protocol, *MODES[mode], "--out", stem],
                              capture_output=True, text=True, timeout=60)
        assert ping.returncode == 0, f"{name}: {ping.stderr}"
        return stem
    finally:
        pong.kill()
        pong.wait()


def run_all(folder: Path) -> dict[str, list[Path]]:
    """Every runtime of runtimes.json × TCP and UDP × RTT and throughput: kind → stems."""
    stems = {mode: [] for mode in MODES}
    for entry in runtimes.runtimes():
        for protocol in PROTOCOLS:
            for mode in MODES:
                stems[mode].append(run_point(folder / mode, entry, protocol, mode))
    return stems
