"""What a sweep prints as it goes (the plan, a line per point with its ETA, the closing lines) and its times."""

# Numbers as analysis/style.py writes them; durations and seconds as timefmt does.

from pathlib import Path

from analysis import style

from .plan import OVERHEAD_GUESS_S
from .timefmt import duration, seconds

UNKNOWN = "–"


def point_s(knobs: dict) -> float:
    """Warm-up + duration: what a point costs besides its overhead."""
    return float(knobs["WARMUP"]) + float(knobs["DURATION"])


def estimate_s(points: list[dict], knobs: dict) -> float:
    """The planned time, before anything ran: each point to run, plus a guessed overhead."""
    runs = sum(p["status"] == "planned" for p in points)
    return runs * (point_s(knobs) + OVERHEAD_GUESS_S)


def plan_lines(points: list[dict], knobs: dict) -> list[str]:
    n = len(points)
    runs = sum(p["status"] == "planned" for p in points)
    skipped = f", {n - runs} skipped," if runs < n else ""
    what = " (throughput)" if knobs["MODE"] == "throughput" else ""
    lines = [f"Plan: {n} points{skipped} of {knobs['WARMUP']} s warm-up + {knobs['DURATION']} s measured"
             f"{what}, about {duration(estimate_s(points, knobs))} in all"]
    for i, p in enumerate(points, 1):
        if p["status"] == "skipped":
            lines.append(f"  {i:3d}  {p['stem']:<38} skipped: {p['message']}")
        else:
            lines.append(f"  {i:3d}  {p['stem']}")
    return lines


def eta_s(points: list[dict], index: int, elapsed_s: float, knobs: dict) -> float:
    """Time left after point `index`: each point still planned costs warm-up + duration plus the
    overhead per measured point so far. Overhead is what the elapsed time holds beyond the measured
    points' warm-up + duration and the whole wall time of the other points (a failed or skipped
    point took what it took), shared among the measured points."""
    done = points[: index + 1]
    left = sum(p["status"] == "planned" for p in points[index + 1:])
    ok = sum(p["status"] == "ok" for p in done)
    other_s = sum(p["wall_s"] or 0 for p in done if p["status"] != "ok")
    overhead = max(0.0, elapsed_s - other_s - ok * point_s(knobs)) / max(ok, 1)
    return left * (point_s(knobs) + overhead)


def result(point: dict) -> str:
    """The middle of a progress line: the point's figures, or why it has none."""
    if point["status"] == "failed":
        return f"FAILED: {point['message']}"
    if point["status"] != "ok":
        return f"{point['status']}: {point['message']}"
    if "interval_s" not in point:
        msgs, gbit = point["msg_per_s_p50"], point["gbit_per_s_p50"]
        return (f"p50 {UNKNOWN if msgs is None else style.si(msgs):>10} msg/s   "
                f"{UNKNOWN if gbit is None else style.si(gbit):>8} Gb/s")
    p50, rate = point["p50_ns"], point["achieved_rate"]
    return (f"p50 {UNKNOWN if p50 is None else style.us(p50) + ' µs':>8}   "
            f"{UNKNOWN if rate is None else style.si(rate):>10} msg/s")


def progress_line(points: list[dict], index: int, elapsed_s: float, knobs: dict) -> str:
    """[ 3/10] std-tcp-64B-0.001s-0t   p50 21.35 µs   1 k msg/s   (1.31 s)   ETA 9s"""
    n, point = len(points), points[index]
    wall = UNKNOWN if point["wall_s"] is None else seconds(point["wall_s"])
    eta = duration(eta_s(points, index, elapsed_s, knobs))
    return f"[{index + 1:>{len(str(n))}}/{n}] {point['stem']:<34} {result(point)}   ({wall} s)   ETA {eta}"


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


def totals(points: list[dict], wall_s: float, knobs: dict) -> dict:
    """sweep.json's closing figures. The overhead per measured point excludes failed and skipped points."""
    ok = sum(p["status"] == "ok" for p in points)
    other_s = sum(p["wall_s"] or 0 for p in points if p["status"] != "ok")
    overhead = (wall_s - other_s - ok * point_s(knobs)) / ok if ok else 0.0
    return {"wall_s": round(wall_s, 3), "measured_s": tidy(ok * float(knobs["DURATION"])),
            "warmup_total_s": tidy(ok * float(knobs["WARMUP"])), "overhead_per_point_s": round(overhead, 3)}


def closing_lines(doc: dict, sweep_dir) -> list[str]:
    points = doc["points"]
    ok = sum(p["status"] == "ok" for p in points)
    lines = [f"{ok} of {len(points)} points measured in {duration(doc['wall_s'])} "
             f"(wall {seconds(doc['wall_s'])} s; measured {seconds(doc['measured_s'])} s + warm-up "
             f"{seconds(doc['warmup_total_s'])} s; overhead {seconds(doc['overhead_per_point_s'])} s "
             "per measured point)"]
    for status, title in (("skipped", "Skipped"), ("failed", "FAILED")):
        listed = [p for p in points if p["status"] == status]
        if listed:
            lines.append(f"{title} ({len(listed)}):")
            lines += [f"  {p['stem']}: {p['message']}" for p in listed]
    lines.append(f"Sweep folder: {sweep_dir}")
    return lines
