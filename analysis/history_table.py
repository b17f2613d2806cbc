"""The history's tables (parse.py history --format text|markdown|csv): a row per series for people, a row per series and sweep as CSV."""

import io
import math

import pandas as pd

from suite import fmt

from . import between_sweeps, gate, summary
from .history import SERIES, TOO_FEW, Change, Series


def _value(unit: str):
    return fmt.time_ns if unit == "ns" else (lambda v: fmt.si(v) if math.isfinite(v) else fmt.UNKNOWN)


def _ratio(value: float) -> str:
    return f"{value:.3f}"


def _shown(c: Change, s: Series) -> str:
    """A change's size: a level's ratio (×1.234 [1.1–1.4]), a Δ's shift in µs (+1.2 [0.8–1.6] µs)."""
    if c.estimate is None:
        return ""
    if s.paired:
        return summary.interval(c.estimate.value, c.estimate.low, c.estimate.high, summary.signed) + " µs"
    return "×" + summary.interval(c.estimate.value, c.estimate.low, c.estimate.high, _ratio)


def _change(c: Change, numbers: dict, s: Series) -> str:
    number = f"#{numbers[int(s.sweeps['sweep'].iloc[c.at])]}"
    if c.verdict == TOO_FEW:
        return f"{number} {TOO_FEW} to know their spread"
    also = f" (with {', '.join(c.facts)})" if c.facts else ""
    return f"{number} {_shown(c, s)} {c.verdict}{also}"


def layout(series: list[Series], numbered: pd.DataFrame, confidence: float) -> tuple[list, list, list]:
    """The history table for people: a row per series, and its notes (the sweeps' numbers first)."""
    numbers = dict(zip(numbered["sweep"], numbered["number"]))
    headers = ["benchmark", "metric", "machine", "sweeps", "first", "newest [95 % CI]", "changes",
               "newest vs since last change"]
    body = []
    for s in series:  # a loop over series
        write, first, newest = _value(s.sweeps["unit"].iloc[0]), s.sweeps.iloc[0], s.sweeps.iloc[-1]
        body.append([s.key[2], s.key[3], s.key[0], str(len(s.sweeps)), write(first["value"]),
                     summary.interval(newest["value"], newest["low"], newest["high"], write),
                     "; ".join(_change(c, numbers, s) for c in s.changes) or "none",
                     _change(s.newest, numbers, s) if s.newest else "–"])
    notes = [f"#{r.number}: {r.started_at} {r.kind}, suite {str(r.suite_version)[:12]}, machine {r.machine_id}, "
             f"seed {fmt.count(r.seed)}" + (f"; changed: {', '.join(r.changed)}" if r.changed else "")
             for r in numbered.itertuples()]
    notes += ["a series is judged by its sweeps' values (a level's logarithm, a Δ as it is) and their spread from "
              "sweep to sweep, not by one sweep's repeats; delta-latency: the Δp50 vs std, delta-base-latency: a "
              "variant's vs its base, each paired by round inside its sweep: the machine's drift cancels in them",
              "changes: where binary segmentation (ruptures, E-Divisive's divisive search) puts a change point and "
              "the step's 95 % t interval (the spread within segments) excludes no change, by at least the noise "
              "threshold; #k: the first sweep after it; (with …): what else changed at that sweep",
              f"newest vs since last change: the newest sweep against the {confidence:.1%} two-sided prediction "
              f"interval of the sweeps since the last change (mean ± t·s·√(1 + 1/n), n ≥ "
              f"{between_sweeps.MIN_SWEEPS}); parse.py history --fail-on-change exits 1 on slower or faster in the "
              f"Δ series (the levels without any), {gate.FAMILY:.0%} shared among them, a Δ judged on its sweeps' "
              f"medians of their per-round paired ratios (robust to one disturbed round), so its call may differ"]
    return headers, body, notes


def text(series: list[Series], numbered: pd.DataFrame, confidence: float) -> str:
    return summary.aligned(*layout(series, numbered, confidence))


def markdown(series: list[Series], numbered: pd.DataFrame, confidence: float) -> str:
    return summary.markdown_table(*layout(series, numbered, confidence))


def _columns(s: Series) -> dict:
    """A series' change columns, one value per sweep: where a change starts its verdict, a level's ratio or a
    Δ's shift, and what else changed; on the newest sweep its own verdict."""
    changes = {c.at: c for c in s.changes}
    called = [changes.get(i) for i in range(len(s.sweeps))]

    def part(name):
        return [getattr(c.estimate, name) if c else math.nan for c in called]

    out = {f"{kind}{end}": part(name) if (kind == "shift") == s.paired else [math.nan] * len(called)
           for kind in ("ratio", "shift") for end, name in (("", "value"), ("_low", "low"), ("_high", "high"))}
    newest = s.newest.at if s.newest is not None else -1
    return out | {"change": [c.verdict if c else "" for c in called],
                  "with": ["; ".join(c.facts) if c else "" for c in called],
                  "newest": [s.newest.verdict if i == newest else "" for i in range(len(called))]}


def csv(series: list[Series], numbered: pd.DataFrame, confidence: float) -> str:
    """One row per series and sweep, time first: its value and interval; where a change starts, its verdict, its
    ratio (after / before: a level) or shift (after − before: a Δ) and what else changed; on the newest, its
    verdict against the sweeps since the last change."""
    numbers = dict(zip(numbered["sweep"], numbered["number"]))
    frames = []
    for s in series:  # a loop over series
        frames.append(s.sweeps.assign(number=s.sweeps["sweep"].map(numbers), **_columns(s)))
    columns = ["started_at", "number", *SERIES, "against", "value", "low", "high", "unit", "repeats",
               "suite_version", "runtime_version", "seed", "change", "ratio", "ratio_low", "ratio_high", "shift",
               "shift_low", "shift_high", "with", "newest"]
    table = pd.concat(frames)[columns].rename(columns={"started_at": "time", "number": "sweep"})
    for column in ("ratio", "ratio_low", "ratio_high", "shift", "shift_low", "shift_high"):
        table[column] = table[column].astype(float).round(6)
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


TABLES = {"text": text, "markdown": markdown, "csv": csv}
