"""The in-process benchmarks' logs (-k micro): a log's fields, the runs, and their points pooled."""

# A micro log is one process that timed K repeats of one benchmark (scheduler, Notify vs oneshot,
# channel throughput) after an untimed warm-up (kotlin: several, for the JVM's JIT), and logged the median of the repeats with its 95 %
# distribution-free interval. A point is what the figures draw: a framework × benchmark × sizes. With
# one log a point shows the log's own figures; the repeats of several logs of a point (a sweep with
# REPEATS > 1) are pooled and their median and interval recomputed the same way
# (uncertainty.median_interval, the exact interval rtt-core's stats::median_interval computes).

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from suite.benchmarks import BENCHES, EVENT_TYPES
from suite.palette import FRAMEWORK_ORDER, order_key

from .. import load
from .. import uncertainty as u
from ..sweep import NothingUsable
from ..uncertainty import NOISE

MICRO_PARAMS = ("tasks", "yields", "instances", "hold_ms", "workers", "events", "queue", "event_type", "event_size")

BENCH_ORDER, EVENT_ORDER = BENCHES, EVENT_TYPES
POINT = ["framework", "bench", "primitive", *MICRO_PARAMS]
ESTIMATES = ("ns_per_op", "ops_per_s")  # each with _low and _high: its 95 % interval


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


def collect(folder: Path, frameworks: list[str], warn, kind) -> MicroSweep:
    """Every micro log under `folder` (only these frameworks, when given), as runs and points; `kind` is the
    package's Kind, which reads each log (load.scan). Raises NothingUsable when none is left, saying what there is."""
    found = load.scan(folder, kind, warn)
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


def number(value) -> float:
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
            figures = {f"{n}{s}": number(ran.iloc[0][f"{n}{s}"]) for n in ESTIMATES for s in ("", "_low", "_high")}
            row["not_run"] = None
        else:
            figures = pooled([t for times in ran["times_ns"] for t in times], int(first["ops"]))
            row["not_run"] = None
        ops = number(first["ops"])
        row |= figures | {"time_ns": figures["ns_per_op"] * ops, "time_low_ns": figures["ns_per_op_low"] * ops,
                          "time_high_ns": figures["ns_per_op_high"] * ops}
        row |= {"threads": ran["threads"].dropna().max() if not ran.empty else math.nan,
                "warmup": ran["warmup"].dropna().max() if not ran.empty else math.nan,
                "peak_rss_bytes": ran["peak_rss_bytes"].dropna().max() if not ran.empty else math.nan,
                "complete": bool(group["complete"].all())}
        rows.append(row)
    return pd.DataFrame(rows)
