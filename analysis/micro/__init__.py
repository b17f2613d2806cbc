"""The in-process benchmarks (-k micro): their logs as runs, a point per benchmark, size and runtime, and the table."""

# A micro log is one process that timed K repeats of one benchmark (scheduler, Notify vs oneshot,
# channel throughput) after an untimed warm-up (kotlin: several, for the JVM's JIT), and logged the median of the repeats with its 95 %
# distribution-free interval. A point is what the figures draw: a framework × benchmark × sizes. With
# one log a point shows the log's own figures; the repeats of several logs of a point (a sweep with
# REPEATS > 1) are pooled and their median and interval recomputed the same way
# (uncertainty.median_interval, the exact interval rtt-core's stats::median_interval computes).

import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from suite import fmt
from suite.benchmarks import BENCHES, EVENT_TYPES, SCHEDULER
from suite.palette import FRAMEWORK_ORDER, order_key

from .. import load
from .. import uncertainty as u
from ..kind import Asked, Figure, Kind, Tracked, UsageError
from ..summary import aligned, markdown_table
from ..sweep import NothingUsable
from ..uncertainty import NOISE

MICRO_PARAMS = ("tasks", "yields", "instances", "hold_ms", "workers", "events", "queue", "event_type", "event_size")

BENCH_ORDER, EVENT_ORDER = BENCHES, EVENT_TYPES
POINT = ["framework", "bench", "primitive", *MICRO_PARAMS]
ESTIMATES = ("ns_per_op", "ops_per_s")  # each with _low and _high: its 95 % interval
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


def _figures():
    """figures.py, imported when a figure is drawn: a table alone never loads matplotlib."""
    from . import figures

    return figures


FIGURES = {  # -t NAME → the function of figures.py that lays out its page, and how to read it
    "scheduler": Figure(lambda found, scale: _figures().scheduler_page(found, scale),
                        caption="Time per operation of each scheduler benchmark, a bar per runtime: the median of "
                        "a run's timed repeats with its 95 % interval; a reference is hatched."),
    "notify": Figure(lambda found, scale: _figures().notify_page(found, scale),
                     caption="Notify vs oneshot: the time until every one of N waiters woke, and the process's "
                     "peak RSS, against N."),
    "channel": Figure(lambda found, scale: _figures().channel_page(found, scale),
                      caption="Channel events received per second against the number of workers, a panel per "
                      "event type: what a runtime's channels and wake-ups cost under fan-in."),
}
# The points each figure draws, by benchmark.
DRAWN = {"scheduler": SCHEDULER, "notify": ("notify", "oneshot"), "channel": ("channel",)}


def micro_meta(data: dict) -> dict:
    """A micro log the schema accepted: what ran, its parameters, the time of each timed repeat, the
    figures the binary computed (median and 95 % interval of ns per operation and operations per
    second) and its setup. A log that says `not_run` has no repeats and keeps its reason."""
    params = data.get("params") or {}
    ops, times = data["ops"], [int(t) for t in data["times_ns"]]
    if not data.get("not_run") and not (isinstance(ops, int) and ops > 0):
        raise load.LogError(f"field 'ops' is {ops!r}, not a positive number")
    figures = {f"{name}{suffix}": (data.get(name) or {}).get(key)
               for name in ("ns_per_op", "ops_per_s") for suffix, key in (("", "median"), ("_low", "low"),
                                                                         ("_high", "high"))}
    return {
        "framework": data["framework"], "bench": data["bench"], "primitive": data.get("primitive"),
        **{name: params.get(name) for name in MICRO_PARAMS},
        "ops": ops, "repeat": data.get("repeat"), "warmup": data.get("warmup"), "times_ns": times, **figures,
        "threads": data.get("threads"), "flavor": data.get("flavor"), "peak_rss_bytes": data.get("peak_rss_bytes"),
        "not_run": data.get("not_run") or None, "complete": data.get("complete") is not False,
        "error": data.get("error"), "started_at": data.get("started_at"),
        "host": data.get("host", data.get("hostname")), "address": None, "format": data["schema"],
        "details": {k: v for k, v in data.items() if k not in ("times_ns", "ns_per_op", "ops_per_s")},
    }


@dataclass
class MicroSweep:
    folder: Path
    infos: dict  # Path of each sweep.json → its content
    runs: pd.DataFrame  # one row per log, in display order
    points: pd.DataFrame  # one row per point, its logs combined
    noise: float = NOISE


def collect(folder: Path, frameworks: list[str], warn) -> MicroSweep:
    """Every micro log under `folder` (only these frameworks, when given), as runs and points.
    Raises NothingUsable when none is left, saying what there is."""
    found = load.scan(folder, KIND, warn)
    metas = [meta for _, meta in found.logs]
    rows = [m for m in metas if not frameworks or m["framework"] in frameworks]
    if not rows:
        if metas:
            there = ", ".join(dict.fromkeys(m["framework"] for m in metas))
            raise NothingUsable(f"no micro log in {folder} of {', '.join(frameworks)}; there are {there}")
        others = ", ".join(f"{n} {k}" for k, n in sorted(found.other_kinds.items()))
        if others:
            raise NothingUsable(f"no micro logs in {folder} (it holds {others} logs; choose them with -k)")
        raise NothingUsable(f"no micro logs found in {folder}: run a sweep first "
                            f"(e.g. MODE=micro ./run-localhost.sh -tS) or point -d at a folder of logs")
    runs = order(pd.DataFrame(rows))
    return MicroSweep(folder, found.infos, runs, combine(runs))


