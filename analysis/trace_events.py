"""The kernel events of a traced run (sweepkit/tracing.py's capture: ftrace's text with tgids) as typed rows."""

# ftrace prints one event a line, in time order across CPUs:
#   `   tokio-rt-worker-4497 (   4496) [000] d.s8. 12750.266524: sched_wakeup: comm=… pid=4500 prio=120 …`
# (task-tid, its tgid, CPU, flags, CLOCK_MONOTONIC in seconds to the µs, event, its fields). Only the four
# events the capture enables are kept; a line of anything else (a lost-events note, a header) is skipped.

import re
from dataclasses import dataclass
from pathlib import Path

LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<tid>\d+)\s+\(\s*(?P<tgid>[\d-]+)\)\s+\[(?P<cpu>\d+)\]\s+\S+\s+"
                  r"(?P<s>\d+)\.(?P<us>\d{6}):\s+(?P<event>\w+):\s+(?P<rest>.*)$")
WAKEUP = re.compile(r" pid=(\d+) prio=")
SWITCH = re.compile(r" prev_pid=(\d+) .* prev_state=(\S+) ==> .* next_pid=(\d+) ")
ENTER = re.compile(r"^NR (\d+) ")
EXIT = re.compile(r"^NR (\d+) = (-?\d+)")

WAKE, SWITCH_TO, ENTER_CALL, EXIT_CALL = "wakeup", "switch", "enter", "exit"


@dataclass(frozen=True)
class Event:
    """One event: at `ns` (CLOCK_MONOTONIC), on behalf of task `tid` of process `tgid` (the task running; for a
    wake-up, the waker). `a` and `b` are the event's two numbers, named by kind in the properties below.
    `slept`: a switch whose previous task went to sleep (state S or D), not one preempted while it could run."""

    ns: int
    tid: int
    tgid: int
    kind: str
    a: int
    b: int = 0
    slept: bool = False

    @property
    def woken(self) -> int:
        """A wake-up's woken task (0 for another kind)."""
        return self.a if self.kind == WAKE else 0

    @property
    def switched_out(self) -> int:
        """A switch's previous task (0 for another kind)."""
        return self.a if self.kind == SWITCH_TO else 0

    @property
    def switched_in(self) -> int:
        """A switch's next task (0 for another kind)."""
        return self.b if self.kind == SWITCH_TO else 0

    @property
    def call(self) -> int:
        """A system call's number, on entry and exit (-1 for another kind)."""
        return self.a if self.kind in (ENTER_CALL, EXIT_CALL) else -1

    @property
    def returned(self) -> int:
        """A system call's return value on exit (0 for another kind)."""
        return self.b if self.kind == EXIT_CALL else 0


def parse(text: str) -> list[Event]:
    """The wake-ups, context switches and system call entries and exits of an ftrace text, in time order (the
    capture writes two instances' events one after the other: a stable sort merges them)."""
    events = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m is None:
            continue
        ns = int(m["s"]) * 1_000_000_000 + int(m["us"]) * 1_000
        tid, tgid, rest = int(m["tid"]), int(m["tgid"]) if m["tgid"].isdigit() else -1, m["rest"]
        event = m["event"]
        if event == "sched_wakeup" and (f := WAKEUP.search(rest)):
            events.append(Event(ns, tid, tgid, WAKE, int(f[1])))
        elif event == "sched_switch" and (f := SWITCH.search(rest + " ")):
            events.append(Event(ns, tid, tgid, SWITCH_TO, int(f[1]), int(f[3]), f[2][:1] in ("S", "D")))
        elif event == "sys_enter" and (f := ENTER.match(rest)):
            events.append(Event(ns, tid, tgid, ENTER_CALL, int(f[1])))
        elif event == "sys_exit" and (f := EXIT.match(rest)):
            events.append(Event(ns, tid, tgid, EXIT_CALL, int(f[1]), int(f[2])))
    return sorted(events, key=lambda e: e.ns)


def read(path: Path) -> list[Event]:
    return parse(path.read_text(errors="replace"))


def processes(events: list[Event]) -> dict[int, int]:
    """tid → tgid of every task seen running (a woken task's process is known once it runs)."""
    return {e.tid: e.tgid for e in events if e.tgid > 0}
