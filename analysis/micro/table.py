"""The in-process benchmarks' table (-k micro): a row per point, as text, Markdown or CSV, with its notes."""

import io
import math
import re

import pandas as pd

from suite import fmt

from ..summary import aligned, markdown_table
from .runs import BENCH_ORDER, MICRO_PARAMS, not_run, number

# What one operation is, per benchmark (the table's notes and the figures' captions).
OPERATION = {"spawn_many": "a task spawned", "yield_many": "a yield", "ping_pong": "a round trip",
             "chained_spawn": "a link of the chain", "notify": "a waiter woken", "oneshot": "a waiter woken",
             "channel": "an event received"}
CSV_COLUMNS = ["framework", "bench", "primitive", *MICRO_PARAMS, "ops", "logs", "repeats", "time_ns",
               "ns_per_op", "ns_per_op_low", "ns_per_op_high", "ops_per_s", "ops_per_s_low", "ops_per_s_high",
               "threads", "peak_rss_bytes", "complete", "not_run"]
HEADERS = ["framework", "bench", "primitive", "size", "repeats", "time (median)", "time/op [95 % CI]",
           "op/s [95 % CI]", "threads", "peak RSS"]
NOT_RUN = "not run"



def size_label(p) -> str:
    """What was measured, in words: 10000 tasks; 200 tasks × 1000 yields; N = 100000; int, W = 1000;
    string of 16 B, W = 100."""
    def n(value) -> str:
        return fmt.count(value)

    if p.bench == "yield_many":
        return f"{n(p.tasks)} tasks × {n(p.yields)} yields"
    if p.bench == "ping_pong":
        return f"{n(p.tasks)} round trips"
    if p.bench == "chained_spawn":
        return f"depth {n(p.tasks)}"
    if p.bench in ("notify", "oneshot"):
        hold = "" if pd.isna(p.hold_ms) else f", hold {n(p.hold_ms)} ms"
        return f"N = {n(p.instances)}{hold}"
    if p.bench == "channel":
        size = "" if pd.isna(p.event_size) else f" of {n(p.event_size)} B"
        return f"{p.event_type}{size}, W = {n(p.workers)}, E = {n(p.events)}, Q = {n(p.queue)}"
    return f"{n(p.tasks)} tasks"


def _interval(value, low, high, fmt) -> str:
    if not math.isfinite(value):
        return "–"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{fmt(value)} [–]"
    return f"{fmt(value)} [{fmt(low)}–{fmt(high)}]"


def _rate(value: float) -> str:
    return fmt.si(value) if math.isfinite(value) else "–"


def rows(points: pd.DataFrame) -> tuple[list[list[str]], list[str]]:
    """The table for people, and its notes."""
    body, partial, missing = [], False, False
    for p in points.itertuples():  # a loop over points
        name = p.framework
        if not p.complete:
            name += " *"
            partial = True
        head = [name, p.bench, str(p.primitive or "–"), size_label(p)]
        if not_run(p.not_run):
            body.append(head + ["0", "", f"{NOT_RUN} ({p.not_run})", "", "", ""])
            continue
        missing |= not math.isfinite(p.ns_per_op_low)
        body.append(head + [str(p.repeats), fmt.time_ns(p.time_ns),
                            _interval(p.ns_per_op, p.ns_per_op_low, p.ns_per_op_high, fmt.time_ns),
                            _interval(p.ops_per_s, p.ops_per_s_low, p.ops_per_s_high, _rate),
                            fmt.count(p.threads), fmt.bytes_iec(number(p.peak_rss_bytes))])
    jvm = {p.framework: fmt.count(p.warmup) for p in points.itertuples() if number(p.warmup) > 1}
    warmup = "one untimed warm-up iteration" + (
        f" ({', '.join(f'{f}: {n}' for f, n in jvm.items())}, for the JIT)" if jvm else "")
    notes = ["time: one repeat's wall time (notify, oneshot: until every waiter woke, minus the hold); "
             "time/op, op/s: the median of the timed repeats (nearest rank) with its 95 % distribution-free "
             "interval [low–high] from their order statistics",
             "an operation: " + "; ".join(f"{b} {OPERATION[b]}" for b in BENCH_ORDER if b in set(points["bench"])),
             f"repeats: timed repeats after {warmup}, pooled over a point's logs; "
             "peak RSS: the process's largest resident set; threads: the worker threads used"]
    if missing:
        notes.append("[–]: too few repeats for a 95 % interval")
    if partial:
        notes.append("* a run ended early (\"complete\": false); its finished repeats are shown")
    return body, notes


def text(points: pd.DataFrame) -> str:
    """Aligned text. A point not run says so from its time column on, outside the columns, so that a
    long reason does not widen them."""
    body, notes = rows(points)
    said = {i: cells[6] for i, cells in enumerate(body) if cells[6].startswith(f"{NOT_RUN} (")}
    for i in said:
        body[i] = body[i][:5] + [""] * (len(HEADERS) - 5)
    lines = aligned(HEADERS, body, notes, left=4).split("\n")
    start = [m.start() for m in re.finditer(r"-+", lines[1])][5]  # where the time column begins
    for i, reason in said.items():
        lines[i + 2] = lines[i + 2].ljust(start) + reason
    return "\n".join(lines)


def markdown(points: pd.DataFrame) -> str:
    return markdown_table(HEADERS, *rows(points), left=4)


def csv(points: pd.DataFrame) -> str:
    """For scripts: times in ns to 0.1 ns, op/s to 0.1, counts as integers, empty cells for what is unknown."""
    table = points.reindex(columns=CSV_COLUMNS).copy()
    for column in ("time_ns", "ns_per_op", "ns_per_op_low", "ns_per_op_high", "ops_per_s", "ops_per_s_low",
                   "ops_per_s_high"):
        table[column] = pd.to_numeric(points[column], errors="coerce").round(1)
    for column in (*[p for p in MICRO_PARAMS if p != "event_type"], "ops", "threads", "peak_rss_bytes"):
        table[column] = pd.to_numeric(points[column], errors="coerce").astype("Float64").round().astype("Int64")
    table["not_run"] = points["not_run"].fillna("")
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
