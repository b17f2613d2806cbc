"""What a sweep prints as it goes (the plan, a line per point with its ETA, the closing lines) and its times."""

# Numbers, durations and seconds as suite/fmt.py writes them; each kind's figures as its mode says them.

import itertools
from pathlib import Path

from suite.fmt import duration, seconds

from . import modes
from .modes.base import tidy  # noqa: F401  (sweep.json's numbers: re-exported for the runner and prepare)
from .spec import Spec

UNKNOWN = "–"


def estimate_s(runs, spec: Spec) -> float:
    """The planned time of `runs` (plan.Run), before anything ran: each run's guess by its mode (warm-up +
    duration and its kind's overhead; MODE=micro: from its benchmark and sizes)."""
    return sum(modes.of(r.point.kind).run_estimate_s(r.point, spec) for r in runs)


def probed_s(runs, spec: Spec) -> float:
    """The planned time of the PROBED rounds after them (sweepkit/probed.py): each such point's run, PROBED times."""
    points = {r.point.stem: r.point for r in runs if r.point.mode.probeable(r.point)}.values()
    return spec.probed_rounds * sum(modes.of(p.kind).run_estimate_s(p, spec) for p in points)


def total_s(runs, spec: Spec) -> float:
    """The rounds' planned time and the probed runs' after them."""
    return estimate_s(runs, spec) + probed_s(runs, spec)


def plan_lines(doc: dict, runs, spec: Spec) -> list[str]:
    """The plan for people: how many points, repeats and runs, the order's seed, the estimate, and
    every point (the runs' shuffled order is in sweep.json, and shows as they go)."""
    points, mode = doc["points"], modes.of(spec.mode)
    n, skipped = len(points), sum(p["status"] == "skipped" for p in points)
    repeats = doc["repeats"]
    each = mode.each(spec, points)
    budget = doc.get("budget")
    lines = [f"Budget: BUDGET={spec.budget} holds {repeats} rounds of about "
             f"{duration(budget['round_estimate_s'])}"] if budget else []
    lines += [f"Plan: {n} points{f', {skipped} skipped,' if skipped else ''} × {repeats} "
             f"repeat{'s' if repeats != 1 else ''} = {len(doc['runs'])} runs of {each}, "
             f"about {duration(total_s(runs, spec))} in all",
             f"  {repeats} round{'s' if repeats != 1 else ''}, each point once per round, "
             + ("in blocks of one setting's frameworks back to back, " if spec.order == "blocks" else "in an order ")
             + f"shuffled with SEED={doc['seed']} (ORDER={spec.order})"]
    lines += mode.plan_lines(spec)
    lines += mode.sample_lines(spec, runs, estimate_s)
    lines += guessed_lines(runs, spec)
    for i, p in enumerate(points, 1):
        if p["status"] == "skipped":
            lines.append(f"  {i:3d}  {p['stem']:<38} skipped: {p['message']}")
        else:
            lines.append(f"  {i:3d}  {p['stem']}")
    return lines


def guessed_lines(runs, spec: Spec) -> list[str]:
    """The points whose runs' cost the plan can only guess (their modes' `guessed`), each with why; the first round
    tells, and BUDGET re-plans its rounds from it (sweepkit.costs)."""
    first = [r.point for r in runs if r.round == 1]
    guessed = {p.stem: why for p in first for why in [p.mode.guessed(p, spec)] if why}
    if not guessed:
        return []
    then = ", and BUDGET's rounds are re-planned from it" if spec.budget else ", and the ETA learns it"
    if len(guessed) == len(first) and len(set(guessed.values())) == 1:  # across hosts, or every point HTTP
        return [f"  What a run costs is a guess for every point ({next(iter(guessed.values()))}); the first round "
                f"will tell{then}"]
    return [f"  What a run costs is a guess for {len(guessed)} point{'s' if len(guessed) != 1 else ''} (their "
            f"processes may start or stop slowly); the first round will tell{then}:",
            *(f"    {stem}: {why}" for stem, why in guessed.items())]


def order_lines(runs, order: str) -> list[str]:
    """DRY_RUN=1: round 1's runs (plan.Run) in the order they run; ORDER=blocks: a line per block."""
    first = [run for run in runs if run.round == 1]
    lines = ["  Round 1 runs in this order (each round is drawn anew; sweep.json lists every run):"]
    if order != "blocks":
        return lines + [f"  {i:5d}  {run.point.stem}" for i, run in enumerate(first, 1)]
    blocks = [list(block) for _, block in itertools.groupby(first, key=lambda run: run.point.setting)]
    return lines + [f"  block {i:3d}  {' '.join(run.point.stem for run in block)}" for i, block in enumerate(blocks, 1)]


