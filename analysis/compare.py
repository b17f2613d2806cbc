"""Sweep-to-sweep comparison: each common point's new/old ratio with a Welch t interval on logs, and a verdict."""

# Points of two sweeps are matched by framework, transport, payload, interval and tasks; for each
# metric (RTT: p50 and p99; throughput: the median msg/s) the repeats' values of the old and the
# new sweep give uncertainty.ratio (no pairing: the sweeps ran at different times) and a verdict.
# Points in one sweep only are listed, never dropped silently.

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import points, style, summary
from . import uncertainty as u

COLUMNS = ["framework", "transport", "payload", "interval_s", "tasks", "metric", "old", "new", "ratio",
           "ratio_low", "ratio_high", "verdict"]
# After the others, so that a script reading COLUMNS still can: the shape of an RTT point, then the
# smallest change the comparison could have called (a share of the old value) and its interval's method.
RTT_COLUMNS = [*COLUMNS, "connections", "load", "mde_pct", "interval_method"]
THROUGHPUT_COLUMNS = [*COLUMNS, "mde_pct", "interval_method"]
METRICS = {"rtt": ("p50", "p99"), "throughput": ("msg_per_s",)}
_SOURCE = {"p50": "p50", "p99": "p99", "msg_per_s": "msg_per_s_p50"}  # metric → column of a run


@dataclass
class Comparison:
    rows: pd.DataFrame  # one row per common point and metric: COLUMNS + label, repeats_old, repeats_new
    only_old: list[str]  # labels of the points in one sweep only
    only_new: list[str]
    kind: str
    noise: float


def label(key: dict, kind: str) -> str:
    """A point in words: "tokio tcp 64 B 1 k msg/s 0 tasks", then "100 conns" and "open" unless one
    connection in a closed loop."""
    rate = f" {style.rate_label(key['interval_s'])} msg/s" if kind == "rtt" else ""
    shape = (f" {key['connections']} conns" if key.get("connections", 1) != 1 else "") + (
        f" {key['load']}" if key.get("load", "closed") != "closed" else "")
    return f"{key['framework']} {key['transport']} {key['payload']} B{rate} {key['tasks']} tasks{shape}"


def compare(old: pd.DataFrame, new: pd.DataFrame, kind: str, noise: float = u.NOISE) -> Comparison:
    """Compare the runs of two sweeps (each in display order), point by point."""
    point = points.keys(kind)
    olds = {key: group for key, group in old.groupby(point, sort=False)}
    news = {key: group for key, group in new.groupby(point, sort=False)}
    rows = []
    for key, fresh in news.items():  # a loop over points
        if key not in olds:
            continue
        named = dict(zip(point, key, strict=True))
        for metric in METRICS[kind]:
            a, b = (_values(g, _SOURCE[metric]) for g in (olds[key], fresh))
            if len(a) and len(b):
                change = u.ratio(b, a)
                call = u.verdict(change, 1.0, noise, higher_is_slower=kind == "rtt", no_change=1.0)
            else:
                change, call = u.Estimate(np.nan, np.nan, np.nan, 0, u.WITHIN_RUN), "unknown"
            mde = max(u.detectable_ratio(change), noise)  # NaN stays NaN: max keeps its first argument
            rows.append({**named, "metric": metric, "old": a.mean() if len(a) else np.nan,
                         "new": b.mean() if len(b) else np.nan, "ratio": change.value, "ratio_low": change.low,
                         "ratio_high": change.high, "verdict": call, "label": label(named, kind),
                         "repeats_old": len(a), "repeats_new": len(b), "mde_pct": 100 * mde,
                         "interval_method": u.INTERVAL_METHOD[change.method]})
    only_old = [label(dict(zip(point, k, strict=True)), kind) for k in olds if k not in news]
    only_new = [label(dict(zip(point, k, strict=True)), kind) for k in news if k not in olds]
    columns = RTT_COLUMNS if kind == "rtt" else THROUGHPUT_COLUMNS
    table = pd.DataFrame(rows, columns=[*columns, "label", "repeats_old", "repeats_new"])
    return Comparison(table, only_old, only_new, kind, noise)


