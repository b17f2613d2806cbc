"""Changes in a history of sweeps: each point's metric over time, its change points, and whether the newest sweep starts one.

A series is one point's metric (tracked.Tracked) on one machine fingerprint and kind of log, one value per
recorded sweep. A change is called where two methods agree:
- a change point by binary segmentation, the divisive search of E-Divisive, from `ruptures` (Truong, Oudre &
  Vayatis 2020), on the logarithms of the sweeps' values with a least-squares cost and a BIC penalty scaled by
  the sweeps' own standard errors (never below the noise threshold): where the series' level moves;
- and the suite's interval test on either side of it: the repeats of the sweeps since the change before it
  against those up to the change after it, as `compare` tests two sweeps (a Welch t interval on the
  logarithms, uncertainty.ratio, and its verdict): slower or faster, not same.
Whether the newest sweep starts a change (--fail-on-change) is the interval test alone, the newest sweep's
repeats against the window since the last change: a change point needs sweeps on both sides of it, and one
sweep at the end of a series cannot be told from an outlier by the series alone.
"""

import io
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from suite import fmt

from . import summary
from . import uncertainty as u

# What a series is, over the sweeps: a point's metric on one machine, made of its runs one way (tracked.POOLED or
# PER_RUN): the p99 of pooled samples is not the mean of the runs' p99s, and the switch is not a change.
SERIES = ["machine_id", "kind", "benchmark", "measure", "estimator"]
CHANGES = ("slower", "faster")


@dataclass
class Change:
    at: int  # the position in its series of the first sweep after the change
    estimate: u.Estimate  # after / before, with its 95 % interval
    verdict: str  # slower or faster


@dataclass
class Series:
    key: tuple  # SERIES' values
    sweeps: pd.DataFrame  # one row per sweep, in time order (history_db.read's columns)
    changes: list[Change] = field(default_factory=list)
    newest: Change | None = None  # the newest sweep against the window since the last change; None: one sweep

    @property
    def lower_is_better(self) -> bool:
        return bool(self.sweeps["lower_is_better"].iloc[0])


def _positive(values) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array) & (array > 0)]


def _pooled(sweeps: pd.DataFrame) -> np.ndarray:
    """The repeats' values of these sweeps, pooled; a sweep's value where it kept none."""
    parts = [_positive(v) if len(_positive(v)) else _positive([x]) for v, x in zip(sweeps["values"], sweeps["value"])]
    return np.concatenate(parts) if parts else np.empty(0)


def _sigma(sweeps: pd.DataFrame, noise: float) -> float:
    """The standard error of a sweep's log value, the median over the sweeps (each from its repeats' spread),
    never below half the noise threshold: a change below it is `same` whatever its test says."""
    errors = [np.std(np.log(v), ddof=1) / math.sqrt(len(v)) for v in map(_positive, sweeps["values"]) if len(v) >= 2]
    return max(float(np.median(errors)) if errors else 0.0, noise / 2)


def candidates(sweeps: pd.DataFrame, noise: float) -> list[int]:
    """Where binary segmentation puts the series' change points: positions of the first sweep after each."""
    import ruptures  # loaded only when a history is read

    logs = np.log(np.clip(sweeps["value"].to_numpy(dtype=float), 1e-300, None)).reshape(-1, 1)
    n = len(logs)
    if n < 2:
        return []
    penalty = 2 * math.log(n) * _sigma(sweeps, noise) ** 2  # BIC: 2 log n per change, in units of σ²
    found = ruptures.Binseg(model="l2", min_size=1, jump=1).fit(logs).predict(pen=penalty)
    return [b for b in found if b < n]


def _from_intervals(before: pd.DataFrame, after: pd.DataFrame) -> u.Estimate | None:
    """after / before from the sweeps' values and 95 % intervals alone: the mean log value of each side, its
    standard error from the intervals' widths (a pooled quantile keeps no repeats' values where its runs are too
    small to carry it), a normal interval; None where a sweep has no interval."""
    sides = []
    for sweeps in (before, after):
        value, low, high = (sweeps[c].to_numpy(dtype=float) for c in ("value", "low", "high"))
        if not (np.isfinite(low).all() and np.isfinite(high).all() and (low > 0).all() and (value > 0).all()):
            return None
        se = (np.log(high) - np.log(low)) / (2 * u.z_quantile(u.CONFIDENCE))
        sides.append((float(np.mean(np.log(value))), float(np.sqrt(np.sum(se**2))) / len(value)))
    (old, se_old), (new, se_new) = sides
    half = u.z_quantile(u.CONFIDENCE) * math.hypot(se_old, se_new)
    point = math.exp(new - old)
    return u.Estimate(point, point * math.exp(-half), point * math.exp(half), min(len(before), len(after)),
                      u.ACROSS_RUNS)


def _test(before: pd.DataFrame, after: pd.DataFrame, lower_is_better: bool, noise: float) -> Change | None:
    old, new = _pooled(before), _pooled(after)
    kept = all(len(_positive(v)) for v in (*before["values"], *after["values"]))
    if not len(old) or not len(new):
        return None
    change = (None if kept else _from_intervals(before, after)) or u.ratio(new, old)
    call = u.verdict(change, 1.0, noise, higher_is_slower=lower_is_better, no_change=1.0)
    return Change(0, change, call)


