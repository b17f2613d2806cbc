"""The throughput kind (-k throughput): messages and bytes a ping received per window, sent back-to-back."""

# What the command line, the reader and the page kit need of it, in one class implementing Kind: its point keys and
# metrics, its table, its figures (pages.py; a figure is a page function there and one entry in
# FIGURES) and its comparison. Its runs' rates are recomputed from each CSV's windows.

import io
import math
from pathlib import Path

import pandas as pd

from suite import dimensions, fmt

from .. import load, stats, sweep
from ..kind import Asked, Comparing, Figure, Kind, Tracked, UsageError
from ..summary import METHOD_NOTE, aligned, host_notes, integers, interval, markdown_table, repeats, variant_notes

KEYS = ("framework", "transport", "payload", *dimensions.names("throughput"))  # tasks: suite/dimensions.py
METRICS = ("msg_per_s_p50", "gbit_per_s_p50")  # given an interval
MEANS = tuple(f"{q}_{s}" for q in ("msg_per_s", "gbit_per_s") for s in ("mean", "p5", "p50", "p95"))
SUMS = ("windows", "sent", "received", "lost")


def _pages():
    """pages.py, imported when a figure is drawn: a table alone never loads matplotlib."""
    from . import pages

    return pages


FIGURES = {  # -t NAME → the function of pages.py that lays out its pages, and how to read it
    "stat": Figure(lambda found, scale: _pages().size_pages(found, scale),
                   caption="Messages and bits received per second against payload size, sent back-to-back: a "
                   "line per runtime through each run's median window (mean over repeats) with its 95 % interval, "
                   "and a p5–p95 band. Where the message rate falls, the bit rate levels off."),
    "time": Figure(lambda found, scale: _pages().time_pages(found, scale),
                   caption="Messages received in each window over each run, as steps: a stall shows as a drop."),
}
CSV_COLUMNS = ["framework", "transport", "payload", "tasks", "windows",
               "msg_per_s_p5", "msg_per_s_p50", "msg_per_s_p95",
               "gbit_per_s_p5", "gbit_per_s_p50", "gbit_per_s_p95", "sent", "received", "lost",
               "repeats", "msg_per_s_p50_low", "msg_per_s_p50_high",
               "gbit_per_s_p50_low", "gbit_per_s_p50_high"]
HEADERS = ["framework", "transport", "size B", "tasks", "windows", "repeats", "msg/s p5",
           "msg/s p50 [95 % CI]", "msg/s p95", "Gb/s p5", "Gb/s p50 [95 % CI]", "Gb/s p95",
           "sent", "received", "lost"]


def throughput_meta(data: dict) -> dict:
    """The metadata of a throughput log the schema accepted; its rates are recomputed from the CSV."""
    load.needed(data, "window_s", "payload", "tasks")
    window, payload = float(data["window_s"]), int(data["payload"])
    if window <= 0 or payload <= 0:  # both divide or go on a log axis
        raise load.LogError(f"field {'window_s' if window <= 0 else 'payload'!r} is {min(window, payload)!r}, "
                            f"not a positive number")
    return {
        **load.series(data),
        "transport": data["transport"],
        "payload": payload,
        **dimensions.read("throughput", data),
        "window_s": window,
        "sent": data["sent"],
        "lost": data["lost"],
        "json_windows": data["windows"],
        "json_received": data["received"],
        "complete": data["complete"] is not False,
        "error": data["error"],
        "started_at": data["started_at"],
        "host": data["host"],
        "address": data["address"],
        "format": data["schema"],
        "details": {k: v for k, v in data.items() if k not in ("msg_per_s", "gbit_per_s")},
    }


def run(csv: Path, meta: dict, with_time: bool) -> tuple[dict, stats.Windows]:
    """One run's rates from its CSV's windows. A CSV with other counts than its JSON says was cut short
    or spoilt: a load.LogError, as an unreadable one."""
    scalars, windows = stats.window_rates(*load.read_windows(csv), meta["window_s"])
    for key, what in (("windows", "windows"), ("received", "messages")):
        if meta[f"json_{key}"] is not None and meta[f"json_{key}"] != scalars[key]:
            raise load.LogError(f"{scalars[key]} {what} but its JSON says {key} = {meta[f'json_{key}']}")
    return scalars, windows


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


class Throughput(Kind):
    name, what, figures = "throughput", "throughput", FIGURES
    tables = {"text": text, "csv": csv, "markdown": markdown}
    compare = Comparing({"msg_per_s": "msg_per_s_p50"}, lower_is_better=False, unit="msg/s", value=fmt.si, digits=1)
    keys, metrics, means, sums = KEYS, METRICS, MEANS, SUMS
    tracked = (Tracked("throughput", "msg_per_s_p50", "msg/s", False),)

    def collect(self, folder, filters, with_time: bool, warn, noise: float) -> sweep.Sweep:
        return sweep.collect(folder, self, filters, with_time, warn, noise)

    def meta(self, data: dict) -> dict:
        return throughput_meta(data)

    def run(self, csv: Path, meta: dict, with_time: bool):
        return run(csv, meta, with_time)

    def listing(self, frame) -> str:
        return f"payloads {sweep.listing(frame['payload'])} B"

    def cells(self, points, noise: float):
        return (HEADERS, *rows(points))

    def closing(self, found: sweep.Sweep):
        return _pages().closing_pages(found)

    def check(self, asked: Asked) -> None:
        if asked.variance:
            raise UsageError("--variance reads one sweep of RTT logs: drop -k, --compare and -t")
        if asked.rates:
            raise UsageError("-r: throughput runs send back-to-back, they have no message rate to pick "
                             "(choose with -p, -l, -f)")


KIND = Throughput()
