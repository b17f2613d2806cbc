"""The plan of a sweep: its points (what is skipped and why), and the ordered list of runs: rounds of shuffled blocks or points."""

# sweep.json holds one record per point (`Point.record`) and one per run (`Run.record`); each end's
# command line is sweepkit.commands'. Nothing here runs anything. The modes (sweepkit.modes) sit above: each
# point carries its kind's mode, and the spec its MODE's, so that nothing here looks a mode up.

import dataclasses
import itertools
import random
from dataclasses import dataclass
from typing import Any

from suite import runtimes, transports

from .dimensions import DIMENSIONS, applying
from .checks import ORDERS
from .selection import extra_args, has_pong
from .spec import Spec

RESHUFFLES = 1000  # tries at a round in which no framework runs as one block; a few are plenty


@dataclass(frozen=True)
class Point:
    """One measured point: a runtime's ping against its pong, or a reference (the system ping, or
    the suite's binaries with arguments of their own)."""

    framework: str  # the label in runtimes.json
    binary: str | None  # binary prefix; None for a reference that runs another program
    transport: str  # tcp, udp, http (suite/transports.py); icmp for the ping reference
    payload: int  # bytes
    interval: str | None  # seconds, as written in INTERVALS (the stem keeps it); None: as fast as it can
    mode: Any  # its kind's mode (sweepkit.modes.base.Mode): the sweep's MODE's, or icmp's for the ping reference
    values: tuple[tuple[str, object], ...] = ()  # (name, value) of sweepkit/dimensions.py's; unset: the default
    port: int | None = None  # the pong's port under run-network.sh --serve/--peer
    skipped: str | None = None  # why the plan skips it
    ping_args: tuple[str, ...] = ()  # a reference's own arguments (runtimes.json), or a variant's
    pong_args: tuple[str, ...] = ()
    bin_dir: str | None = None  # where its binaries are when not BIN_DIR: a version variant's build (sweepkit/versions.py)

    @property
    def kind(self) -> str:
        """Its kind: rtt, icmp, throughput, wrk or wrk-ping (its mode's)."""
        return self.mode.kind

    def get(self, name: str):
        """The point's value of a dimension (tasks, connections, load, ...)."""
        given = dict(self.values)
        return given[name] if name in given else next(d.parse(d.default) for d in DIMENSIONS if d.name == name)

    @property
    def setting(self) -> tuple:
        """The point but its framework: transport, payload, interval and each dimension. The frameworks of one
        setting run as one block in a round under ORDER=blocks, and a Δ vs std pairs their runs of one round."""
        return (self.transport, self.payload, self.interval, *(self.get(d.name) for d in DIMENSIONS))

    @property
    def stem(self) -> str:
        """The point's name: {framework}-{transport}-{payload}B-{interval}s|throughput, then each dimension's
        suffix: -{tasks}t, -{connections}c unless one connection, -open in open load; then its kind's suffix
        (-wrk). A sweep of one connection in a closed loop keeps the names of the sweeps before those knobs."""
        measure = "throughput" if self.interval is None else f"{self.interval}s"
        return f"{self.framework}-{self.transport}-{self.payload}B-{measure}" + "".join(
            d.stem(self.get(d.name)) for d in DIMENSIONS) + self.mode.stem_suffix

    def end_args(self, end: str) -> tuple[str, ...]:
        """The `ping` or `pong` arguments of this point: a reference's or a variant's own, then each of its
        dimensions' option for that end (e.g. --connections to both: the pong checks it can hold them)."""
        own = self.ping_args if end == "ping" else self.pong_args
        return (*own, *(word for d in applying(self.kind) if d.option(end)
                        for word in (d.option(end), str(self.get(d.name)))))

    def record(self) -> dict:
        """The point's entry in sweep.json, before it runs; its status, repeats_ok and empty follow its runs."""
        entry = {"stem": self.stem, "framework": self.framework, "transport": self.transport,
                 "payload": self.payload}
        if self.interval is not None:
            entry["interval_s"] = float(self.interval)
        entry |= {d.name: self.get(d.name) for d in applying(self.kind)}
        return entry | {"status": "skipped" if self.skipped else "planned", "repeats_ok": 0,
                        "empty": 0, "message": self.skipped}


@dataclass(frozen=True)
class Run:
    """One repeat of a point: a fresh pong and a fresh ping (or system ping). Repeat k runs in round k."""

    point: Point
    round: int  # from 1

    @property
    def stem(self) -> str:
        """The log files' name: the point's, then -r{round}."""
        return f"{self.point.stem}-r{self.round}"

    def record(self) -> dict:
        """The run's entry in sweep.json, before it runs."""
        return {"stem": self.stem, "point": self.point.stem, "round": self.round, "status": "planned",
                "start_s": None, "wall_s": None, **self.point.mode.run_fields(), "message": None}


