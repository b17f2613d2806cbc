"""The runtimes and reference baselines the suite measures, from runtimes.json."""

# Their labels, binary prefixes, sweep flags, colours and order, from runtimes.json at the
# repository's root. Standard library only, so that the sweep scripts can use it before the
# analysis packages are installed.

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LIST_PATH = Path(__file__).resolve().parent.parent / "runtimes.json"
BASELINE = "std"  # every runtime's added latency (Δ) is measured against it: the analysis, the sweep's noise line


@dataclass(frozen=True)
class Entry:
    """A runtime under test, or a reference baseline: the floor the figures draw in grey, measured
    by another program (ICMP ping) or by this suite's binaries run another way (busy polling)."""

    label: str  # the framework label in logs, tables and legends
    flag: str  # the sweep scripts' one-letter flag
    colour: str  # its colour in every figure
    about: str  # one line for help texts
    binary_prefix: str | None = None  # <prefix>-ping and <prefix>-pong run it (None: another program)
    crate: str | None = None  # the crate a runtime is built on, which a version variant pins (None: std, references)
    # A version variant's build below a release: crates pinned as that era had them ((below, ((crate, version), …)), …)
    pins_below: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    transport: str | None = None  # a reference by another program: the transport it measures
    ping_args: tuple[str, ...] = ()  # extra arguments of the ping and the pong for this entry
    pong_args: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()  # the only sweep modes it takes part in (go, kotlin: micro); () = its kind's default
    benches: tuple[str, ...] = ()  # the micro benchmarks a reference runs (go: channel); () = every one
    toolchain: str | None = None  # what builds its <prefix>-micro besides cargo (go; java and mvn)
    io_uring: bool = False  # needs io_uring: where it is refused, its runs are skipped
    reference: bool = False  # from runtimes.json's "references"

    def pins(self, version: str) -> dict[str, str]:
        """The crates a build of this runtime's crate at VERSION (a release) pins: those of every `pins_below`
        release above it."""
        release = _release(version)
        return {name: pinned for below, crates in self.pins_below if release < _release(below) for name, pinned in crates}

    @property
    def is_runtime(self) -> bool:
        return not self.reference

    def takes_part(self, mode: str) -> bool:
        """Whether a sweep in MODE (rtt, throughput, micro) measures it: the modes it lists, or else
        every mode for a runtime and rtt and throughput for a reference (the in-process micro
        benchmarks have no floor to draw but the ones that say so, as go and kotlin do)."""
        if self.modes:
            return mode in self.modes
        return self.is_runtime or mode != "micro"


def _release(version: str) -> tuple[int, ...]:
    """A release number's parts, for comparing (1.11 < 1.11.0 < 1.13.0); pre-release tags left out."""
    return tuple(int(part) for part in version.split("-")[0].split(".") if part.isdigit())


def _entry(item: dict, reference: bool) -> Entry:
    lists = {k: tuple(item[k]) for k in ("ping_args", "pong_args", "modes", "benches") if k in item}
    if "pins_below" in item:
        lists["pins_below"] = tuple((below, tuple(crates.items())) for below, crates in item["pins_below"].items())
    return Entry(**(item | lists), reference=reference)


@cache
def entries(path: Path = LIST_PATH) -> tuple[Entry, ...]:
    """Every runtime, then every reference, in the list's order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return (*(_entry(item, False) for item in data["runtimes"]),
            *(_entry(item, True) for item in data["references"]))


def runtimes() -> tuple[Entry, ...]:
    return tuple(e for e in entries() if e.is_runtime)


def by_label(label: str) -> Entry | None:
    return next((e for e in entries() if e.label == label), None)


def by_flag(flag: str) -> Entry | None:
    return next((e for e in entries() if e.flag == flag), None)


def labels() -> tuple[str, ...]:
    """Every label in the list's order: the order of sweeps, tables and legends."""
    return tuple(e.label for e in entries())
