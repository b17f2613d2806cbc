"""Fixtures for the analysis tests: small sweeps, real runs, and parse.py run for real."""

# Fixtures for the analysis tests: small sweeps written in both log formats, and helpers that
# run parse.py for real (in-process through main() or as a subprocess) and count PDF pages.

import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from analysis.cli import main

from .logs import samples, write_run, write_sweep_info
from .micro_real import run_all as run_all_micro
from .real_runs import run_all

REPO = Path(__file__).resolve().parents[2]

# The small sweep: frameworks × transports × intervals, one decoy count, plus the ICMP baseline.
FRAMEWORKS = ("std", "tokio")
TRANSPORTS = ("tcp", "udp")
INTERVALS = (0.01, 0.001, 0.0)
SIZES = {0.01: 50, 0.001: 1234, 0.0: 3001}  # 3001 > 2000: its RTT-over-time is drawn in bins


@pytest.fixture
def sweep_dir(tmp_path) -> Path:
    folder = tmp_path / "latency-logs" / "localhost-20240501-120000"
    write_sweep_info(folder)
    seed = 0
    for framework in FRAMEWORKS:
        for transport in TRANSPORTS:
            for interval in INTERVALS:
                seed += 1
                write_run(folder, framework, transport, interval, samples(seed, SIZES[interval]),
                          achieved=None if interval else 31_000.0)
    write_run(folder, "ping", "icmp", 0.01, samples(99, 40, 15_000), framework_version="iputils 20240117", threads=None)
    return folder


@pytest.fixture
def tasks_dir(tmp_path) -> Path:
    """A sweep over decoy counts: std and tokio, TCP, two rates, 0 and 2 decoy tasks; no sweep.json."""
    folder = tmp_path / "tasks-sweep"
    seed = 100
    for framework in FRAMEWORKS:
        for interval in (0.001, 0.0):
            for tasks in (0, 2):
                seed += 1
                write_run(folder, framework, "tcp", interval, samples(seed, 300, 20_000 * (1 + tasks)),
                          tasks=tasks)
    return folder


def pages(pdf: Path) -> int:
    return len(PdfReader(pdf).pages)


NOTE = "parse.py: note: these flags are now `parse.py "  # the old flags' one line (test_legacy.py)


def without_note(err: str) -> str:
    """stderr without the line the old flags add, which test_legacy.py checks: the rest is the command's."""
    return "".join(line for line in err.splitlines(keepends=True) if not line.startswith(NOTE))


def cli(capsys, *args) -> tuple[int, str, str]:
    """parse.py in-process: (exit status, stdout, stderr without the old flags' note)."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, without_note(err)


def parse_py(*args, cwd=REPO) -> subprocess.CompletedProcess:
    """parse.py as a user runs it (stderr without the old flags' note)."""
    run = subprocess.run([sys.executable, str(REPO / "parse.py"), *map(str, args)], cwd=cwd,
                         capture_output=True, text=True, timeout=120)
    run.stderr = without_note(run.stderr)
    return run


@pytest.fixture(scope="session")
def real_logs(tmp_path_factory) -> dict:
    """Logs of real runs of every runtime (runtimes.json), RTT and throughput: kind → STEM paths."""
    return run_all(tmp_path_factory.mktemp("real-logs"))


@pytest.fixture(scope="session")
def real_micro_logs(tmp_path_factory) -> list[Path]:
    """Logs of real runs of every micro binary (analysis/tests/micro_real.py): their paths."""
    folder = tmp_path_factory.mktemp("real-micro") / "localhost-20261124-070000"
    logs = run_all_micro(folder)
    write_sweep_info(folder, MODE="micro")
    return logs
