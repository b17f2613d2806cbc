"""The sweep's typed spec: the checked knob strings parsed once, at the entry, into one frozen value.

sweepkit.knobs reads and checks the environment's strings; `parse` turns them into a Spec, and below the entry
nothing sees the strings again but sweep.json's `knobs`, their record. A knob the sweep changes later (one CPU
for both ends, BUDGET's rounds) changes record and typed field together (`Spec.with_knobs`). The entry hands
`parse` the MODE's mode, which the spec keeps for the modules below.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suite import sequential

from .dimensions import applying
from .versions import PROFILES, RELEASE, Profile

BUDGET = re.compile(r"([0-9]+(?:[.][0-9]+)?)([smh]?)")
UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600}


def budget_s(text: str) -> float | None:
    """BUDGET in seconds (900, 900s, 15m, 1.5h); None when it is not such a time."""
    match = BUDGET.fullmatch(text.strip())
    return float(match[1]) * UNIT_S[match[2]] if match and float(match[1]) > 0 else None


@dataclass(frozen=True)
class Seconds:
    """A time knob: its value, and its text as given (the binaries get the text, so their argv stays as typed)."""

    text: str
    s: float

    def __str__(self) -> str:
        return self.text


def seconds(text: str) -> Seconds:
    return Seconds(text, float(text))


def ints(text: str) -> tuple[int, ...]:
    return tuple(int(word) for word in text.split())


@dataclass(frozen=True)
class Spec:
    """Every knob of a checked sweep, typed; `knobs` is what sweep.json records of them."""

    knobs: tuple[tuple[str, str], ...]  # (KNOB, text) in sweep.json's order
    given: tuple[str, ...]  # the knobs set in the environment
    mode: str  # rtt, throughput, micro or wrk
    sweep_mode: Any  # that MODE's mode (sweepkit.modes.base.Mode), handed by the entry: what the plan asks
    repeats: int
    seed: int
    order: str  # blocks or rounds
    budget: str  # BUDGET as given; empty: none
    budget_s: float | None  # BUDGET in seconds
    dry_run: bool
    tune: bool
    counters: str  # COUNTERS: 0, 1 or all: what each ping counts of both ends over its window
    nice: int
    out_dir: Path
    bin_dir: Path
    ping_grace: Seconds
    duration: Seconds | None = None  # None under MODE=micro's plan (it has none)
    warmup: Seconds | None = None
    ready_timeout: Seconds | None = None
    size: int = 0
    intervals: tuple[str, ...] = ()  # seconds as written (a stem keeps them)
    sizes: tuple[int, ...] = ()
    protocols: tuple[str, ...] = ()
    dimensions: tuple[tuple[str, tuple], ...] = ()  # (name, values) of sweepkit/dimensions.py's
    pong_cpus: str = ""
    ping_cpus: str = ""
    micro_cpus: str = ""
    ping_extra: tuple[str, ...] = ()
    pong_extra: tuple[str, ...] = ()
    ssh_opts: tuple[str, ...] = ()
    base_port: int | None = None  # run-network.sh only
    benches: tuple[str, ...] = ()  # MODE=micro's
    micro_instances: tuple[int, ...] = ()
    micro_workers: tuple[int, ...] = ()
    micro_event_types: tuple[str, ...] = ()
    micro_event_sizes: tuple[int, ...] = ()
    micro_repeat: int = 0
    micro_timeout: int = 0
    wrk: str = ""  # MODE=wrk's: the wrk that runs, as found on PATH (the entry checks it is there)
    min_messages: int = 0  # MODE=rtt's MIN_MESSAGES: a paced run's window holds at least this many; 0: DURATION only
    trace: int = 0  # MODE=rtt's TRACE: after the rounds, this many traced runs of each point (sweepkit/traced.py)
    probed: int = 0  # MODE=rtt's PROBED: after the rounds, this many runs of each point counting system calls too
    # How its comparisons are decided (STOP, MARGIN, MARGIN_P99: MODE=rtt's): the rounds it may run and its looks.
    design: sequential.Design | None = None
    version_profile: Profile = RELEASE  # VERSION_PROFILE: the cargo profile a version variant is built in

    @property
    def rounds(self) -> int:
        """The most rounds the sweep runs: REPEATS, or under STOP=decided a few more (suite/sequential.py)."""
        return self.design.maximum if self.design else self.repeats

    def record(self) -> dict[str, str]:
        """sweep.json's `knobs`: every knob's text, in order."""
        return dict(self.knobs)

    def text(self, knob: str) -> str:
        """A knob's text as recorded, for messages that quote it (CONNECTIONS="1 4", VARIANTS=...)."""
        return dict(self.knobs).get(knob, "")

    @property
    def probed_rounds(self) -> int:
        """The PROBED rounds a sweep runs after its own (sweepkit/probed.py): with COUNTERS=1 only, since with all
        every run counts system calls itself, and with 0 nothing is counted."""
        return self.probed if self.counters == "1" else 0

    def with_knobs(self, **changes: str) -> "Spec":
        """The spec with knobs changed (their texts, recorded as such), parsed again."""
        return parse(self.record() | changes, self.given, self.sweep_mode)

    def values(self, name: str) -> tuple:
        """The values a dimension (tasks, connections, load) sweeps."""
        return dict(self.dimensions)[name]

    def cpus(self, end: str) -> str:
        """The CPU list an end (ping, pong, micro) is pinned to; empty: not pinned."""
        return {"ping": self.ping_cpus, "pong": self.pong_cpus, "micro": self.micro_cpus}[end]

    @property
    def measured_s(self) -> float:
        """Warm-up + duration: what a network run measures, besides its overhead."""
        return self.warmup.s + self.duration.s

    def window(self, interval: str | None) -> Seconds:
        """A run's measured window at `interval` (None: not paced): DURATION, or MIN_MESSAGES × the interval where
        that is longer, so that a run at a low rate holds at least MIN_MESSAGES messages; and never under one
        interval, which a window shorter than could hold no send at all (an empty run, measured again for nothing)."""
        if interval is not None and float(interval) > 0:
            longer = round(max(self.min_messages, 1) * float(interval), 6)
            if longer > self.duration.s:
                return Seconds(f"{longer:g}", longer)
        return self.duration

    def measured_at(self, interval: str | None) -> float:
        """Warm-up + the window at `interval`: what a run of a point measures, besides its overhead."""
        return self.warmup.s + self.window(interval).s


