"""RTT runs: a log's metadata, one run's statistics from its CSV, and what a point adds (Δ vs std)."""

# No drawing here: parse.py's table path reads and combines without matplotlib.

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from suite import dimensions, sequential
from suite.palette import is_reference
from suite.runtimes import BASELINE

from .. import load, pairing, stats
from ..uncertainty import CONFIDENCE

DIMENSIONS = dimensions.names("rtt")  # tasks, connections, load: suite/dimensions.py's table
# A point but its framework (sweepkit.plan.Point.setting): a Δ vs std pairs the runs of one setting and
# round, which ORDER=blocks runs back to back.
SETTING = ("transport", "payload", "interval_s", *DIMENSIONS)
KEYS = ("framework", *SETTING)
# The dimensions that split a sweep's pages and name a point's shape in titles: all but the decoy count,
# which every title names and the tasks figure draws on its axis.
SHAPE = tuple(name for name in DIMENSIONS if name != "tasks")
# A shape dimension's value in words, when not its default; another dimension reads ", NAME VALUE".
WORDS = {"connections": ", {} connections", "load": ", {} loop"}
# A point's quantiles, of its runs' samples pooled (points.py, quantiles.py), each with its interval: a run's
# column of sorted samples → {metric: q}.
POOLED = {stats.SORTED: {name: p / 100 for name, p in stats.PERCENTILES.items()},
          stats.LATENCY_SORTED: {name: p / 100 for name, p in stats.LATENCY_PERCENTILES.items()}}
METRICS = ()  # every statistic with an interval is a pooled quantile
# Plain means over the repeats: the mean RTT (each run's mean, so every run weighs the same), the rate, and
# each run's own spread across its connections.
MEANS = ("mean", "achieved_rate", "conn_p50_min", "conn_p50_max", "conn_p99_min", "conn_p99_max")
SUMS = ("n", "lost", "http_not_2xx")
MISSED_BY = 0.05  # an achieved rate this far from the target, either way, is flagged
# Tails compared as the median is: a Δ vs std of each of these, paired by round (quantiles.paired_deltas).
TAIL_DELTAS = {"p99": 0.99}


def shape(key) -> str:
    """The SHAPE dimensions of `key` (a mapping) in words (", 100 connections, open loop"), each only where it is
    not its default, so that a sweep without CONNECTIONS and LOAD reads as before (page titles, the PR comment)."""
    return "".join(WORDS.get(name, f", {name} {{}}").format(key[name]) for name in SHAPE
                   if name in key and key[name] != dimensions.by_name(name).value)


def run_meta(data: dict) -> dict:
    """The metadata of an RTT log the schema accepted, in the vocabulary of the rest of the toolkit.
    A log without a dimension's field (from before it, or the ICMP reference's, whose are null) ran its
    default: without `connections` and `load`, one connection in a closed loop: one stream of messages,
    each sent when the one before it was answered or due, which is what such a ping ran."""
    load.needed(data, "interval_s", "payload", "tasks")
    interval, target = float(data["interval_s"]), data["target_rate"]
    return {
        **load.series(data),
        "transport": data["transport"],
        "payload": int(data["payload"]),
        "interval_s": interval,
        "target_rate": float(target) if target is not None else (1.0 / interval if interval > 0 else math.inf),
        "achieved_rate": data["achieved_rate"],
        **dimensions.read("rtt", data),
        "window": data.get("window"),
        **http_facts(data.get("http")),
        "starved": (data.get("per_connection") or {}).get("starved"),
        "json_latency_n": (data.get("latency_ns") or {}).get("n"),
        "lost": data["lost"],
        "complete": data["complete"] is not False,
        "pacing": data["pacing"],
        "started_at": data["started_at"],
        "host": data["host"],
        "address": data["address"],
        "json_n": data["rtt_ns"]["n"],
        "format": data["schema"],
        "time_estimated": False,
        "details": {k: v for k, v in data.items() if k not in ("rtt_ns", "latency_ns", "per_connection")},
    }


