"""RTT runs: a log's metadata, one run's statistics from its CSV, and what a point adds (Δ vs std)."""

# No drawing here: parse.py's table path reads and combines without matplotlib.

import math
from pathlib import Path

import numpy as np
import pandas as pd

from suite import dimensions
from suite.palette import is_reference
from suite.runtimes import BASELINE

from .. import load, quantiles, stats
from .. import uncertainty as u

DIMENSIONS = dimensions.names("rtt")  # tasks, connections, load: suite/dimensions.py's table
# A point but its framework (sweepkit.plan.Point.setting): a Δ vs std pairs the runs of one setting and
# round, which ORDER=blocks runs back to back.
SETTING = ("transport", "payload", "interval_s", *DIMENSIONS)
KEYS = ("framework", *SETTING)
# The dimensions that split a sweep's pages and name a point's shape in titles: all but the decoy count,
# which every title names and the tasks figure draws on its axis.
SHAPE = tuple(name for name in DIMENSIONS if name != "tasks")
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
# Tails compared as the median is: a Δ vs std of each of these, paired by round (quantiles.paired_difference).
TAIL_DELTAS = {"p99": 0.99}


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


def with_deltas(table: pd.DataFrame, runs: pd.DataFrame, noise: float) -> pd.DataFrame:
    """Δp50 = runtime − std at the same setting (transport, payload, interval, tasks, connections and
    load), each pair std's run of the same setting and round (rounds both measured): under ORDER=blocks
    the run of its block, seconds apart; under ORDER=rounds, and in a sweep from before ORDER, a run of
    its round. The pairing reads only the logs, so it is the same for either. With its interval
    (uncertainty.paired_difference: signed-rank from 6 pairs, t below; delta_method says which), a
    verdict and the minimum detectable Δ (mde_p50, ns; NaN with one pair); empty for std and references."""
    against = {row.framework: None if row.framework == BASELINE or is_reference(row.framework) else BASELINE
               for row in table.itertuples()}
    found = paired_p50(table, runs, noise, against)
    return table.assign(**{name: [f.get(name, NONE.get(name, math.nan)) for f in found] for name in PAIRED})


def with_base_deltas(table: pd.DataFrame, runs: pd.DataFrame, noise: float) -> pd.DataFrame:
    """A variant's Δp50 against its base runtime's line at the same setting, paired by round as the Δ vs std is
    (tokio-old − tokio: a version against today's; tokio-ct − tokio: an option's cost): delta_base_p50, …_low,
    …_high, verdict_base; empty for a line that is no variant or whose base was not measured."""
    bases = table.loc[table["variant"].notna(), ["framework", "base"]] if "variant" in table else table.iloc[:0]
    against = {label: base for label, base in bases.itertuples(index=False) if (table["framework"] == base).any()}
    found = paired_p50(table, runs, noise, against)
    return table.assign(**{column: [f.get(name, NONE.get(name, math.nan)) for f in found] for column, name in
                           (("delta_base_p50", "delta_p50"), ("delta_base_p50_low", "delta_p50_low"),
                            ("delta_base_p50_high", "delta_p50_high"), ("verdict_base", "verdict"))})


# What paired_p50 finds of a point, and what it holds where there is nothing to pair (else NaN).
PAIRED = ("delta_p50", "delta_p50_low", "delta_p50_high", "pairs", "verdict", "mde_p50", "mde_p50_pct", "delta_method")
NONE = {"pairs": 0, "verdict": "", "delta_method": ""}


def paired_p50(table: pd.DataFrame, runs: pd.DataFrame, noise: float, against: dict) -> list[dict]:
    """Per point, its Δp50 against the line `against[framework]` names at the same setting (none: {}), over the
    rounds both measured: PAIRED's fields."""
    point = list(KEYS)
    per_round = runs.groupby([*point, "round"], sort=False)["p50"].mean().dropna()
    rounds = {key: group.droplevel(point) for key, group in per_round.groupby(level=point, sort=False)}
    p50_of = dict(zip(table[point].itertuples(index=False, name=None), table["p50"]))
    out = []
    for key in table[point].itertuples(index=False, name=None):  # a loop over points
        framework, *setting = key
        base = (against.get(framework), *setting)
        mine, theirs = rounds.get(key), rounds.get(base)  # each a p50 per round
        if base[0] is None or theirs is None:
            out.append({})
            continue
        common = mine.index.intersection(theirs.index) if mine is not None else []
        change = u.paired_difference(mine[common], theirs[common]) if len(common) else None
        found = {"pairs": len(common), "verdict": u.verdict(change, p50_of[base], noise) if change else "unknown"}
        if change:
            # The smallest Δ this sweep could have called: its test's, and never below the noise threshold.
            mde = max(u.detectable(change), noise * p50_of[base])
            found |= {"delta_p50": change.value, "delta_p50_low": change.low, "delta_p50_high": change.high,
                      "delta_method": change.method, "mde_p50": mde, "mde_p50_pct": 100 * mde / p50_of[base]}
        out.append(found)
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
    each side's quantile of its runs' samples pooled, with its interval paired by round
    (quantiles.paired_difference), a verdict and the minimum detectable Δ (delta_p99, …_low, …_high,
    verdict_p99, mde_p99, mde_p99_pct, delta_p99_refused); refused where either side cannot carry the quantile;
    empty for std and the references."""
    point = list(KEYS)
    samples = samples_by_round(runs)
    columns = {f"{c}_{name}": [] for name in TAIL_DELTAS for c in ("delta", "verdict", "mde")}
    columns |= {f"{c}_{name}{s}": [] for name in TAIL_DELTAS for c, s in
                (("delta", "_low"), ("delta", "_high"), ("mde", "_pct"), ("delta", "_refused"))}
    for row in table.to_dict("records"):  # a loop over points
        framework, *setting = key = tuple(row[c] for c in point)
        base = (BASELINE, *setting)
        mine, theirs = samples.get(key, {}), samples.get(base, {})
        common = [r for r in mine if r in theirs]
        found = {} if framework == BASELINE or is_reference(framework) or not common else \
            quantiles.paired_difference([mine[r] for r in common], [theirs[r] for r in common], TAIL_DELTAS)
        reference = table.loc[(table[point] == pd.Series(dict(zip(point, base)))).all(axis=1)]
        for name in TAIL_DELTAS:
            change = found.get(name)
            base_value = float(reference[name].iloc[0]) if len(reference) else math.nan
            estimate = change if isinstance(change, u.Estimate) else None
            columns[f"delta_{name}"].append(estimate.value if estimate else math.nan)
            columns[f"delta_{name}_low"].append(estimate.low if estimate else math.nan)
            columns[f"delta_{name}_high"].append(estimate.high if estimate else math.nan)
            columns[f"delta_{name}_refused"].append(str(change) if isinstance(change, quantiles.Refused) else "")
            called = u.verdict(estimate, base_value, noise) if estimate and math.isfinite(base_value) else ""
            columns[f"verdict_{name}"].append(called)
            mde = max(u.detectable(estimate), noise * base_value) if called and called != "unknown" else math.nan
            columns[f"mde_{name}"].append(mde)
            columns[f"mde_{name}_pct"].append(100 * mde / base_value if math.isfinite(mde) else math.nan)
    return table.assign(**columns)
