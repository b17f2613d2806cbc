"""A sweep as the figures and the table see it: one row per run (every repeat), and each run's shape."""

# A sweep as the figures and the table see it: one row per run, every repeat of a point kept (metadata and
# statistics) plus each run's small Shape (RTT) or Windows (throughput). Files are read one at a
# time and their samples dropped once described, so memory does not grow with the number of samples.

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import load, points, stats, style
from .points import MISSED_BY
from .uncertainty import NOISE


class NothingUsable(Exception):
    """No run is left to show; the message says why and what there is."""


@dataclass
class Filters:
    transports: list[str] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)  # msg/s; math.inf for back-to-back
    tasks: list[int] = field(default_factory=list)
    frameworks: list[str] = field(default_factory=list)

    def admit(self, meta: dict) -> bool:
        return (
            (not self.transports or meta["transport"] in self.transports)
            and (not self.frameworks or meta["framework"] in self.frameworks)
            and (not self.tasks or meta["tasks"] in self.tasks)
            and (not self.rates or any(_same_rate(meta["target_rate"], r) for r in self.rates))
        )

    def describe(self) -> str:
        parts = [f"-p {','.join(self.transports)}" if self.transports else "",
                 f"-r {_rates(self.rates)}" if self.rates else "",
                 f"-l {','.join(map(str, self.tasks))}" if self.tasks else "",
                 f"-f {','.join(self.frameworks)}" if self.frameworks else ""]
        return " ".join(p for p in parts if p)


def _rates(rates) -> str:
    """Rates as -r takes them: 100,1k,inf."""
    return ", ".join(style.si(r).replace(" ", "") if math.isfinite(r) else "inf" for r in sorted(set(rates)))


def _same_rate(a: float, b: float) -> bool:
    return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= 1e-6 * max(a, b))


@dataclass
class Sweep:
    folder: Path
    infos: dict  # Path of each sweep.json → its content
    runs: pd.DataFrame  # one row per run, in display order; index 0..n-1
    shapes: list  # stats.Shape or stats.Windows (None when a run has no samples), aligned with runs
    kind: str = "rtt"
    points: pd.DataFrame | None = None  # one row per point, repeats combined (points.combine)
    noise: float = NOISE  # changes below this share are called `same` (--noise)


def collect(folder: Path, kind: str, filters: Filters, with_time: bool, warn, noise: float = NOISE) -> Sweep:
    """Read, filter and describe every run of `kind` under `folder`, and combine its repeats into
    points (verdicts with the `noise` threshold, a share).

    Raises NothingUsable when no run is left, saying where it looked or what values exist."""
    found = load.scan(folder, kind, warn)
    style.add_variants({meta["framework"]: meta["base"] for _, meta in found.logs if meta.get("variant")})
    seen, rows, shapes = [], [], []  # seen: every run's metadata, for the message when none is left
    tried = 0

    def add(meta: dict, rtt: np.ndarray, t, conn=None, latency=None) -> None:
        scalars, shape = stats.describe(rtt, t, conn, latency)
        for key, json_key in (("n", "json_n"), ("latency_n", "json_latency_n")):
            if meta[json_key] is not None and meta[json_key] != scalars[key]:
                warn(Path(meta["source"] + ".csv"), f"{scalars[key]} samples but its JSON says "
                     f"{'n' if key == 'n' else 'latency_ns.n'} = {meta[json_key]}", skipped=False)
        rows.append({**meta, **scalars})
        shapes.append(shape)

    def add_windows(meta: dict, t, messages, size) -> None:
        scalars, windows = stats.window_rates(t, messages, size, meta["window_s"])
        for key, what in (("windows", "windows"), ("received", "messages")):
            if meta[f"json_{key}"] is not None and meta[f"json_{key}"] != scalars[key]:
                warn(Path(meta["source"] + ".csv"), f"{scalars[key]} {what} but its JSON says "
                     f"{key} = {meta[f'json_{key}']}", skipped=False)
        rows.append({**meta, **scalars})
        shapes.append(windows)

    for csv, meta in found.logs:
        seen.append(meta)
        if not filters.admit(meta):
            continue
        tried += 1
        try:
            if kind == "throughput":
                add_windows(meta, *load.read_windows(csv))
            else:
                add(meta, *load.read_samples(csv, with_time, conn=meta["connections"] > 1,
                                             latency=meta["load"] == "open"))
        except load.LogError as e:
            warn(csv, str(e))
    for csv in found.old_csvs if kind == "rtt" else ():  # the 2022 suite wrote RTTs only
        try:
            old_runs = load.read_2022(csv, kind, with_time)
        except load.LogError as e:
            warn(csv, str(e))
            continue
        for meta, rtt, t in old_runs:
            seen.append(meta)
            if filters.admit(meta):
                tried += 1
                add(meta, rtt, t)
    if not rows:
        raise NothingUsable(_why_nothing(folder, kind, found, seen, tried, filters))
    runs, shapes = _tidy(pd.DataFrame(rows), shapes, kind, warn)
    runs["one_end"] = runs["framework"].map(_one_end_variants(found.infos))
    runs["disturbed"] = runs["source"].map(lambda source: Path(source).name).map(_disturbed_runs(found.infos))
    return Sweep(folder, found.infos, runs, shapes, kind, points.combine(runs, kind, noise), noise)


