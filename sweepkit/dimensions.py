"""The point dimensions passed through to the binaries: one entry each, read by knobs, plan, stems and command lines.

A new pass-through dimension is one entry here (its knob, default, options, stem suffix and check) and
its lines in the -h text (sweepkit/usage.py) and docs/sweeps.md; nothing else changes. The analysis
can read a point's keys from POINT_KEYS.
"""

import re
from dataclasses import dataclass
from typing import Callable

UINT = re.compile(r"[0-9]+")
MAX_CONNECTIONS = 100_000  # the most a ping and a pong accept
LOADS = ("closed", "open")


@dataclass(frozen=True)
class Dimension:
    """A knob whose values (space-separated) are a point each, passed to the ping and/or the pong."""

    name: str  # the point's key: Point.get(name), sweep.json's points[].NAME, the analysis's point key
    knob: str  # the environment knob
    default: str
    kinds: tuple[str, ...]  # the kinds of point it applies to (rtt, throughput, icmp); others take the default
    ping: str | None  # the ping's option taking the value, or None
    pong: str | None  # the pong's option, or None
    suffix: str  # the stem's suffix, e.g. "-{}c"
    plain: str | None  # the value whose suffix is left out, so older sweeps keep their names; None: never
    parse: Callable  # a checked word to its value (int, str)
    valid: Callable[[str], bool]  # whether a word of the knob is a value
    what: str  # a value, for "KNOB: 'x' is not WHAT"
    expected: str  # for "KNOB is empty: expected EXPECTED"
    tidy: bool = True  # once all are valid, the knob is rewritten: each value once, as parsed ("010" is 10)

    def values(self, spec) -> tuple:
        """The values it sweeps, as the typed spec (sweepkit.spec.Spec) parsed them from its knob."""
        return spec.values(self.name)

    def stem(self, value) -> str:
        return "" if self.plain is not None and str(value) == self.plain else self.suffix.format(value)

    def option(self, end: str) -> str | None:
        return self.ping if end == "ping" else self.pong

    def check(self, knobs: dict, problems: list[str]) -> None:
        words = knobs[self.knob].split()
        if not words:
            problems.append(f"{self.knob} is empty: expected {self.expected}")
        bad = [word for word in words if not self.valid(word)]
        problems += [f"{self.knob}: '{word}' is not {self.what}" for word in bad]
        if words and not bad and self.tidy:
            knobs[self.knob] = " ".join(dict.fromkeys(str(self.parse(word)) for word in words))


DIMENSIONS = (
    Dimension("tasks", "TASKS", "0", ("rtt", "throughput", "icmp"), "--tasks", None, "-{}t", None, int,
              lambda w: bool(UINT.fullmatch(w)) and len(w) < 7, "a decoy task count (0..100000)",
              'decoy counts, e.g. "0 10"', tidy=False),
    Dimension("connections", "CONNECTIONS", "1", ("rtt",), "--connections", "--connections", "-{}c", "1", int,
              lambda w: bool(UINT.fullmatch(w)) and len(w) <= 6 and 1 <= int(w) <= MAX_CONNECTIONS,
              f"a connection count from 1 to {MAX_CONNECTIONS}", 'connection counts per ping, e.g. "1 100"'),
    Dimension("load", "LOAD", "closed", ("rtt",), "--load", None, "-{}", "closed", str, lambda w: w in LOADS,
              "closed or open", 'closed, open or "closed open"'),
)
POINT_KEYS = tuple(d.name for d in DIMENSIONS)


def applying(kind: str) -> list[Dimension]:
    """The dimensions a kind of point (or a MODE: rtt, throughput) sweeps."""
    return [d for d in DIMENSIONS if kind in d.kinds]
