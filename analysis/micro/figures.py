"""Pages of a micro report (-k micro): the scheduler bars, Notify vs oneshot against N, channel throughput, the table."""

# Each figure function draws points (micro/runs.py: one row per framework × benchmark × sizes)
# onto the axis it is given; each page function (FIGURES in micro/__init__.py names them) lays them out
# with the page kit (analysis/pages.py), which saves them. Points that were not run (std above its
# thread cap) are left out of every figure: the table says why. Micro logs have no variants: the
# colours are runtimes.json's.

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from suite import fmt
from suite.benchmarks import SCHEDULER
from suite.palette import FRAMEWORK_ORDER, NO_VARIANTS, is_reference, micro_line, order_key

from .. import pages as kit
from ..plots import SI, error_bars, minor_labels
from .runs import EVENT_ORDER
from .table import OPERATION, size_label
from .table import text as table_text

# The points each figure draws, by benchmark.
DRAWN = {"scheduler": SCHEDULER, "notify": ("notify", "oneshot"), "channel": ("channel",)}

PRIMITIVE_STYLES = dict(zip(DRAWN["notify"], (("-", "o"), ("--", "s")), strict=True))  # Notify, oneshot
REFERENCE_HATCH = "///"  # a reference's bars (kotlin: the only one with scheduler benchmarks)
_TIME = FuncFormatter(lambda v, _: fmt.time_ns(v))
colour_of = NO_VARIANTS.colour  # micro logs have no variants


def _measured(points):
    return points[points["not_run"].isna() & np.isfinite(points["ns_per_op"].astype(float))]


def _yerr(values, low, high) -> np.ndarray | None:
    """Whiskers for errorbar: the distance to each bound, 0 where a bound is unknown."""
    values, low, high = (np.asarray(a, dtype=float) for a in (values, low, high))
    below, above = np.nan_to_num(values - low), np.nan_to_num(high - values)
    return np.vstack([below.clip(0), above.clip(0)])


def _log_axis(axis, formatter) -> None:
    """Log ticks written by `formatter`; the 2× and 5× minor ticks labelled too when the axis spans
    at most about two decades (else a panel may show a single labelled tick)."""
    axis.set_major_formatter(formatter)
    axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
    axis.set_minor_formatter(minor_labels(axis, lambda value: formatter(value, None)))


def scheduler_bars(ax, points) -> None:
    """Grouped bars: a group per scheduler benchmark, a bar per framework (the list's colours; a
    reference, kotlin, hatched), its height the median ns per operation, its whisker the 95 % interval."""
    points = _measured(points[points["bench"].isin(DRAWN["scheduler"])])
    benches = [b for b in SCHEDULER if b in set(points["bench"])]
    frameworks = sorted(set(points["framework"]), key=lambda f: (order_key([f], FRAMEWORK_ORDER), f))
    width = 0.8 / max(1, len(frameworks))
    for i, framework in enumerate(frameworks):
        hatch = REFERENCE_HATCH if is_reference(framework) else None
        mine = points[points["framework"] == framework].set_index("bench").reindex(benches)
        x = np.arange(len(benches)) - 0.4 + width * (i + 0.5)
        known = np.isfinite(mine["ns_per_op"].astype(float)).to_numpy()
        y = mine["ns_per_op"].astype(float).to_numpy()
        ax.bar(x[known], y[known], width * 0.92, color=colour_of(framework), label=framework, hatch=hatch,
               edgecolor="white" if hatch else None, linewidth=0)
        ax.errorbar(x[known], y[known], yerr=_yerr(y, mine["ns_per_op_low"], mine["ns_per_op_high"])[:, known],
                    fmt="none", ecolor="0.15", elinewidth=1, capsize=2.5)
        tops = np.fmax(y, mine["ns_per_op_high"].astype(float).to_numpy())  # above the whisker
        for x_, y_, top in zip(x[known], y[known], tops[known], strict=True):
            ax.annotate(fmt.time_ns(y_), (x_, top), xytext=(0, 3), textcoords="offset points", ha="center",
                        va="bottom", fontsize=6.5, rotation=90)
    ax.set_xticks(np.arange(len(benches)))
    sizes = {b: size_label(next(points[points["bench"] == b].itertuples())) for b in benches}
    ax.set_xticklabels([f"{b}\n{sizes[b]}\n(an operation: {OPERATION[b]})" for b in benches], fontsize=8.5)
    ax.set_yscale("log")
    _log_axis(ax.yaxis, _TIME)
    ax.set_ylabel("time per operation (median of the repeats)")
    ax.grid(True, axis="y", which="major", alpha=0.3)
    ax.margins(y=0.15)


