"""`parse.py phases`' table: per traced point, where a round trip's time went, phase by phase, over its traced runs,
and, beside std's of the same setting, how much of its Δ each phase holds."""

# A point traced in R rounds (TRACE=R) has R runs: each run's phase means (analysis/phases.py), then their
# centre across the runs with an interval, the run being the unit as for every estimate of the suite. A
# runtime's Δ vs std pairs the two points' runs of one traced round (they ran in one block). Both as the Δp50
# is estimated (uncertainty.paired_shift): from 6 runs the Hodges–Lehmann estimate with the signed-rank
# interval, which a run that met a neighbour's burst of work does not move (on a loaded machine one in six did,
# by milliseconds); with 2 to 5 the mean with a t interval. So the phases' figures add up to the sum's only
# roughly.

import math
from pathlib import Path

import numpy as np

from suite import fmt, traces

from . import load, phases, quantiles, summary
from . import uncertainty as u

SLUGS = [p.replace(" ", "_").replace("-", "_") for p in phases.PHASES]
COLUMNS = ["point", "runs", "round trips", *(f"{p} µs" for p in phases.PHASES), "sum µs", "accounted",
           "calls ping/pong", "hand-offs ping/pong", "traced ÷ untraced p50"]
DELTA_COLUMNS = ["point", "rounds", *(f"Δ {p} µs" for p in phases.PHASES), "Δ sum µs"]
CSV = ["point", "framework", "runs", "round_trips", "complete", "inferred",
       *(f"{s}{end}" for s in (*SLUGS, "sum") for end in ("_ns", "_low_ns", "_high_ns")),
       "median_traced_ns", "run_p50_ns", "accounted", "ping_calls", "pong_calls", "ping_handoffs", "pong_handoffs",
       "untraced_p50_ns", "tracing_overhead", "delta_rounds",
       *(f"delta_{s}{end}" for s in (*SLUGS, "sum") for end in ("_ns", "_low_ns", "_high_ns"))]
NOTES = [f"Each phase: in each traced run its mean over the complete round trips at or below the {phases.TRIM:.0%} "
         "quantile of their sums (a loaded machine's rare stall left out), then across the point's traced runs the "
         "Hodges–Lehmann estimate [95 % signed-rank interval] from 6 runs, the mean [t interval] from 2; sum: "
         "the runs' sums, alike.",
         "send: the ping's send call until the pong is woken; pong wake-up: woken until on a CPU; pong turnaround: "
         "on a CPU until it wakes the ping (receive, the runtime's work, send); ping wake-up; ping receive: until "
         "its receiving call returns the echo; ping return: user space until its next call (the runtime handing "
         "the echo over, the clock, bookkeeping; back-to-back, the next send's start).",
         "round trips: complete (both ends slept and woke) of all the traces hold, and of those how many had the "
         "ping's wake-up inferred (unrecorded: taken as the end of the pong's send); accounted: the median traced "
         "round trip ÷ the traced run's own logged p50, averaged.",
         "calls, hand-offs: system calls entered, and wake-ups of a task by its own process, per round trip.",
         "traced ÷ untraced p50: the traced runs' logged p50 over the point's pooled p50 from its measured runs "
         "(geometric mean): what tracing cost."]
DELTA_NOTES = ["Δ: the runtime's phase less std's of the same setting, paired by traced round (the two ran in one "
               "block), estimated from the rounds' differences as the Δp50 is (Hodges–Lehmann [signed-rank] from 6 "
               "rounds, the mean [t] from 2): the Δs add up to the Δ sum only roughly."]


def untraced_p50_ns(folder: Path, point: str) -> float:
    """The point's pooled p50 over the sweep's measured runs of it (its STEM-rK.csv), NaN without any."""
    runs = [np.sort(load.read_samples(csv, with_time=False)[0]) for csv in sorted(folder.glob(f"{point}-r*.csv"))]
    runs = [r for r in runs if len(r)]
    return float(quantiles.pooled_quantiles(runs, [0.5])[0]) if runs else math.nan


def _estimate(values) -> u.Estimate:
    """The centre of per-run (or per-round) values with its interval, as a Δp50's (see above); one value: itself,
    no interval."""
    values = [v for v in values if math.isfinite(v)]
    if not values:
        return u.Estimate(math.nan, math.nan, math.nan, 0, u.WITHIN_RUN)
    return u.paired_shift(values, [0.0] * len(values))


def _per_run(t: phases.Traced) -> np.ndarray:
    """A traced run's phase means and their sum (ns): six values."""
    means = t.phase_means_ns()
    return np.append(means, means.sum())


def _deltas(mine: list[phases.Traced], theirs: list[phases.Traced]) -> tuple[int, list[u.Estimate]]:
    """The rounds both traced, and each phase's (and the sum's) Δ over them."""
    std = {t.round: _per_run(t) for t in theirs}
    pairs = [_per_run(t) - std[t.round] for t in mine if t.round in std]
    if not pairs:
        return 0, []
    diffs = np.array(pairs)
    return len(pairs), [_estimate(diffs[:, j]) for j in range(diffs.shape[1])]