def http_facts(http: dict | None) -> dict:
    """An HTTP log's `http` object (null over TCP and UDP, absent before it): the bytes of a round trip's
    request and response heads, and the replies that were not 2xx (counted there, never samples)."""
    if not isinstance(http, dict):
        return {"http_head_bytes": None, "http_not_2xx": None}
    heads = [http.get("request_head_bytes"), http.get("response_head_bytes")]
    statuses = http.get("statuses") or {}
    return {"http_head_bytes": sum(heads) if all(isinstance(h, int) for h in heads) else None,
            "http_not_2xx": sum(int(n) for code, n in statuses.items() if not str(code).startswith("2"))}


def run(csv: Path, meta: dict, with_time: bool) -> tuple[dict, stats.Shape | None]:
    """One run's statistics and Shape from its CSV. A CSV with another number of samples than its JSON
    says was cut short or spoilt: a load.LogError, as an unreadable one."""
    rtt, t, conn, latency = load.read_samples(csv, with_time, conn=meta["connections"] > 1,
                                              latency=meta["load"] == "open")
    for name, key, counted in (("n", "json_n", len(rtt)), ("latency_ns.n", "json_latency_n",
                                                            None if latency is None else len(latency))):
        if meta[key] is not None and counted is not None and meta[key] != counted:
            raise load.LogError(f"{counted} samples but its JSON says {name} = {meta[key]}")
    return stats.describe(rtt, t, conn, latency)


def older_runs(found: load.Found, with_time: bool, warn):
    """The runs of the 2022 suite's CSVs (RTTs only): (metadata, measure) with measure() → run()'s result."""
    for csv in found.old_csvs:
        try:
            old_runs = load.read_2022(csv, "rtt", with_time)
        except load.LogError as e:
            warn(csv, str(e))
            continue
        for meta, rtt, t in old_runs:
            yield meta, lambda rtt=rtt, t=t: stats.describe(rtt, t)


def missed(frame: pd.DataFrame) -> pd.Series:
    """Whether the rate achieved is more than MISSED_BY off the one asked for, short of it or beyond it."""
    achieved, target = frame["achieved_rate"].astype(float), frame["target_rate"].astype(float)
    return np.isfinite(target) & ((achieved - target).abs() > MISSED_BY * target)


def tidy(runs: pd.DataFrame) -> pd.DataFrame:
    """Whether each run missed its rate; the HTTP facts null where no log had them (the 2022 suite's CSVs)."""
    absent = {name: None for name in http_facts(None) if name not in runs}
    return runs.assign(missed_rate=missed(runs), **absent)


def finish(table: pd.DataFrame, runs: pd.DataFrame, noise: float) -> pd.DataFrame:
    """A point's extremes (min, max; starved: the most connections that starved in any repeat, None: not
    recorded), whether it missed its rate, its Δs vs std and a variant's Δp50 vs its base runtime."""
    point = list(KEYS)
    extremes = runs[["min", "max", "starved"]].apply(pd.to_numeric, errors="coerce").groupby(
        [runs[c] for c in point], sort=False).agg({"min": "min", "max": "max", "starved": "max"}).reset_index()
    table = table.merge(extremes, on=point, how="left")
    table = with_deltas(table.assign(missed_rate=missed(table)), runs, noise)
    return with_base_deltas(with_tail_deltas(table, runs, noise), runs, noise)


def has_deltas(points: pd.DataFrame) -> bool:
    return bool(((points["verdict"] != "") & points["delta_p50"].notna()).any())


# A comparison's fields (pairing.Paired, flattened by _fields) under each set of a point's columns it fills.
P50_COLUMNS = {"delta_p50": "delta", "delta_p50_low": "low", "delta_p50_high": "high", "pairs": "rounds",
               "verdict": "verdict", "mde_p50": "mde", "mde_p50_pct": "mde_pct", "delta_method": "method",
               "decided_at": "decided_at", "delta_look": "look", "delta_confidence": "confidence"}
