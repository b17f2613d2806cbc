"""The RTT table at a terminal's width: the columns a reader needs first, and only the notes its rows use."""

# table.py lays out every column (`--wide`, the PDF's pages, the HTML page, CSV); this keeps, of the same
# cells, the point's name, its p50 and p99 with their intervals, its Δp50 vs std and the verdict, so
# that a default sweep's table fits 120 columns. A dimension whose value differs between the rows shown
# (size, decoys, connections, load, …) keeps its column, so that no two rows read alike, and a variant's
# Δ vs its base stays where a sweep has one.

import textwrap

import pandas as pd

from suite import fmt

from ..summary import aligned, host_notes, markdown_table, variant_notes
from . import table
from .runs import MISSED_BY

WIDTH = 120  # the terminal the table is laid out for, notes included
FIRST = ("framework", "transport", "target msg/s", "p50 µs [95 % CI]", "p99 µs [95 % CI]",
         "Δp50 vs std µs [CI]", "verdict", "at round")
# Shorter headers for FIRST's columns, the notes saying the rest.
SHORT = {"target msg/s": "msg/s", "Δp50 vs std µs [CI]": "Δp50 µs [CI]", "at round": "at"}
# Shown where they differ between rows: what names a point beside FIRST's columns.
KEYS = ("size B", "tasks", "conns", "load", *table.OTHERS)
# A variant's Δ against its base runtime (a release against today's): what a sweep of VARIANTS is for.
BASE = tuple(table.BASE_HEADERS)
QUANTILES = "p50, p99: quantiles of each point's samples pooled, every repeat (a fresh process) weighing the same"
INTERVAL = "[low–high]: the 95 % interval across the repeats"
OPEN = "[–]: repeats that differ more than their number can bound"
WITHIN_RUN = "(within-run): one repeat, its interval from its own samples only, blind to run-to-run spread"
TOO_FEW = "too few: a quantile is printed from 10 samples beyond it (p99: 1 000 pooled samples)"
DELTA = ("msg/s: the rate asked for; Δp50: runtime − std at the same setting, paired by round; verdict: slower or faster "
         "when the interval excludes 0 and |Δ| ≥ {noise} of std's p50; same ±m when it lies within ±m of std's p50 "
         "(MARGIN); undecided: neither, the data do not say; unknown: one round in common; at round: the look "
         "that decided it (STOP=decided: the intervals are that look's, valid for all the looks taken)")
MISSED = f"! achieved rate more than {int(100 * MISSED_BY)} % off the target"
WIDE = "every column (achieved rate, n, p99.9, max, MDE, Δp99, lost, …): --wide, or --format csv"


def _shown(headers: list[str], body: list[list[str]]) -> list[int]:
    """The columns kept: FIRST's, and each KEYS column whose cells differ between rows."""
    varied = {h for i, h in enumerate(headers) if h in KEYS and len({row[i] for row in body}) > 1}
    return [i for i, h in enumerate(headers) if h in FIRST or h in BASE or h in varied]


def _marked(headers: list[str], body: list[list[str]]) -> list[list[str]]:
    """A missed rate's `!` moved onto the target rate, the achieved rate's column being left out."""
    target, achieved = headers.index("target msg/s"), headers.index("achieved msg/s")
    return [[*row[:target], row[target] + (" !" if row[achieved].endswith("!") else ""), *row[target + 1:]]
            for row in body]


def _notes(points: pd.DataFrame, body: list[list[str]], noise: float) -> list[str]:
    """The notes of what the rows shown use, each wrapped to WIDTH."""
    said = " ".join(" ".join(row) for row in body)
    used = [(True, QUANTILES), (True, INTERVAL), ("[–]" in said, OPEN), ((points["repeats"] == 1).any(), WITHIN_RUN),
            ("too few" in said, TOO_FEW), ((points["verdict"] != "").any(), DELTA.format(noise=fmt.percent(noise))),
            (points["missed_rate"].any(), MISSED), ("∞" in said, table.BACK_TO_BACK)]
    disturbed, empty = (name in points and bool(points[name].fillna(0).astype(bool).any())
                        for name in ("disturbed", "empty"))
    marks = table.marks(False, not points["complete"].all(), disturbed, False, empty)
    notes = [note for shown, note in used if shown] + marks + [WIDE]
    return [line for note in notes for line in textwrap.wrap(note, WIDTH, subsequent_indent="  ")]


def cells(points: pd.DataFrame, noise: float) -> tuple[list[str], list[list[str]], list[str]]:
    """The narrow table's headers, a row per point and its notes (the variants' and hosts' notes kept whole)."""
    headers, body, notes = table.cells(points, noise)
    unmeasured = [note for note in notes if note.startswith("× ")]  # why a point has no figures, whole
    body = _marked(headers, body)
    keep = _shown(headers, body)
    body = [[row[i] for i in keep] for row in body]
    said = [*unmeasured, *variant_notes(points), *host_notes(points)]  # whole, each line wrapped as its indent says
    wrapped = [line for note in said for line in textwrap.wrap(note, WIDTH, initial_indent="",
                                                               subsequent_indent=" " * (len(note) - len(note.lstrip()) + 2))]
    return [SHORT.get(headers[i], headers[i]) for i in keep], body, _notes(points, body, noise) + wrapped


def text(points: pd.DataFrame, noise: float = 0.02) -> str:
    return aligned(*cells(points, noise))


def markdown(points: pd.DataFrame, noise: float = 0.02) -> str:
    return markdown_table(*cells(points, noise))
