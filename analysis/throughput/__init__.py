"""The throughput kind (-k throughput): messages and bytes a ping received per window, sent back-to-back."""

# What the command line, the reader and the page kit need of it, in one class implementing Kind: its point keys and
# metrics, its table, its figures (pages.py; a figure is a page function there and one entry in
# FIGURES) and its comparison. Its runs' rates are recomputed from each CSV's windows. Its table is table.py's,
# which the pages import too: no module of the package imports this file.

from pathlib import Path

from suite import dimensions, fmt

from .. import load, stats, sweep
from ..kind import Asked, Comparing, Figure, Kind, Tracked, UsageError
from .table import CSV_COLUMNS, HEADERS, csv, markdown, rows, text  # noqa: F401  (CSV_COLUMNS handed on)

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
