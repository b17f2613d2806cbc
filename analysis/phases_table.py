"""`parse.py phases`' table and figure: per traced point, where a round trip's time went, phase by phase."""

import math
from pathlib import Path

import numpy as np

from suite import fmt, traces

from . import load, phases, quantiles, summary

PHASE_COLUMNS = [f"{p.replace(' ', '_').replace('-', '_')}_ns" for p in phases.PHASES]
COLUMNS = ["point", "round trips", *(f"{p} µs" for p in phases.PHASES), "sum µs", "median traced µs",
           "run's p50 µs", "accounted", "calls ping/pong", "hand-offs ping/pong", "traced ÷ untraced p50"]
CSV = ["point", "framework", "round_trips", "complete", "inferred", *PHASE_COLUMNS,
       "sum_ns", "median_traced_ns", "run_p50_ns", "accounted", "ping_calls", "pong_calls", "ping_handoffs",
       "pong_handoffs", "untraced_p50_ns", "tracing_overhead"]
NOTES = [f"Each phase: its mean over the complete round trips at or below the {phases.TRIM:.0%} quantile of their sums "
         "(a loaded machine's rare stall left out); sum: theirs.",
         "send: the ping's send call until the pong is woken; pong wake-up: woken until on a CPU; pong turnaround: "
         "on a CPU until it wakes the ping (receive, the runtime's work, send); ping wake-up; ping receive: until "
         "its receiving call returns the echo.",
         "round trips: complete (both ends slept and woke) of all the trace holds, and of those how many had the "
         "ping's wake-up inferred (unrecorded: taken as the end of the pong's send); accounted: the median traced "
         "round trip ÷ the traced run's own logged p50 (the rest is user-space time around the calls).",
         "calls, hand-offs: system calls entered, and wake-ups of a task by its own process, per round trip.",
         "traced ÷ untraced p50: the traced run's logged p50 over the point's pooled p50 from its measured runs: "
         "what tracing cost (one run: a rough figure)."]


def untraced_p50_ns(folder: Path, point: str) -> float:
    """The point's pooled p50 over the sweep's measured runs of it (its STEM-rK.csv), NaN without any."""
    runs = [np.sort(load.read_samples(csv, with_time=False)[0]) for csv in sorted(folder.glob(f"{point}-r*.csv"))]
    runs = [r for r in runs if len(r)]
    return float(quantiles.pooled_quantiles(runs, [0.5])[0]) if runs else math.nan