def notify_lines(ax, points, quantity: str = "time") -> None:
    """A line per framework × primitive (Notify solid, oneshot dashed; a reference, kotlin, thinner,
    with its own marker) against N, both axes log-scaled: the median time until every waiter woke
    (quantity "time") or the peak RSS ("rss")."""
    points = _measured(points[points["bench"].isin(PRIMITIVE_STYLES)])
    for (framework, bench), line in points.groupby(["framework", "bench"], sort=False):
        line = line.sort_values("instances")
        ls, marker = PRIMITIVE_STYLES[bench]
        _, own_marker, lw = micro_line(framework)
        marker = own_marker if is_reference(framework) else marker
        x, colour = line["instances"].astype(float).to_numpy(), colour_of(framework)
        if quantity == "rss":
            y = line["peak_rss_bytes"].astype(float).to_numpy()
            ax.plot(x, y, color=colour, ls=ls, marker=marker, ms=4, lw=lw)
            continue
        y = line["time_ns"].astype(float).to_numpy()
        ax.plot(x, y, color=colour, ls=ls, marker=marker, ms=4, lw=lw)
        error_bars(ax, x, y, line["time_low_ns"], line["time_high_ns"], colour)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_axis(ax.xaxis, SI)
    if quantity == "time":
        _log_axis(ax.yaxis, _TIME)
    else:  # powers of two of bytes: 16 MiB, 32 MiB, … rather than 95.4 MiB
        ax.yaxis.set_major_locator(LogLocator(base=2))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.bytes_iec(v)))
        ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("N: holder/waiter pairs")
    ax.set_ylabel("time until every waiter woke, minus the hold" if quantity == "time" else "peak RSS")
    ax.grid(True, which="major", alpha=0.3)


def channel_lines(ax, points) -> None:
    """Events received per second against workers, a line per framework; references (go, kotlin)
    thinner, each with its own dashes and marker (fmt.micro_line)."""
    points = _measured(points[points["bench"].isin(DRAWN["channel"])])
    for framework, line in points.groupby("framework", sort=False):
        line = line.sort_values("workers")
        x, y = line["workers"].astype(float).to_numpy(), line["ops_per_s"].astype(float).to_numpy()
        colour = colour_of(framework)
        ls, marker, lw = micro_line(framework)
        ax.plot(x, y, color=colour, ls=ls, marker=marker, ms=4, lw=lw)
        error_bars(ax, x, y, line["ops_per_s_low"], line["ops_per_s_high"], colour)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_axis(ax.xaxis, SI)
    _log_axis(ax.yaxis, SI)
    ax.set_xlabel("W: workers (one producer each)")
    ax.set_ylabel("events received per second (median of the repeats)")
    ax.grid(True, which="major", alpha=0.3)


def framework_handles(frameworks, dashes: bool = True) -> list:
    """One entry per framework; a reference as the line it is drawn with (fmt.micro_line), solid
    where the dashes mean something else (`dashes` False: the notify page's primitives)."""
    names = sorted(set(frameworks), key=lambda f: (order_key([f], FRAMEWORK_ORDER), f))
    handles = []
    for f in names:
        ls, marker, lw = micro_line(f)
        reference = is_reference(f)
        handles.append(Line2D([], [], color=colour_of(f), lw=lw, ls=ls if dashes else "-",
                              marker=marker if reference else "", ms=4,
                              label=f + (" (reference)" if reference else "")))
    return handles


def _ci_handle() -> Line2D:
    return Line2D([], [], color="0.3", ls="", marker="|", ms=9, label="95 % interval\nof the median")


def _foot(fig, text: str, shared_xlabel: str | None = None) -> None:
    """A line under the axes; they and the shared x label (kit.finish's) move up to make room."""
    fig.subplots_adjust(bottom=0.15)
    if shared_xlabel:
        fig.supxlabel(shared_xlabel, fontsize=10, x=0.45, y=0.055)  # the same label, moved
    fig.text(0.455, 0.015, text, ha="center", fontsize=8, color="0.35")