def rows(folder: Path, warn) -> list[dict]:
    """A row per traced point of the sweep folder's traces/, in name order; a file that is not a traced run is
    named through `warn(path, why)` and skipped."""
    by_point: dict[str, list[phases.Traced]] = {}
    for path in sorted((folder / traces.FOLDER).glob(f"*{traces.SUFFIX}")):
        try:
            t = phases.read(path)
        except (ValueError, OSError) as e:
            warn(path, str(e))
            continue
        by_point.setdefault(t.point, []).append(t)
    std = {runs[0].setting: runs for runs in by_point.values() if runs[0].framework == "std"}
    out = []
    for point, runs in sorted(by_point.items()):
        per_run = np.array([_per_run(t) for t in runs])
        complete = [t for t in runs if t.split.complete]
        calls = np.array([t.split.calls.mean(axis=0) for t in complete]).reshape(-1, 2)
        handoffs = np.array([t.split.handoffs.mean(axis=0) for t in complete]).reshape(-1, 2)
        untraced = untraced_p50_ns(folder, point)
        logged = np.array([t.logged_p50_ns for t in runs])
        paired, deltas = (_deltas(runs, std[runs[0].setting]) if runs[0].framework != "std" and runs[0].setting in std
                          else (0, []))
        estimates = [_estimate(per_run[:, j]) for j in range(per_run.shape[1])]
        out.append({"traced": runs, "point": point, "framework": runs[0].framework, "runs": len(runs),
                    "round_trips": sum(t.split.complete + t.split.unmarked for t in runs),
                    "complete": sum(t.split.complete for t in runs), "inferred": sum(t.split.inferred for t in runs),
                    "phases": estimates[:-1], "sum": estimates[-1],
                    "median_traced_ns": float(np.nanmean([t.median_total_ns() for t in runs])),
                    "run_p50_ns": float(np.nanmean(logged)),
                    "accounted": float(np.nanmean([t.median_total_ns() / t.logged_p50_ns for t in runs])),
                    "calls": calls.mean(axis=0) if len(calls) else np.full(2, math.nan),
                    "handoffs": handoffs.mean(axis=0) if len(handoffs) else np.full(2, math.nan),
                    "untraced_p50_ns": untraced, "tracing_overhead": float(np.exp(np.nanmean(np.log(logged / untraced)))),
                    "delta_rounds": paired, "deltas": deltas})
    return out


def _us(e: u.Estimate, write=fmt.us) -> str:
    """`value [low–high]`, or the value alone from one run (or one round)."""
    return write(e.value) if e.repeats < 2 else summary.interval(e.value, e.low, e.high, write)


def _cells(r: dict) -> list[str]:
    pair = lambda a: f"{a[0]:.1f} / {a[1]:.1f}" if math.isfinite(a[0]) else fmt.UNKNOWN  # noqa: E731
    inferred = f" ({r['inferred']} inferred)" if r["inferred"] else ""
    return [r["point"], str(r["runs"]), f"{r['complete']} of {r['round_trips']}{inferred}",
            *(_us(e) for e in r["phases"]), _us(r["sum"]), fmt.percent(r["accounted"]), pair(r["calls"]),
            pair(r["handoffs"]),
            f"{r['tracing_overhead']:.2f}" if math.isfinite(r["tracing_overhead"]) else fmt.UNKNOWN]


def _delta_cells(r: dict) -> list[str]:
    return [r["point"], str(r["delta_rounds"]), *(_us(e, summary.signed) for e in r["deltas"])]


def _tables(table: list[dict], render) -> str:
    out = render(COLUMNS, [_cells(r) for r in table], NOTES)
    with_delta = [r for r in table if r["deltas"]]
    if with_delta:
        out += "\n" + render(DELTA_COLUMNS, [_delta_cells(r) for r in with_delta], DELTA_NOTES)
    return out


def text(table: list[dict]) -> str:
    return _tables(table, lambda h, b, n: summary.aligned(h, b, n, left=1))


def markdown(table: list[dict]) -> str:
    return _tables(table, lambda h, b, n: summary.markdown_table(h, b, n, left=1))


def _flat(r: dict) -> dict:
    flat = {k: r[k] for k in ("point", "framework", "runs", "round_trips", "complete", "inferred", "median_traced_ns",
                              "run_p50_ns", "accounted", "untraced_p50_ns", "tracing_overhead", "delta_rounds")}
    flat |= {"ping_calls": r["calls"][0], "pong_calls": r["calls"][1], "ping_handoffs": r["handoffs"][0],
             "pong_handoffs": r["handoffs"][1]}
    for prefix, estimates in (("", [*r["phases"], r["sum"]]), ("delta_", r["deltas"])):
        for slug, e in zip((*SLUGS, "sum"), estimates or [None] * (len(SLUGS) + 1), strict=True):
            flat |= {f"{prefix}{slug}_ns": e.value if e else math.nan, f"{prefix}{slug}_low_ns": e.low if e else math.nan,
                     f"{prefix}{slug}_high_ns": e.high if e else math.nan}
    return flat


def csv(table: list[dict]) -> str:
    lines = [",".join(CSV)]
    for r in map(_flat, table):
        lines.append(",".join("" if isinstance(r[c], float) and not math.isfinite(r[c]) else
                              (f"{r[c]:.6g}" if isinstance(r[c], float) else str(r[c])) for c in CSV))
    return "\n".join(lines) + "\n"


TABLES = {"text": text, "markdown": markdown, "csv": csv}
