"""MODE=micro: the in-process benchmarks' knobs, their points (benchmark × size × runtime) and a time guess for each."""

# Each point is one run of a <prefix>-micro binary (docs/sweeps.md, "Micro-benchmark sweeps"): it
# times MICRO_REPEAT repeats after one warm-up iteration (kotlin-micro: its --warmup, for the JIT)
# and writes STEM.json ("kind": "micro").
# The binaries' options and default sizes are docs/micro.md's. Nothing here runs anything.

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from suite.benchmarks import BENCHES, DEFAULT_EVENT_SIZE, DEFAULTS, EVENT_TYPES, STRING_EVENTS

# DEFAULT_EVENT_SIZE is not part of the stem.
STEM_LETTER = {"event-size": "s"}  # a size's letter in the stem; otherwise its option's first letter
# The references' event types: a Go or JVM string has no reference count, so no shared_arc.
REFERENCE_EVENT_TYPES = ("int", "string", "string_copy", "shared")

# The binaries' default sizes, for the operations of one repeat (the time guess below).
DEFAULT_TASKS = {b: sizes["tasks"] for b, sizes in DEFAULTS.items() if "tasks" in sizes}
DEFAULT_YIELDS = DEFAULTS["yield_many"]["yields"]
DEFAULT_EVENTS = DEFAULTS["channel"]["events"]
DEFAULT_HOLD_S = DEFAULTS["notify"]["hold_ms"] / 1000  # notify, oneshot: each holder's sleep, every iteration

# A JVM reference (kotlin-micro) starts a JVM and runs untimed warm-up iterations for its JIT (at
# least its --warmup, 5; more while its JIT is busy): the estimate counts five and the start, the
# ETA corrects by what the runs took.
JVM_WARMUP, JVM_START_S = 5, 0.5

# Guessed cost per operation, for the plan's estimate and the ETA until runs have measured the real one
# (the ETA then scales these by what the runs took): tokio, async-std and smol as measured on the 2-core
# test machine at the default sizes; std (an OS thread per task) that many times slower.
GUESS_NS_PER_OP = {"spawn_many": 300, "yield_many": 50, "ping_pong": 400, "chained_spawn": 150,
                   "notify": 2500, "oneshot": 2500, "channel": 120}
STD_FACTOR = {"spawn_many": 170, "yield_many": 40, "ping_pong": 450, "chained_spawn": 1000, "notify": 100,
              "oneshot": 100, "channel": 0.7}