def parse(knobs: dict[str, str], given, mode) -> Spec:
    """The spec of knobs that passed sweepkit.knobs.check (so every parse here succeeds); the fields only one
    MODE has are its mode's to parse (`mode`, the MODE's: sweepkit.modes, `fields`)."""
    k = knobs
    return Spec(knobs=tuple(k.items()), given=tuple(given), mode=k["MODE"], sweep_mode=mode,
                repeats=int(k["REPEATS"]), seed=int(k["SEED"]), order=k["ORDER"], budget=k["BUDGET"],
                budget_s=budget_s(k["BUDGET"]) if k["BUDGET"] else None, dry_run=k["DRY_RUN"] == "1",
                tune=k["TUNE"] == "1", counters=k["COUNTERS"], nice=int(k["NICE"]), out_dir=Path(k["OUT_DIR"]), bin_dir=Path(k["BIN_DIR"]),
                ping_grace=seconds(k["PING_GRACE"]), pong_cpus=k["PONG_CPUS"], ping_cpus=k["PING_CPUS"],
                ping_extra=tuple(k["PING_EXTRA"].split()), pong_extra=tuple(k["PONG_EXTRA"].split()),
                ssh_opts=tuple(k.get("SSH_OPTS", "").split()),
                base_port=int(k["BASE_PORT"]) if "BASE_PORT" in k else None, design=design(k),
                version_profile=PROFILES[k["VERSION_PROFILE"]], **mode.fields(k))


def design(k: dict[str, str]) -> sequential.Design:
    """STOP, STOP_ON, MARGIN and MARGIN_P99 (percent of std's) as a design over REPEATS rounds; a MODE without STOP:
    fixed. A PR check's holds its error over its comparisons: head − base at every setting, for each STOP_ON figure."""
    stop_on = tuple(k.get("STOP_ON", "p50").split(","))
    found = sequential.plan(k.get("STOP", "fixed"), int(k["REPEATS"]), float(k.get("MARGIN", "5")) / 100,
                            float(k.get("MARGIN_P99", "10")) / 100, inflate=not k["BUDGET"], stop_on=stop_on)
    return sequential.held_over(found, settings(k) * len(stop_on)) if k.get("PR") else found


def settings(k: dict[str, str]) -> int:
    """How many settings (transport, interval and each dimension's value) an rtt sweep's knobs plan: at most, since
    the plan may skip some, so that an error held over them is held over those it runs."""
    count = len(k["PROTOCOLS"].split()) * len(k["INTERVALS"].split())
    for dimension in applying(k["MODE"]):
        count *= len(k[dimension.knob].split())
    return count


def network_fields(k: dict[str, str]) -> dict:
    """The fields every network sweep (MODE=rtt, throughput) has, from its checked knobs: the dimensions its
    MODE sweeps (a knob it does not check, it does not parse)."""
    return {"duration": seconds(k["DURATION"]), "warmup": seconds(k["WARMUP"]),
            "ready_timeout": seconds(k["READY_TIMEOUT"]), "protocols": tuple(k["PROTOCOLS"].split()),
            "dimensions": tuple((d.name, tuple(d.parse(w) for w in k[d.knob].split()))
                                for d in applying(k["MODE"]))}


def micro_fields(k: dict[str, str]) -> dict:
    """The fields of a MODE=micro sweep, from its checked knobs."""
    return {"benches": tuple(k["BENCHES"].split()), "micro_instances": ints(k["MICRO_INSTANCES"]),
            "micro_workers": ints(k["MICRO_WORKERS"]), "micro_event_types": tuple(k["MICRO_EVENT_TYPES"].split()),
            "micro_event_sizes": ints(k["MICRO_EVENT_SIZES"]), "micro_repeat": int(k["MICRO_REPEAT"]),
            "micro_timeout": int(k["MICRO_TIMEOUT"]), "micro_cpus": k["MICRO_CPUS"]}
