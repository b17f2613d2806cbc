"""The summary table: one line per run, as aligned text for people, CSV for scripts (exact
integer nanoseconds) or Markdown for READMEs. Formatting only; the numbers come from stats.py.
"""

import io
import math

import pandas as pd

from . import style
from .sweep import MISSED_BY

CSV_COLUMNS = ["framework", "transport", "payload", "interval_s", "target_rate", "achieved_rate",
               "tasks", "n", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "lost"]
HEADERS = ["framework", "transport", "size B", "target msg/s", "achieved msg/s", "tasks", "n",
           "p50 µs", "p99 µs", "p99.9 µs", "max µs", "lost"]
_LEFT = 2  # the first columns are words, left-aligned; the rest numbers, right-aligned


def _count(value) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else str(int(value))


def rows(runs: pd.DataFrame) -> tuple[list[list[str]], list[str]]:
    """The table for people: latencies in µs, rates with k/M; and the footnotes it needs."""
    lines, missed, partial, old = [], False, False, False
    for run in runs.itertuples():  # a loop over runs, not samples
        achieved = "–" if pd.isna(run.achieved_rate) else style.si(run.achieved_rate)
        if run.missed_rate:
            achieved += " !"
            missed = True
        name = run.framework
        if not run.complete:
            name += " *"
            partial = True
        old |= run.format == "2022 CSV"
        target = style.rate_label(run.interval_s)
        lines.append([name, run.transport, str(run.payload), "∞" if target == "∞" else target,
                      achieved, str(run.tasks), str(run.n), style.us(run.p50), style.us(run.p99),
                      style.us(run.p999), style.us(run.max), _count(run.lost)])
    notes = []
    if missed:
        notes.append(f"! achieved rate more than {int(100 * MISSED_BY)} % below the target")
    if partial:
        notes.append("* run ended early (\"complete\": false); its samples are shown")
    if old:
        notes.append("– not recorded by the 2022 suite")
    notes.append("∞ = back-to-back (next message sent when the reply arrives)")
    return lines, notes


def text(runs: pd.DataFrame) -> str:
    """An aligned plain-text table with its footnotes."""
    body, notes = rows(runs)
    table = [HEADERS, *body]
    widths = [max(len(r[i]) for r in table) for i in range(len(HEADERS))]
    out = []
    for r in table:
        cells = [c.ljust(w) if i < _LEFT else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*out, "", *notes]) + "\n"


def markdown(runs: pd.DataFrame) -> str:
    body, notes = rows(runs)
    align = [":--" if i < _LEFT else "--:" for i in range(len(HEADERS))]
    lines = ["| " + " | ".join(r) + " |" for r in (HEADERS, align, *body)]
    return "\n".join(lines + [""] + [f"{n}  " for n in notes]) + "\n"


def csv(runs: pd.DataFrame) -> str:
    """Machine-readable: exact integer ns, empty cells for what was not recorded."""
    def integers(column: str) -> pd.Series:
        return runs[column].astype("Float64").round().astype("Int64")

    finite = runs["target_rate"].where(runs["target_rate"].map(math.isfinite))
    table = pd.DataFrame({
        "framework": runs["framework"], "transport": runs["transport"], "payload": runs["payload"],
        "interval_s": runs["interval_s"].map("{:g}".format),
        "target_rate": finite.map(lambda r: "" if pd.isna(r) else f"{r:g}"),
        "achieved_rate": runs["achieved_rate"].astype(float).round(1),
        "tasks": runs["tasks"], "n": runs["n"],
        "p50_ns": integers("p50"), "p90_ns": integers("p90"), "p99_ns": integers("p99"),
        "p999_ns": integers("p999"), "max_ns": integers("max"), "lost": integers("lost"),
    })
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, columns=CSV_COLUMNS, lineterminator="\n")
    return buffer.getvalue()
