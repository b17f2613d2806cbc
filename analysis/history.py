"""Changes in a history of sweeps: each point's metric over time, its change points, and whether the newest sweep starts one.

A series is one point's metric (tracked.Tracked, or a paired Δ: tracked.DELTAS) on one machine fingerprint and
kind of log, one value per recorded sweep. It is read on its own scale: a level's logarithm (a change is a
ratio), a Δ as it is (a change is a difference in its unit). Every test counts the spread between sweeps, from
the series itself (between_sweeps), never the repeats of one sweep alone: on a shared machine the level of a
whole sweep moves by far more than its repeats do.
- A change point: binary segmentation, the divisive search of E-Divisive, from `ruptures` (Truong, Oudre &
  Vayatis 2020), least-squares cost, a BIC penalty in units of the series' sweep-to-sweep spread (never below
  the noise threshold); called where the step's t interval (spread within the segments) excludes no change and
  the step is at least the noise threshold.
- The newest sweep (--fail-on-change): against the prediction interval of the sweeps since the last change,
  with at least between_sweeps.MIN_SWEEPS of them (fewer: too few sweeps to know the spread, no call), at the
  confidence the gate's family of series leaves each (gate.confidence).
"""

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from suite import sequential

from . import between_sweeps as between
from . import history_facts, tracked
from . import uncertainty as u

# What a series is, over the sweeps: a point's metric on one machine, made of its runs one way (tracked.POOLED,
# PER_RUN or PAIRED): the p99 of pooled samples is not the mean of the runs' p99s, and the switch is not a change.
SERIES = ["machine_id", "kind", "benchmark", "measure", "estimator"]
CHANGES = ("slower", "faster")
TAIL_MEASURES = ("p99-latency",)  # series whose `same` is within sequential.MARGIN_P99, the others' MARGIN
TOO_FEW = "too few sweeps"


@dataclass
class Change:
    at: int  # the position in its series of the first sweep after the change (the newest: its own)
    estimate: u.Estimate | None  # a level's after / before, a Δ's after − before, with its interval; None: TOO_FEW
    verdict: str  # slower, faster, same (within the margin), undecided, or TOO_FEW
    facts: list[str] = field(default_factory=list)  # what else changed at that sweep: machine, suite, runtime


@dataclass
class Series:
    key: tuple  # SERIES' values
    sweeps: pd.DataFrame  # one row per sweep, in time order (history_db.read's columns)
    changes: list[Change] = field(default_factory=list)
    newest: Change | None = None  # the newest sweep against the window since the last change; None: one sweep

    @property
    def lower_is_better(self) -> bool:
        return bool(self.sweeps["lower_is_better"].iloc[0])

    @property
    def paired(self) -> bool:
        """A paired Δ (against another line of the same sweeps), not a level."""
        return bool(self.sweeps["against"].iloc[0])

    def scaled(self) -> np.ndarray:
        """Its values on the scale it is tested on: a level's logarithm, a Δ as it is."""
        values = self.sweeps["value"].to_numpy(dtype=float)
        return values if self.paired else np.log(np.clip(values, 1e-300, None))


def candidates(values: np.ndarray, floor: float) -> list[int]:
    """Where binary segmentation puts a series' change points (values on its scale; floor: the smallest spread
    assumed, in the same scale): positions of the first sweep after each."""
    import ruptures  # loaded only when a history is read

    n = len(values)
    spread = between.robust_sd(values)
    if n < 3 or not math.isfinite(spread):
        return []
    penalty = 2 * math.log(n) * max(spread, floor) ** 2  # BIC: 2 log n per change, in units of σ²
    found = ruptures.Binseg(model="l2", min_size=1, jump=1).fit(values.reshape(-1, 1)).predict(pen=penalty)
    return [b for b in found if b < n]


