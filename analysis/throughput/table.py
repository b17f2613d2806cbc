"""The throughput table (-k throughput): a row per point, rates with k/M and Gb/s, as text, Markdown or CSV."""

import io
import math

import pandas as pd

from suite import fmt

from ..summary import METHOD_NOTE, aligned, host_notes, integers, interval, markdown_table, repeats, variant_notes

CSV_COLUMNS = ["framework", "transport", "payload", "tasks", "windows",
               "msg_per_s_p5", "msg_per_s_p50", "msg_per_s_p95",
               "gbit_per_s_p5", "gbit_per_s_p50", "gbit_per_s_p95", "sent", "received", "lost",
               "repeats", "msg_per_s_p50_low", "msg_per_s_p50_high",
               "gbit_per_s_p50_low", "gbit_per_s_p50_high"]
HEADERS = ["framework", "transport", "size B", "tasks", "windows", "repeats", "msg/s p5",
           "msg/s p50 [95 % CI]", "msg/s p95", "Gb/s p5", "Gb/s p50 [95 % CI]", "Gb/s p95",
           "sent", "received", "lost"]


def rows(points: pd.DataFrame) -> tuple[list[list[str]], list[str]]:
    """The throughput table for people: rates with k/M and Gb/s; and its footnotes."""
    lines, partial = [], False
    for p in points.itertuples():  # a loop over points, not windows
        name = p.framework
        if not p.complete:
            name += " *"
            partial = True
        lines.append([name, p.transport, str(p.payload), str(p.tasks), fmt.count(p.windows), repeats(p),
                      fmt.si(p.msg_per_s_p5) if math.isfinite(p.msg_per_s_p5) else "–",
                      interval(p.msg_per_s_p50, p.msg_per_s_p50_low, p.msg_per_s_p50_high, _si),
                      fmt.si(p.msg_per_s_p95) if math.isfinite(p.msg_per_s_p95) else "–",
                      fmt.gbit(p.gbit_per_s_p5),
                      interval(p.gbit_per_s_p50, p.gbit_per_s_p50_low, p.gbit_per_s_p50_high, fmt.gbit),
                      fmt.gbit(p.gbit_per_s_p95), fmt.count(p.sent), fmt.count(p.received),
                      fmt.count(p.lost)])
    windows = ", ".join(sorted({fmt.window_label(w) for w in points["window_s"]}))
    notes = [f"msg/s and Gb/s (10⁹ bit/s) received per {windows} window: p5, p50, p95 across the measured "
             "windows, each the mean over the repeats", METHOD_NOTE,
             "sent: the whole run, warm-up included; received: the measured windows; "
             "lost: sent − received over the whole run; counts summed over the repeats"]
    if partial:
        notes.append("* a run ended early (\"complete\": false); its windows are shown")
    return lines, notes + variant_notes(points) + host_notes(points)


def _si(value: float) -> str:
    return fmt.si(value) if math.isfinite(value) else "–"


def text(points: pd.DataFrame, noise: float = 0.02) -> str:
    return aligned(HEADERS, *rows(points))


def markdown(points: pd.DataFrame, noise: float = 0.02) -> str:
    return markdown_table(HEADERS, *rows(points))


def csv(points: pd.DataFrame, noise: float = 0.02) -> str:
    """msg/s to 0.1, Gb/s to 1e-6 (1 kbit/s); empty cells for what is unknown."""
    table = points.reindex(columns=CSV_COLUMNS).copy()
    for quantity, digits in (("msg_per_s", 1), ("gbit_per_s", 6)):
        for p in ("p5", "p50", "p95", "p50_low", "p50_high"):
            table[f"{quantity}_{p}"] = points[f"{quantity}_{p}"].astype(float).round(digits)
    for column in ("windows", "sent", "received", "lost"):
        table[column] = integers(points, column)
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
