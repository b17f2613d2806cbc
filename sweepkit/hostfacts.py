#!/usr/bin/env python3
"""This machine's facts for sweep.json, and whether it can run a sweep's binaries: `key<TAB>value` lines.

Standard library only and self-contained, so it also runs on a remote host from stdin:
    python3 sweepkit/hostfacts.py SUITE_DIR BIN_DIR CPUS NICE BINARY...
    ssh host python3 - SUITE_DIR BIN_DIR CPUS NICE BINARY... < sweepkit/hostfacts.py
BINARY names are relative to BIN_DIR (e.g. tokio-pong); CPUS are the CPUs the sweep pins its ends to here.
Unknown identity facts are empty; a setting whose file is missing is "unknown". Reads only: it changes
nothing on the machine.
"""

import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


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

# The machine's settings that move latency (pyperf's `system show`, for round trips). Read
# under a root directory, so that the tests can point it at a fake /proc and /sys.
UNKNOWN = "unknown"
SAMPLE_S = 0.3  # how long CPU use is sampled for: 30 ticks of 10 ms per CPU
CPU = "sys/devices/system/cpu"
THP = "sys/kernel/mm/transparent_hugepage"
CLOCKSOURCE = "sys/devices/system/clocksource/clocksource0"
ASLR = {"0": "0 (off)", "1": "1 (stack, mmap, vdso)", "2": "2 (full)"}
SHOWN_PROCESSES = 3  # the busiest other processes named


def text(root, path: str, empty: str = "none") -> str:
    """A file's content under `root`: "unknown" when it cannot be read, `empty` when it is blank."""
    try:
        value = (Path(root) / path).read_text(errors="replace").strip()
    except OSError:
        return UNKNOWN
    return value or empty


def cpulist(spec: str) -> list[int]:
    """The CPUs of a kernel CPU list such as 0-3,8; a part that is no CPU or range (none, unknown, a typo)
    adds none."""
    cpus = []
    for part in spec.split(","):
        low, _, high = part.strip().partition("-")
        if low.isdigit() and (high.isdigit() or not high):
            cpus += range(int(low), int(high or low) + 1)
    return cpus


def chosen(value: str) -> str:
    """The [bracketed] choice of a sysfs selector such as `always [madvise] never`."""
    return value.split("[", 1)[1].split("]", 1)[0] if "[" in value else value


def boot_parameter(cmdline: str, name: str) -> str:
    if cmdline == UNKNOWN:
        return UNKNOWN
    values = [arg.split("=", 1)[1] for arg in cmdline.split() if arg.startswith(f"{name}=")]
    return values[-1] if values else "none"


def governor_and_boost(root) -> list[tuple[str, str]]:
    """cpufreq's governor (each distinct one) and boost: "none" without a cpufreq driver (a VM whose host
    sets the clock), "unknown" without /sys."""
    if not (Path(root) / CPU).is_dir():
        return [("cpu_governor", UNKNOWN), ("cpu_boost", UNKNOWN)]
    governors = sorted({text(root, str(f.relative_to(root)))
                        for f in Path(root).glob(f"{CPU}/cpu[0-9]*/cpufreq/scaling_governor")})
    boost = text(root, f"{CPU}/cpufreq/boost")  # acpi-cpufreq, amd-pstate: 1 = on
    no_turbo = text(root, f"{CPU}/intel_pstate/no_turbo")  # intel_pstate: 1 = off
    if boost in ("0", "1"):
        boost = "on" if boost == "1" else "off"
    elif no_turbo in ("0", "1"):
        boost = "off" if no_turbo == "1" else "on"
    else:
        boost = "none" if not governors else UNKNOWN
    return [("cpu_governor", " ".join(governors) or "none"), ("cpu_boost", boost)]


def idle(root) -> list[tuple[str, str]]:
    """How an idle CPU waits, which decides much of an RTT: a halted vCPU takes tens of µs to wake. Driver
    `none`: the CPUs halt whatever /dev/cpu_dma_latency says."""
    states = [f"{text(root, f'{CPU}/cpu0/cpuidle/{s.name}/name')}:{text(root, f'{CPU}/cpu0/cpuidle/{s.name}/latency')}us"
              for s in sorted(Path(root).glob(f"{CPU}/cpu0/cpuidle/state*"))]
    return [("cpuidle_driver", text(root, f"{CPU}/cpuidle/current_driver")),
            ("idle_states", " ".join(states) or ("none" if (Path(root) / CPU / "cpu0").is_dir() else UNKNOWN)),
            ("guest_halt_poll_ns", text(root, "sys/module/haltpoll/parameters/guest_halt_poll_ns"))]


def counting(root) -> list[tuple[str, str]]:
    """What the runs' counters need (crates/rtt-counters): perf_event_open's paranoid level, and whether tracefs
    (the system call and wake-up tracepoints' ids) is mounted and readable at its mount point."""
    tracing = Path(root) / "sys/kernel/tracing"
    readable = os.access(tracing, os.R_OK | os.X_OK)
    tracefs = ("mounted" if (tracing / "events").is_dir() else "not mounted" if readable
               else "not readable" if tracing.exists() else UNKNOWN)
    return [("perf_event_paranoid", text(root, "proc/sys/kernel/perf_event_paranoid")), ("tracefs", tracefs)]


def isolation(root) -> list[tuple[str, str]]:
    """CPUs kept from the scheduler (isolcpus), from the tick (nohz_full) and from RCU callbacks (rcu_nocbs)."""
    cmdline = text(root, "proc/cmdline")
    nohz = text(root, f"{CPU}/nohz_full")  # only with CONFIG_NO_HZ_FULL; "(null)" when unset
    return [("isolcpus", text(root, f"{CPU}/isolated")),
            ("nohz_full", "none" if nohz == "(null)" else boot_parameter(cmdline, "nohz_full") if nohz == UNKNOWN
             else nohz),
            ("rcu_nocbs", boot_parameter(cmdline, "rcu_nocbs"))]