def _values(runs: pd.DataFrame, column: str) -> np.ndarray:
    """The repeats' values of a statistic, those a logarithm can be taken of."""
    values = pd.to_numeric(runs[column], errors="coerce").to_numpy(dtype=float)
    return values[np.isfinite(values) & (values > 0)]


def slowdown(row) -> float:
    """How many times slower the new sweep is: the ratio for latencies, its inverse for a rate."""
    return row.ratio if row.metric in ("p50", "p99") else 1.0 / row.ratio


def slower_than(comparison: Comparison, percent: float) -> list[str]:
    """The rows called `slower` by more than `percent` %: ratio > 1 + percent/100 (rates: old/new)."""
    rows = comparison.rows[comparison.rows["verdict"] == "slower"]
    return [f"{r.label} {r.metric} ×{r.ratio:.3f}" for r in rows.itertuples()
            if slowdown(r) > 1 + percent / 100]


def _value(value: float, metric: str) -> str:
    return style.us(value) if metric in ("p50", "p99") else style.si(value)


def _ratio(value: float) -> str:
    return f"{value:.3f}"


def _layout(c: Comparison) -> tuple[list[str], list[list[str]], list[str]]:
    rtt = c.kind == "rtt"
    unit = "µs" if rtt else "msg/s"
    headers = ["framework", "transport", "size B", *(["target msg/s"] if rtt else []), "tasks", "metric",
               "repeats old/new", f"old {unit}", f"new {unit}", "new/old [95 % CI]", "MDE", "verdict"]
    shapes = rtt and summary.has_connections(c.rows)  # conns and load columns where they vary
    if shapes:
        headers[headers.index("tasks") + 1:headers.index("tasks") + 1] = ["conns", "load"]
    body = [[r.framework, r.transport, str(r.payload), *([style.rate_label(r.interval_s)] if rtt else []),
             str(r.tasks), *([str(r.connections), r.load] if shapes else []), r.metric,
             f"{r.repeats_old}/{r.repeats_new}", _value(r.old, r.metric), _value(r.new, r.metric),
             summary.interval(r.ratio, r.ratio_low, r.ratio_high, _ratio), _mde(r.mde_pct), _called(r)]
            for r in c.rows.itertuples()]
    better = "< 1: the new sweep is faster" if rtt else "> 1: the new sweep is faster"
    notes = [f"new/old: ratio of the geometric means over the repeats ({better}), 95 % Welch t interval on "
             "the logarithms (Kalibera & Jones 2013); old, new: arithmetic means",
             f"verdict: slower/faster when the interval excludes 1 and the change is at least "
             f"{style.percent(c.noise)}; same otherwise, within ±MDE; unknown with one repeat on a side (no spread "
             "measured)",
             f"MDE: the smallest change this comparison calls 4 times in 5 (80 % power), from the repeats and their "
             f"spread, never below {style.percent(c.noise)}"]
    notes += [f"only in OLD: {name}" for name in c.only_old] + [f"only in NEW: {name}" for name in c.only_new]
    return headers, body, notes


def _mde(pct: float) -> str:
    return "" if np.isnan(pct) else f"{pct:.0f} %"


def _called(row) -> str:
    """The verdict; `same` says within what: "same within ±8 %"."""
    return f"same within ±{row.mde_pct:.0f} %" if row.verdict == "same" and not np.isnan(row.mde_pct) else row.verdict


def text(c: Comparison) -> str:
    return summary.aligned(*_layout(c))


def markdown(c: Comparison) -> str:
    return summary.markdown_table(*_layout(c))


def csv(c: Comparison) -> str:
    """Exactly THROUGHPUT_COLUMNS (RTT: RTT_COLUMNS): RTT in integer ns (means over repeats), msg/s to 0.1, ratios to
    6 digits."""
    table = c.rows[RTT_COLUMNS if c.kind == "rtt" else THROUGHPUT_COLUMNS].copy()
    digits = 0 if c.kind == "rtt" else 1
    for column in ("old", "new"):
        table[column] = table[column].astype(float).round(digits)
        if c.kind == "rtt":
            table[column] = table[column].astype("Int64")
    for column in ("ratio", "ratio_low", "ratio_high"):
        table[column] = table[column].astype(float).round(6)
    table["mde_pct"] = table["mde_pct"].astype(float).round(1)
    table["interval_s"] = table["interval_s"].map(style.plain) if c.kind == "rtt" else ""
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
