"""The plan of a sweep: one ordered list of points, built in one function, with what is skipped and why."""

# The shell reads the plan as tab-separated lines (`line`); sweep.json holds one record per point
# (`Point.record`). Nothing here runs anything.

import dataclasses
import itertools
from dataclasses import dataclass

from analysis import runtimes

from .knobs import MAX_UDP_SIZE

OVERHEAD_GUESS_S = 0.3  # per point, for the estimate before anything ran: start, stop, logs
THROUGHPUT_HANDSHAKE_S = 5  # a throughput ping's handshake and the return of the counts, 5 s each at most
ICMP_TAIL_S = 0.5  # the system ping is stopped this long after warm-up + duration, for the last replies
EMPTY = "-"  # an empty field of a plan line: `read` would merge two tabs in a row


@dataclass(frozen=True)
class Point:
    """One measured point: a runtime's ping against its pong, or a reference (the system ping)."""

    framework: str  # the label in runtimes.json
    binary: str | None  # binary prefix; None for a reference, which runs another program
    transport: str  # tcp, udp; icmp for the ping reference
    payload: int  # bytes
    interval: str | None  # seconds, as written in INTERVALS (the stem keeps it); None: throughput
    tasks: int  # decoy tasks
    port: int | None = None  # the pong's port under run-network.sh --serve/--peer
    skipped: str | None = None  # why the plan skips it

    @property
    def kind(self) -> str:
        if self.binary is None:
            return self.transport  # icmp
        return "throughput" if self.interval is None else "rtt"

    @property
    def stem(self) -> str:
        """The log files' name: {framework}-{transport}-{payload}B-{interval}s|throughput-{tasks}t."""
        measure = "throughput" if self.interval is None else f"{self.interval}s"
        return f"{self.framework}-{self.transport}-{self.payload}B-{measure}-{self.tasks}t"

    def record(self) -> dict:
        """The point's entry in sweep.json, before it runs."""
        entry = {"stem": self.stem, "framework": self.framework, "transport": self.transport,
                 "payload": self.payload}
        if self.interval is not None:
            entry["interval_s"] = float(self.interval)
        entry |= {"tasks": self.tasks, "status": "skipped" if self.skipped else "planned", "wall_s": None}
        if self.interval is None:
            entry |= {"msg_per_s_p50": None, "gbit_per_s_p50": None}
        else:
            entry |= {"p50_ns": None, "achieved_rate": None}
        entry["message"] = self.skipped
        return entry


def reference_problem(knobs: dict, unusable: str | None) -> str | None:
    """Why no ICMP point can run at all: the shell's finding about the system ping, or SIZE."""
    if unusable:
        return unusable
    if int(knobs["SIZE"]) < 16:
        return f"SIZE={knobs['SIZE']}: ping reports an RTT only for payloads of 16 bytes or more"
    return None


def why_skipped(point: Point, knobs: dict, icmp_unusable: str | None = None) -> str | None:
    """Why a point cannot be measured, decided before the sweep starts; None if it can."""
    if point.kind == "throughput" and point.transport == "udp" and point.payload > MAX_UDP_SIZE:
        return f"a UDP datagram carries at most {MAX_UDP_SIZE} bytes"
    if point.kind == "icmp":
        problem = reference_problem(knobs, icmp_unusable)
        if problem:
            return problem
        ms = float(point.interval) * 1000
        if abs(ms - round(ms)) > 1e-6:  # iputils keeps whole ms: 0.0001 would go out back-to-back
            return f"iputils ping paces in whole milliseconds, so it cannot send every {point.interval} s"
    return None


def build(knobs: dict, selection, icmp_unusable: str | None = None) -> list[Point]:
    """Every point in the order it runs: runtimes × protocols × intervals (throughput: sizes) × task
    counts, then each reference × intervals. Every point is a record, so what comes next lands
    here as data, not as shell loops: runtime variants (`tokio-ct=tokio:--flavor current_thread`)
    and connection counts as more axes of the product, and REPEATS as rounds of the whole list,
    each shuffled with a seeded random.Random, with stems `{stem}-r{k}`."""
    mode = knobs["MODE"]
    protocols = knobs["PROTOCOLS"].split()
    tasks = [int(t) for t in knobs["TASKS"].split()]
    if mode == "throughput":
        measures = [(int(size), None) for size in knobs["SIZES"].split()]
    else:
        measures = [(int(knobs["SIZE"]), interval) for interval in knobs["INTERVALS"].split()]
    all_runtimes = [e.label for e in runtimes.runtimes()]
    base_port = int(knobs["BASE_PORT"]) if "BASE_PORT" in knobs else None

    def port(entry):
        return None if base_port is None else base_port + all_runtimes.index(entry.label)

    points = [Point(e.label, e.binary_prefix, proto, size, interval, t, port(e))
              for e, proto, (size, interval), t
              in itertools.product([e for e in selection if e.is_runtime], protocols, measures, tasks)]
    if mode == "rtt":
        points += [Point(e.label, None, e.transport, int(knobs["SIZE"]), interval, 0)
                   for e in selection if not e.is_runtime for interval in knobs["INTERVALS"].split()]
    return [dataclasses.replace(p, skipped=why_skipped(p, knobs, icmp_unusable)) for p in points]


def ping_limit_s(kind: str, knobs: dict) -> float:
    """How long the ping of a point may run before it is stopped (the ICMP ping with SIGINT)."""
    measured = float(knobs["WARMUP"]) + float(knobs["DURATION"])
    if kind == "icmp":
        return measured + ICMP_TAIL_S
    # Past warm-up + duration a ping may wait one UDP timeout, or 5 s for a stalled TCP peer, then
    # write its logs, which takes seconds on a busy disk: PING_GRACE covers all of that.
    extra = THROUGHPUT_HANDSHAKE_S if kind == "throughput" else 0
    return measured + extra + float(knobs["PING_GRACE"])


def plain(value: float) -> str:
    """A number for a command line: no exponent, no trailing zeros (31, 3.2)."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


LINE_FIELDS = ("index", "stem", "kind", "binary", "transport", "payload", "interval", "tasks", "limit_s",
               "port", "status", "message")


def line(index: int, point: Point, knobs: dict) -> str:
    """The plan line the shell reads: LINE_FIELDS, tab-separated, "-" for an empty field."""
    fields = [index, point.stem, point.kind, point.binary, point.transport, point.payload, point.interval,
              point.tasks, plain(ping_limit_s(point.kind, knobs)), point.port,
              "skipped" if point.skipped else "planned", point.skipped]
    return "\t".join(EMPTY if f is None or f == "" else str(f).replace("\t", " ") for f in fields)
