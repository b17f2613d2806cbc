"""Pages of a micro report (-k micro): the scheduler bars, Notify vs oneshot against N, channel throughput, the table."""

# Each figure function draws points (analysis/micro.py: one row per framework × benchmark × sizes)
# onto the axis it is given; the pages, titles, the table and the machine page are laid out here and
# saved by report.save. Points that were not run (std above its thread cap) are left out of every
# figure: the table says why.

import math

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from . import micro, plots, report, style

PLOTS = {"scheduler": "ns per operation of the scheduler benchmarks, a bar per runtime",
         "notify": "Notify vs oneshot: time until every waiter woke against N",
         "channel": "channel events per second against workers, a panel per event type",
         "all": "every figure, the table and the machine page"}
PRIMITIVE_STYLES = {"notify": ("-", "o"), "oneshot": ("--", "s")}
REFERENCE_HATCH = "///"  # a reference's bars (kotlin: the only one with scheduler benchmarks)
_TIME = FuncFormatter(lambda v, _: style.time_ns(v))
_SI = FuncFormatter(lambda v, _: style.si(v))


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

    def minor(value: float, pos) -> str:
        low, high = sorted(axis.get_view_interval())
        if value <= 0 or low <= 0 or math.log10(high / low) > 2.2:
            return ""
        lead = round(value / 10 ** math.floor(math.log10(value) + 1e-9), 6)
        return formatter(value, pos) if lead in (2, 5) else ""
    axis.set_minor_formatter(FuncFormatter(minor))


def scheduler_bars(ax, points) -> None:
    """Grouped bars: a group per scheduler benchmark, a bar per framework (the list's colours; a
    reference, kotlin, hatched), its height the median ns per operation, its whisker the 95 % interval."""
    points = _measured(points[points["bench"].isin(micro.SCHEDULER)])
    benches = [b for b in micro.SCHEDULER if b in set(points["bench"])]
    frameworks = sorted(set(points["framework"]), key=lambda f: (style.order_key([f], style.FRAMEWORK_ORDER), f))
    width = 0.8 / max(1, len(frameworks))
    for i, framework in enumerate(frameworks):
        hatch = REFERENCE_HATCH if style.is_reference(framework) else None
        mine = points[points["framework"] == framework].set_index("bench").reindex(benches)
        x = np.arange(len(benches)) - 0.4 + width * (i + 0.5)
        known = np.isfinite(mine["ns_per_op"].astype(float)).to_numpy()
        y = mine["ns_per_op"].astype(float).to_numpy()
        ax.bar(x[known], y[known], width * 0.92, color=style.colour(framework), label=framework, hatch=hatch,
               edgecolor="white" if hatch else None, linewidth=0)
        ax.errorbar(x[known], y[known], yerr=_yerr(y, mine["ns_per_op_low"], mine["ns_per_op_high"])[:, known],
                    fmt="none", ecolor="0.15", elinewidth=1, capsize=2.5)
        tops = np.fmax(y, mine["ns_per_op_high"].astype(float).to_numpy())  # above the whisker
        for x_, y_, top in zip(x[known], y[known], tops[known], strict=True):
            ax.annotate(style.time_ns(y_), (x_, top), xytext=(0, 3), textcoords="offset points", ha="center",
                        va="bottom", fontsize=6.5, rotation=90)
    ax.set_xticks(np.arange(len(benches)))
    sizes = {b: micro.size_label(next(points[points["bench"] == b].itertuples())) for b in benches}
    ax.set_xticklabels([f"{b}\n{sizes[b]}\n(an operation: {micro.OPERATION[b]})" for b in benches], fontsize=8.5)
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
        _, own_marker, lw = style.micro_line(framework)
        marker = own_marker if style.is_reference(framework) else marker
        x, colour = line["instances"].astype(float).to_numpy(), style.colour(framework)
        if quantity == "rss":
            y = line["peak_rss_bytes"].astype(float).to_numpy()
            ax.plot(x, y, color=colour, ls=ls, marker=marker, ms=4, lw=lw)
            continue
        y = line["time_ns"].astype(float).to_numpy()
        ax.plot(x, y, color=colour, ls=ls, marker=marker, ms=4, lw=lw)
        plots.error_bars(ax, x, y, line["time_low_ns"], line["time_high_ns"], colour)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_axis(ax.xaxis, _SI)
    if quantity == "time":
        _log_axis(ax.yaxis, _TIME)
    else:  # powers of two of bytes: 16 MiB, 32 MiB, … rather than 95.4 MiB
        ax.yaxis.set_major_locator(LogLocator(base=2))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: style.bytes_iec(v)))
        ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("N: holder/waiter pairs")
    ax.set_ylabel("time until every waiter woke, minus the hold" if quantity == "time" else "peak RSS")
    ax.grid(True, which="major", alpha=0.3)


