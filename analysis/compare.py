"""Sweep-to-sweep comparison: each common point's new/old ratio with its 95 % interval, and a verdict."""

# Points of two sweeps are matched by their kind's keys; for each metric the kind compares (its
# Comparing: RTT p50 and p99, throughput the median msg/s) and a verdict. A quantile of pooled samples (the
# kind's `pooled`: RTT's) is each sweep's estimate (quantiles.py), and the ratio's interval comes from theirs
# on the log scale; a quantile one sweep cannot carry is left out and said. Another metric's repeats' values
# give uncertainty.ratio, a Welch t interval on their logs. No pairing: the sweeps ran at different times.
# Points in one sweep only are listed, never dropped silently.

import io
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from suite import dimensions, fmt, sequential

from . import quantiles, summary
from . import uncertainty as u

COLUMNS = ["framework", "transport", "payload", "interval_s", "tasks", "metric", "old", "new", "ratio",
           "ratio_low", "ratio_high", "verdict"]
# After the others, so that a script reading COLUMNS still can: the point's other dimensions where its kind
# has them (RTT: connections, load; suite/dimensions.py), then the smallest change the comparison could
# have called (a share of the old value), its interval's method and the margin within which it is `same` (a share
# of the old value: NEW's MARGIN, MARGIN_P99 for a p99; analysis.md, "Reading a verdict").
TAIL = ["mde_pct", "interval_method", "margin_pct"]
WORDS = {"connections": " {} conns", "load": " {}"}  # a dimension's value in a point's label
HEADERS = {"connections": "conns"}  # a dimension's column in the text table; another: its name


@dataclass
class Comparison:
    rows: pd.DataFrame  # one row per common point and metric: columns(kind) + label, repeats_old, repeats_new
    only_old: list[str]  # labels of the points in one sweep only
    only_new: list[str]
    kind: object  # the Kind compared
    noise: float
    refused: list[str] = field(default_factory=list)  # "LABEL p99: n = 80: too few for p99", left out


def columns(kind) -> list[str]:
    """The CSV's columns for a kind: COLUMNS, the shape of its points if they have one, TAIL."""
    return [*COLUMNS, *shape(kind), *TAIL]


def shape(kind) -> list[str]:
    """The keys of a kind's points beyond COLUMNS: its dimensions but the decoy count (RTT: connections, load)."""
    return [c for c in kind.keys if c not in COLUMNS]


def label(key: dict) -> str:
    """A point in words: "tokio tcp 64 B 1 k msg/s 0 tasks" (the rate where the point has one), then
    each other dimension not at its default: "100 conns", "open" (another: "NAME VALUE")."""
    rate = f" {fmt.rate_label(key['interval_s'])} msg/s" if "interval_s" in key else ""
    shape = "".join(WORDS.get(name, f" {name} {{}}").format(key[name]) for name in key
                    if name not in COLUMNS and key[name] != dimensions.by_name(name).value)
    return f"{key['framework']} {key['transport']} {key['payload']} B{rate} {key['tasks']} tasks{shape}"


def compare(old: pd.DataFrame, new: pd.DataFrame, kind, noise: float = u.NOISE) -> Comparison:
    """Compare the runs of two sweeps of `kind` (each in display order), point by point."""
    point, how = list(kind.keys), kind.compare
    olds = {key: group for key, group in old.groupby(point, sort=False)}
    news = {key: group for key, group in new.groupby(point, sort=False)}
    pooled = {metric: (samples, q) for samples, wanted in kind.pooled.items() for metric, q in wanted.items()}
    rows, refused = [], []
    for key, fresh in news.items():  # a loop over points
        if key not in olds:
            continue
        named = dict(zip(point, key, strict=True))
        for metric, column in how.metrics.items():
            if column in pooled:
                found = _pooled_ratio(olds[key], fresh, column, *pooled[column])
                if isinstance(found, quantiles.Refused):
                    refused.append(f"{label(named)} {metric}: {found}")
                    continue
                change, before, after, counts = found
            else:
                a, b = (_values(g, column) for g in (olds[key], fresh))
                change = u.ratio(b, a) if len(a) and len(b) else u.Estimate(np.nan, np.nan, np.nan, 0, u.WITHIN_RUN)
                before, after, counts = a.mean() if len(a) else np.nan, b.mean() if len(b) else np.nan, (len(a), len(b))
            margin = _margin(fresh, metric, noise)
            call = (u.verdict(change, 1.0, noise, margin=margin, higher_is_slower=how.lower_is_better, no_change=1.0)
                    if change.repeats else "unknown")
            mde = max(u.detectable_ratio(change), noise)  # NaN stays NaN: max keeps its first argument
            rows.append({**named, "metric": metric, "old": before, "new": after, "ratio": change.value,
                         "ratio_low": change.low, "ratio_high": change.high, "verdict": call, "label": label(named),
                         "repeats_old": counts[0], "repeats_new": counts[1], "mde_pct": 100 * mde,
                         "interval_method": u.INTERVAL_METHOD[change.method], "margin_pct": 100 * margin})
    only_old = [label(dict(zip(point, k, strict=True))) for k in olds if k not in news]
    only_new = [label(dict(zip(point, k, strict=True))) for k in news if k not in olds]
    table = pd.DataFrame(rows, columns=[*columns(kind), "label", "repeats_old", "repeats_new"])
    return Comparison(table, only_old, only_new, kind, noise, refused)


