"""A sweep as the figures and the table see it: one row per run (every repeat), and each run's shape."""

# A sweep as the figures and the table see it: one row per run, every repeat of a point kept (metadata and
# statistics) plus each run's small Shape (RTT) or Windows (throughput). Files are read one at a
# time and their samples dropped once described, so memory does not grow with the number of samples.

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from suite import fmt, sequential
from suite.palette import NO_VARIANTS, TRANSPORT_ORDER, Palette, order_key

from . import load, points
from .uncertainty import NOISE


class NothingUsable(Exception):
    """No run is left to show; the message says why and what there is."""


@dataclass(frozen=True)
class Filters:
    """-p, -r, -l, -f: the runs a request reads (empty: all)."""

    transports: Sequence[str] = ()
    rates: Sequence[float] = ()  # msg/s; math.inf for back-to-back
    tasks: Sequence[int] = ()
    frameworks: Sequence[str] = ()

    def admit(self, meta: dict) -> bool:
        return (
            (not self.transports or meta["transport"] in self.transports)
            and (not self.frameworks or meta["framework"] in self.frameworks)
            and (not self.tasks or meta["tasks"] in self.tasks)
            and (not self.rates or any(_same_rate(meta["target_rate"], r) for r in self.rates))
        )

    def describe(self) -> str:
        parts = [f"-p {','.join(self.transports)}" if self.transports else "",
                 f"-r {rates(self.rates)}" if self.rates else "",
                 f"-l {','.join(map(str, self.tasks))}" if self.tasks else "",
                 f"-f {','.join(self.frameworks)}" if self.frameworks else ""]
        return " ".join(p for p in parts if p)


def rates(values) -> str:
    """Rates as -r takes them: 100,1k,inf."""
    return ", ".join(fmt.si(r).replace(" ", "") if math.isfinite(r) else "inf" for r in sorted(set(values)))


def _same_rate(a: float, b: float) -> bool:
    return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= 1e-6 * max(a, b))


@dataclass
class Sweep:
    folder: Path
    infos: dict  # Path of each sweep.json → its content
    runs: pd.DataFrame  # one row per run, in display order; index 0..n-1
    shapes: list  # stats.Shape or stats.Windows (None when a run has no samples), aligned with runs
    kind: object  # the Kind these are runs of
    points: pd.DataFrame | None = None  # one row per point, repeats combined (points.combine)
    noise: float = NOISE  # changes below this share are called `same` (--noise)
    palette: Palette = NO_VARIANTS  # the runtimes' colours and the shades of the variants read here


def collect(folder: Path, kind, filters: Filters, with_time: bool, warn, noise: float = NOISE) -> Sweep:
    """Read, filter and describe every run of `kind` (a Kind) under `folder`, and combine its repeats
    into points (verdicts with the `noise` threshold, a share). A damaged log (its JSON not valid, its
    CSV cut short or at odds with its JSON) is left out of its point, named with what is wrong and how
    many repeats of its point remain.

    Raises NothingUsable when no run is left, saying where it looked or what values exist."""
    found = load.scan(folder, kind, warn)
    palette = Palette({meta["framework"]: meta["base"] for _, meta in found.logs if meta.get("variant")})
    seen, rows, shapes, damaged = [], [], [], []  # seen: every run's metadata, for the message when none is left
    tried = 0

    def add(meta: dict, measured: tuple) -> None:
        scalars, shape = measured
        rows.append({**meta, **scalars})
        shapes.append(shape)

    for csv, meta in found.logs:
        seen.append(meta)
        if not filters.admit(meta):
            continue
        tried += 1
        try:
            add(meta, kind.run(csv, meta, with_time))
        except load.LogError as e:
            damaged.append((csv, str(e), meta))
    for meta, measure in kind.older_runs(found, with_time, warn):
        seen.append(meta)
        if filters.admit(meta):
            tried += 1
            add(meta, measure())
    _say_damaged(rows, kind, found.damaged, damaged, warn)
    if not rows:
        raise NothingUsable(_why_nothing(folder, kind, found, seen, tried, filters))
    runs, shapes = _tidy(pd.DataFrame(rows), shapes, kind, palette, warn)
    runs["one_end"] = runs["framework"].map(_one_end_variants(found.infos))
    runs["disturbed"] = runs["source"].map(lambda source: Path(source).name).map(_disturbed_runs(found.infos))
    runs["empty"] = runs["source"].map(_empty_runs(found.infos)).fillna(0).astype(int)
    schedules = {str(path.parent): sequential.schedule(info) for path, info in found.infos.items()}
    runs["schedule"] = runs["source"].map(lambda source: schedules.get(str(Path(source).parent), sequential.Schedule()))
    runs["host_warnings"] = runs["source"].map(lambda source: Path(source).parent / load.SWEEP_INFO).map(
        host_warnings(found.infos))
    combined = points.combine(runs, kind, noise)
    combined.attrs["unmeasured"] = unmeasured(found.infos, filters)  # a row each in the table, saying why
    return Sweep(folder, found.infos, runs, shapes, kind, combined, noise, palette)