def _call(s: Series, change: u.Estimate, reference: float, noise: float) -> tuple[u.Estimate, str]:
    """A change on the series' scale as shown (a level's as a ratio) and its verdict (uncertainty.verdict): slower
    or faster by at least the noise threshold, same within the margin, else undecided; both shares of a level's
    1, of a Δ's runtime level (`reference`; unknown: no floor and no `same`, as pairing.verdict)."""
    margin = sequential.MARGIN_P99 if s.key[3] in TAIL_MEASURES else sequential.MARGIN
    if s.paired:
        known = reference if math.isfinite(reference) else 0.0
        return change, u.verdict(change, known, noise, margin=margin, higher_is_slower=s.lower_is_better)
    ratio = u.Estimate(math.exp(change.value), math.exp(change.low), math.exp(change.high), change.repeats,
                       change.method, change.df)
    return ratio, u.verdict(ratio, 1.0, noise, margin=margin, higher_is_slower=s.lower_is_better, no_change=1.0)


def analyse(sweeps: pd.DataFrame, key: tuple, noise: float = u.NOISE, confidence: float = u.CONFIDENCE,
            reference: float = math.nan, by_sweep: dict | None = None) -> Series:
    """A series' changes and its newest sweep's verdict at `confidence`. reference: for a Δ, its runtime's level
    (the noise threshold is a share of it); a level is its own. by_sweep: what else changed at each sweep
    (history_facts.changed, by sweep id), named beside a change there."""
    by_sweep = by_sweep or {}
    series = Series(key, sweeps.reset_index(drop=True))
    values = series.scaled()
    floor = noise * reference / 2 if series.paired else noise / 2
    found = candidates(values, floor if math.isfinite(floor) else 0.0)
    bounds = [0, *found, len(values)]
    sd, df = between.within_segments(values, bounds)
    for i, at in enumerate(found, start=1):
        step = between.step(values[bounds[i - 1]:at], values[at:bounds[i + 1]], sd, df, u.CONFIDENCE)
        if step is not None:
            estimate, verdict = _call(series, step, reference, noise)
            if verdict in CHANGES:
                series.changes.append(Change(at, estimate, verdict, history_facts.at(series.sweeps, at, by_sweep)))
    last = len(values) - 1
    if last >= 1:
        since = max([c.at for c in series.changes if c.at < last], default=0)
        se = between.own_se(series.sweeps["low"], series.sweeps["high"], series.sweeps["repeats"], not series.paired)
        judged = between.predicted(values[since:last], values[last], confidence, se[since:last], se[last],
                                   int(series.sweeps["repeats"].iloc[last]) - 1)
        facts = history_facts.at(series.sweeps, last, by_sweep)
        series.newest = Change(last, None, TOO_FEW, facts) if judged is None else Change(
            last, *_call(series, judged, reference, noise), facts)
    return series


def _references(points: pd.DataFrame) -> dict:
    """For each Δ series, the median level of the runtime it is a Δ of (its measure's tracked.DELTA_OF)."""
    levels = points[points["against"] == ""].groupby(["machine_id", "kind", "benchmark", "measure"])["value"]
    return levels.median().to_dict()


def analyse_all(points: pd.DataFrame, noise: float = u.NOISE, confidence: float = u.CONFIDENCE) -> list[Series]:
    """Every series of a history (history_db.read), in the order its points were first recorded."""
    references, numbered = _references(points), sweeps(points)
    by_sweep = dict(zip(numbered["sweep"], numbered["changed"]))
    return [analyse(group, key, noise, confidence,  # a loop over series
                    references.get((*key[:3], tracked.DELTA_OF.get(key[3], key[3])), math.nan), by_sweep)
            for key, group in points.groupby(SERIES, sort=False)]


def sweeps(points: pd.DataFrame) -> pd.DataFrame:
    """The recorded sweeps, numbered #1… in time order, with their facts and what changed since the sweep
    before them (history_facts.changed)."""
    table = points.drop_duplicates("sweep")[["sweep", "started_at", "seed", "suite_version", "machine_id", "kind",
                                             "machine"]]
    table = table.reset_index(drop=True).assign(number=lambda t: t.index + 1)
    return table.assign(changed=history_facts.changed(table))
