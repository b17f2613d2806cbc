"""A traced run's round trips split into phases: where the time between the ping's send and its receive went."""

# One message in flight (a closed loop on one connection) makes the round trip a chain in time, and the
# kernel events of both processes (analysis/trace_events.py) mark its links:
#
#   s  the ping enters the system call that sends (the one during which the pong is woken)
#   a  a pong task is woken by a ping task (on loopback, in the sender's own send: the kernel's network path)
#   b  that pong task is switched onto a CPU
#   c  a ping task is woken by a pong task (the echo's send)
#   d  that ping task is switched onto a CPU
#   e  a ping task leaves a receiving system call (read, recv*, io_uring_enter) with data: the echo is in
#   f  the ping enters the sending call of the next round trip (its s), where that task did not sleep before it
#      (back-to-back); else that task's first call after e (at a paced rate: the one that waits for the next tick)
#
# send = a − s, pong wake-up = b − a, pong turnaround (receive, the runtime's work, send) = c − b, ping wake-up =
# d − c, ping receive = e − d; their sum e − s is the round trip as the kernel saw it. Ping return = f − e is
# the ping's own work after the echo is in, which the kernel's events cannot split: the runtime handing the
# echo to its task (an io_uring runtime reaps its completion there, after io_uring_enter returns), the ping's
# clock reading and bookkeeping, and back-to-back the next message's way down to its send. Back-to-back the
# chains s → f tile the run, so their mean is the mean time from one send to the next. At a paced rate the
# return stops at the first call after e: the runtime's work after that (glommio polls its three rings for
# 20 µs before it parks; a worker runs its decoys) happens after the RTT's clock has stopped, or not at all.
#
# A round trip in which either end did not sleep (it was polling, or already running) has no wake-up to mark it
# and is counted apart: the split holds only for those that slept at both ends. Wake-ups of one process by
# itself on the way (a runtime's reactor thread waking a worker) are counted per round trip: a hand-off the
# message waits for.

import json
import math
import re
from dataclasses import dataclass, field

import numpy as np

from suite import traces

from . import trace_events
from .trace_events import ENTER_CALL, EXIT_CALL, SWITCH_TO, WAKE, Event, processes

PHASES = ("send", "pong wake-up", "pong turnaround", "ping wake-up", "ping receive", "ping return")
# System calls that bring an echo in, by machine (the numbers differ): read, readv, recvfrom, recvmsg, recvmmsg,
# io_uring_enter (the io_uring runtimes reap their completions in it).
RECEIVES = {"x86_64": frozenset({0, 19, 45, 47, 299, 426}), "aarch64": frozenset({63, 65, 207, 212, 243, 426})}
# ... and those that send one: write, writev, sendto, sendmsg, sendmmsg, io_uring_enter (which submits it).
SENDS = {"x86_64": frozenset({1, 20, 44, 46, 307, 426}), "aarch64": frozenset({64, 66, 206, 211, 269, 426})}


@dataclass(frozen=True)
class Split:
    """A traced run's round trips: each complete one's phases (rows × PHASES, ns), its system calls and
    same-process wake-ups per end, and how many round trips the trace held that no wake-up marked."""

    phases: np.ndarray
    calls: np.ndarray  # rows × (ping, pong): system calls entered between s and e
    handoffs: np.ndarray  # rows × (ping, pong): wake-ups of a task by its own process between s and e
    unmarked: int  # round trips with no wake-up at one end (started by a send, ended before the chain closed),
    # or whose ping made no further call in the trace
    inferred: int = 0  # complete ones whose ping wake-up went unrecorded: taken as the pong's send's end
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # each complete one's s (ns)

    @property
    def complete(self) -> int:
        return len(self.phases)

    def means_ns(self) -> np.ndarray:
        return self.phases.mean(axis=0) if self.complete else np.full(len(PHASES), math.nan)


# A read of 8 bytes is an eventfd's or a timerfd's (a runtime's reactor is woken through one), not an echo's,
# unless the echo itself is 8 bytes; io_uring_enter returns how many submissions it took, never bytes.
COUNTER_BYTES, URING_ENTER = 8, 426