def unmeasured(infos: dict, filters: Filters) -> list[dict]:
    """The points a sweep planned and measured no run of (sweep.json points[]: given up, skipped, failed), each with
    its message, as the filters admit them."""
    found = []
    for info in infos.values():
        for point in info.get("points") or () if isinstance(info, dict) else ():
            interval = point.get("interval_s")
            meta = {"transport": point.get("transport"), "framework": point.get("framework"), "tasks": point.get("tasks"),
                    "target_rate": math.inf if not interval else 1 / interval}
            if not point.get("repeats_ok") and point.get("message") and filters.admit(meta):
                found.append(point)
    return found


def _say_damaged(rows: list[dict], kind, bad_json: list, bad_csv: list, warn) -> None:
    """A warning per damaged log: the file, what is wrong, and the repeats its point is left with (`rows`:
    the runs read). A log whose JSON cannot be read is placed by its stem: the point's stem without
    -r{k}, in its folder."""
    by_stem = Counter(_point_stem(Path(row["source"])) for row in rows)
    by_key = Counter(tuple(row[k] for k in kind.keys) for row in rows)
    for path, reason in bad_json:
        left = by_stem[_point_stem(path.with_suffix(""))]
        warn(path, f"{reason}; skipped: its point has {_repeats(left)}", skipped=False)
    for path, reason, meta in bad_csv:
        left = by_key[tuple(meta[k] for k in kind.keys)]
        warn(path, f"{reason}; skipped: its point has {_repeats(left)}", skipped=False)


def _point_stem(stem: Path) -> Path:
    return stem.with_name(load.ROUND.sub("", stem.name))


def _repeats(count: int) -> str:
    return f"{count} repeat{'s' if count != 1 else ''} left" if count else "no repeat left"


def order(infos: dict) -> str | None:
    """How the sweep ordered its runs (sweep.json's knobs.ORDER): blocks or rounds, which a sweep.json from
    before ORDER ran; None without a sweep.json, or with several that differ."""
    orders = {(info.get("knobs") or {}).get("ORDER", "rounds") for info in infos.values() if isinstance(info, dict)}
    return orders.pop() if len(orders) == 1 else None


def _empty_runs(infos: dict):
    """A run's log → how many runs of its point in its sweep held no sample, even measured again (sweep.json
    points[].empty): runs its point's estimate lost."""
    by_point = {(str(path.parent), p["stem"]): p.get("empty") or 0 for path, info in infos.items()
                if isinstance(info, dict) for p in info.get("points") or () if isinstance(p, dict) and "stem" in p}
    return lambda source: by_point.get((str(Path(source).parent), _point_stem(Path(source)).name))


def _disturbed_runs(infos: dict) -> dict[str, str]:
    """Log stem → why, for each run its sweep flagged as disturbed (sweep.json runs[].disturbed)."""
    return {r["stem"]: r["disturbed"] for info in infos.values() for r in info.get("runs") or ()
            if isinstance(r, dict) and r.get("disturbed")}


