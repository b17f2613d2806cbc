"""What each end of an RTT run did per message (CPU time, user and kernel, system calls, switches, wake-ups), per
point and end, with intervals across runs and Δs vs std (docs/analysis.md, "What each end did per message")."""

import math
from pathlib import Path

import numpy as np
import pandas as pd

from suite.palette import is_reference
from suite.runtimes import BASELINE

from .. import load, pairing
from .. import uncertainty as u
from .runs import KEYS

# A cost's column → (the log's counter, its factor to the column's unit).
COSTS = {
    "cpu_us_per_msg": ("cpu_ns", 1e-3),
    "user_us_per_msg": ("user_ns", 1e-3),
    "kernel_us_per_msg": ("kernel_ns", 1e-3),
    "syscalls_per_msg": ("syscalls", 1),
    "switches_per_msg": ("switches", 1),
    "wakeups_per_msg": ("wakeups_made", 1),
}
ENDS = ("ping", "pong")
# /proc gives user and kernel time in clock ticks of 1/USER_HZ s (100 on every architecture Linux runs this on),
# split by the mode each tick found the process in: a share from k ticks is a binomial proportion, within about
# ±1/√k. A point and end's split is printed from MIN_TICKS ticks over its runs (±0.1 of the CPU time), as a
# quantile is from its samples; below, it is refused.
TICK_NS = 10_000_000
MIN_TICKS = 100
SPLIT = ("user_us_per_msg", "kernel_us_per_msg")


def per_run(runs: pd.DataFrame) -> pd.DataFrame:
    """A row per run and end whose log has counters: the point's keys, its round, the end, each cost (NaN
    where that counter was unavailable) and the clock ticks behind its user/kernel split."""
    rows = []
    for key, round_, details in zip(runs[list(KEYS)].itertuples(index=False, name=None), runs["round"],
                                    runs["details"], strict=True):  # a loop over runs, not samples
        counters, sent = (details or {}).get("counters"), (details or {}).get("sent")
        if not counters or not sent:
            continue
        for end in ENDS:
            counts = counters.get(end) or {}
            values = {column: (counts.get(name) or {}).get("value") for column, (name, _) in COSTS.items()}
            user, kernel = values["user_us_per_msg"], values["kernel_us_per_msg"]
            rows.append({**dict(zip(KEYS, key)), "round": round_, "end": end,
                         **{c: math.nan if v is None else v * COSTS[c][1] / sent for c, v in values.items()},
                         "ticks": math.nan if user is None or kernel is None else (user + kernel) / TICK_NS})
    return pd.DataFrame(rows, columns=[*KEYS, "round", "end", *COSTS, "ticks"])


def probed_runs(runs: pd.DataFrame, infos: dict) -> pd.DataFrame:
    """The PROBED runs (sweep.json's `probed`: sweepkit/probed.py) of the points of `runs`, the sweeps' measured
    runs, shaped as those for per_run: the point's keys, its probed round, the counters and the messages sent.
    `infos`: each sweep.json path → its contents."""
    keys = {(Path(source).parent, load.ROUND.sub("", Path(source).name)): key
            for source, *key in runs[["source", *KEYS]].itertuples(index=False, name=None)}  # a loop over runs
    rows = []
    for path, info in infos.items():
        for entry in info.get("probed") or []:
            key = keys.get((path.parent, entry.get("point")))
            if key is not None and entry.get("status") == "ok":
                rows.append({**dict(zip(KEYS, key)), "round": entry.get("round"),
                             "details": {"counters": entry.get("counters"), "sent": entry.get("sent")}})
    return pd.DataFrame(rows, columns=[*KEYS, "round", "details"])


def points(runs: pd.DataFrame, probed: pd.DataFrame | None = None) -> pd.DataFrame:
    """A row per point and end: each cost's mean over the runs with its interval (`_low`, `_high`; none with
    one run), the runs that had it (`runs`: the most of any cost), and its Δ vs std (`delta_…`). A cost no
    measured run of the point counted (system calls and wake-ups, at COUNTERS=1) comes from its `probed` runs
    (probed_runs), if any: `probed` says how many, and its Δ pairs std's probed runs."""
    measured = per_run(runs)
    extra = per_run(probed) if probed is not None and len(probed) else measured.iloc[0:0]
    group = [*KEYS, "end"]
    extras = dict(iter(extra.groupby(group, sort=False))) if len(extra) else {}
    rows = []
    for key, mine in measured.groupby(group, sort=False):  # a loop over points and ends
        row, used = dict(zip(group, key)), 0
        for column in COSTS:
            # The measured runs' figure where they counted it, else the probed runs'; and the Δ likewise, where a
            # side's measured runs could not count it (std's switches: its connection threads end inside the
            # window, and /proc keeps nothing of an ended thread; perf, in the probed runs, keeps them).
            own = mine if mine[column].notna().any() or key not in extras else extras[key]
            if own is not mine:
                used = max(used, int(own[column].notna().sum()))
            values = own[column].dropna()
            estimate = u.across_runs(values, floor=0.0) if len(values) > 1 else None  # a cost is never below 0
            mean = float(values.mean()) if len(values) else math.nan
            change = _delta(key, column, mine, measured)
            if math.isnan(change.get(f"delta_{column}", 0.0)) and key in extras:
                change = _delta(key, column, extras[key], extra)
            row |= {column: mean, f"{column}_low": estimate.low if estimate else math.nan,
                    f"{column}_high": estimate.high if estimate else math.nan} | change
        row["runs"] = int(mine[list(COSTS)].notna().sum().max())
        ticked = mine if mine["ticks"].notna().any() or key not in extras else extras[key]
        rows.append(row | {"probed": used, "split_ticks": int(round(ticked["ticks"].sum()))})
    return refuse_splits(pd.DataFrame(rows))


