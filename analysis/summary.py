"""The summary table, one line per run: aligned text for people, CSV for scripts, or Markdown."""

# The summary table: one line per run, as aligned text for people, CSV for scripts (exact
# integer nanoseconds) or Markdown for READMEs; an RTT table or a throughput table, by the kind
# of log. Formatting only; the numbers come from stats.py.

import io
import math

import pandas as pd

from . import style
from .sweep import MISSED_BY

CSV_COLUMNS = ["framework", "transport", "payload", "interval_s", "target_rate", "achieved_rate",
               "tasks", "n", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "lost"]
HEADERS = ["framework", "transport", "size B", "target msg/s", "achieved msg/s", "tasks", "n",
           "p50 µs", "p99 µs", "p99.9 µs", "max µs", "lost"]
THROUGHPUT_CSV_COLUMNS = ["framework", "transport", "payload", "tasks", "windows",
                          "msg_per_s_p5", "msg_per_s_p50", "msg_per_s_p95",
                          "gbit_per_s_p5", "gbit_per_s_p50", "gbit_per_s_p95", "sent", "received", "lost"]
THROUGHPUT_HEADERS = ["framework", "transport", "size B", "tasks", "windows", "msg/s p5", "msg/s p50",
                      "msg/s p95", "Gb/s p5", "Gb/s p50", "Gb/s p95", "sent", "received", "lost"]
_LEFT = 2  # the first columns are words, left-aligned; the rest numbers, right-aligned


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
                      style.us(run.p999), style.us(run.max), style.count(run.lost)])
    notes = []
    if missed:
        notes.append(f"! achieved rate more than {int(100 * MISSED_BY)} % below the target")
    if partial:
        notes.append("* run ended early (\"complete\": false); its samples are shown")
    if old:
        notes.append("– not recorded by the 2022 suite")
    notes.append("∞ = back-to-back (next message sent when the reply arrives)")
    return lines, notes


def throughput_rows(runs: pd.DataFrame) -> tuple[list[list[str]], list[str]]:
    """The throughput table for people: rates with k/M and Gb/s; and its footnotes."""
    lines, partial = [], False
    for run in runs.itertuples():  # a loop over runs, not windows
        name = run.framework
        if not run.complete:
            name += " *"
            partial = True
        msg = [style.si(v) if math.isfinite(v) else "–"
               for v in (run.msg_per_s_p5, run.msg_per_s_p50, run.msg_per_s_p95)]
        gbit = [style.gbit(v) for v in (run.gbit_per_s_p5, run.gbit_per_s_p50, run.gbit_per_s_p95)]
        lines.append([name, run.transport, str(run.payload), str(run.tasks), str(run.windows), *msg, *gbit,
                      style.count(run.sent), str(run.received), style.count(run.lost)])
    windows = ", ".join(sorted({style.window_label(w) for w in runs["window_s"]}))
    notes = [f"msg/s and Gb/s (10⁹ bit/s) received per {windows} window: p5, p50, p95 across the measured windows",
             "sent: the whole run, warm-up included; received: the measured windows; "
             "lost: sent − received over the whole run"]
    if partial:
        notes.append("* run ended early (\"complete\": false); its windows are shown")
    return lines, notes


def _layout(runs: pd.DataFrame, kind: str) -> tuple[list[str], list[list[str]], list[str]]:
    if kind == "throughput":
        return THROUGHPUT_HEADERS, *throughput_rows(runs)
    return HEADERS, *rows(runs)


def text(runs: pd.DataFrame, kind: str = "rtt") -> str:
    """An aligned plain-text table with its footnotes."""
    headers, body, notes = _layout(runs, kind)
    table = [headers, *body]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    out = []
    for r in table:
        cells = [c.ljust(w) if i < _LEFT else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*out, "", *notes]) + "\n"


def markdown(runs: pd.DataFrame, kind: str = "rtt") -> str:
    headers, body, notes = _layout(runs, kind)
    align = [":--" if i < _LEFT else "--:" for i in range(len(headers))]
    lines = ["| " + " | ".join(r) + " |" for r in (headers, align, *body)]
    return "\n".join(lines + [""] + [f"{n}  " for n in notes]) + "\n"


def _integers(runs: pd.DataFrame, column: str) -> pd.Series:
    return runs[column].astype("Float64").round().astype("Int64")


def csv(runs: pd.DataFrame, kind: str = "rtt") -> str:
    """Machine-readable: exact integer ns, empty cells for what was not recorded."""
    if kind == "throughput":
        return _throughput_csv(runs)

    def integers(column: str) -> pd.Series:
        return _integers(runs, column)

    finite = runs["target_rate"].where(runs["target_rate"].map(math.isfinite))
    table = pd.DataFrame({
        "framework": runs["framework"], "transport": runs["transport"], "payload": runs["payload"],
        "interval_s": runs["interval_s"].map(style.plain),
        "target_rate": finite.map(lambda r: "" if pd.isna(r) else style.plain(r)),
        "achieved_rate": runs["achieved_rate"].astype(float).round(1),
        "tasks": runs["tasks"], "n": runs["n"],
        "p50_ns": integers("p50"), "p90_ns": integers("p90"), "p99_ns": integers("p99"),
        "p999_ns": integers("p999"), "max_ns": integers("max"), "lost": integers("lost"),
    })
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, columns=CSV_COLUMNS, lineterminator="\n")
    return buffer.getvalue()


def _throughput_csv(runs: pd.DataFrame) -> str:
    """msg/s to 0.1, Gb/s to 1e-6 (1 kbit/s); empty cells for what is unknown."""
    table = runs.reindex(columns=THROUGHPUT_CSV_COLUMNS).copy()
    for quantity, digits in (("msg_per_s", 1), ("gbit_per_s", 6)):
        for p in ("p5", "p50", "p95"):
            table[f"{quantity}_{p}"] = runs[f"{quantity}_{p}"].astype(float).round(digits)
    for column in ("sent", "received", "lost"):
        table[column] = _integers(runs, column)
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