BASE_COLUMNS = {"delta_base_p50": "delta", "delta_base_p50_low": "low", "delta_base_p50_high": "high",
                "verdict_base": "verdict", "decided_at_base": "decided_at"}


def tail_columns(name: str) -> dict[str, str]:
    """A tail's Δ columns (delta_p99, …) → its comparison's fields."""
    return {f"delta_{name}": "delta", f"verdict_{name}": "verdict", f"mde_{name}": "mde",
            f"delta_{name}_low": "low", f"delta_{name}_high": "high", f"mde_{name}_pct": "mde_pct",
            f"delta_{name}_refused": "refused", f"decided_at_{name}": "decided_at"}


def _fields(found: pairing.Paired | None) -> dict:
    """A comparison as plain fields; a point with nothing to compare against holds NaN, 0 rounds and ""."""
    delta = found.delta if found else None
    return {"delta": delta.value if delta else math.nan, "low": delta.low if delta else math.nan,
            "high": delta.high if delta else math.nan, "verdict": found.verdict if found else "",
            "mde": found.mde if found else math.nan, "mde_pct": found.mde_pct if found else math.nan,
            "rounds": found.rounds if found else 0, "method": found.method if found else "",
            "refused": str(found.refused) if found and found.refused else "",
            "decided_at": found.decided_at if found and found.decided_at is not None else math.nan,
            "look": found.look if found and found.look is not None else math.nan,
            "confidence": found.confidence if found else math.nan}


def _assign(table: pd.DataFrame, found: list, columns: dict[str, str]) -> pd.DataFrame:
    """`table` with each point's comparison (found, in the table's order) under `columns`."""
    fields = [_fields(f) for f in found]
    return table.assign(**{column: [f[field] for f in fields] for column, field in columns.items()})


def with_deltas(table: pd.DataFrame, runs: pd.DataFrame, noise: float) -> pd.DataFrame:
    """Δp50 = runtime − std at the same setting, each pair std's run of the same setting and round (rounds
    both measured; under ORDER=blocks its block's, seconds apart), with its interval, verdict and minimum
    detectable Δ (pairing.pair; P50_COLUMNS: mde_p50 in ns, NaN with one pair); empty for std and references."""
    return _assign(table, paired(table, runs, noise, _against_std(table)), P50_COLUMNS)


def _against_std(table: pd.DataFrame) -> dict:
    """Each line → std, what its Δ is against; std and the references → None (no Δ)."""
    return {row.framework: None if row.framework == BASELINE or is_reference(row.framework) else BASELINE
            for row in table.itertuples()}


def with_base_deltas(table: pd.DataFrame, runs: pd.DataFrame, noise: float) -> pd.DataFrame:
    """A variant's Δp50 against its base runtime's line at the same setting, paired by round as the Δ vs std is
    (tokio-old − tokio: a version against today's; tokio-ct − tokio: an option's cost): BASE_COLUMNS; empty for a
    line that is no variant or whose base was not measured."""
    bases = table.loc[table["variant"].notna(), ["framework", "base"]] if "variant" in table else table.iloc[:0]
    against = {label: base for label, base in bases.itertuples(index=False) if (table["framework"] == base).any()}
    return _assign(table, paired(table, runs, noise, against), BASE_COLUMNS)