GUESS_OVERHEAD_S = 0.3  # start the process, write and record its log
STD_THREAD_CAP = 20_000  # std-micro declines (not_run, at once) a size needing more threads at once
UINT = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class MicroPoint:
    """One benchmark at one size on one entry: a run of BINARY-micro per round."""

    framework: str  # the label in runtimes.json
    binary: str  # binary prefix: BINARY-micro
    bench: str
    sizes: tuple[tuple[str, object], ...] = ()  # (option, value) beyond the binary's defaults
    skipped: str | None = None
    estimated_s: float = 0.0  # estimate_s(spec), set by build
    mode: Any = None  # MODE=micro's mode (sweepkit.modes.micro), set by build from the spec

    @property
    def kind(self) -> str:
        return self.mode.kind  # micro

    @property
    def setting(self) -> tuple:
        """The point but its framework: ORDER=blocks runs the frameworks of one benchmark and sizes back to back."""
        return (self.bench, self.sizes)

    @property
    def stem(self) -> str:
        """{framework}-{bench}[-{event type}][-s{event size}][-i{instances}|-w{workers}], e.g.
        tokio-channel-int-w1000, go-channel-string_copy-s256-w100 (the size only when not 16)."""
        parts = [self.framework, self.bench]
        for name, value in self.sizes:
            parts.append(str(value) if name == "event-type" else f"{STEM_LETTER.get(name, name[0])}{value}")
        return "-".join(parts)

    def args(self, spec) -> list[str]:
        """The binary's arguments but --out."""
        sizes = [word for name, value in self.sizes for word in (f"--{name}", str(value))]
        return ["--bench", self.bench, *sizes, "--repeat", str(spec.micro_repeat), "--timeout", str(spec.micro_timeout)]

    def ops(self) -> int:
        """Operations in one repeat, as the log's `ops` counts them."""
        sizes = dict(self.sizes)
        if self.bench in ("notify", "oneshot"):
            return int(sizes["instances"])
        if self.bench == "channel":
            return int(sizes["workers"]) * DEFAULT_EVENTS
        return DEFAULT_TASKS[self.bench] * (DEFAULT_YIELDS if self.bench == "yield_many" else 1)

    def std_threads(self) -> int:
        """The OS threads std-micro runs at once at these sizes (a task is a thread)."""
        sizes = dict(self.sizes)
        if self.bench in ("notify", "oneshot"):
            return 2 * int(sizes["instances"])
        if self.bench == "channel":
            return 2 * int(sizes["workers"])
        return DEFAULT_TASKS[self.bench] * (2 if self.bench == "ping_pong" else 1)

    def estimate_s(self, spec) -> float:
        """A guess at the run's wall time: the warm-up and every timed repeat, and its overhead."""
        if self.binary == "std" and self.std_threads() > STD_THREAD_CAP:
            return GUESS_OVERHEAD_S  # declined at once
        per_op = GUESS_NS_PER_OP[self.bench] * (STD_FACTOR.get(self.bench, 1) if self.binary == "std" else 1)
        hold = DEFAULT_HOLD_S if self.bench in ("notify", "oneshot") else 0.0
        jvm = self.binary == "kotlin"
        iterations = spec.micro_repeat + (JVM_WARMUP if jvm else 1)
        overhead = GUESS_OVERHEAD_S + (JVM_START_S if jvm else 0.0)
        return round(iterations * (self.ops() * per_op * 1e-9 + hold) + overhead, 3)

    def record(self) -> dict:
        """The point's entry in sweep.json, before it runs."""
        return {"stem": self.stem, "framework": self.framework, "bench": self.bench,
                "sizes": {name.replace("-", "_"): value for name, value in self.sizes},
                "estimated_s": self.estimated_s, "status": "skipped" if self.skipped else "planned",
                "repeats_ok": 0, "empty": 0, "message": self.skipped}


def check_counts(k: dict, name: str, what: str, example: str, problems: list[str]) -> None:
    """A list of whole numbers from 1, normalised ("010" is 10) when every one is."""
    values = k[name].split()
    if not values:
        problems.append(f'{name} is empty: expected {what}, e.g. "{example}"')
    bad = [x for x in values if not (UINT.fullmatch(x) and len(x) <= 9 and int(x) >= 1)]
    for x in bad:
        problems.append(f"{name}: '{x}' is not a number of {what} from 1 to 999999999")
    if values and not bad:
        k[name] = " ".join(str(int(x)) for x in values)


def check_choices(k: dict, name: str, what: str, allowed, problems: list[str]) -> None:
    """A knob that lists names from `allowed`: at least one, each known."""
    given = k[name].split()
    if not given:
        problems.append(f"{name} is empty: choose from {', '.join(allowed)}")
    for x in given:
        if x not in allowed:
            problems.append(f"{name}: '{x}' is not {what}: choose from {', '.join(allowed)}")


def check(k: dict, problems: list[str]) -> None:
    """BENCHES and the MICRO_* knobs, every problem named; normalises the counts."""
    check_choices(k, "BENCHES", "a benchmark", BENCHES, problems)
    check_counts(k, "MICRO_INSTANCES", "holder/waiter pairs", "10000 100000", problems)
    check_counts(k, "MICRO_WORKERS", "channel workers", "100 1000", problems)
    check_choices(k, "MICRO_EVENT_TYPES", "an event type", EVENT_TYPES, problems)
    check_counts(k, "MICRO_EVENT_SIZES", "bytes of a string event", "16 256", problems)
    repeat = k["MICRO_REPEAT"]
    if UINT.fullmatch(repeat) and len(repeat) <= 4 and 1 <= int(repeat) <= 1000:
        k["MICRO_REPEAT"] = str(int(repeat))
    else:
        problems.append(f"MICRO_REPEAT='{repeat}': expected timed repeats per run from 1 to 1000")
    timeout = k["MICRO_TIMEOUT"]
    if UINT.fullmatch(timeout) and len(timeout) <= 6 and int(timeout) >= 1:
        k["MICRO_TIMEOUT"] = str(int(timeout))
    else:
        problems.append(f"MICRO_TIMEOUT='{timeout}': expected whole seconds > 0 for a whole run, e.g. 120")


