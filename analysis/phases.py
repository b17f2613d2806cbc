"""A traced run's round trips split into phases: where the time between the ping's send and its receive went."""

# One message in flight (a closed loop on one connection) makes the round trip a chain in time, and the
# kernel events of both processes (analysis/trace_events.py) mark its links (_Chain's fields):
#
#   s  send: the ping enters the system call that sends (the one during which the pong is woken)
#   a  pong_woken: a pong task is woken by a ping task (on loopback, in the sender's own send)
#   b  pong_running: that pong task is switched onto a CPU
#   c  ping_woken: a ping task is woken by a pong task (the echo's send)
#   d  ping_running: that ping task is switched onto a CPU
#   e  echo_in: a ping task leaves a receiving system call (read, recv*, io_uring_enter) with data
#   f  the ping's next sending call (its s) where that task did not sleep before it (back-to-back); else that
#      task's first call after e (at a paced rate: the one that waits for the next tick)
#
# PHASES are a − s, b − a, c − b, d − c, e − d (their sum e − s is the round trip as the kernel saw it) and
# f − e, the ping's own work after the echo is in, which the kernel's events cannot split. A round trip in which
# either end did not sleep has no wake-up to mark it and is counted apart (unmarked). The method and what each
# phase holds: docs/analysis.md, "Where a round trip's time goes".

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


@dataclass
class _Chain:
    """The round trip in flight: its marks (ns; None: not yet seen) and what each end did on the way."""

    send: int  # s
    pong_woken: int  # a
    pong_running: int | None = None  # b
    ping_woken: int | None = None  # c
    ping_running: int | None = None  # d
    calls: list[int] = field(default_factory=lambda: [1, 0])  # ping's (its send counted), pong's
    handoffs: list[int] = field(default_factory=lambda: [0, 0])  # ping's, pong's

    def on_cpu(self, at: int) -> None:
        """The woken task runs at `at`: the pong's (b) until the echo woke the ping, then the ping's (d); once each."""
        if self.ping_woken is None:
            self.pong_running = at if self.pong_running is None else self.pong_running
        elif self.ping_running is None:
            self.ping_running = at

    def phases(self, echo_in: int) -> tuple[int, ...]:
        """Its five marked phases, the echo having come in at `echo_in` (e)."""
        return (self.pong_woken - self.send, self.pong_running - self.pong_woken, self.ping_woken - self.pong_running,
                self.ping_running - self.ping_woken, echo_in - self.ping_running)


@dataclass
class _Return:
    """A complete round trip's ping return, still open: the row it ends, the ping task the echo came in to,
    when (e), and when that task first entered a call since (None: not yet)."""

    row: int
    tid: int
    echo_in: int
    next_call: int | None = None