def build(spec: Spec, selection, icmp_unusable: str | None = None, variants=()) -> list:
    """Every point of the sweep's MODE, in the list's order (its mode's `points`), each with why it cannot
    be measured (its own mode's `why_skipped`), decided before the sweep starts."""
    points = spec.sweep_mode.points(spec, selection, variants)
    return [dataclasses.replace(p, skipped=p.mode.why_skipped(p, spec, icmp_unusable)) for p in points]


def network_points(spec: Spec, selection, measures, variants=()) -> list[Point]:
    """Each entry with a pong (runtimes, then references the suite's binaries measure) × protocols ×
    `measures` (payload, interval) × each dimension of the MODE in sweepkit/dimensions.py's order (task
    counts, then RTT's connection counts and loads), then each variant (sweepkit/variants.py: its base's
    binaries with its arguments, under its own label) the same way. Open load at interval 0 is not planned:
    back-to-back has no schedule to send on (knobs.check warns)."""
    dimensions = applying(spec.mode)
    grid = [tuple(zip([d.name for d in dimensions], values))
            for values in itertools.product(*(d.values(spec) for d in dimensions))]
    with_pongs = [e.label for e in runtimes.entries() if has_pong(e)]
    base_port = spec.base_port

    def port(entry):
        return None if base_port is None else base_port + with_pongs.index(entry.label)

    # (label, binary prefix, port, ping arguments, pong arguments, binaries' folder) of each line of points; a
    # variant's port follows every pong's (run-network.sh --serve runs a pong per variant too).
    lines = [(e.label, e.binary_prefix, port(e), extra_args(e, "ping"), extra_args(e, "pong"), None)
             for e in selection if has_pong(e)]
    lines += [(v.label, v.entry.binary_prefix, None if base_port is None else base_port + len(with_pongs) + i,
               (*extra_args(v.entry, "ping"), *v.ping_args), (*extra_args(v.entry, "pong"), *v.pong_args), v.bin_dir)
              for i, v in enumerate(variants)]
    # A second transport in one port space (HTTP beside TCP) takes the block of ports after every pong's.
    block = len(with_pongs) + len(variants)

    def at_port(at, proto):
        return None if at is None else at + block * transports.port_block(proto, spec.protocols)

    return [Point(label, binary, proto, size, interval, spec.sweep_mode, values, at_port(at, proto),
                  ping_args=ping_args, pong_args=pong_args, bin_dir=bin_dir)
            for (label, binary, at, ping_args, pong_args, bin_dir), proto, (size, interval), values
            in itertools.product(lines, spec.protocols, measures, grid)
            if not (dict(values).get("load") == "open" and float(interval) == 0)]


def blocks(order: list[Point]) -> list[str]:
    """The frameworks whose points (two or more) run back to back, as one stretch, in `order`, if others share it."""
    at: dict[str, list[int]] = {}
    for i, point in enumerate(order):
        at.setdefault(point.framework, []).append(i)
    if len(at) < 2:
        return []
    return [fw for fw, where in at.items() if len(where) > 1 and where[-1] - where[0] == len(where) - 1]


def by_setting(points: list, rng: random.Random) -> list:
    """ORDER=blocks: one block per setting (the point but its framework), its frameworks shuffled, then the
    blocks shuffled, so that a runtime's run and std's of one setting and round are seconds apart."""
    grouped: dict[tuple, list] = {}
    for point in points:
        grouped.setdefault(point.setting, []).append(point)
    blocks_ = list(grouped.values())
    for block in blocks_:
        rng.shuffle(block)
    rng.shuffle(blocks_)
    return [point for block in blocks_ for point in block]


def runs(points: list[Point], repeats: int, seed: int, order: str = ORDERS[0]) -> list[Run]:
    """Every run in the order it runs: `repeats` rounds, each measuring every point the plan does not
    skip once, so drift and periodic noise fall on every framework alike. ORDER=rounds shuffles each
    round whole; ORDER=blocks (by_setting) runs each setting's frameworks back to back, blocks and their
    insides shuffled; either is redrawn while a framework's points would run as one stretch. The same seed
    and points give the same order, and round k's does not depend on how many rounds follow."""
    rng = random.Random(seed)
    todo = [p for p in points if not p.skipped]
    ordered = []
    for round_ in range(1, repeats + 1):
        this = list(todo)
        for _ in range(RESHUFFLES):
            if order == "rounds":
                rng.shuffle(this)  # the draws of the sweeps before ORDER, so that their SEED replays them
            else:
                this = by_setting(todo, rng)
            if not blocks(this):
                break
        ordered += [Run(p, round_) for p in this]
    return ordered