def _disturbed_runs(infos: dict) -> dict[str, str]:
    """Log stem → why, for each run its sweep flagged as disturbed (sweep.json runs[].disturbed)."""
    return {r["stem"]: r["disturbed"] for info in infos.values() for r in info.get("runs") or ()
            if isinstance(r, dict) and r.get("disturbed")}


def _one_end_variants(infos: dict) -> dict[str, str]:
    """label → "pong --delay-ns 4000" for each variant whose arguments went to one end only (sweep.json
    says so; a log names only its own end's runtime_config)."""
    return {v["label"]: f"{v['end']} {' '.join(v['args'])}" for info in infos.values()
            for v in info.get("variants") or () if isinstance(v, dict) and v.get("end") in ("ping", "pong")}


def _why_nothing(folder: Path, kind: str, found: load.Found, seen: list, tried: int, filters: Filters) -> str:
    if tried:
        which = f" matching {filters.describe()}" if filters.describe() else ""
        return f"no usable {kind} log{which} in {folder}: every one was skipped (see the warnings above)"
    if seen:
        frame = pd.DataFrame(seen)
        values = (f"rates {_rates(frame['target_rate'])} msg/s" if kind == "rtt"
                  else f"payloads {_listing(frame['payload'])} B")
        return (f"no {kind} run in {folder} matches {filters.describe()}; there are "
                f"transports {_listing(frame['transport'])}, {values}, "
                f"tasks {_listing(frame['tasks'])}, frameworks {_listing(frame['framework'])}")
    kinds = dict(found.other_kinds)
    if found.old_csvs and kind != "rtt":  # the 2022 suite's CSVs hold RTTs
        kinds["rtt"] = kinds.get("rtt", 0) + len(found.old_csvs)
    others = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    if others:
        return f"no {kind} logs in {folder} (it holds {others} logs; choose them with -k)"
    return (f"no {kind} logs found in {folder}: run a sweep first (e.g. ./run-localhost.sh -S -t) "
            f"or point -d at a folder of logs")


def _listing(values) -> str:
    numbers = all(isinstance(v, (int, np.integer)) for v in set(values))
    return ", ".join(str(v) for v in sorted(set(values), key=None if numbers else str))


def _tidy(runs: pd.DataFrame, shapes: list, kind: str, warn) -> tuple[pd.DataFrame, list]:
    """Display order (point, then round) and the derived columns. Every repeat of a point is kept:
    repeats are the data its interval is computed from."""
    runs = runs.assign(
        shape_id=np.arange(len(runs)),
        framework_rank=style.series_rank(runs["framework"]),
        transport_rank=style.order_key(runs["transport"], style.TRANSPORT_ORDER),
        started=runs["started_at"].fillna("").astype(str),
    )
    # Throughput runs have no rate asked for: they send back-to-back. Rates ascend (intervals descend).
    point = points.keys(kind)
    runs = runs.sort_values(["round", "started"], kind="stable").sort_values(
        ["framework_rank", "framework", "transport_rank", "transport", *point[2:]],
        ascending=[True] * 4 + [c != "interval_s" for c in point[2:]], kind="stable")
    twice = runs.duplicated([*point, "round"], keep=False)
    for source in runs.loc[twice, "source"]:  # a loop over runs, not samples
        warn(Path(source), "another log has the same point and round; both are used", skipped=False)
    runs = runs.reset_index(drop=True)
    if kind == "rtt":
        achieved, target = runs["achieved_rate"].astype(float), runs["target_rate"].astype(float)
        runs["missed_rate"] = np.isfinite(target) & (achieved < (1 - MISSED_BY) * target)
    return runs, [shapes[i] for i in runs["shape_id"]]