def analyse(sweeps: pd.DataFrame, key: tuple, noise: float = u.NOISE) -> Series:
    """A series' confirmed changes (both methods agree) and its newest sweep's verdict."""
    series = Series(key, sweeps.reset_index(drop=True))
    found = candidates(series.sweeps, noise)
    bounds = [0, *found, len(series.sweeps)]
    for i, at in enumerate(found, start=1):
        tested = _test(series.sweeps.iloc[bounds[i - 1]:at], series.sweeps.iloc[at:bounds[i + 1]],
                       series.lower_is_better, noise)
        if tested is not None and tested.verdict in CHANGES:
            series.changes.append(Change(at, tested.estimate, tested.verdict))
    last = len(series.sweeps) - 1
    if last >= 1:
        since = max([c.at for c in series.changes if c.at < last], default=0)
        tested = _test(series.sweeps.iloc[since:last], series.sweeps.iloc[last:], series.lower_is_better, noise)
        if tested is not None:
            series.newest = Change(last, tested.estimate, tested.verdict)
    return series


def analyse_all(points: pd.DataFrame, noise: float = u.NOISE) -> list[Series]:
    """Every series of a history (history_db.read), in the order its points were first recorded."""
    return [analyse(group, key, noise) for key, group in points.groupby(SERIES, sort=False)]  # a loop over series


def sweeps(points: pd.DataFrame) -> pd.DataFrame:
    """The recorded sweeps, numbered #1… in time order, with their facts."""
    table = points.drop_duplicates("sweep")[["sweep", "started_at", "seed", "suite_version", "machine_id", "kind"]]
    return table.reset_index(drop=True).assign(number=lambda t: t.index + 1)


def newest_changes(series: list[Series], newest_sweep: int) -> list[str]:
    """The series whose newest sweep is the history's newest and starts a change, in words."""
    return [f"{s.key[2]} {s.key[3]} ×{s.newest.estimate.value:.3f} ({s.newest.verdict})" for s in series
            if s.newest is not None and s.newest.verdict in CHANGES
            and int(s.sweeps["sweep"].iloc[-1]) == newest_sweep]


def _value(unit: str):
    return fmt.time_ns if unit == "ns" else (lambda v: fmt.si(v) if math.isfinite(v) else fmt.UNKNOWN)


def _ratio(value: float) -> str:
    return f"{value:.3f}"


def _change(c: Change, numbers: dict, s: Series) -> str:
    return (f"#{numbers[int(s.sweeps['sweep'].iloc[c.at])]} "
            f"×{summary.interval(c.estimate.value, c.estimate.low, c.estimate.high, _ratio)} {c.verdict}")


def layout(series: list[Series], numbered: pd.DataFrame) -> tuple[list[str], list[list[str]], list[str]]:
    """The history table for people: a row per series, and its notes (the sweeps' numbers first)."""
    numbers = dict(zip(numbered["sweep"], numbered["number"]))
    headers = ["benchmark", "metric", "machine", "sweeps", "first", "newest [95 % CI]", "changes (both agree)",
               "newest vs since last change"]
    body = []
    for s in series:  # a loop over series
        write, first, newest = _value(s.sweeps["unit"].iloc[0]), s.sweeps.iloc[0], s.sweeps.iloc[-1]
        body.append([s.key[2], s.key[3], s.key[0], str(len(s.sweeps)), write(first["value"]),
                     summary.interval(newest["value"], newest["low"], newest["high"], write),
                     "; ".join(_change(c, numbers, s) for c in s.changes) or "none",
                     _change(s.newest, numbers, s) if s.newest else "–"])
    notes = [f"#{r.number}: {r.started_at} {r.kind}, suite {str(r.suite_version)[:12]}, machine {r.machine_id}, "
             f"seed {fmt.count(r.seed)}" for r in numbered.itertuples()]
    notes += ["changes: where binary segmentation (ruptures, E-Divisive's divisive search) puts a change point and "
              "the interval test on either side of it (new/old, 95 % Welch t on the logarithms of the repeats) says "
              "slower or faster; #k: the first sweep after it",
              "newest vs since last change: the newest sweep's repeats against those of the sweeps since the last "
              "change, by the interval test alone (parse.py history --fail-on-change exits 1 on slower or faster)"]
    return headers, body, notes


def text(series: list[Series], numbered: pd.DataFrame) -> str:
    return summary.aligned(*layout(series, numbered))


def markdown(series: list[Series], numbered: pd.DataFrame) -> str:
    return summary.markdown_table(*layout(series, numbered))


def csv(series: list[Series], numbered: pd.DataFrame) -> str:
    """One row per series and sweep, time first: its value and interval, and where a change starts, its verdict
    and ratio (after / before)."""
    numbers = dict(zip(numbered["sweep"], numbered["number"]))
    frames = []
    for s in series:
        changes = {c.at: c for c in s.changes}
        frame = s.sweeps.assign(number=s.sweeps["sweep"].map(numbers))
        called = [changes.get(i) for i in range(len(frame))]
        frames.append(frame.assign(
            change=[c.verdict if c else "" for c in called],
            ratio=[c.estimate.value if c else math.nan for c in called],
            ratio_low=[c.estimate.low if c else math.nan for c in called],
            ratio_high=[c.estimate.high if c else math.nan for c in called]))
    columns = ["started_at", "number", *SERIES, "value", "low", "high", "unit", "repeats", "suite_version",
               "runtime_version", "seed", "change", "ratio", "ratio_low", "ratio_high"]
    table = pd.concat(frames)[columns].rename(columns={"started_at": "time", "number": "sweep"})
    for column in ("ratio", "ratio_low", "ratio_high"):
        table[column] = table[column].astype(float).round(6)
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


TABLES = {"text": text, "markdown": markdown, "csv": csv}
