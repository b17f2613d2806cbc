"""The cells of the closing table's plain rows (each kind's row is its mode's), a JSON log read, the columns laid out."""

# Numbers as suite/fmt.py writes them.

import json
import re
from pathlib import Path

from suite import fmt as style

UNKNOWN = "–"
REPEAT = re.compile(r"(.*)-r([0-9]+)")  # a run's log name: its point's, then -r{k}


def starved(log: dict) -> int | None:
    """How many connections of an RTT run got fewer than half the median replies (the ping's
    per_connection.starved); None when its log does not say (one from before --connections, ICMP)."""
    return (log.get("per_connection") or {}).get("starved")


def read(path) -> dict | None:
    """A JSON log, or None when it cannot be read."""
    try:
        log = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return log if isinstance(log, dict) else None


def series(log: dict) -> str:
    """The label a run is shown under: its variant's (VARIANTS), else its framework's."""
    return str(log.get("variant") or log.get("framework"))


def si(value) -> str:
    return UNKNOWN if value is None else style.si(value)


def progress(p50_ns, rate, unit: str) -> str:
    """A run's figures on its progress line: its p50 and its rate, aligned alike for every mode."""
    return f"p50 {UNKNOWN if p50_ns is None else style.us(p50_ns) + ' µs':>8}   {si(rate):>10} {unit}"


def count(value) -> str:
    return UNKNOWN if value is None else str(int(value))


def lost(log: dict) -> str:
    return count(log.get("lost")) + ("" if log.get("complete", True) else " (incomplete)")


def render(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns two spaces apart; names left-aligned, figures right-aligned."""
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    return ["  ".join(cell.rjust(w) if c > 1 else cell.ljust(w)
                      for c, (cell, w) in enumerate(zip(row, widths))).rstrip()
            for row in [header] + rows]


def by_point_and_repeat(path: Path) -> tuple:
    """A point's repeats together, r2 before r10."""
    named = REPEAT.fullmatch(path.stem)
    return (named[1], int(named[2])) if named else (path.stem, 0)