def timeline(t: phases.Traced, ax, count: int = 5) -> None:
    """`count` consecutive complete round trips from the middle of a traced run, each a row from its own send (µs):
    one round trip's phases as they happened, where the bars give their means."""
    s = t.split
    if not s.complete:
        ax.text(0.5, 0.5, "no complete round trip", ha="center", transform=ax.transAxes)
        return
    first = max(0, min(s.complete - count, s.complete // 2))
    chosen = range(first, min(first + count, s.complete))
    for row, i in enumerate(chosen):
        at = 0.0
        for j, width in enumerate(s.phases[i] / 1000):
            ax.broken_barh([(at, width)], (row - 0.4, 0.8), color=f"C{j}", label=phases.PHASES[j] if row == 0 else None)
            at += width
    ax.set_yticks(range(len(chosen)), [f"#{i + 1}" for i in chosen], fontsize="small")
    ax.invert_yaxis()


def rows(folder: Path, warn) -> list[dict]:
    """A row per .trace file of the sweep folder's traces/, in name order; a file that is not one is named
    through `warn(path, why)` and skipped."""
    out = []
    for path in sorted((folder / traces.FOLDER).glob(f"*{traces.SUFFIX}")):
        try:
            t = phases.read(path)
        except (ValueError, OSError) as e:
            warn(path, str(e))
            continue
        means, s = t.phase_means_ns(), t.split
        untraced = untraced_p50_ns(folder, t.point)
        median = t.median_total_ns()
        calls = s.calls.mean(axis=0) if s.complete else np.full(2, math.nan)
        handoffs = s.handoffs.mean(axis=0) if s.complete else np.full(2, math.nan)
        out.append({"traced": t, "point": t.point, "framework": t.framework, "round_trips": s.complete + s.unmarked,
                    "complete": s.complete, "inferred": s.inferred, **dict(zip(PHASE_COLUMNS, means, strict=True)), "sum_ns": float(np.sum(means)),
                    "median_traced_ns": median, "run_p50_ns": t.logged_p50_ns,
                    "accounted": median / t.logged_p50_ns, "ping_calls": calls[0], "pong_calls": calls[1],
                    "ping_handoffs": handoffs[0], "pong_handoffs": handoffs[1], "untraced_p50_ns": untraced,
                    "tracing_overhead": t.logged_p50_ns / untraced})
    return out


def _cells(r: dict) -> list[str]:
    pair = lambda a, b: f"{a:.1f} / {b:.1f}" if math.isfinite(a) else fmt.UNKNOWN  # noqa: E731
    inferred = f" ({r['inferred']} inferred)" if r["inferred"] else ""
    return [r["point"], f"{r['complete']} of {r['round_trips']}{inferred}", *(fmt.us(r[c]) for c in PHASE_COLUMNS),
            fmt.us(r["sum_ns"]), fmt.us(r["median_traced_ns"]), fmt.us(r["run_p50_ns"]), fmt.percent(r["accounted"]),
            pair(r["ping_calls"], r["pong_calls"]), pair(r["ping_handoffs"], r["pong_handoffs"]),
            f"{r['tracing_overhead']:.2f}" if math.isfinite(r["tracing_overhead"]) else fmt.UNKNOWN]


def text(table: list[dict]) -> str:
    return summary.aligned(COLUMNS, [_cells(r) for r in table], NOTES, left=1)


def markdown(table: list[dict]) -> str:
    return summary.markdown_table(COLUMNS, [_cells(r) for r in table], NOTES, left=1)


def csv(table: list[dict]) -> str:
    lines = [",".join(CSV)]
    for r in table:
        lines.append(",".join(str(r[c]) if not isinstance(r[c], float) else
                              ("" if not math.isfinite(r[c]) else f"{r[c]:.6g}") for c in CSV))
    return "\n".join(lines) + "\n"


TABLES = {"text": text, "markdown": markdown, "csv": csv}


def bars(table: list[dict], ax) -> None:
    """A stacked bar per traced point: its phases' means (µs), bottom to top in the round trip's order."""
    labels = [r["point"] for r in table]
    bottom = np.zeros(len(table))
    for column, name in zip(PHASE_COLUMNS, phases.PHASES, strict=True):
        values = np.array([r[column] for r in table], dtype=float) / 1000
        ax.barh(labels, np.nan_to_num(values), left=bottom, label=name)
        bottom += np.nan_to_num(values)
    ax.scatter([r["run_p50_ns"] / 1000 for r in table], labels, marker="|", s=200, color="black",
               label="the traced run's p50", zorder=3)
    ax.set_xlabel("µs per round trip (phase means over the fastest 90 %)")
    ax.invert_yaxis()
    ax.legend(fontsize="small", loc="lower right")


def pages_of(table: list[dict], where: str) -> list:
    """The bars on a page of their own, then a page of timelines, six points a page."""
    from . import pages  # matplotlib loads only when a figure is asked for

    fig, (ax,) = pages.new_page("Where a round trip's time goes (traced runs)", where)
    fig.subplots_adjust(left=0.3)  # the points' names
    bars(table, ax)
    out = [fig]
    for start in range(0, len(table), 6):
        chunk = table[start:start + 6]
        fig, axes = pages.new_page("Round trips from the middle of each traced run, phase by phase (µs from "
                                   "the ping's send)", where, len(chunk), 2)
        fig.subplots_adjust(hspace=0.45)
        for r, ax in zip(chunk, axes, strict=True):
            timeline(r["traced"], ax)
            pages.panel_title(ax, r["point"])
        fig.legend(*axes[0].get_legend_handles_labels(), loc="center right", fontsize="small")  # in the page's margin
        out.append(fig)
    return out
