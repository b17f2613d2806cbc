"""The kernel's scheduler and system-call events of chosen processes, recorded through tracefs (an ftrace instance)."""

# Instances of its own (instances/rtt-PID-N-…) leave the machine's main trace buffer, and any other user of
# tracefs, alone. They record four events (sched_wakeup, sched_switch, raw_syscalls sys_enter and sys_exit),
# the system calls only of the tasks given and, through event-fork, of every task they start, with
# CLOCK_MONOTONIC time stamps and each task's tgid (analysis/trace_events.py reads the text). Giving the
# sweep's own PID makes the ping it starts next traced from its first instruction. Standard library only;
# needs root (or tracefs access).

import itertools
import os
import shutil
import subprocess
from pathlib import Path

TRACEFS = Path("/sys/kernel/tracing")
CALLS = ("raw_syscalls/sys_enter", "raw_syscalls/sys_exit")
SCHED = ("sched/sched_wakeup", "sched/sched_switch")
EVENTS = (*SCHED, *CALLS)
BUFFER_KB = 16384  # per CPU: a second of back-to-back round trips of a chatty runtime is about 6 MB of events
_names = itertools.count()


def unavailable(root: Path = TRACEFS) -> str | None:
    """Why nothing can be traced here (with what would enable it), or None. Mounts tracefs where it is empty
    and this process may."""
    if not (root / "instances").is_dir():
        if os.geteuid() != 0:
            return f"tracefs is not mounted at {root}: as root, mount -t tracefs nodev {root}"
        mounted = subprocess.run(["mount", "-t", "tracefs", "nodev", str(root)], capture_output=True, timeout=10)
        if mounted.returncode != 0 or not (root / "instances").is_dir():
            return f"tracefs cannot be mounted at {root} (a container without it?): no traced runs"
    if not all((root / "events" / event / "enable").exists() for event in EVENTS):
        missing = [e for e in EVENTS if not (root / "events" / e / "enable").exists()]
        return f"this kernel has no {', '.join(missing)} tracepoint (CONFIG_FTRACE_SYSCALLS?): no traced runs"
    if not os.access(root / "instances", os.W_OK):
        return f"{root}/instances is not writable by this user: run the sweep as root for traced runs"
    return None


def tasks(pid: int) -> list[int]:
    """A process's threads now (a thread that has ended meanwhile is simply not there)."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


class Capture:
    """Records the events of `pids` (their threads, and what they start from then on) from start() to stop().

    Two instances: the system calls of those tasks alone (a PID filter), and every task's wake-ups and context
    switches unfiltered, since a wake-up is often recorded in another task's context (an idle CPU's, an
    interrupt's); they are a few thousand events a second on a busy machine, and the analysis keeps those that
    concern the two ends."""

    def __init__(self, pids: list[int], root: Path = TRACEFS, buffer_kb: int = BUFFER_KB):
        self.pids, self.buffer_kb = pids, buffer_kb
        name = f"rtt-{os.getpid()}-{next(_names)}"
        self.paths = (root / "instances" / f"{name}-calls", root / "instances" / f"{name}-sched")

    @staticmethod
    def _write(instance: Path, name: str, text: str) -> None:
        (instance / name).write_text(text)

    def start(self) -> None:
        calls, sched = self.paths
        for instance, events in ((calls, CALLS), (sched, SCHED)):
            instance.mkdir()
            self._write(instance, "buffer_size_kb", str(self.buffer_kb))
            self._write(instance, "trace_clock", "mono")  # the ping's own clock, and one clock across CPUs
            self._write(instance, "options/record-tgid", "1")
            if instance == calls:
                self._write(instance, "options/event-fork", "1")
                self._write(instance, "set_event_pid", " ".join(str(t) for pid in self.pids for t in tasks(pid)))
            for event in events:
                self._write(instance, f"events/{event}/enable", "1")
        for instance in self.paths:
            self._write(instance, "tracing_on", "1")

    def stop(self, out: Path, header: str) -> int:
        """Stops recording and writes `header` (one line) and both instances' events to `out` (each in time
        order; the reader merges them): the events lost to a full buffer (0 when none)."""
        for instance in self.paths:
            self._write(instance, "tracing_on", "0")
        with out.open("w") as f:
            f.write(header.rstrip("\n") + "\n")
            for instance in self.paths:
                with (instance / "trace").open() as events:
                    shutil.copyfileobj(events, f)
        stats = [s for instance in self.paths for s in (instance / "per_cpu").glob("cpu*/stats")]
        return sum(int(line.split()[-1]) for s in stats for line in s.read_text().splitlines()
                   if line.startswith("overrun:"))

    def close(self) -> None:
        """Removes the instances (their events go with them); safe to call twice, and after a failed start."""
        for instance, events in zip(self.paths, (CALLS, SCHED), strict=True):
            if not instance.is_dir():
                continue
            try:
                self._write(instance, "tracing_on", "0")
                for event in events:
                    self._write(instance, f"events/{event}/enable", "0")
            finally:
                instance.rmdir()

    def __enter__(self) -> "Capture":
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_) -> None:
        self.close()
