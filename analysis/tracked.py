"""What a sweep gives to tracking over time: each point's tracked metrics by a stable name, and the sweep's facts.

One row per point and metric (the kind's `tracked`: RTT p50 and p99, throughput msg/s, micro ns/op and op/s),
with its 95 % interval, its repeats' own values, how it was made of them (estimator), the runtime's version, and
a verdict with the round of the look that decided it (decided_at); a
metric its samples cannot carry is left out, and said (left_out); a row per paired Δ the kind's table computed
(Δp50 vs std, vs a variant's base: DELTAS), the series that cancel the machine; and the facts that say which sweep
it was (start, seed, suite commit, machine fingerprint). The exports (export.py) and the history
(history_db.py) read these and nothing else of a sweep, so that a point has the same name in each.
"""

import hashlib
import json
import math
from dataclasses import dataclass

import pandas as pd

from suite import dimensions
from suite.runtimes import BASELINE

from .sweep import NothingUsable
from . import uncertainty as u
from .uncertainty import INTERVAL_METHOD

# The host facts of sweep.json that decide a latency (the system check's): a history compares only the
# sweeps of one fingerprint.
MACHINE = ("host", "cpu_model", "arch", "cpus_online", "kernel", "cpuidle_driver", "idle_states",
           "guest_halt_poll_ns", "clocksource")
UNKNOWN = "unknown"
COLUMNS = ["benchmark", "measure", "unit", "lower_is_better", "value", "low", "high", "repeats", "method",
           "verdict", "runtime", "runtime_version", "values", "estimator", "against", "decided_at"]
# How a point's value was made of its runs: a quantile of all their samples pooled (RTT since issue 39), or a
# statistic of each run combined across them (a mean over repeats: RTT before, throughput and micro). A history
# keeps the two apart, so that a change of method is never read as a change of the runtime.
POOLED, PER_RUN = "pooled", "per-run"
PAIRED = "paired"  # a Δ between two lines of one sweep, paired by round (the kind's table computes it)


@dataclass(frozen=True)
class Delta:
    """A paired Δ a kind's table may hold for a point (runtime − the line it is against, over the rounds both
    ran): its measure's name, its columns (COLUMN, COLUMN_low, COLUMN_high), its verdict's column and the column
    of the round of the look that decided it. The
    machine's drift between sweeps moves both lines of a pair alike, so a Δ's series keeps still where a level's
    moves: the series a CI gate should alert on."""

    measure: str
    column: str
    verdict: str
    decided: str
    against: str | None  # the line it is against; None: the point's own `base` (a variant's runtime)
    of: str  # the measure of the level it is a Δ of


DELTAS = (Delta("delta-latency", "delta_p50", "verdict", "decided_at", BASELINE, "latency"),
          Delta("delta-base-latency", "delta_base_p50", "verdict_base", "decided_at_base", None, "latency"))
DELTA_OF = {d.measure: d.of for d in DELTAS}