def paired(table: pd.DataFrame, runs: pd.DataFrame, noise: float, against: dict, figure: str = "p50") -> list:
    """Per point, its Δ of the runs' `figure` (p50, p99: a pairing.Paired of their values by round, decided as the
    sweep decided it) against the line `against[framework]` names at the same setting; None where it names none,
    or that line has no value there."""
    point = list(KEYS)
    per_round = runs.groupby([*point, "round"], sort=False)[figure].mean().dropna()
    rounds = {key: dict(group.droplevel(point).items()) for key, group in per_round.groupby(level=point, sort=False)}
    value_of = dict(zip(table[point].itertuples(index=False, name=None), table[figure]))
    schedule_of = dict(zip(table[point].itertuples(index=False, name=None), table["schedule"]))
    out = []
    for key in table[point].itertuples(index=False, name=None):  # a loop over points
        framework, *setting = key
        base = (against.get(framework), *setting)
        theirs = rounds.get(base) if base[0] is not None else None
        # Both lines from one sweep: its looks; else (sweeps read together) one look after their rounds.
        schedule = schedule_of[key] if schedule_of[key] == schedule_of.get(base) else sequential.Schedule()
        out.append(None if theirs is None else pairing.decide(rounds.get(key, {}), theirs, value_of[base], schedule,
                                                              noise, figure))
    return out


def samples_by_round(runs: pd.DataFrame) -> dict:
    """Point key → {round: its sorted samples} (two logs of one point and round: both, pooled)."""
    point = list(KEYS)
    out: dict = {}
    for (*key, round_), group in runs.groupby([*point, "round"], sort=False)[stats.SORTED]:  # a loop over runs
        samples = list(group)
        out.setdefault(tuple(key), {})[round_] = samples[0] if len(samples) == 1 else np.sort(np.concatenate(samples))
    return out


def with_tail_deltas(table: pd.DataFrame, runs: pd.DataFrame, noise: float) -> pd.DataFrame:
    """For each of TAIL_DELTAS (p99): its Δ = runtime − std at the same setting over the rounds both measured,
    each side's quantile of its runs' samples pooled, paired by round (pairing.pooled), with its verdict and
    minimum detectable Δ (tail_columns); refused where either side cannot carry the quantile; empty for std
    and the references."""
    point = list(KEYS)
    measured = {key: {r: s for r, s in rounds.items() if len(s)} for key, rounds in samples_by_round(runs).items()}
    for name, q in TAIL_DELTAS.items():
        stopped = _stopped_on(table, runs, noise, name)
        found = []
        for row, stop in zip(table.to_dict("records"), stopped):  # a loop over points
            framework, *setting = key = tuple(row[c] for c in point)
            base = (BASELINE, *setting)
            theirs = measured.get(base)
            if framework == BASELINE or is_reference(framework) or not theirs:
                found.append(None)
                continue
            reference = table.loc[(table[point] == pd.Series(dict(zip(point, base)))).all(axis=1), name]
            # At the look that decided the Δp50 (STOP_ON=p50,p99: the runs' p99s), or its last: its level, the
            # rounds up to it, the tail's margin. The interval is a repeated one: valid whatever stopped the line.
            look, confidence = (stop.look, stop.confidence) if stop else (row["delta_look"], row["delta_confidence"])
            tail = pairing.pair(measured.get(key, {}), theirs, float(reference.iloc[0]) if len(reference)
                                else math.nan, statistic=pairing.pooled(name, q), noise=noise,
                                margin=row["schedule"].margin_p99,
                                confidence=confidence if math.isfinite(confidence) else CONFIDENCE,
                                through=int(look) if look is not None and math.isfinite(look) else None)
            decided = stop and stop.decided_at is not None and tail.verdict not in ("", "unknown", "undecided")
            found.append(replace(tail, decided_at=stop.decided_at) if decided else tail)
        table = _assign(table, found, tail_columns(name))
    return table


def _stopped_on(table: pd.DataFrame, runs: pd.DataFrame, noise: float, name: str) -> list:
    """Per point, where a sweep with STOP_ON=p50,p99 decided its runs' `name` (p99) against std's, as it did
    (a pairing.Paired: its look and level); None where the sweep stopped on its p50s alone."""
    asked = [name in (row.schedule.design.stop_on if row.schedule.design else ()) for row in table.itertuples()]
    if not any(asked):
        return [None] * len(table)
    return [found if ask else None for found, ask in zip(paired(table, runs, noise, _against_std(table), name), asked)]