def order(frame: pd.DataFrame) -> pd.DataFrame:
    """Display order: benchmark, event type, sizes, then framework (the list's order), then round."""
    keys = frame.assign(
        bench_rank=order_key(frame["bench"], BENCH_ORDER),
        event_rank=order_key(frame["event_type"], EVENT_ORDER),
        framework_rank=order_key(frame["framework"], FRAMEWORK_ORDER),
        sort_round=frame["round"] if "round" in frame else 1)
    sizes = ["event_size", "instances", "workers", "tasks", "yields", "events", "queue", "hold_ms"]
    keys = keys.sort_values(["bench_rank", "bench", "event_rank", *sizes, "framework_rank", "framework",
                             "sort_round"], kind="stable", na_position="first")
    return keys.drop(columns=["bench_rank", "event_rank", "framework_rank", "sort_round"]).reset_index(drop=True)


def pooled(times_ns: list[int], ops: int) -> dict:
    """ns per operation and operations per second of timed repeats, as the binaries compute them:
    the nearest-rank median of the times with its exact 95 % order-statistic interval
    (uncertainty.median_interval; none below 6 repeats), divided by the operations, or dividing
    them (the slowest repeat in the interval gives the lowest rate)."""
    names = [f"{n}{s}" for n in ESTIMATES for s in ("", "_low", "_high")]
    if not times_ns or not ops:
        return dict.fromkeys(names, math.nan)
    est = u.median_interval(sorted(times_ns))

    def rate(time_ns: float) -> float:
        return ops * 1e9 / time_ns if time_ns > 0 else math.nan

    return dict(zip(names, (est.value / ops, est.low / ops, est.high / ops,
                            rate(est.value), rate(est.high), rate(est.low)), strict=True))


def not_run(value) -> str | None:
    """A log's not_run reason, or None (pandas keeps a missing one as NaN)."""
    return value if isinstance(value, str) and value else None


def _number(value) -> float:
    return math.nan if value is None or pd.isna(value) else float(value)


def combine(runs: pd.DataFrame) -> pd.DataFrame:
    """A row per point: its logs' figures (one log: the log's own; several: their repeats pooled and
    recomputed), the time of one repeat (ns per operation × operations), peak RSS (the largest), and
    `not_run` when no log of it ran."""
    rows = []
    for _, group in runs.groupby(POINT, sort=False, dropna=False):  # a loop over points, not repeats
        first = group.iloc[0]
        ran = group[group["not_run"].isna()]
        row = {k: first[k] for k in POINT} | {"ops": first["ops"], "logs": len(group),
                                               "repeats": int(sum(len(t) for t in ran["times_ns"]))}
        if ran.empty:
            figures = {f"{n}{s}": math.nan for n in ESTIMATES for s in ("", "_low", "_high")}
            row["not_run"] = first["not_run"]
        elif len(ran) == 1:
            figures = {f"{n}{s}": _number(ran.iloc[0][f"{n}{s}"]) for n in ESTIMATES for s in ("", "_low", "_high")}
            row["not_run"] = None
        else:
            figures = pooled([t for times in ran["times_ns"] for t in times], int(first["ops"]))
            row["not_run"] = None
        ops = _number(first["ops"])
        row |= figures | {"time_ns": figures["ns_per_op"] * ops, "time_low_ns": figures["ns_per_op_low"] * ops,
                          "time_high_ns": figures["ns_per_op_high"] * ops}
        row |= {"threads": ran["threads"].dropna().max() if not ran.empty else math.nan,
                "warmup": ran["warmup"].dropna().max() if not ran.empty else math.nan,
                "peak_rss_bytes": ran["peak_rss_bytes"].dropna().max() if not ran.empty else math.nan,
                "complete": bool(group["complete"].all())}
        rows.append(row)
    return pd.DataFrame(rows)


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
                            fmt.count(p.threads), fmt.bytes_iec(_number(p.peak_rss_bytes))])
    jvm = {p.framework: fmt.count(p.warmup) for p in points.itertuples() if _number(p.warmup) > 1}
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


class Micro(Kind):
    name, what, figures = "micro", "in-process benchmarks", FIGURES
    tables = {"text": lambda points, noise: text(points), "csv": lambda points, noise: csv(points),
              "markdown": lambda points, noise: markdown(points)}
    keys, own_figures = tuple(POINT), True
    # A log's median of its timed repeats, with the exact order-statistic interval (uncertainty.median_interval).
    tracked = (Tracked("latency", "ns_per_op", "ns", True, "median-order-statistics"),
               Tracked("throughput", "ops_per_s", "ops/s", False, "median-order-statistics"))

    def collect(self, folder: Path, filters, with_time: bool, warn, noise: float) -> MicroSweep:
        return collect(folder, filters.frameworks, warn)

    def meta(self, data: dict) -> dict:
        return micro_meta(data)

    def cells(self, points, noise: float):
        return (HEADERS, *rows(points))

    def closing(self, found: MicroSweep):
        return _figures().closing_pages(found)

    def check(self, asked: Asked) -> None:
        """Options that mean nothing for in-process benchmarks are a command-line mistake."""
        for given, option in ((asked.rates, "-r"), (asked.transports, "-p"), (asked.tasks, "-l"),
                              (asked.comparing, "--compare"), (asked.fail_above is not None, "--fail-above")):
            if given:
                raise UsageError(f"{option}: not for micro logs (in-process benchmarks have no transport, rate or "
                                 "decoys, and no comparison yet); choose frameworks with -f")
        if asked.scale != "log":
            raise UsageError("-s: micro figures are drawn on log axes")

    def nothing_drawn(self, found: MicroSweep, plot: str) -> str:
        return (f"-t {plot}: no {plot} benchmark was run in {found.folder} "
                f"(there are {', '.join(dict.fromkeys(found.points['bench']))})")


KIND = Micro()
