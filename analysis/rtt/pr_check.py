"""A pull-request check's findings: head − base at each setting, its p50 and p99 decided as the sweep decided them
(the error held over the check: its design's α), and each end's CPU per message beside them."""

# The comparisons are the sweep's (sweepkit/looks.py, the head against the base alone), read again here with the same
# code (runs.paired → suite/sequential.py), so a verdict is the one the sweep stopped on; their intervals are the
# looks' repeated ones at the held α. The CPU figures are told, not called: they are outside the family.

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from suite import fmt, sequential
from suite.runtimes import BASELINE

from .. import pairing
from .. import uncertainty as u
from ..sweep import NothingUsable
from . import costs, runs
from .runs import DIMENSIONS

FIGURES = ("p50", "p99")
ENDS = costs.ENDS


@dataclass(frozen=True)
class Setting:
    """One setting of the check: what each line measured there and head − base's comparisons."""

    transport: str
    interval_s: float
    dimensions: dict
    base: dict  # figure (FIGURES) → base's pooled quantile, ns
    head: dict
    std: dict  # std's, the reference line's
    compared: dict  # figure → pairing.Paired (head − base, as the sweep decided it), or None
    cpu: dict  # end → u.Estimate of head − base's CPU µs per message (95 %), or None
    disturbed: tuple  # "stem: why" of each disturbed run of the setting's three lines

    @property
    def words(self) -> str:
        """"back-to-back TCP, 10 decoy tasks" (and the shape where it is not the default: ", open loop")."""
        tasks = self.dimensions.get("tasks")
        return (f"{fmt.rate_words(self.interval_s)} {self.transport.upper()}"
                + (f", {tasks} decoy tasks" if tasks else "") + runs.shape(self.dimensions))

    @property
    def verdict(self) -> str:
        """The setting's: slower or faster where a figure was called so (slower first), same where both were,
        else undecided (refused or one round included: nothing is called where the data carry nothing)."""
        said = [c.verdict if c else "" for c in self.compared.values()]
        for call in (sequential.SLOWER, sequential.FASTER):
            if call in said:
                return call
        return sequential.SAME if all(s == sequential.SAME for s in said) else sequential.UNDECIDED

    def called(self, verdict: str) -> list[tuple[str, pairing.Paired]]:
        """The figures called `verdict`, with their comparisons."""
        return [(f, c) for f, c in self.compared.items() if c is not None and c.verdict == verdict]

    def share(self, figure: str, end: str = "value") -> float:
        """A figure's Δ (its estimate, or `low`/`high`) as a share of base's own figure; NaN without one."""
        c, reference = self.compared.get(figure), self.base.get(figure, math.nan)
        if c is None or c.delta is None or not reference:
            return math.nan
        return getattr(c.delta, end) / reference


def of(found, info: dict) -> list[Setting]:
    """The check's settings in the sweep's order, from a collected sweep (analysis/sweep.py) and its sweep.json."""
    pr = info.get("pr")
    if not isinstance(pr, dict):
        raise NothingUsable(f"{found.folder}: not a pull-request check's sweep (its sweep.json has no `pr`): run "
                            "./run-localhost.sh --pr RUNTIME@path:DIR:BASE..HEAD")
    head, base = pr["head"]["label"], pr["base"]["label"]
    table, frame = found.points, found.runs
    against = {head: base}
    compared = {figure: runs.paired(table, frame, found.noise, against, figure) for figure in FIGURES}
    cpu = _cpu(frame, head, base)
    setting = list(runs.SETTING)
    level = {(row["framework"], *[row[c] for c in setting]): {f: row[f] for f in FIGURES}
             for row in table.to_dict("records")}  # a loop over points
    out = []
    for i, row in enumerate(table.to_dict("records")):  # a loop over points
        if row["framework"] != head:
            continue
        key = tuple(row[c] for c in setting)
        mine = frame[(frame[setting] == pd.Series(dict(zip(setting, key)))).all(axis=1)]
        shaken = tuple(f"{Path(s).name}: {w}" for s, w in zip(mine["source"], mine["disturbed"])
                       if isinstance(w, str) and w)
        out.append(Setting(row["transport"], float(row["interval_s"]), {d: row[d] for d in DIMENSIONS},
                           level.get((base, *key), {}), level[(head, *key)], level.get((BASELINE, *key), {}),
                           {f: compared[f][i] for f in FIGURES}, {end: cpu.get((end, key)) for end in ENDS}, shaken))
    if not out:
        raise NothingUsable(f"{found.folder}: no run of {head} was measured")
    return out


def _cpu(frame: pd.DataFrame, head: str, base: str) -> dict:
    """(end, setting) → head − base's CPU µs per message, paired by round (95 %: costs.paired_cost); none without
    counters."""
    per_run = costs.per_run(frame)
    mine = per_run[per_run["framework"] == head]
    return {(end, tuple(key)): costs.paired_cost((head, *key, end), "cpu_us_per_msg", group, per_run, base)
            for (*key, end), group in mine.groupby([*runs.SETTING, "end"], sort=False)}  # a loop over points' ends


def failing(settings: list[Setting], percent: float) -> list[tuple[Setting, str]]:
    """The settings called slower whose Δ's interval lies wholly beyond `percent` of base's figure: (setting,
    figure); what --fail-on-slower fails on, so a job fails only on a regression the check is sure of."""
    return [(s, figure) for s in settings for figure, _ in s.called(sequential.SLOWER)
            if s.share(figure, "low") * 100 >= percent]


def levels(settings: list[Setting]) -> tuple[float, float]:
    """The lowest and highest confidence of the intervals printed (each its deciding look's)."""
    found = [c.confidence for s in settings for c in s.compared.values() if c is not None and c.delta is not None]
    return (min(found), max(found)) if found else (u.CONFIDENCE, u.CONFIDENCE)