def scheduler_page(sweep, scale: str = "log"):
    points = sweep.points
    shown = _measured(points[points["bench"].isin(DRAWN["scheduler"])])
    if shown.empty:
        return
    fig, (ax,) = kit.new_page("Scheduler benchmarks: time per operation", kit.context(sweep, sweep.runs))
    scheduler_bars(ax, points)
    fig.legend(handles=[Patch(facecolor=colour_of(f), hatch=REFERENCE_HATCH if is_reference(f) else None,
                              edgecolor="white", label=f + (" (reference)" if is_reference(f) else ""))
                        for f in
                        sorted(set(shown["framework"]), key=lambda f: order_key([f], FRAMEWORK_ORDER))]
               + [_ci_handle()], loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False, fontsize=9)
    _foot(fig, "each bar: the median of a run's timed repeats (after one untimed warm-up; kotlin: several, for "
          "the JIT), with its 95 % interval")
    yield fig


def notify_page(sweep, scale: str = "log"):
    points = sweep.points
    shown = _measured(points[points["bench"].isin(PRIMITIVE_STYLES)])
    if shown.empty:
        return
    fig, axes = kit.new_page("Notify vs oneshot: waking N waiters", kit.context(sweep, sweep.runs), 2, cols=2)
    notify_lines(axes[0], points, "time")
    notify_lines(axes[1], points, "rss")
    axes[1].set_ylabel("")  # its title says it, and the label would sit on the left panel
    kit.panel_title(axes[0], "time until every waiter woke")
    kit.panel_title(axes[1], "peak RSS of the process")
    handles = framework_handles(shown["framework"], dashes=False) + [
        Line2D([], [], color="0.3", ls=ls, marker=marker, ms=4, label=bench)
        for bench, (ls, marker) in PRIMITIVE_STYLES.items() if bench in set(shown["bench"])]
    fig.legend(handles=handles + [_ci_handle()], loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False,
               fontsize=9)
    holds = sorted({fmt.count(h) for h in shown["hold_ms"].dropna()})
    _foot(fig, f"N holder tasks each sleep {' or '.join(holds) or '?'} ms, then drop their notifier; a waiter per "
          "holder; the time is until every waiter woke, minus the sleep (median of the repeats)")
    yield fig


EVENT_TITLES = {"int": "integer events", "string": "a fresh string per event",
                "string_copy": "a copy of one string per event", "shared": "one shared string (uncounted)",
                "shared_arc": "one shared Arc<str> (counted)"}


def channel_page(sweep, scale: str = "log"):
    points = sweep.points
    shown = _measured(points[points["bench"].isin(DRAWN["channel"])])
    if shown.empty:
        return
    # A panel per event type and string size (older logs and int events have no size).
    kinds = shown[["event_type", "event_size"]].drop_duplicates()
    kinds = kinds.assign(rank=order_key(kinds["event_type"], EVENT_ORDER)).sort_values(
        ["rank", "event_type", "event_size"], na_position="first")
    fig, axes = kit.new_page("Channel throughput against workers", kit.context(sweep, sweep.runs),
                                len(kinds))
    for ax, (event_type, size) in zip(axes, zip(kinds["event_type"], kinds["event_size"], strict=True),
                                      strict=True):
        same_size = points["event_size"].isna() if pd.isna(size) else points["event_size"] == size
        channel_lines(ax, points[(points["event_type"] == event_type) & same_size])
        title = EVENT_TITLES.get(event_type, event_type)
        kit.panel_title(ax, title if pd.isna(size) else f"{title} ({fmt.count(size)} B)")
    xlabel = axes[0].get_xlabel()
    kit.finish(fig, axes, framework_handles(shown["framework"]) + [_ci_handle()], "xy")
    e = " or ".join(sorted({fmt.count(v) for v in shown["events"].dropna()})) or "?"
    q = " or ".join(sorted({fmt.count(v) for v in shown["queue"].dropna()})) or "?"
    _foot(fig, f"W workers, each with a bounded queue of Q = {q} events and a producer sending it E = {e}; "
          "events/s: W·E over a repeat's time (median of the repeats)", xlabel if len(axes) > 1 else None)
    yield fig


def closing_pages(sweep):
    """The summary table (its notes smaller, wrapped) and the machine page that end -t all."""
    yield from kit.table_pages(table_text(sweep.points), "Summary: in-process benchmarks per point",
                               kit.context(sweep, sweep.runs), notes_size=7, wrap=True)
    yield from kit.machine_page(sweep, sweep.runs)