def host_warnings(infos: dict) -> dict[Path, str]:
    """sweep.json's path → the system check's warnings as its sweep started, a line each, "HOST: warning"
    (sweep.json hosts[].warnings; none in sweeps older than the check)."""
    found = {}
    for path, info in infos.items():
        hosts = info.get("hosts") if isinstance(info.get("hosts"), dict) else {}
        lines = [f"{name}: {line}" for name, facts in hosts.items() if isinstance(facts, dict)
                 for line in facts.get("warnings") or () if isinstance(line, str)]
        if lines:
            found[path] = "\n".join(lines)
    return found


def _one_end_variants(infos: dict) -> dict[str, str]:
    """label → "pong --delay-ns 4000" for each variant whose arguments went to one end only (sweep.json
    says so; a log names only its own end's runtime_config)."""
    return {v["label"]: f"{v['end']} {' '.join(v['args'])}" for info in infos.values()
            for v in info.get("variants") or () if isinstance(v, dict) and v.get("end") in ("ping", "pong")}


def _why_nothing(folder: Path, kind, found: load.Found, seen: list, tried: int, filters: Filters) -> str:
    name = kind.name
    if tried:
        which = f" matching {filters.describe()}" if filters.describe() else ""
        return f"no usable {name} log{which} in {folder}: every one was skipped (see the warnings above)"
    if seen:
        frame = pd.DataFrame(seen)
        return (f"no {name} run in {folder} matches {filters.describe()}; there are "
                f"transports {listing(frame['transport'])}, {kind.listing(frame)}, "
                f"tasks {listing(frame['tasks'])}, frameworks {listing(frame['framework'])}")
    kinds = dict(found.other_kinds)
    if found.old_csvs and not kind.reads_older:  # the 2022 suite's CSVs are another kind's
        kinds[load.OLD_KIND] = kinds.get(load.OLD_KIND, 0) + len(found.old_csvs)
    others = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    if others:
        return f"no {name} logs in {folder} (it holds {others} logs; choose them with -k)"
    none = unmeasured(found.infos, filters)
    if none:  # a sweep ran and kept no log: each point says why (sweep.json points[].message)
        return (f"no {name} log in {folder}: its sweep measured none of its points; " +
                "; ".join(f"{p['stem']}: {p['message']}" for p in none[:3]) +
                (f"; and {len(none) - 3} more (sweep.json)" if len(none) > 3 else ""))
    return (f"no {name} logs found in {folder}: run a sweep first (e.g. ./run-localhost.sh -S -t) "
            f"or point -d at a folder of logs")


def listing(values) -> str:
    """Distinct values as a filter's message lists them: sorted, numbers as numbers."""
    numbers = all(isinstance(v, (int, np.integer)) for v in set(values))
    return ", ".join(str(v) for v in sorted(set(values), key=None if numbers else str))


def _tidy(runs: pd.DataFrame, shapes: list, kind, palette: Palette, warn) -> tuple[pd.DataFrame, list]:
    """Display order (point, then round) and the derived columns. Every repeat of a point is kept:
    repeats are the data its interval is computed from."""
    runs = runs.assign(
        shape_id=np.arange(len(runs)),
        framework_rank=palette.series_rank(runs["framework"]),
        transport_rank=order_key(runs["transport"], TRANSPORT_ORDER),
        started=runs["started_at"].fillna("").astype(str),
    )
    # Rates ascend (intervals descend), where a kind has them.
    point = list(kind.keys)
    runs = runs.sort_values(["round", "started"], kind="stable").sort_values(
        ["framework_rank", "framework", "transport_rank", "transport", *point[2:]],
        ascending=[True] * 4 + [c != "interval_s" for c in point[2:]], kind="stable")
    twice = runs.duplicated([*point, "round"], keep=False)
    for source in runs.loc[twice, "source"]:  # a loop over runs, not samples
        warn(Path(source), "another log has the same point and round; both are used", skipped=False)
    runs = kind.tidy(runs.reset_index(drop=True))
    return runs, [shapes[i] for i in runs["shape_id"]]