def split(events: list[Event], ping: int, pong: int, machine: str = "x86_64", payload: int | None = None) -> Split:
    """The round trips between process `ping` and process `pong` (tgids) in `events`, in time order; `payload`, the
    echo's size in bytes, where known."""
    receives, sends = (table.get(machine, table["x86_64"]) for table in (RECEIVES, SENDS))
    owner = processes(events)
    rows, starts, calls, handoffs, unmarked, inferred = [], [], [], [], 0, 0
    last_send, last_pong_exit = 0, 0  # the latest sending call's entry of a ping task; any call's exit of a pong task
    mark: dict[str, int] = {}
    woken = 0  # the task the chain waits to see on a CPU
    # The ping task the echo came in to, when, and when it first entered a call since (0: not yet): its return is open.
    returning: tuple[int, int, int] | None = None
    asleep: set[int] = set()  # tasks switched out to sleep and not seen since
    counts = np.zeros(4, dtype=np.int64)  # ping calls, pong calls, ping hand-offs, pong hand-offs

    for e in events:
        if returning and e.kind == ENTER_CALL and e.tid == returning[0] and not returning[2]:
            returning = (*returning[:2], e.ns)
        elif returning and e.kind == SWITCH_TO and e.slept and e.a == returning[0]:
            rows[-1] += ((returning[2] or e.ns) - returning[1],)  # it waited for the next message: its work ended
            returning = None
        target = owner.get(e.a) if e.kind == WAKE else None
        was_asleep = e.tid in asleep and e.kind != WAKE
        if e.kind == SWITCH_TO and e.slept:
            asleep.add(e.a)
        elif e.kind != WAKE:
            asleep.discard(e.tid)
        if e.kind == WAKE and target == pong and e.tgid != pong:
            # The message reaches the pong. Its waker is the ping's send, or, where the pong's CPU was idle,
            # that CPU's own context (the kernel hands the wake-up over), by when the ping may have gone on into its
            # receive: the send is the ping's latest sending call, not its latest call. With one message in flight,
            # a chain still open here lost a mark the trace did not record: that round trip is counted unmarked,
            # never joined to this one.
            if mark:
                unmarked += 1
            if returning and last_send > returning[1]:  # back-to-back: the ping sent again without sleeping
                rows[-1] += (last_send - returning[1],)
                returning = None
            mark, woken = {"s": last_send or e.ns, "a": e.ns}, e.a
            counts[:] = 0
            counts[0] = 1  # the send itself
            continue
        if e.kind == ENTER_CALL and e.tgid == ping and e.a in sends:
            last_send = e.ns
        if e.kind == EXIT_CALL and e.tgid == pong:
            last_pong_exit = e.ns
        if not mark:
            continue
        if e.kind == ENTER_CALL and e.tgid in (ping, pong):
            counts[0 if e.tgid == ping else 1] += 1
        elif e.kind == WAKE and e.tgid == target and e.tgid in (ping, pong):
            counts[2 if e.tgid == ping else 3] += 1
        elif e.kind == WAKE and target == ping and "b" in mark and "c" not in mark:
            mark["c"], woken = e.ns, e.a
        # On a CPU: switched in, or (where the switch went unrecorded) its first own event after the wake-up.
        if woken and e.kind != WAKE and ((e.kind == SWITCH_TO and e.b == woken) or e.tid == woken):
            mark.setdefault("b" if "c" not in mark else "d", e.ns)
            woken = 0
        elif ("b" in mark and "c" not in mark and e.tgid == ping and e.kind == EXIT_CALL and was_asleep
              and last_pong_exit > mark["b"]):
            # A ping task that slept runs again with no wake-up recorded (one on an idle CPU that polls is not,
            # on some kernels): it was woken in the pong's send, which had ended by the pong's latest exit.
            mark["c"], mark["d"] = last_pong_exit, e.ns
            inferred += 1
        echo = e.b > 0 and (e.b != COUNTER_BYTES or payload == COUNTER_BYTES or e.a == URING_ENTER)
        if (e.kind == EXIT_CALL and e.tgid == ping and "b" in mark and "d" not in mark and e.a in receives
                and e.a != URING_ENTER and echo):
            # The echo came in to a ping that never slept for it (glommio polls its rings): no wake-up marks it, and
            # the chain must not wait for the next one (the timer's, a tick later).
            unmarked += 1
            mark = {}
            continue
        if e.kind == EXIT_CALL and e.tgid == ping and "d" in mark and e.a in receives and echo:
            m = mark
            rows.append((m["a"] - m["s"], m["b"] - m["a"], m["c"] - m["b"], m["d"] - m["c"], e.ns - m["d"]))
            starts.append(m["s"])
            calls.append(counts[:2].copy())
            handoffs.append(counts[2:].copy())
            mark, returning = {}, (e.tid, e.ns, 0)
    if mark:
        unmarked += 1
    # A round trip whose ping neither sent again nor slept before the trace ended has no return.
    closed = [i for i, row in enumerate(rows) if len(row) == len(PHASES)]
    unmarked += len(rows) - len(closed)
    rows, starts, calls, handoffs = ([seq[i] for i in closed] for seq in (rows, starts, calls, handoffs))
    return Split(np.array(rows, dtype=np.int64).reshape(-1, len(PHASES)),
                 np.array(calls, dtype=np.int64).reshape(-1, 2), np.array(handoffs, dtype=np.int64).reshape(-1, 2),
                 unmarked, inferred, np.array(starts, dtype=np.int64))