def _margin(runs: pd.DataFrame, metric: str, noise: float) -> float:
    """Within what share of the old value a ratio is `same`: the margin of the design the NEW sweep's runs ran
    (sweep.json `design`; the defaults without one), never below the noise threshold (as sequential.verdict)."""
    schedule = runs["schedule"].iloc[0] if "schedule" in runs else sequential.Schedule()
    return max(schedule.margin_of(metric), noise)


def _pooled_ratio(old: pd.DataFrame, new: pd.DataFrame, metric: str, samples: str, q: float):
    """new / old of a pooled quantile: (the ratio with its interval, old value, new value, (runs old, runs new)), or
    the Refused of a side whose samples cannot carry it."""
    found = [quantiles.estimates(list(side[samples]), {metric: q}).get(metric) for side in (old, new)]
    for estimate in found:
        if not isinstance(estimate, u.Estimate):
            return estimate if estimate is not None else quantiles.Refused(0, u.min_samples(q), metric)
    before, after = found
    return u.ratio_of(after, before), before.value, after.value, (before.repeats, after.repeats)


def _values(runs: pd.DataFrame, column: str) -> np.ndarray:
    """The repeats' values of a statistic, those a logarithm can be taken of."""
    values = pd.to_numeric(runs[column], errors="coerce").to_numpy(dtype=float)
    return values[np.isfinite(values) & (values > 0)]


def slower_than(comparison: Comparison, percent: float) -> list[str]:
    """The rows called `slower` by more than `percent` %: ratio > 1 + percent/100 (rates: old/new)."""
    rows = comparison.rows[comparison.rows["verdict"] == "slower"]
    lower_is_better = comparison.kind.compare.lower_is_better
    return [f"{r.label} {r.metric} ×{r.ratio:.3f}" for r in rows.itertuples()
            if (r.ratio if lower_is_better else 1.0 / r.ratio) > 1 + percent / 100]


def _ratio(value: float) -> str:
    return f"{value:.3f}"


def layout(c: Comparison) -> tuple[list[str], list[list[str]], list[str]]:
    how, rated = c.kind.compare, "interval_s" in c.kind.keys
    headers = ["framework", "transport", "size B", *(["target msg/s"] if rated else []), "tasks", "metric",
               "repeats old/new", f"old {how.unit}", f"new {how.unit}", "new/old [95 % CI]", "MDE", "verdict"]
    shapes = shape(c.kind) if summary.has_shape(c.rows, shape(c.kind)) else []  # where any is not its default
    headers[headers.index("tasks") + 1:headers.index("tasks") + 1] = [HEADERS.get(name, name) for name in shapes]
    body = [[r.framework, r.transport, str(r.payload), *([fmt.rate_label(r.interval_s)] if rated else []),
             str(r.tasks), *(str(getattr(r, name)) for name in shapes), r.metric,
             f"{r.repeats_old}/{r.repeats_new}", how.value(r.old), how.value(r.new),
             summary.interval(r.ratio, r.ratio_low, r.ratio_high, _ratio), _mde(r.mde_pct), _called(r)]
            for r in c.rows.itertuples()]
    better = better_when(how.lower_is_better, "the new sweep is faster")
    pooled = any(c.kind.pooled.values())
    notes = [(f"new/old: ratio of each sweep's quantile of its samples pooled ({better}), 95 % interval from each "
              "sweep's own on the logarithms" if pooled else
              f"new/old: ratio of the geometric means over the repeats ({better}), 95 % Welch t interval on "
              "the logarithms (Kalibera & Jones 2013); old, new: arithmetic means"),
             f"verdict: slower/faster when the interval excludes 1 and the change is at least "
             f"{fmt.percent(c.noise)}; same ±m when it lies within 1 ± m (MARGIN of the new sweep, 5 % unless set; "
             "MARGIN_P99, 10 %, for a p99); undecided otherwise: the data do not say; unknown with one repeat on a "
             "side (no spread measured)",
             f"MDE: the smallest change this comparison calls 4 times in 5 (80 % power), from the repeats and their "
             f"spread, never below {fmt.percent(c.noise)}"]
    notes += [f"only in OLD: {name}" for name in c.only_old] + [f"only in NEW: {name}" for name in c.only_new]
    notes += [f"left out, {name}" for name in c.refused]
    return headers, body, notes


def _mde(pct: float) -> str:
    return "" if np.isnan(pct) else f"{pct:.0f} %"


def _called(row) -> str:
    """The verdict; `same` says within what share of the old value: "same ±5 %"."""
    return f"same ±{row.margin_pct:g} %" if row.verdict == "same" else row.verdict


def text(c: Comparison) -> str:
    return summary.aligned(*layout(c))


def markdown(c: Comparison) -> str:
    return summary.markdown_table(*layout(c))


def better_when(lower_is_better: bool, what: str) -> str:
    """Which side of 1 a ratio new/old is better on: "< 1: new is faster" for a latency."""
    return f"{'<' if lower_is_better else '>'} 1: {what}"


def csv(c: Comparison) -> str:
    """Exactly columns(kind): values to the kind's digits (RTT: integer ns, means over repeats; msg/s to
    0.1), ratios to 6 digits."""
    table = c.rows[columns(c.kind)].copy()
    digits = c.kind.compare.digits
    for column in ("old", "new"):
        table[column] = table[column].astype(float).round(digits)
        if digits == 0:
            table[column] = table[column].astype("Int64")
    for column in ("ratio", "ratio_low", "ratio_high"):
        table[column] = table[column].astype(float).round(6)
    table[["mde_pct", "margin_pct"]] = table[["mde_pct", "margin_pct"]].astype(float).round(1)
    table["interval_s"] = table["interval_s"].map(fmt.plain) if "interval_s" in c.kind.keys else ""
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
