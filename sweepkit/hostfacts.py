#!/usr/bin/env python3
"""This machine's facts for sweep.json, and whether it can run a sweep's binaries: `key<TAB>value` lines.

Standard library only and self-contained, so it also runs on a remote host from stdin:
    python3 sweepkit/hostfacts.py SUITE_DIR BIN_DIR CPUS NICE BINARY...
    ssh host python3 - SUITE_DIR BIN_DIR CPUS NICE BINARY... < sweepkit/hostfacts.py
BINARY names are relative to BIN_DIR (e.g. tokio-pong). Unknown facts are empty.
"""

import glob
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path


def first(argv, keep_fds=()) -> str:
    """The first line a command prints, or "" when it is missing, fails or takes over 5 s; `keep_fds`: the
    descriptors it inherits."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=5, stdin=subprocess.DEVNULL,
                              pass_fds=keep_fds)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = done.stdout.splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else ""


def succeeds(argv) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=10, stdin=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def read(path) -> str:
    try:
        return Path(path).read_text(errors="replace").strip()
    except OSError:
        return ""


def value_of(path, key: str, separator: str) -> str:
    """The value of the first line of a file that starts with `key`, after `separator`."""
    for line in read(path).splitlines():
        if line.startswith(key) and separator in line:
            return line.split(separator, 1)[1].strip()
    return ""


def collect(suite_dir: str, bin_dir: str, cpus: str, niceness: int, binaries, keep_fds=()) -> list[tuple[str, str]]:
    """The facts, in order; `keep_fds`: descriptors the binaries inherit when asked their --version (the
    sweep's TUNE hold, which every process of the sweep holds)."""
    facts = [("host", socket.gethostname()), ("kernel", platform.release()),
             ("os", value_of("/etc/os-release", "PRETTY_NAME=", "=").strip('"')), ("arch", platform.machine()),
             ("cpu_model", value_of("/proc/cpuinfo", "model name", ":")),
             ("cpus_online", str(os.cpu_count() or "")), ("cpus_usable", str(len(os.sched_getaffinity(0)))),
             ("cpus_allowed", value_of("/proc/self/status", "Cpus_allowed_list:", ":").replace(" ", "")),
             ("cpu_governor", read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"))]
    # How an idle CPU waits, which decides much of an RTT: a halted vCPU takes tens of µs to wake.
    # `none`: no cpuidle driver, so the CPUs halt whatever /dev/cpu_dma_latency says.
    states = [f"{read(Path(s) / 'name')}:{read(Path(s) / 'latency')}us"
              for s in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cpuidle/state*")) if read(Path(s) / "name")]
    facts += [("cpuidle_driver", read("/sys/devices/system/cpu/cpuidle/current_driver")),
              ("idle_states", " ".join(states)),
              ("guest_halt_poll_ns", read("/sys/module/haltpoll/parameters/guest_halt_poll_ns"))]
    rustc = first(["rustc", "--version"]) or first([str(Path.home() / ".cargo" / "bin" / "rustc"), "--version"])
    facts += [("rustc", rustc), ("suite_dir", suite_dir), ("bin_dir", bin_dir)]
    if not Path(suite_dir).is_dir():
        return facts + [("dir_ok", "no")]
    facts += [("dir_ok", "yes"), ("suite_commit", first(["git", "-C", suite_dir, "rev-parse", "HEAD"])),
              ("suite_describe", first(["git", "-C", suite_dir, "describe", "--always", "--dirty"]))]
    for binary in binaries:
        path = Path(bin_dir) / binary
        found = path.is_file() and os.access(path, os.X_OK)
        facts.append((f"version:{binary}", first([str(path), "--version"], keep_fds) if found else "missing"))
    # What the sweep will ask of this machine: pinning and niceness.
    pinned = not cpus or succeeds(["taskset", "-c", cpus, "true"])
    want = max(-20, min(19, os.getpriority(os.PRIO_PROCESS, 0) + niceness))
    niced = niceness == 0 or first(["nice", "-n", str(niceness), "nice"]) == str(want)
    return facts + [("cpus_ok", "yes" if pinned else "no"), ("nice_ok", "yes" if niced else "no")]


def lines(facts) -> str:
    return "".join(f"{key}\t{str(value).replace(chr(9), ' ').replace(chr(10), ' ')}\n" for key, value in facts)


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(f"usage: {sys.argv[0]} SUITE_DIR BIN_DIR CPUS NICE BINARY...")
    sys.stdout.write(lines(collect(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:])))
