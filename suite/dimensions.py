"""The point dimensions, declared once: what the sweep sweeps and passes through, and what the analysis keys points by.

Each entry is one field of a point: its name (the log's field, sweep.json's points[].NAME, the analysis's
point key), its knob and default, its type and values, the kinds of point it applies to, each end's options,
its stem suffix and its words for the sweep's messages. The sweep's use of them is sweepkit/dimensions.py's;
the analysis keys points by them. Standard library only.
"""

import re
from dataclasses import dataclass

UINT = re.compile(r"[0-9]+")
MAX_CONNECTIONS = 100_000  # the most a ping and a pong accept
LOADS = ("closed", "open")


@dataclass(frozen=True)
class Dimension:
    """A knob whose values (space-separated) are a point each, passed to the ping and/or the pong."""

    name: str  # the point's key: the log's field, sweep.json's points[].NAME, the analysis's point key
    knob: str  # the environment knob
    default: str  # as the knob writes it; also what a log from before the dimension ran
    kinds: tuple[str, ...]  # the kinds of point it applies to (rtt, throughput, icmp); others take the default
    ping: str | None  # the ping's option taking the value, or None
    pong: str | None  # the pong's option, or None
    suffix: str  # the stem's suffix, e.g. "-{}c"
    plain: str | None  # the value whose suffix is left out, so older sweeps keep their names; None: never
    type: type  # int or str: a value as the sweep passes it and the analysis keys it
    what: str  # a value, for "KNOB: 'x' is not WHAT"
    expected: str  # for "KNOB is empty: expected EXPECTED"
    choices: tuple[str, ...] = ()  # a str's values
    least: int = 0  # an int's bounds
    most: int = 999_999
    tidy: bool = True  # once all are valid, the knob is rewritten: each value once, as parsed ("010" is 10)
    word: str = "{}"  # a value in a point's benchmark name (exports, history): "{}tasks" → "0tasks"
    help: tuple[str, ...] = ()  # its lines in the scripts' -h, after KNOB="DEFAULT" (sweepkit/usage.py)

    def parse(self, word: str):
        """A checked word as its value."""
        return self.type(word)

    def valid(self, word: str) -> bool:
        """Whether a word of the knob is a value."""
        if self.type is int:
            return bool(UINT.fullmatch(word)) and len(word) <= len(str(self.most)) and \
                self.least <= int(word) <= self.most
        return word in self.choices

    @property
    def value(self):
        """The default as a value: what a point that does not sweep it, or a log without it, ran."""
        return self.parse(self.default)

    def read(self, data: dict):
        """A log's value, or the default where the log has none (older logs; a reference's null)."""
        found = data.get(self.name)
        return self.value if found is None else self.type(found)

    def stem(self, value) -> str:
        return "" if self.plain is not None and str(value) == self.plain else self.suffix.format(value)

    def option(self, end: str) -> str | None:
        return self.ping if end == "ping" else self.pong


DIMENSIONS = (
    Dimension("tasks", "TASKS", "0", ("rtt", "throughput", "icmp"), "--tasks", None, "-{}t", None, int,
              "a decoy task count (0..100000)", 'decoy counts, e.g. "0 10"', tidy=False, word="{}tasks",
              help=("decoy task counts",)),
    Dimension("connections", "CONNECTIONS", "1", ("rtt",), "--connections", "--connections", "-{}c", "1", int,
              f"a connection count from 1 to {MAX_CONNECTIONS}", 'connection counts per ping, e.g. "1 100"',
              least=1, most=MAX_CONNECTIONS, word="{}conn",
              help=('MODE=rtt: connections (UDP: sockets) per ping, a point each, e.g. "1 10 100 1000";',
                    "they share the rate asked for (each sends at rate/N)")),
    Dimension("load", "LOAD", "closed", ("rtt",), "--load", None, "-{}", "closed", str, "closed or open",
              'closed, open or "closed open"', choices=LOADS,
              help=("MODE=rtt: closed (each message waits for the previous reply), open (sent on",
                    'schedule, latency counted from the scheduled send) or "closed open";',
                    "open needs an interval other than 0")),
)


def applying(kind: str) -> tuple[Dimension, ...]:
    """The dimensions a kind of point (or a MODE: rtt, throughput) sweeps, in the table's order."""
    return tuple(d for d in DIMENSIONS if kind in d.kinds)


def names(kind: str) -> tuple[str, ...]:
    """The point keys a kind of log adds to its own (framework, transport, payload...), in order."""
    return tuple(d.name for d in applying(kind))


def read(kind: str, data: dict) -> dict:
    """A log's value of each dimension of its kind, the default where it has none."""
    return {d.name: d.read(data) for d in applying(kind)}


def by_name(name: str) -> Dimension | None:
    return next((d for d in DIMENSIONS if d.name == name), None)