# The table and the bars read each phase's mean over the round trips whose sum is at or below this quantile of
# the sums: a loaded machine's rare stall of a millisecond would otherwise be most of every mean, while the
# means of what remains still add up to their round trips' mean.
TRIM = 0.9


@dataclass(frozen=True)
class Traced:
    """One traced run (a .trace file): what the sweep recorded about it, and its round trips split."""

    point: str  # the point's stem
    framework: str
    logged_p50_ns: float  # the traced run's own RTT p50 (its ping's log)
    split: Split
    round: int = 1  # its traced round: a runtime's and std's of one round ran in one block

    @property
    def setting(self) -> str:
        """The point but its framework (the stem after `framework-`): what std's traced run of it shares."""
        return self.point.removeprefix(f"{self.framework}-")

    def kept(self) -> np.ndarray:
        """The complete round trips whose sum is at or below the TRIM quantile of the sums."""
        totals = self.split.phases.sum(axis=1)
        return totals <= np.quantile(totals, TRIM) if len(totals) else np.zeros(0, dtype=bool)

    def phase_means_ns(self) -> np.ndarray:
        kept = self.kept()
        return self.split.phases[kept].mean(axis=0) if kept.any() else np.full(len(PHASES), math.nan)

    def median_total_ns(self) -> float:
        return float(np.median(self.split.phases.sum(axis=1))) if self.split.complete else math.nan


def read(path) -> Traced:
    """A .trace file: its header line (the point, both PIDs, the machine, the run's RTTs) and its events split.
    ValueError names what is wrong with it."""
    text = path.read_text(errors="replace")
    first, _, rest = text.partition("\n")
    if not first.startswith(traces.HEADER):
        raise ValueError(f"{path}: not a traced run (its first line is not '{traces.HEADER.strip()} {{…}}')")
    info = json.loads(first[len(traces.HEADER):])
    if not info.get("ping_pid") or not info.get("pong_pid"):
        raise ValueError(f"{path}: the trace does not say which processes were the ping and the pong")
    events = trace_events.parse(rest)
    owner = trace_events.processes(events)
    # A PID is the process's first task; its tgid is itself, whether or not that task ever ran.
    ping, pong = owner.get(info["ping_pid"], info["ping_pid"]), owner.get(info["pong_pid"], info["pong_pid"])
    rtts = info.get("rtt_ns") or {}
    return Traced(info.get("point", path.stem), info.get("framework", "?"), float(rtts.get("p50") or math.nan),
                  split(events, ping, pong, info.get("machine", "x86_64"), _payload(info.get("point", ""))),
                  int(info.get("round", 1)))


def _payload(point: str) -> int | None:
    """The message size a point's stem names (`tokio-udp-64B-0s-0t`: 64)."""
    found = re.search(r"-(\d+)B-", point)
    return int(found[1]) if found else None
