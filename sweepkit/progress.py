"""What a sweep prints as it goes (the plan, a line per point with its ETA, the closing lines) and its times."""

# Numbers, durations and seconds as suite/fmt.py writes them.

import itertools
from pathlib import Path

from suite import fmt as style

from .plan import OVERHEAD_GUESS_S
from suite.fmt import duration, seconds

UNKNOWN = "–"


def point_s(knobs: dict) -> float:
    """Warm-up + duration: what a run costs besides its overhead."""
    return float(knobs["WARMUP"]) + float(knobs["DURATION"])


def kind_of(point: dict) -> str:
    """rtt, throughput, icmp or micro, from a point's record in sweep.json."""
    if "bench" in point:
        return "micro"
    if point["transport"] == "icmp":
        return "icmp"
    return "rtt" if "interval_s" in point else "throughput"


def micro_guesses(doc: dict) -> list[float]:
    """Each run's guessed time (MODE=micro: its point's estimated_s), in the runs' order."""
    guess = {p["stem"]: p.get("estimated_s") or 0.0 for p in doc["points"]}
    return [guess[r["point"]] for r in doc["runs"]]


def estimate_s(doc: dict) -> float:
    """The planned time, before anything ran: each run to come, plus its kind's guessed overhead
    (MODE=micro: each run's guess, from its benchmark and sizes)."""
    if doc["knobs"]["MODE"] == "micro":
        return sum(g for g, r in zip(micro_guesses(doc), doc["runs"]) if r["status"] == "planned")
    kinds = {p["stem"]: kind_of(p) for p in doc["points"]}
    return sum(point_s(doc["knobs"]) + OVERHEAD_GUESS_S[kinds[r["point"]]]
               for r in doc["runs"] if r["status"] == "planned")


def plan_lines(doc: dict) -> list[str]:
    """The plan for people: how many points, repeats and runs, the order's seed, the estimate, and
    every point (the runs' shuffled order is in sweep.json, and shows as they go)."""
    points, knobs = doc["points"], doc["knobs"]
    n, skipped = len(points), sum(p["status"] == "skipped" for p in points)
    repeats = doc["repeats"]
    what = " (throughput)" if knobs["MODE"] == "throughput" else ""
    each = f"{knobs['WARMUP']} s warm-up + {knobs['DURATION']} s measured{what}"
    if knobs["MODE"] == "micro":
        jvm = " (kotlin: its JIT warm-up)" if any(p["framework"] == "kotlin" for p in points) else ""
        each = f"1 warm-up{jvm} + {knobs['MICRO_REPEAT']} timed repeats (micro)"
    budget = doc.get("budget")
    lines = [f"Budget: BUDGET={knobs['BUDGET']} holds {repeats} rounds of about "
             f"{duration(budget['round_estimate_s'])}"] if budget else []
    lines += [f"Plan: {n} points{f', {skipped} skipped,' if skipped else ''} × {repeats} "
             f"repeat{'s' if repeats != 1 else ''} = {len(doc['runs'])} runs of {each}, "
             f"about {duration(estimate_s(doc))} in all",
             f"  {repeats} round{'s' if repeats != 1 else ''}, each point once per round, "
             + ("in blocks of one setting's frameworks back to back, " if knobs["ORDER"] == "blocks" else "in an order ")
             + f"shuffled with SEED={doc['seed']} (ORDER={knobs['ORDER']})"]
    if knobs["MODE"] == "rtt" and (knobs.get("CONNECTIONS", "1") != "1" or knobs.get("LOAD", "closed") != "closed"):
        lines.append(f"  connections per ping: {knobs['CONNECTIONS']} (sharing the rate asked for: each sends at "
                     f"rate/N); load: {knobs['LOAD']}")
    for i, p in enumerate(points, 1):
        if p["status"] == "skipped":
            lines.append(f"  {i:3d}  {p['stem']:<38} skipped: {p['message']}")
        else:
            lines.append(f"  {i:3d}  {p['stem']}")
    return lines


def order_lines(runs, order: str) -> list[str]:
    """DRY_RUN=1: round 1's runs (plan.Run) in the order they run; ORDER=blocks: a line per block."""
    first = [run for run in runs if run.round == 1]
    lines = ["  Round 1 runs in this order (each round is drawn anew; sweep.json lists every run):"]
    if order != "blocks":
        return lines + [f"  {i:5d}  {run.point.stem}" for i, run in enumerate(first, 1)]
    blocks = [list(block) for _, block in itertools.groupby(first, key=lambda run: run.point.setting)]
    return lines + [f"  block {i:3d}  {' '.join(run.point.stem for run in block)}" for i, block in enumerate(blocks, 1)]


def eta_s(runs: list[dict], index: int, elapsed_s: float, knobs: dict) -> float:
    """Time left after run `index`: each run still planned costs warm-up + duration plus the overhead
    per measured run so far. Overhead is what the elapsed time holds beyond the measured runs'
    warm-up + duration and the whole wall time of the other runs (a failed or skipped run took what
    it took), shared among the measured runs."""
    done = runs[: index + 1]
    left = sum(r["status"] == "planned" for r in runs[index + 1:])
    ok = sum(r["status"] == "ok" for r in done)
    other_s = sum(r["wall_s"] or 0 for r in done if r["status"] != "ok")
    overhead = max(0.0, elapsed_s - other_s - ok * point_s(knobs)) / max(ok, 1)
    return left * (point_s(knobs) + overhead)