def channel_lines(ax, points) -> None:
    """Events received per second against workers, a line per framework; references (go, kotlin)
    thinner, each with its own dashes and marker (style.micro_line)."""
    points = _measured(points[points["bench"] == "channel"])
    for framework, line in points.groupby("framework", sort=False):
        line = line.sort_values("workers")
        x, y = line["workers"].astype(float).to_numpy(), line["ops_per_s"].astype(float).to_numpy()
        colour = style.colour(framework)
        ls, marker, lw = style.micro_line(framework)
        ax.plot(x, y, color=colour, ls=ls, marker=marker, ms=4, lw=lw)
        plots.error_bars(ax, x, y, line["ops_per_s_low"], line["ops_per_s_high"], colour)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_axis(ax.xaxis, _SI)
    _log_axis(ax.yaxis, _SI)
    ax.set_xlabel("W: workers (one producer each)")
    ax.set_ylabel("events received per second (median of the repeats)")
    ax.grid(True, which="major", alpha=0.3)


def framework_handles(frameworks, dashes: bool = True) -> list:
    """One entry per framework; a reference as the line it is drawn with (style.micro_line), solid
    where the dashes mean something else (`dashes` False: the notify page's primitives)."""
    names = sorted(set(frameworks), key=lambda f: (style.order_key([f], style.FRAMEWORK_ORDER), f))
    handles = []
    for f in names:
        ls, marker, lw = style.micro_line(f)
        reference = style.is_reference(f)
        handles.append(Line2D([], [], color=style.colour(f), lw=lw, ls=ls if dashes else "-",
                              marker=marker if reference else "", ms=4,
                              label=f + (" (reference)" if reference else "")))
    return handles


def _ci_handle() -> Line2D:
    return Line2D([], [], color="0.3", ls="", marker="|", ms=9, label="95 % interval\nof the median")


def _foot(fig, text: str, shared_xlabel: str | None = None) -> None:
    """A line under the axes; they and the shared x label (report.finish's) move up to make room."""
    fig.subplots_adjust(bottom=0.15)
    if shared_xlabel:
        fig.supxlabel(shared_xlabel, fontsize=10, x=0.45, y=0.055)  # the same label, moved
    fig.text(0.455, 0.015, text, ha="center", fontsize=8, color="0.35")


def scheduler_page(sweep, points):
    shown = _measured(points[points["bench"].isin(micro.SCHEDULER)])
    if shown.empty:
        return
    fig, (ax,) = report.new_page("Scheduler benchmarks: time per operation", report.context(sweep, sweep.runs))
    scheduler_bars(ax, points)
    fig.legend(handles=[Patch(facecolor=style.colour(f), hatch=REFERENCE_HATCH if style.is_reference(f) else None,
                              edgecolor="white", label=f + (" (reference)" if style.is_reference(f) else ""))
                        for f in
                        sorted(set(shown["framework"]), key=lambda f: style.order_key([f], style.FRAMEWORK_ORDER))]
               + [_ci_handle()], loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False, fontsize=9)
    _foot(fig, "each bar: the median of a run's timed repeats (after one untimed warm-up; kotlin: several, for "
          "the JIT), with its 95 % interval")
    yield fig


def notify_page(sweep, points):
    shown = _measured(points[points["bench"].isin(PRIMITIVE_STYLES)])
    if shown.empty:
        return
    fig, axes = report.new_page("Notify vs oneshot: waking N waiters", report.context(sweep, sweep.runs), 2, cols=2)
    notify_lines(axes[0], points, "time")
    notify_lines(axes[1], points, "rss")
    axes[1].set_ylabel("")  # its title says it, and the label would sit on the left panel
    report.panel_title(axes[0], "time until every waiter woke")
    report.panel_title(axes[1], "peak RSS of the process")
    handles = framework_handles(shown["framework"], dashes=False) + [
        Line2D([], [], color="0.3", ls=ls, marker=marker, ms=4, label=bench)
        for bench, (ls, marker) in PRIMITIVE_STYLES.items() if bench in set(shown["bench"])]
    fig.legend(handles=handles + [_ci_handle()], loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False,
               fontsize=9)
    holds = sorted({style.count(h) for h in shown["hold_ms"].dropna()})
    _foot(fig, f"N holder tasks each sleep {' or '.join(holds) or '?'} ms, then drop their notifier; a waiter per "
          "holder; the time is until every waiter woke, minus the sleep (median of the repeats)")
    yield fig