def processes(root) -> dict[int, tuple[str, int]]:
    """PID → (name, CPU ticks used so far) of every process; one that ends while it is read is left out."""
    found = {}
    try:
        pids = [int(name) for name in os.listdir(Path(root) / "proc") if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            stat = (Path(root) / "proc" / str(pid) / "stat").read_text(errors="replace")
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            found[pid] = (name, int(fields[11]) + int(fields[12]))  # utime, stime
        except (OSError, ValueError, IndexError):
            continue
    return found


def cpu_ticks(root) -> dict[str, tuple[int, int]]:
    """/proc/stat's `cpu` and `cpuN` lines as (busy, all) ticks; busy leaves out idle, iowait and steal."""
    ticks = {}
    for line in text(root, "proc/stat").splitlines():
        name, *values = line.split()
        if name.startswith("cpu") and len(values) >= 8 and all(v.isdigit() for v in values):
            user, nice, system, idle_, iowait, irq, softirq, steal = map(int, values[:8])
            ticks[name] = (user + nice + system + irq + softirq, user + nice + system + idle_ + iowait + irq
                           + softirq + steal)
    return ticks


def snapshot(root) -> tuple[dict, dict]:
    return cpu_ticks(root), processes(root)


def cpu_use(before: tuple[dict, dict], after: tuple[dict, dict], seconds: float, own_pid: int,
            tick_s: float) -> list[tuple[str, str]]:
    """Between two snapshots: each CPU's busy share, the CPUs other processes used (the machine's busy time
    less this process's), and the busiest other processes."""
    (cpus0, procs0), (cpus1, procs1) = before, after
    if "cpu" not in cpus0 or "cpu" not in cpus1:
        return [("cpu_busy", UNKNOWN), ("other_cpus", UNKNOWN), ("busiest_processes", UNKNOWN)]
    seconds = max(seconds, 1e-3)

    def busy_share(name: str) -> int:
        busy, total = (cpus1[name][i] - cpus0[name][i] for i in (0, 1))
        return round(100 * busy / total) if total > 0 else 0

    per_cpu = sorted((int(n[3:]), busy_share(n)) for n in cpus1 if n[3:].isdigit() and n in cpus0)
    used = {pid: ticks - procs0[pid][1] for pid, (name, ticks) in procs1.items()
            if pid in procs0 and procs0[pid][0] == name}
    own = used.pop(own_pid, 0)
    other = max(0.0, ((cpus1["cpu"][0] - cpus0["cpu"][0]) - own) * tick_s / seconds)
    busiest = sorted(((ticks, pid) for pid, ticks in used.items() if ticks > 0), reverse=True)[:SHOWN_PROCESSES]
    return [("cpu_busy", ", ".join(f"cpu{n} {share}%" for n, share in per_cpu) or UNKNOWN),
            ("other_cpus", f"{other:.2f}"),
            ("busiest_processes", "; ".join(f"{procs1[pid][0]} (pid {pid}) {ticks * tick_s / seconds:.2f} CPUs"
                                            for ticks, pid in busiest) or "none")]


def settings(root, cpus: str, sample_s: float) -> list[tuple[str, str]]:
    """The settings that move latency, under `root` ("/" but in tests); `cpus`: the CPUs the ends are pinned
    to here (their SMT siblings are listed); CPU use is sampled over `sample_s`."""
    facts = governor_and_boost(root) + idle(root)
    facts += [("aslr", ASLR.get(text(root, "proc/sys/kernel/randomize_va_space"), UNKNOWN))]
    facts += isolation(root)
    facts += counting(root)
    before = snapshot(root)
    names = {name for name, _ in before[1].values()} if (Path(root) / "proc").is_dir() else None
    facts += [("irqbalance", UNKNOWN if names is None else "running" if "irqbalance" in names else "not running"),
              ("thp", chosen(text(root, f"{THP}/enabled"))), ("thp_defrag", chosen(text(root, f"{THP}/defrag"))),
              ("clocksource", text(root, f"{CLOCKSOURCE}/current_clocksource")),
              ("clocksources", text(root, f"{CLOCKSOURCE}/available_clocksource")),
              ("smt_siblings", "; ".join(f"cpu{n}: {text(root, f'{CPU}/cpu{n}/topology/thread_siblings_list')}"
                                         for n in sorted(set(cpulist(cpus)))) or "not pinned"),
              ("load_average", " ".join(text(root, "proc/loadavg").split()[:3]))]
    time.sleep(sample_s)
    return facts + cpu_use(before, snapshot(root), sample_s, os.getpid(), 1 / CLK_TCK)


def collect(suite_dir: str, bin_dir: str, cpus: str, niceness: int, binaries, keep_fds=()) -> list[tuple[str, str]]:
    """The facts, in order; `keep_fds`: descriptors the binaries inherit when asked their --version (the
    sweep's TUNE hold, which every process of the sweep holds)."""
    facts = [("host", socket.gethostname()), ("kernel", platform.release()),
             ("os", value_of("/etc/os-release", "PRETTY_NAME=", "=").strip('"')), ("arch", platform.machine()),
             ("cpu_model", value_of("/proc/cpuinfo", "model name", ":")),
             ("cpus_online", str(os.cpu_count() or "")), ("cpus_usable", str(len(os.sched_getaffinity(0)))),
             ("cpus_allowed", value_of("/proc/self/status", "Cpus_allowed_list:", ":").replace(" ", "")),
             ("root", "yes" if os.geteuid() == 0 else "no")]
    facts += settings("/", cpus, SAMPLE_S)
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