def micro_eta_s(doc: dict, index: int, elapsed_s: float) -> float:
    """MODE=micro: the guesses of the runs still planned, scaled by how the runs so far compare with
    theirs (elapsed time over their guesses)."""
    guesses, runs = micro_guesses(doc), doc["runs"]
    done = sum(guesses[: index + 1])
    scale = elapsed_s / done if done > 0 else 1.0
    return scale * sum(g for g, r in zip(guesses[index + 1:], runs[index + 1:]) if r["status"] == "planned")


def result(run: dict, connections: int | None = None) -> str:
    """The middle of a progress line: the run's figures, or why it has none; connections that starved
    (of `connections`, its point's) are a finding, so they are said."""
    if run["status"] == "failed":
        return f"FAILED: {run['message']}"
    if run["status"] != "ok":
        return f"{run['status']}: {run['message']}"
    if "ns_per_op_median" in run:
        per_op, ops = run["ns_per_op_median"], run["ops_per_s_median"]
        return (f"median {style.time_ns(per_op) + '/op':>10}   "
                f"{UNKNOWN if ops is None else style.si(ops):>8} op/s")
    if "msg_per_s_p50" in run:
        msgs, gbit = run["msg_per_s_p50"], run["gbit_per_s_p50"]
        return (f"p50 {UNKNOWN if msgs is None else style.si(msgs):>10} msg/s   "
                f"{UNKNOWN if gbit is None else style.si(gbit):>8} Gb/s")
    p50, rate = run["p50_ns"], run["achieved_rate"]
    starved = f"   {run['starved']}/{connections or UNKNOWN} conns starved" if run.get("starved") else ""
    return (f"p50 {UNKNOWN if p50 is None else style.us(p50) + ' µs':>8}   "
            f"{UNKNOWN if rate is None else style.si(rate):>10} msg/s{starved}")


def progress_line(doc: dict, index: int, elapsed_s: float) -> str:
    """[ 3/12 r1] std-tcp-64B-0.001s-0t   p50 21.35 µs   1 k msg/s   (1.31 s)   ETA 9s"""
    runs = doc["runs"]
    n, run = len(runs), runs[index]
    wall = UNKNOWN if run["wall_s"] is None else seconds(run["wall_s"])
    if doc["knobs"]["MODE"] == "micro":
        eta = duration(micro_eta_s(doc, index, elapsed_s))
    else:
        eta = duration(eta_s(runs, index, elapsed_s, doc["knobs"]))
    where = f"{index + 1:>{len(str(n))}}/{n} r{run['round']:<{len(str(doc['repeats']))}}"
    point = next((p for p in doc.get("points", ()) if p["stem"] == run["point"]), {})
    return f"[{where}] {run['point']:<34} {result(run, point.get('connections'))}   ({wall} s)   ETA {eta}"


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


def tidy(value: float):
    """A whole number as an int, for sweep.json (10, not 10.0); else rounded to ms."""
    return int(value) if float(value).is_integer() else round(value, 3)


def totals(runs: list[dict], wall_s: float, knobs: dict) -> dict:
    """sweep.json's closing figures. The overhead per measured run excludes failed and skipped runs.
    MODE=micro: measured_s is the wall time of the runs that are ok, warm-up iterations included;
    its runs have no warm-up seconds or overhead of their own."""
    ok = sum(r["status"] == "ok" for r in runs)
    if knobs["MODE"] == "micro":
        return {"wall_s": round(wall_s, 3), "measured_s": round(sum(r["wall_s"] or 0 for r in runs
                                                                    if r["status"] == "ok"), 3),
                "warmup_total_s": None, "overhead_per_run_s": None}
    other_s = sum(r["wall_s"] or 0 for r in runs if r["status"] != "ok")
    overhead = (wall_s - other_s - ok * point_s(knobs)) / ok if ok else 0.0
    return {"wall_s": round(wall_s, 3), "measured_s": tidy(ok * float(knobs["DURATION"])),
            "warmup_total_s": tidy(ok * float(knobs["WARMUP"])), "overhead_per_run_s": round(overhead, 3)}


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
    listed = [f"{p['stem']}: {p['message']}" for p in points if p["status"] == "skipped"]
    short = []
    if doc["repeats"] > 1:
        full = sum(p["status"] == "ok" for p in points)
        lines.append(f"{full} of {len(points)} points have all {doc['repeats']} repeats")
        short = [f"{p['stem']}: {p['message']}" for p in points if p["status"] in ("partial", "failed", "interrupted")]
    failed = [f"{r['stem']}: {r['message']}" for r in runs if r["status"] == "failed"]
    connections = {p["stem"]: p.get("connections") for p in points}
    starved = [f"{r['stem']}: {r['starved']} of {connections[r['point']]} connections got under half the median "
               "replies" for r in runs if r.get("starved")]
    for title, items in (("Skipped", listed), ("Incomplete", short), ("Starved connections", starved),
                         ("FAILED", failed)):
        if items:
            lines.append(f"{title} ({len(items)}):")
            lines += [f"  {item}" for item in items]
    lines.append(f"Sweep folder: {sweep_dir}")
    return lines
