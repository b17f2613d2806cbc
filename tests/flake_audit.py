#!/usr/bin/env python3
"""Runs each timing-sensitive test N times under each machine condition and prints its failures.

Not run by `make test`: it holds the machine for tens of minutes. The tests: tests/timing-tests.txt.
  quiet      the idle CPUs held awake (/dev/cpu_dma_latency at 0, as a sweep's TUNE=1 does)
  slow-wake  the idle state left alone (where idle vCPUs halt, a wake-up is slow)
  loaded     a CPU-bound process on every CPU (stress-ng --cpu N, or Python spinners)
Alone on the machine, as root for `quiet`:
  python3 tests/flake_audit.py [--runs 20] [--conditions quiet,slow-wake,loaded] [--only SUBSTRING]
"""

import argparse
import contextlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIST = REPO / "tests" / "timing-tests.txt"
VPY = REPO / ".venv" / "bin" / "python"
CONDITIONS = ("quiet", "slow-wake", "loaded")
TEST_DEADLINE_S = 600  # one run of one test; past it the run counts as failed


def listed_tests(only: str | None) -> list[str]:
    lines = (line.split("#")[0].strip() for line in LIST.read_text().splitlines())
    return [t for t in lines if t and (only is None or only in t)]


def is_python(test: str) -> bool:
    return ".py" in test


def rust_test_executable() -> Path:
    """Builds the end-to-end test executable (the binaries must be built: `make`) and returns its path."""
    out = subprocess.run(["cargo", "test", "--release", "-p", "rtt-tests", "--no-run", "--message-format=json"],
                         cwd=REPO, capture_output=True, text=True, timeout=1800)
    if out.returncode:
        sys.exit(f"flake_audit: building the end-to-end tests failed:\n{out.stderr[-3000:]}")
    for line in out.stdout.splitlines():
        message = json.loads(line) if line.startswith("{") else {}
        if message.get("reason") == "compiler-artifact" and message.get("executable") \
                and message["target"]["name"] == "end_to_end":
            return Path(message["executable"])
    sys.exit("flake_audit: cargo named no end_to_end test executable")


def command(test: str, rust_exe: Path | None) -> list[str]:
    if is_python(test):
        return [str(VPY), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", test]
    return [str(rust_exe), "--exact", test, "--test-threads", "1"]


def passed(test: str, rust_exe: Path | None) -> tuple[bool, str]:
    """One run of `test`: whether it passed, and the end of its output when it did not."""
    try:
        out = subprocess.run(command(test, rust_exe), cwd=REPO, capture_output=True, text=True,
                             timeout=TEST_DEADLINE_S)
    except subprocess.TimeoutExpired:
        return False, f"still running after {TEST_DEADLINE_S} s"
    ran = re.search(r"\b[1-9][0-9]* passed", out.stdout) is not None  # it ran, and not zero tests
    text = out.stdout + out.stderr
    # The panic and its message (Rust), or pytest's summary of the failure: not the backtrace.
    at = max(text.find("panicked at"), text.find("short test summary"))
    return out.returncode == 0 and ran, text[at:at + 1200] if at >= 0 else text[-1200:]


@contextlib.contextmanager
def condition(name: str):
    """Holds the machine in condition `name` while the block runs; yields a note on it (or None)."""
    if name == "quiet":
        try:
            fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
        except OSError as e:
            sys.exit(f"flake_audit: quiet needs /dev/cpu_dma_latency ({e.strerror}): run as root, "
                     "or leave it out with --conditions slow-wake,loaded")
        os.write(fd, struct.pack("i", 0))
        try:
            yield None
        finally:
            os.close(fd)
    elif name == "slow-wake":
        driver = idle_driver()
        yield None if driver not in ("none", "unknown") else \
            f"cpuidle driver {driver}: idle CPUs do not halt here, so this is the quiet condition"
    else:
        cpus = os.cpu_count() or 1
        if shutil.which("stress-ng"):
            loads = [subprocess.Popen(["stress-ng", "--cpu", str(cpus), "--quiet"])]
        else:
            loads = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cpus)]
        try:
            time.sleep(1)
            yield None
        finally:
            for load in loads:
                load.terminate()
                load.wait(timeout=10)


def idle_driver() -> str:
    try:
        return Path("/sys/devices/system/cpu/cpuidle/current_driver").read_text().strip()
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each test in each condition (default 20)")
    parser.add_argument("--python-runs", type=int, help="runs of each pytest test, when fewer (they are real sweeps); "
                        "0 leaves them out (default: --runs)")
    parser.add_argument("--conditions", default=",".join(CONDITIONS), help="comma-separated, of: " + ", ".join(CONDITIONS))
    parser.add_argument("--only", help="the listed tests whose name contains this")
    args = parser.parse_args()
    conditions = args.conditions.split(",")
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown or args.runs < 1:
        parser.error(f"unknown condition {unknown}: choose from {', '.join(CONDITIONS)}" if unknown
                     else "--runs takes a whole number from 1")
    python_runs = args.runs if args.python_runs is None else args.python_runs
    tests = [t for t in listed_tests(args.only) if python_runs or not is_python(t)]
    if not tests:
        parser.error(f"no test of {LIST} matches")
    rust_exe = rust_test_executable() if any(not is_python(t) for t in tests) else None
    print(f"cpuidle driver {idle_driver()}, {os.cpu_count()} CPUs, {args.runs} runs of each Rust test and "
          f"{python_runs} of each pytest test", flush=True)
    failures = {t: {} for t in tests}
    notes = {}
    for name in conditions:
        with condition(name) as note:
            notes[name] = note
            for test in tests:
                started = time.monotonic()
                runs = python_runs if is_python(test) else args.runs
                outcomes = [passed(test, rust_exe) for _ in range(runs)]
                failed = [tail for ok, tail in outcomes if not ok]
                failures[test][name] = f"{len(failed)}/{runs}"
                print(f"{name:9} {len(failed):2}/{runs} failed  {time.monotonic() - started:6.1f} s  {test}",
                      flush=True)
                if failed:
                    print("    last failure: " + failed[-1].strip().replace("\n", "\n    "), flush=True)
    print("\n| test | " + " | ".join(conditions) + " |\n|---|" + "---|" * len(conditions))
    for test in tests:
        print(f"| `{test}` | " + " | ".join(failures[test][c] for c in conditions) + " |")
    for name, note in notes.items():
        if note:
            print(f"{name}: {note}")
    return 1 if any(not cell.startswith("0/") for row in failures.values() for cell in row.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
