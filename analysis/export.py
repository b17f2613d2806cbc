"""A sweep's tracked metrics in the formats of CI tracking tools: Bencher's BMF, github-action-benchmark, Otava's CSV.

Each takes tracked.measures' rows (one per point and metric, named by tracked.name) and the sweep's Facts, and
returns the file's text. BMF (https://bencher.dev/docs/reference/bencher-metric-format, its schema kept as
schema/bmf.schema.json) has no room for anything but benchmarks: its facts go to `bencher run --hash` and
`--testbed` (export_note says them), and the round at which a comparison was decided has no place in it.
github-action-benchmark's `customSmallerIsBetter` and `customBiggerIsBetter` entries carry them in `extra`, Otava's
CSV in its attribute columns (decided_at, decided_at_base: as the RTT table's CSV).
"""

import csv
import io
import json
import math

import pandas as pd

FORMATS = ("bencher", "github-action-benchmark", "otava")
GAB_TOOLS = {True: "customSmallerIsBetter", False: "customBiggerIsBetter"}  # by lower_is_better
ATTRIBUTES = ["commit", "machine", "machine_id", "seed", "kind", "runtime_version", "repeats", "interval_method",
              "decided_at", "decided_at_base"]
DECIDED = {"delta-latency": "decided_at", "delta-base-latency": "decided_at_base"}  # a Δ row's attribute column


def _finite(value) -> bool:
    return value is not None and math.isfinite(value)


def bmf(rows: pd.DataFrame) -> str:
    """{"<benchmark>": {"<measure>": {"value", "lower_value", "upper_value"}}}: the value with its 95 %
    interval as the bounds (left out where there is none: one repeat of a micro benchmark below 6 timings)."""
    out: dict = {}
    for r in rows.itertuples():  # a loop over points
        metric = {"value": r.value}
        if _finite(r.low) and _finite(r.high):
            metric |= {"lower_value": r.low, "upper_value": r.high}
        out.setdefault(r.benchmark, {})[r.measure] = metric
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def _extra(r, facts) -> str:
    """What github-action-benchmark shows beside a value: how it was measured and which sweep it was."""
    lines = [f"repeats: {r.repeats}; 95 % interval: {r.method}"]
    if r.verdict:
        decided = f", decided at round {int(r.decided_at)}" if _finite(r.decided_at) else ""
        lines.append(f"Δp50 vs {r.against or 'std'}: {r.verdict}{decided}")
    lines += [f"{r.runtime} {r.runtime_version}", f"suite {facts.suite_version}", f"machine {facts.machine_name}",
              f"seed {facts.seed if facts.seed is not None else 'unknown'}; sweep started {facts.started_at}"]
    return "\n".join(lines)


def gab(rows: pd.DataFrame, facts, lower_is_better: bool) -> str:
    """The entries of github-action-benchmark's customSmallerIsBetter (lower_is_better) or customBiggerIsBetter
    tool: {"name", "unit", "value", "range", "extra"}, `range` the 95 % interval's half-width."""
    chosen = rows[rows["lower_is_better"] == lower_is_better]
    entries = []
    for r in chosen.itertuples():
        half = (r.high - r.low) / 2 if _finite(r.low) and _finite(r.high) else math.nan
        entry = {"name": f"{r.benchmark} ({r.measure})", "unit": r.unit, "value": r.value}
        if _finite(half):
            entry["range"] = f"± {half:.6g}"
        entries.append(entry | {"extra": _extra(r, facts)})
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"


def otava(rows: pd.DataFrame, facts, measures) -> str:
    """One row per point (for a history, one per sweep and point), time first, as Otava's CSV tests read it:
    a time column, a column per metric (and its interval's bounds), then attribute columns. `measures`: the
    kind's metrics in order, so that every sweep's file has the same columns."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    metric_columns = [f"{m}{s}" for m in measures for s in ("", "_low", "_high")]
    writer.writerow(["time", "benchmark", *metric_columns, *ATTRIBUTES])
    for benchmark, point in rows.groupby("benchmark", sort=False):
        by_measure = {r.measure: r for r in point.itertuples()}
        first = point.iloc[0]
        values = []
        for m in measures:
            r = by_measure.get(m)
            values += ["" if r is None or not _finite(v) else f"{v:.6g}" for v in
                       ((r.value, r.low, r.high) if r is not None else (None, None, None))]
        decided = {column: by_measure[m].decided_at if m in by_measure else None for m, column in DECIDED.items()}
        writer.writerow([facts.started_at, benchmark, *values, facts.suite_version, facts.machine_name,
                         facts.machine_id, "" if facts.seed is None else facts.seed, facts.kind,
                         first["runtime_version"], first["repeats"], first["method"],
                         *(f"{int(v)}" if _finite(v) else "" for v in decided.values())])
    return buffer.getvalue()


def files(form: str, rows: pd.DataFrame, facts, measures, out) -> list[tuple]:
    """(path, text, what) of each file an export writes: one, or for github-action-benchmark one per tool
    the kind has metrics for (the second beside the first, `-bigger` or `-smaller` before its suffix)."""
    if form == "bencher":
        return [(out, bmf(rows), "Bencher Metric Format: bencher run --adapter json --file "
                 f"{out} --hash {facts.suite_version} --testbed {facts.machine_id}")]
    if form == "otava":
        return [(out, otava(rows, facts, measures), "CSV for Apache Otava: time column `time`, attributes "
                 + ", ".join(ATTRIBUTES))]
    directions = list(dict.fromkeys(rows["lower_is_better"]))
    written = []
    for i, lower in enumerate(directions):
        path = out if i == 0 else out.with_name(f"{out.stem}-{'smaller' if lower else 'bigger'}{out.suffix}")
        count = int((rows["lower_is_better"] == lower).sum())
        written.append((path, gab(rows, facts, lower), f"github-action-benchmark tool: {GAB_TOOLS[lower]}, "
                        f"{count} entr{'y' if count == 1 else 'ies'}"))
    return written


def note(facts) -> str:
    """The sweep an export is of, in one line."""
    return (f"suite {facts.suite_version[:12]}, machine {facts.machine_id} ({facts.machine_name}), "
            f"seed {facts.seed if facts.seed is not None else 'unknown'}, started {facts.started_at}")