class _Splitter:
    """split()'s walk over the events: fed them one by one in time order, it keeps the chain in flight."""

    def __init__(self, ping: int, pong: int, owner: dict[int, int], machine: str, payload: int | None):
        self.ping, self.pong, self.owner, self.payload = ping, pong, owner, payload
        self.receives, self.sends = (table.get(machine, table["x86_64"]) for table in (RECEIVES, SENDS))
        self.rows: list[tuple[int, ...]] = []
        self.starts: list[int] = []
        self.calls: list[list[int]] = []
        self.handoffs: list[list[int]] = []
        self.unmarked = self.inferred = 0
        self.last_send = 0  # the latest sending call's entry of a ping task
        self.last_pong_exit = 0  # any call's exit of a pong task
        self.chain: _Chain | None = None
        self.woken = 0  # the task the chain waits to see on a CPU
        self.returning: _Return | None = None
        self.asleep: set[int] = set()  # tasks switched out to sleep and not seen since

    def feed(self, e: Event) -> None:
        self._follow_return(e)
        target = self.owner.get(e.woken) if e.kind == WAKE else None
        was_asleep = e.tid in self.asleep and e.kind != WAKE
        if e.kind == SWITCH_TO and e.slept:
            self.asleep.add(e.switched_out)
        elif e.kind != WAKE:
            self.asleep.discard(e.tid)
        if e.kind == WAKE and target == self.pong and e.tgid != self.pong:
            self._start(e)
            return
        if e.kind == ENTER_CALL and e.tgid == self.ping and e.call in self.sends:
            self.last_send = e.ns
        if e.kind == EXIT_CALL and e.tgid == self.pong:
            self.last_pong_exit = e.ns
        if self.chain is not None:
            self._advance(e, target, was_asleep)

    def _follow_return(self, e: Event) -> None:
        """The open return's end: the ping task's first call after the echo, or its sleep."""
        back = self.returning
        if back and e.kind == ENTER_CALL and e.tid == back.tid and back.next_call is None:
            back.next_call = e.ns
        elif back and e.kind == SWITCH_TO and e.slept and e.switched_out == back.tid:
            # It waited for the next message: its work ended.
            self._close_return((back.next_call if back.next_call is not None else e.ns) - back.echo_in)

    def _close_return(self, length: int) -> None:
        """The open return ends, `length` ns long: its row's sixth phase."""
        self.rows[self.returning.row] += (length,)
        self.returning = None

    def _start(self, e: Event) -> None:
        """The message reaches the pong. Its waker is the ping's send, or, where the pong's CPU was idle, that
        CPU's own context (the kernel hands the wake-up over), by when the ping may have gone on into its
        receive: the send is the ping's latest sending call, not its latest call. With one message in flight, a
        chain still open here lost a mark the trace did not record: it is counted unmarked, never joined."""
        if self.chain is not None:
            self.unmarked += 1
        if self.returning and self.last_send > self.returning.echo_in:  # back-to-back: sent again, no sleep
            self._close_return(self.last_send - self.returning.echo_in)
        self.chain, self.woken = _Chain(send=self.last_send or e.ns, pong_woken=e.ns), e.woken

    def _advance(self, e: Event, target: int | None, was_asleep: bool) -> None:
        """An event while a chain is in flight: counted, a mark, or its end."""
        chain, ping, pong = self.chain, self.ping, self.pong
        if e.kind == ENTER_CALL and e.tgid in (ping, pong):
            chain.calls[0 if e.tgid == ping else 1] += 1
        elif e.kind == WAKE and e.tgid == target and e.tgid in (ping, pong):
            chain.handoffs[0 if e.tgid == ping else 1] += 1
        elif e.kind == WAKE and target == ping and chain.pong_running is not None and chain.ping_woken is None:
            chain.ping_woken, self.woken = e.ns, e.woken
        # On a CPU: switched in, or (where the switch went unrecorded) its first own event after the wake-up.
        if self.woken and e.kind != WAKE and (e.switched_in == self.woken or e.tid == self.woken):
            chain.on_cpu(e.ns)
            self.woken = 0
        elif (chain.pong_running is not None and chain.ping_woken is None and e.tgid == ping
              and e.kind == EXIT_CALL and was_asleep and self.last_pong_exit > chain.pong_running):
            # A ping task that slept runs again with no wake-up recorded (one on an idle CPU that polls is not,
            # on some kernels): it was woken in the pong's send, which had ended by the pong's latest exit.
            chain.ping_woken, chain.ping_running = self.last_pong_exit, e.ns
            self.inferred += 1
        if e.kind == EXIT_CALL and e.tgid == ping and e.call in self.receives and self._is_echo(e):
            self._echo_in(e)

    def _is_echo(self, e: Event) -> bool:
        """A receive's exit that brought data, and not an eventfd's or timerfd's 8 bytes (COUNTER_BYTES)."""
        return e.returned > 0 and (e.returned != COUNTER_BYTES or self.payload == COUNTER_BYTES
                                   or e.call == URING_ENTER)

    def _echo_in(self, e: Event) -> None:
        """The echo is in: the chain is complete, or (an echo to a ping that never slept for it) unmarked."""
        chain = self.chain
        if chain.pong_running is not None and chain.ping_running is None:
            if e.call != URING_ENTER:
                # It came in to a ping that polls (glommio its rings): no wake-up marks it, and the chain must not
                # wait for the next one (the timer's, a tick later).
                self.unmarked += 1
                self.chain = None
            return
        if chain.ping_running is None:
            return
        self.rows.append(chain.phases(e.ns))
        self.starts.append(chain.send)
        self.calls.append(chain.calls)
        self.handoffs.append(chain.handoffs)
        self.chain, self.returning = None, _Return(len(self.rows) - 1, e.tid, e.ns)

    def result(self) -> Split:
        """The round trips whose return closed; the rest, and a chain still open, counted unmarked."""
        closed = [i for i, row in enumerate(self.rows) if len(row) == len(PHASES)]
        unmarked = self.unmarked + (self.chain is not None) + len(self.rows) - len(closed)
        rows, starts, calls, handoffs = ([seq[i] for i in closed] for seq in
                                         (self.rows, self.starts, self.calls, self.handoffs))
        return Split(np.array(rows, dtype=np.int64).reshape(-1, len(PHASES)),
                     np.array(calls, dtype=np.int64).reshape(-1, 2), np.array(handoffs, dtype=np.int64).reshape(-1, 2),
                     unmarked, self.inferred, np.array(starts, dtype=np.int64))


def split(events: list[Event], ping: int, pong: int, machine: str = "x86_64", payload: int | None = None) -> Split:
    """The round trips between process `ping` and process `pong` (tgids) in `events`, in time order; `payload`, the
    echo's size in bytes, where known."""
    splitter = _Splitter(ping, pong, processes(events), machine, payload)
    for e in events:
        splitter.feed(e)
    return splitter.result()


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