def benches_of(entry, asked) -> list[str]:
    """The benchmarks BENCHES asks for (`asked`) that this entry runs (runtimes.json `benches`; without it
    every one)."""
    mine = entry.benches or BENCHES
    return [b for b in BENCHES if b in asked and b in mine]


def why_not(entry, benches) -> str | None:
    """Why an entry chosen by its flag has nothing to run in this micro sweep (BENCHES: `benches`); None if
    it has."""
    if not entry.takes_part("micro") or entry.binary_prefix is None:
        what = "reference" if entry.reference else "runtime"  # a runtime without a <prefix>-micro, e.g. monoio
        return f"the {entry.label} {what} measures no in-process benchmark"
    if not benches_of(entry, benches):
        return f"{entry.label} runs only {', '.join(entry.benches)}, which BENCHES leaves out"
    return None


def not_built(entry, bin_dir: Path) -> str | None:
    """Why a reference built by another toolchain (runtimes.json `toolchain`: go, java and mvn) has no
    binary in BIN_DIR; None if it has one. `make` leaves such a binary out where its toolchain is
    missing, so a sweep goes on without it; a runtime's missing binary stops the sweep instead."""
    if entry.toolchain is None or entry.binary_prefix is None:
        return None
    path = bin_dir / f"{entry.binary_prefix}-micro"
    if path.is_file() and path.stat().st_mode & 0o111:
        return None
    return f"no {path} (make builds it where {entry.toolchain} {'are' if ' and ' in entry.toolchain else 'is'} installed)"


def channel_sizes(entry, types: list[str], event_sizes: list[int], workers: list[int]) -> list[tuple]:
    """The channel's sizes on `entry`: each event type (the references, Go and Kotlin, have no shared_arc) ×
    each event size (string types only; the default size is left out of the arguments and the stem) × each
    worker count."""
    kinds = [(("event-type", t),) for t in types if not (entry.reference and t not in REFERENCE_EVENT_TYPES)]
    sized = [typed + ((("event-size", s),) if s != DEFAULT_EVENT_SIZE else ())
             for typed in kinds for s in (event_sizes if typed[0][1] in STRING_EVENTS else [DEFAULT_EVENT_SIZE])]
    return [s + (("workers", w),) for s in dict.fromkeys(sized) for w in workers]


def build(spec, selection) -> list[MicroPoint]:
    """Every point in the list's order: each entry × its benchmarks (BENCHES' order is the list's,
    BENCHES) × sizes: MICRO_INSTANCES for notify and oneshot, MICRO_EVENT_TYPES × MICRO_EVENT_SIZES
    × MICRO_WORKERS for channel, the binaries' defaults for the rest."""
    points = []
    types = list(dict.fromkeys(spec.micro_event_types))
    event_sizes = list(dict.fromkeys(spec.micro_event_sizes))
    instances = list(dict.fromkeys(spec.micro_instances))
    workers = list(dict.fromkeys(spec.micro_workers))
    for e in selection:
        for bench in benches_of(e, spec.benches):
            if bench in ("notify", "oneshot"):
                sizes = [(("instances", n),) for n in instances]
            elif bench == "channel":
                sizes = channel_sizes(e, types, event_sizes, workers)
            else:
                sizes = [()]
            points += [MicroPoint(e.label, e.binary_prefix, bench, s, mode=spec.sweep_mode) for s in sizes]
    return [dataclasses.replace(p, estimated_s=p.estimate_s(spec)) for p in points]
