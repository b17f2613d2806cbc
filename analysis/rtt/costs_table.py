"""`parse.py costs`' table: costs.points' rows as text, Markdown or CSV."""

import io
import math

import pandas as pd

from suite import fmt

from ..summary import aligned, markdown_table
from .costs import COSTS, MIN_TICKS, SPLIT
from .runs import KEYS, SHAPE

HEADS = {"cpu_us_per_msg": "CPU µs", "user_us_per_msg": "user µs", "kernel_us_per_msg": "kernel µs",
         "syscalls_per_msg": "syscalls", "switches_per_msg": "switches", "wakeups_per_msg": "wake-ups"}
NOTES = (
    "per message sent in the measured window, each end's whole process (every thread), mean over the runs "
    "[95 % t interval across them]; Δ vs std: the same cost of std at the same setting and end, paired by round "
    "as the Δp50 is (Hodges–Lehmann with the signed-rank interval from 6 pairs, t below)",
    "CPU µs: time on a CPU (the process's CPU-time clock); user and kernel: the kernel's split of it by clock ticks "
    f"(/proc/PID/stat, 10 ms steps), refused from fewer than {MIN_TICKS} ticks over the runs; wake-ups: those the end made (sched:sched_waking, in "
    "the waker's context): of the other end by its write, of its own threads; runs: those with the counter",
    "probed: where the measured runs did not count system calls and wake-ups (COUNTERS=1), the runs after the "
    "rounds that did (PROBED), whose Δ pairs std's probed runs: their probes cost every call and wake-up, so their "
    "RTTs are in no estimate",
)


def _cost(value, low, high, digits: int) -> str:
    """`value [low–high]` in `digits` decimals; `value [–]` without an interval, `–` without a value."""
    if not math.isfinite(value):
        return "–"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{value:.{digits}f} [–]"
    return f"{value:.{digits}f} [{low:.{digits}f}–{high:.{digits}f}]"


def _shown_cost(row: dict, column: str) -> str:
    """A cost's cell: its value and interval, or why the ticks cannot carry a user/kernel split."""
    if column in SPLIT and row.get("split_refused"):
        return f"{row['split_ticks']} ticks: too few"
    return _cost(row[column], row[f"{column}_low"], row[f"{column}_high"], DIGITS[column])


def _shown_delta(row: dict, column: str, digits: int) -> str:
    value = row.get(f"delta_{column}", math.nan)
    if not isinstance(value, float) or not math.isfinite(value):
        return ""
    low, high = row[f"delta_{column}_low"], row[f"delta_{column}_high"]
    sign = "+" if value >= 0 else "−"
    bounds = f" [{low:+.{digits}f}–{high:+.{digits}f}]" if math.isfinite(low) and math.isfinite(high) else " [–]"
    return f"{sign}{abs(value):.{digits}f}{bounds}".replace("-", "−")


DIGITS = {"cpu_us_per_msg": 1, "user_us_per_msg": 1, "kernel_us_per_msg": 1, "syscalls_per_msg": 2,
          "switches_per_msg": 2, "wakeups_per_msg": 2}
SHOWN_DELTAS = ("cpu_us_per_msg", "syscalls_per_msg", "switches_per_msg", "wakeups_per_msg")


def cells(table: pd.DataFrame) -> tuple[list[str], list[list[str]], list[str]]:
    """Headers, a row per point and end, the notes; the shape's columns where the sweep varied it."""
    shown = [n for n in ("tasks", *SHAPE) if table[n].nunique() > 1]
    headers = ["framework", "transport", "size B", "target msg/s", *shown, "end",
               *(f"{HEADS[c]} /msg" for c in COSTS), *(f"Δ {HEADS[c]} vs std" for c in SHOWN_DELTAS), "runs", "probed"]
    body = [[row["framework"], row["transport"], str(row["payload"]), fmt.rate_label(row["interval_s"]),
             *(str(row[n]) for n in shown), row["end"],
             *(_shown_cost(row, c) for c in COSTS),
             *(_shown_delta(row, c, DIGITS[c]) for c in SHOWN_DELTAS), str(row["runs"]), str(row["probed"])]
            for row in table.to_dict("records")]  # a loop over rows, not samples
    return headers, body, list(NOTES)


def text(table: pd.DataFrame) -> str:
    headers, body, notes = cells(table)
    return aligned(headers, body, notes, left=headers.index("end") + 1)


def markdown(table: pd.DataFrame) -> str:
    headers, body, notes = cells(table)
    return markdown_table(headers, body, notes, left=headers.index("end") + 1)


def csv(table: pd.DataFrame) -> str:
    """Machine-readable: a row per point and end, each cost with `_low`/`_high` and its Δ vs std, empty where
    unknown."""
    out = table.copy()
    out["interval_s"] = out["interval_s"].map(fmt.plain)
    columns = [*KEYS, "end", "runs", "probed", *(f"{c}{s}" for c in COSTS for s in ("", "_low", "_high")),
               *(f"delta_{c}{s}" for c in COSTS for s in ("", "_low", "_high")), "split_refused"]
    buffer = io.StringIO()
    out.reindex(columns=columns).to_csv(buffer, index=False, float_format="%.6g")
    return buffer.getvalue()


FORMS = {"text": text, "markdown": markdown, "csv": csv}