def result(run: dict, kind: str, connections: int | None = None) -> str:
    """The middle of a progress line: the run's figures (its mode's), or why it has none."""
    if run["status"] == "failed":
        return f"FAILED: {run['message']}"
    if run["status"] != "ok":
        return f"{run['status']}: {run['message']}"
    return modes.of(kind).result(run, connections)


def progress_line(doc: dict, index: int, elapsed_s: float, spec: Spec, kind: str, eta_s: float | None = None) -> str:
    """[ 3/12 r1] std-tcp-64B-0.001s-0t   p50 21.35 µs   1 k msg/s   (1.31 s)   ETA 9s; `kind`: the run's; `eta_s`:
    the time left as the runs so far say (sweepkit.costs), else the mode's from the plan's constant."""
    runs = doc["runs"]
    n, run = len(runs), runs[index]
    wall = UNKNOWN if run["wall_s"] is None else seconds(run["wall_s"])
    eta = duration(modes.of(spec.mode).eta_s(doc, index, elapsed_s, spec) if eta_s is None else eta_s)
    where = f"{index + 1:>{len(str(n))}}/{n} r{run['round']:<{len(str(doc['repeats']))}}"
    point = next((p for p in doc.get("points", ()) if p["stem"] == run["point"]), {})
    return f"[{where}] {run['point']:<34} {result(run, kind, point.get('connections'))}   ({wall} s)   ETA {eta}"


def tails(paths, count: int = 6) -> list[str]:
    """The last lines of each non-empty stderr file, indented, for a failed point."""
    lines = []
    for path in map(Path, paths):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if text:
            lines.append(f"      {path.name}:")
            lines += [f"      | {line}" for line in text.splitlines()[-count:]]
    return lines


def totals(runs: list[dict], wall_s: float, spec: Spec, planned=None) -> dict:
    """sweep.json's closing figures, as the sweep's mode counts them (`planned`: the plan's runs, plan.Run)."""
    return modes.of(spec.mode).totals(runs, wall_s, spec, planned)


def closing_lines(doc: dict, sweep_dir) -> list[str]:
    """How many runs were measured and in what time; the points skipped, the points short of some
    repeats (when there are repeats) and every failed run, each with why."""
    points, runs = doc["points"], doc["runs"]
    ok = sum(r["status"] == "ok" for r in runs)
    if doc.get("warmup_total_s") is None:  # MODE=micro
        how = f"wall {seconds(doc['wall_s'])} s; the runs measured took {seconds(doc['measured_s'])} s"
    else:
        how = (f"wall {seconds(doc['wall_s'])} s; measured {seconds(doc['measured_s'])} s + warm-up "
               f"{seconds(doc['warmup_total_s'])} s; overhead {seconds(doc['overhead_per_run_s'])} s per measured run")
    lines = [f"{ok} of {len(runs)} runs measured in {duration(doc['wall_s'])} ({how})"]
    budget = doc.get("budget")
    if budget:
        lines.append(f"Budget of {duration(budget['budget_s'])}: {doc['repeats']} rounds in {duration(doc['wall_s'])}, "
                     f"{doc['wall_s'] / budget['budget_s']:.2f} of it (planned before the first run: {budget['rounds']})")
    listed = [f"{p['stem']}: {p['message']}" for p in points if p["status"] == "skipped"]
    short = []
    if doc["repeats"] > 1:
        full = sum(p["status"] == "ok" for p in points)
        if doc.get("looks"):  # STOP=decided: each point ran until its comparisons were decided
            ran = sorted(p["repeats_ok"] for p in points if p["status"] == "ok")
            lines.append(f"{full} of {len(points)} points measured every run they were planned, {ran[0]} to {ran[-1]} "
                         "rounds each (STOP=decided: until their comparisons were decided)" if ran else
                         f"0 of {len(points)} points measured every run they were planned")
        else:
            lines.append(f"{full} of {len(points)} points have all {doc['repeats']} repeats")
        short = [f"{p['stem']}: {p['message']}" for p in points if p["status"] in ("partial", "failed", "interrupted")]
    failed = [f"{r['stem']}: {r['message']}" for r in runs if r["status"] == "failed"]
    empty = [f"{r['stem']}: {r['message']}" for r in runs if r["status"] == "empty"]
    connections = {p["stem"]: p.get("connections") for p in points}
    starved = [f"{r['stem']}: {r['starved']} of {connections[r['point']]} connections got under half the median "
               "replies" for r in runs if r.get("starved")]
    for title, items in (("Skipped", listed), ("Incomplete", short), ("Starved connections", starved),
                         ("Held no sample, measured again and still empty", empty), ("FAILED", failed)):
        if items:
            lines.append(f"{title} ({len(items)}):")
            lines += [f"  {item}" for item in items]
    lines.append(f"Sweep folder: {sweep_dir}")
    return lines
