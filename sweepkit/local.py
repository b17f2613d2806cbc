"""This host's side of a sweep: pinning and niceness of its ends, TUNE's hold on idle states, the system ping."""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import procs
from .spec import Spec

CPU_DMA_LATENCY = "/dev/cpu_dma_latency"


def warn(prog: str, text: str) -> None:
    print(f"{prog}: warning: {text}", file=sys.stderr)


def allowed_cpus() -> str:
    """This process's allowed CPUs as the kernel lists them, e.g. 0-3."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    return ""


def _quiet(argv) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=10,
                              preexec_fn=procs.dies_with_sweep())
    except (OSError, subprocess.TimeoutExpired):
        return None


def cpus_usable(cpus: str) -> bool:
    """Whether `taskset -c CPUS` works here (the sweep pins with it)."""
    done = _quiet(["taskset", "-c", cpus, "true"])
    return done is not None and done.returncode == 0


def nice_allowed(niceness: int) -> bool:
    """Whether `nice -n NICE` really gives that niceness here (lowering it needs root or CAP_SYS_NICE)."""
    want = max(-20, min(19, os.getpriority(os.PRIO_PROCESS, 0) + niceness))
    done = _quiet(["nice", "-n", str(niceness), "nice"])
    return done is not None and done.stdout.strip() == str(want)


@dataclass
class Ends:
    """What goes before each end's command here: taskset and nice, as far as this host allows."""

    prefix: dict[str, list[str]] = field(default_factory=lambda: {"ping": [], "pong": [], "micro": []})
    nice: bool = False  # NICE is applied


def setup(spec: Spec, ends: list[str], prog: str) -> tuple[Ends, Spec]:
    """taskset and nice for `ends` (ping, pong, micro) that run here, and the spec as they run. With one CPU,
    whatever runs here runs on it (both ends: with a warning), and the spec's PING_CPUS/PONG_CPUS say so. A
    CPU list this process may not use: exit 2."""
    allowed = allowed_cpus()
    if len(os.sched_getaffinity(0)) == 1:
        pinned = [end for end in ("ping", "pong") if end in ends and spec.cpus(end)]
        if ({"ping", "pong"} <= set(ends) and pinned
                and (spec.ping_cpus != allowed or spec.pong_cpus != allowed)):
            warn(prog, f"only one CPU ({allowed}) is available: pong and ping both run on it and compete")
        spec = spec.with_knobs(**{f"{end.upper()}_CPUS": allowed for end in pinned})
    result = Ends()
    for end in ("ping", "pong", "micro"):
        cpus = spec.cpus(end)
        if not cpus or end not in ends:
            continue
        if not cpus_usable(cpus):
            print(f"{prog}: {end.upper()}_CPUS={cpus} is not usable here (this process may run on CPUs {allowed})",
                  file=sys.stderr)
            raise SystemExit(2)
        result.prefix[end] = ["taskset", "-c", cpus]
    if spec.nice != 0:
        if nice_allowed(spec.nice):
            result.nice = True
            for end in result.prefix:
                result.prefix[end] += ["nice", "-n", str(spec.nice)]
        else:
            warn(prog, f"cannot run at NICE={spec.nice} here (needs root or CAP_SYS_NICE): running at normal priority")
    return result, spec


def hold_cpus_awake(tune: bool, prog: str) -> str:
    """TUNE=1: asks the kernel to keep this host's CPUs out of idle states slower to leave than 0 µs (the PM
    QoS request of /dev/cpu_dma_latency, as pyperf's `system tune` and tuned do) while the descriptor is
    open. Every child inherits it (procs.KEEP_FDS); the kernel drops the request when the last copy closes,
    so every way the sweep ends, kill -9 included, restores the machine. Returns what happened."""
    if not tune:
        return "not asked (TUNE=0)"
    try:
        fd = os.open(CPU_DMA_LATENCY, os.O_WRONLY)
        os.write(fd, b"\0\0\0\0")
    except OSError:
        warn(prog, "TUNE=1: cannot write /dev/cpu_dma_latency (it needs root): idle CPUs may halt, which adds "
                   "the time to wake one to every round trip; TUNE=0 says this is meant")
        return "not permitted"
    procs.KEEP_FDS.append(fd)
    return "held at 0 us"


def icmp_problem() -> str | None:
    """Why the system ping cannot give the ICMP baseline; None when it can."""
    if not shutil.which("ping"):
        return "no system ping: install iputils-ping (Debian/Ubuntu: apt-get install iputils-ping)"
    done = _quiet(["ping", "-V"])
    if done is None or "iputils" not in done.stdout + done.stderr:
        return "the system ping is not iputils ping (needed for -D timestamps): install iputils-ping"
    return None


def ping_version() -> str:
    """The system ping's version line, without "ping from "."""
    done = _quiet(["ping", "-V"])
    line = (done.stdout + done.stderr).splitlines()[0] if done and (done.stdout + done.stderr) else ""
    return line.removeprefix("ping from ")


def suite_version(bin_dir: Path, prefixes: list[str], suite_dir: Path) -> str:
    """The suite's version as its binaries report it (for the ICMP logs), else the git commit."""
    for prefix in prefixes:
        binary = bin_dir / f"{prefix}-ping"
        if os.access(binary, os.X_OK):
            version = procs.output([binary, "--version"])
            if version:
                return version.split(" ", 1)[-1]
    done = _quiet(["git", "-C", str(suite_dir), "rev-parse", "--short", "HEAD"])
    return f"git {done.stdout.strip() if done and done.returncode == 0 else 'unknown'}"