def refuse_splits(table: pd.DataFrame) -> pd.DataFrame:
    """The points' rows with each user/kernel split of fewer than MIN_TICKS ticks blanked, its reason in
    `split_refused`, and its Δ blanked where either side's split is refused."""
    if table.empty:
        return table
    setting = [*KEYS[1:], "end"]
    carried = (table["split_ticks"] >= MIN_TICKS).to_numpy()
    refused = ~carried & table[list(SPLIT)].notna().any(axis=1).to_numpy()
    std = {key: ok for key, ok, framework in zip(table[setting].itertuples(index=False, name=None), carried,
                                                 table["framework"]) if framework == BASELINE}  # a loop over rows
    theirs = np.array([std.get(key, True) for key in table[setting].itertuples(index=False, name=None)])
    table = table.assign(split_refused=[f"{n} ticks: too few for user/kernel" if r else ""
                                        for n, r in zip(table["split_ticks"], refused)])
    for column in SPLIT:
        table.loc[~carried, [column, f"{column}_low", f"{column}_high"]] = math.nan
        deltas = [c for c in (f"delta_{column}", f"delta_{column}_low", f"delta_{column}_high") if c in table]
        table.loc[~(carried & theirs), deltas] = math.nan
    return table


def _delta(key: tuple, column: str, mine: pd.DataFrame, pool: pd.DataFrame) -> dict:
    """A point and end's Δ vs std of one cost (paired_cost) as its columns; empty for std and the references."""
    if key[0] == BASELINE or is_reference(key[0]):
        return {}
    change = paired_cost(key, column, mine, pool, BASELINE)
    return {f"delta_{column}": change.value if change else math.nan,
            f"delta_{column}_low": change.low if change else math.nan,
            f"delta_{column}_high": change.high if change else math.nan}


def paired_cost(key: tuple, column: str, mine: pd.DataFrame, pool: pd.DataFrame, against: str) -> u.Estimate | None:
    """A point and end's (key: framework, setting…, end) Δ of one cost against the line `against` at its setting and
    end, paired by round with that line's runs in `pool` (the measured runs, or the probed ones) as the Δp50 is
    (pairing.pair, no verdict: a cost has no noise threshold); None with nothing to pair."""
    _, *setting, end = key
    base = pool
    for name, value in zip([*KEYS[1:], "end"], [*setting, end], strict=True):
        base = base[base[name] == value]
    base = base[base["framework"] == against]
    theirs = base.groupby("round")[column].mean().dropna()
    ours = mine.groupby("round")[column].mean().dropna()
    return pairing.pair(dict(ours.items()), dict(theirs.items()), math.nan).delta


# breakdown()'s parts of a round trip, in the order they stack.
PARTS = ("ping_cpu", "pong_cpu", "rest")


def breakdown(table: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Where a point's round trip goes, a row per point of `table` (the sweep's points) whose runs counted both
    ends (ns): its mean RTT as each end's CPU per message (`_low`, `_high`) and the rest (the kernel's network path
    and waiting: the mean less both, never below 0), its p50; and beside its measured Δp50 vs std, each end's
    Δ CPU per message vs std, paired by round. A CPU figure is a whole process's per message, off the round
    trip's path too (a timer, a second thread, a poller), so the two may pass the RTT: `over` says by how much."""
    ends = points(runs)
    if ends.empty:
        return pd.DataFrame()
    cpu = {(tuple(r[k] for k in KEYS), r["end"]): r for r in ends.to_dict("records")}  # a loop over points
    rows = []
    for point in table.to_dict("records"):  # a loop over points
        key = tuple(point[k] for k in KEYS)
        mine = [cpu.get((key, end)) for end in ENDS]
        if any(m is None or not math.isfinite(m["cpu_us_per_msg"]) for m in mine):
            continue
        row = {k: point[k] for k in ("framework_rank", *KEYS, "p50", "mean", "delta_p50", "delta_p50_low",
                                      "delta_p50_high", "verdict")}
        for end, m in zip(ENDS, mine, strict=True):
            for s in ("", "_low", "_high"):
                row[f"{end}_cpu{s}"] = 1e3 * m[f"cpu_us_per_msg{s}"]
                row[f"delta_{end}_cpu{s}"] = 1e3 * m.get(f"delta_cpu_us_per_msg{s}", math.nan)
        both = row["ping_cpu"] + row["pong_cpu"]
        rows.append(row | {"rest": max(0.0, point["mean"] - both), "over": max(0.0, both - point["mean"])})
    return pd.DataFrame(rows)