@dataclass(frozen=True)
class Facts:
    """Which sweep this was: the same facts in every export and in the history."""

    started_at: str  # ISO 8601, UTC: when the sweep started
    seed: int | None  # its shuffle's seed (sweep.json); None without a sweep.json
    suite_version: str  # the suite's git commit the sweep ran, or "unknown"
    machine: dict  # the fingerprint: MACHINE's facts of each host, and how idle CPUs were held
    kind: str  # of the logs read

    @property
    def machine_id(self) -> str:
        """A short stable name of the fingerprint: a history compares sweeps of one machine id."""
        return _digest(self.machine)[:12]

    @property
    def identity(self) -> str:
        """The sweep itself, wherever its folder was copied: its start, seed, machine and kind of log."""
        return _digest([self.started_at, self.seed, self.machine, self.kind])

    @property
    def machine_name(self) -> str:
        """The fingerprint in words: "vm: AMD EPYC, kernel 6.18.44, cpuidle haltpoll (held at 0 us)"."""
        hosts = [f"{h.get('host', UNKNOWN)}: {h.get('cpu_model', UNKNOWN)}, kernel {h.get('kernel', UNKNOWN)}, "
                 f"cpuidle {h.get('cpuidle_driver', UNKNOWN)}" for h in self.machine["hosts"]]
        return "; ".join(hosts) + f"; idle CPUs held: {self.machine['cpu_dma_latency']}"


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def facts(infos: dict, runs: pd.DataFrame, kind: str) -> Facts:
    """The facts of the one sweep under a folder, from its sweep.json (without one, what its logs say).
    Raises NothingUsable for a folder of several sweeps: each is tracked on its own."""
    if len(infos) > 1:
        raise NothingUsable(f"{len(infos)} sweeps (sweep.json files) under the folder: export or record one sweep "
                            f"folder at a time, e.g. {sorted(infos)[0].parent}")
    if infos:
        info = next(iter(infos.values()))
        hosts = info.get("hosts") if isinstance(info.get("hosts"), dict) else {}
        machine = {"hosts": [{k: host.get(k, UNKNOWN) for k in MACHINE} for _, host in sorted(hosts.items())
                             if isinstance(host, dict)],
                   "cpu_dma_latency": info.get("cpu_dma_latency", UNKNOWN)}
        commits = sorted({str(f.get("suite_commit")) for f in hosts.values() if isinstance(f, dict)
                          and f.get("suite_commit")})
        seed = info.get("seed")
        return Facts(str(info.get("started_at", UNKNOWN)), int(seed) if isinstance(seed, int) else None,
                     ",".join(commits) or UNKNOWN, machine, kind)
    # Logs without a sweep.json (copied alone, or an older suite's): what each log says of its host.
    details = [d for d in runs.get("details", pd.Series(dtype=object)) if isinstance(d, dict)]
    first = details[0] if details else {}
    machine = {"hosts": [{k: first.get(k, UNKNOWN) for k in MACHINE}], "cpu_dma_latency": UNKNOWN}
    started = runs["started_at"].dropna().astype(str)
    return Facts(started.min() if len(started) else UNKNOWN, None, str(first.get("suite_version", UNKNOWN)),
                 machine, kind)


def _number(value: float) -> str:
    value = float(f"{float(value):.6g}")
    return f"{value:.0f}" if value.is_integer() else f"{value:g}"


def _word(key: str, value) -> str:
    if key == "interval_s":  # the rate asked for, as -r takes it
        return "b2b" if value <= 0 or not math.isfinite(value) else f"{_number(1 / value)}msg_s"
    if key == "payload":
        return f"{int(value)}B"
    dimension = dimensions.by_name(key)
    if dimension is not None:
        return dimension.word.format(dimension.type(value))
    return value if isinstance(value, str) else f"{_number(value)}{key}"


def name(point: dict, keys) -> str:
    """A point's benchmark name, stable from sweep to sweep: its keys' values in the kind's order,
    tokio/tcp/64B/1000msg_s/0tasks/1conn/closed; a key without a value (a micro benchmark's unused sizes) is
    left out."""
    return "/".join(_word(k, point[k]) for k in keys
                    if point[k] is not None and not (isinstance(point[k], float) and math.isnan(point[k])))


def _known(value) -> bool:
    return value is not None and not pd.isna(value)