EVENT_TITLES = {"int": "integer events", "string": "a fresh string per event",
                "string_copy": "a copy of one string per event", "shared": "one shared string (uncounted)",
                "shared_arc": "one shared Arc<str> (counted)"}


def channel_page(sweep, points):
    shown = _measured(points[points["bench"] == "channel"])
    if shown.empty:
        return
    # A panel per event type and string size (older logs and int events have no size).
    kinds = shown[["event_type", "event_size"]].drop_duplicates()
    kinds = kinds.assign(rank=style.order_key(kinds["event_type"], micro.EVENT_ORDER)).sort_values(
        ["rank", "event_type", "event_size"], na_position="first")
    fig, axes = report.new_page("Channel throughput against workers", report.context(sweep, sweep.runs),
                                len(kinds))
    for ax, (event_type, size) in zip(axes, zip(kinds["event_type"], kinds["event_size"], strict=True),
                                      strict=True):
        same_size = points["event_size"].isna() if pd.isna(size) else points["event_size"] == size
        channel_lines(ax, points[(points["event_type"] == event_type) & same_size])
        title = EVENT_TITLES.get(event_type, event_type)
        report.panel_title(ax, title if pd.isna(size) else f"{title} ({style.count(size)} B)")
    xlabel = axes[0].get_xlabel()
    report.finish(fig, axes, framework_handles(shown["framework"]) + [_ci_handle()], "xy")
    e = " or ".join(sorted({style.count(v) for v in shown["events"].dropna()})) or "?"
    q = " or ".join(sorted({style.count(v) for v in shown["queue"].dropna()})) or "?"
    _foot(fig, f"W workers, each with a bounded queue of Q = {q} events and a producer sending it E = {e}; "
          "events/s: W·E over a repeat's time (median of the repeats)", xlabel if len(axes) > 1 else None)
    yield fig


def table_pages(sweep, points):
    """The summary table in a monospaced font, as report.table_pages sets the RTT one."""
    lines = micro.text(points).rstrip("\n").split("\n")
    header, body = lines[:2], lines[2:lines.index("")]
    notes = lines[lines.index("") + 1:]
    size = min(9.5, 0.9 * style.PAGE_SIZE[0] * 72 / (0.61 * max(len(line) for line in lines[:len(body) + 2])))
    pages = max(1, math.ceil(len(body) / report.TABLE_ROWS))
    for page in range(pages):
        chunk = body[page * report.TABLE_ROWS:(page + 1) * report.TABLE_ROWS]
        suffix = f" ({page + 1}/{pages})" if pages > 1 else ""
        fig, (ax,) = report.new_page(f"Summary: in-process benchmarks per point{suffix}",
                                     report.context(sweep, sweep.runs))
        ax.set_position((0.05, 0.05, 0.9, 0.83))
        ax.axis("off")
        ax.text(0, 1, "\n".join(header), transform=ax.transAxes, va="top", family="monospace", fontsize=size,
                weight="bold")
        ax.text(0, 1, "\n" * 2 + "\n".join(chunk), transform=ax.transAxes, va="top", family="monospace",
                fontsize=size)
        ax.text(0, 0, "\n".join(notes), transform=ax.transAxes, va="bottom", fontsize=7, color="0.3", wrap=True)
        yield fig


def pages(sweep, plot: str):
    """The figures of one kind of plot, or of every kind for "all", one Figure per page."""
    points = sweep.points
    makers = {"scheduler": scheduler_page, "notify": notify_page, "channel": channel_page}
    for name in (makers if plot == "all" else (plot,)):
        yield from makers[name](sweep, points)
    if plot == "all":
        yield from table_pages(sweep, points)
        yield from report.machine_page(sweep, sweep.runs)