def measures(sweep, kind) -> pd.DataFrame:
    """One row per point and tracked metric of a sweep of `kind` (COLUMNS), in the sweep's display order; a metric
    a point has no value of (a micro benchmark not run) is left out."""
    keys = list(kind.keys)
    points, runs = sweep.points, sweep.runs
    run_names = pd.Series([name(r, keys) for r in runs[keys].to_dict("records")], index=runs.index)
    versions = runs["details"].map(lambda d: str(d.get("framework_version") or UNKNOWN) if isinstance(d, dict)
                                   else UNKNOWN).groupby(run_names, sort=False).first()
    repeats = {t.column: _own_values(runs, kind, t.column).groupby(run_names, sort=False).agg(
        lambda v: v.dropna().tolist()) for t in kind.tracked}  # each point's repeats' own values
    pooled = {metric for wanted in kind.pooled.values() for metric in wanted}
    rows = []
    for point in points.to_dict("records"):  # a loop over points
        benchmark = name(point, keys)
        for tracked in kind.tracked:
            value = point.get(tracked.column)
            if not _known(value):  # never measured, or refused: the samples cannot carry it (left_out says so)
                continue
            method = tracked.method or INTERVAL_METHOD.get(point.get("method"), UNKNOWN)
            rows.append({"benchmark": benchmark, "measure": tracked.measure, "unit": tracked.unit,
                         "lower_is_better": tracked.lower_is_better, "value": float(value),
                         "low": float(point.get(f"{tracked.column}_low", math.nan)),
                         "high": float(point.get(f"{tracked.column}_high", math.nan)),
                         "repeats": int(point["repeats"]), "method": method,
                         "verdict": point.get("verdict") or "", "runtime": point["framework"],
                         "runtime_version": versions.get(benchmark, UNKNOWN),
                         "values": repeats[tracked.column].get(benchmark, []),
                         "estimator": POOLED if tracked.column in pooled else PER_RUN, "against": "",
                         "decided_at": _round(point.get("decided_at"))})  # its verdict's, the Δp50 vs std's
        rows += _deltas(point, benchmark, versions.get(benchmark, UNKNOWN))
    return pd.DataFrame(rows, columns=COLUMNS)


def _deltas(point: dict, benchmark: str, version: str) -> list[dict]:
    """A point's rows of DELTAS: those its table computed with an interval; a Δ vs a base that is the
    BASELINE is the Δ vs std already, and left out."""
    rows = []
    for delta in DELTAS:
        against = delta.against or point.get("base")
        value = point.get(delta.column)
        if not _known(value) or not point.get(delta.verdict) or not isinstance(against, str) or (
                delta.against is None and against == BASELINE):
            continue
        rows.append({"benchmark": benchmark, "measure": delta.measure, "unit": "ns", "lower_is_better": True,
                     "value": float(value), "low": float(point.get(f"{delta.column}_low", math.nan)),
                     "high": float(point.get(f"{delta.column}_high", math.nan)),
                     "repeats": int(point["pairs"] if delta.against and _known(point.get("pairs"))
                                    else point["repeats"]),
                     "method": INTERVAL_METHOD.get(point.get("delta_method"), "paired-by-round"),
                     "verdict": point[delta.verdict], "runtime": point["framework"], "runtime_version": version,
                     "values": [], "estimator": PAIRED, "against": against,
                     "decided_at": _round(point.get(delta.decided))})
    return rows


def _round(value) -> int | None:
    """The round of the look that decided a comparison; None where none did (undecided, or no looks)."""
    return int(value) if _known(value) else None


def _own_values(runs: pd.DataFrame, kind, column: str) -> pd.Series:
    """Each run's own value of a tracked metric; for a pooled quantile only where the run's samples carry it
    (suite.percentile.min_samples), NaN elsewhere: a run's p99 of 100 samples is its maximum, not a p99."""
    values = pd.to_numeric(runs[column], errors="coerce")
    for samples, wanted in kind.pooled.items():
        if column in wanted:
            return values.where(runs[samples].map(len) >= u.min_samples(wanted[column]))
    return values


def left_out(sweep, kind) -> list[str]:
    """The tracked metrics a sweep's points could not carry, in words: "std/tcp/…/closed p99-latency: n = 80: too
    few for p99". The exports and the history leave them out, and say so with these."""
    keys = list(kind.keys)
    out = []
    for point in sweep.points.to_dict("records"):  # a loop over points
        for tracked in kind.tracked:
            reason = point.get(f"{tracked.column}_refused")
            if reason:
                out.append(f"{name(point, keys)} {tracked.measure}: {reason}")
    return out
