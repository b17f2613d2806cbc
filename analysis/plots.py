"""One function per figure: draws runs onto the matplotlib axis it is given, returns nothing."""

# One function per figure: each draws a set of runs (rows of the sweep table, with their
# Shapes or Windows) onto a matplotlib axis it is given, and returns nothing. Pages, titles, legends and
# saving are report.py's job; colours and labels come from style.py.

import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from . import style

RTT_LABEL = "round-trip time (µs)"
PLAIN = FuncFormatter(lambda v, _: style.plain(v))
_LOGIT_TICKS = [0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999]


def _minor_labels(axis) -> FuncFormatter:
    """Labels the 2× and 5× minor ticks of a log axis that spans at most about two decades."""
    def label(value: float, _) -> str:
        low, high = sorted(axis.get_view_interval())
        if value <= 0 or low <= 0 or math.log10(high / low) > 2.2:
            return ""
        lead = round(value / 10 ** math.floor(math.log10(value) + 1e-9), 6)
        return style.plain(value) if lead in (2, 5) else ""
    return FuncFormatter(label)


def _rtt_axis(ax, scale: str, which: str = "y") -> None:
    axis = ax.yaxis if which == "y" else ax.xaxis
    (ax.set_yscale if which == "y" else ax.set_xscale)("log" if scale == "log" else "linear")
    axis.set_major_formatter(PLAIN)
    if scale == "log":
        # Minor ticks at 2× and 5× only: each tick costs a few ms to draw, and these are read.
        axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        axis.set_minor_formatter(_minor_labels(axis))
    (ax.set_ylabel if which == "y" else ax.set_xlabel)(RTT_LABEL)
    ax.grid(True, which="major", alpha=0.3)


def rate_positions(intervals) -> dict[float, float]:
    """x position of each interval on the rate axis: log10(rate), with back-to-back (∞) one
    step beyond the highest finite rate, so 10, 100, 1 k, 10 k, ∞ are evenly spaced."""
    finite = sorted({1.0 / i for i in intervals if i > 0})
    logs = [math.log10(r) for r in finite]
    step = min(np.diff(logs)) if len(logs) > 1 else 1.0
    infinity = (logs[-1] + step) if logs else 0.0
    return {i: (math.log10(1.0 / i) if i > 0 else infinity) for i in set(intervals)}


def stat(ax, runs, scale: str, positions: dict | None = None) -> None:
    """Median RTT against message rate; a line per framework and transport, p5–p95 band.
    `positions` (from rate_positions) keeps several panels on one rate axis."""
    positions = positions or rate_positions(runs["interval_s"])
    for (_, framework, _, transport), line in runs.groupby(
            ["framework_rank", "framework", "transport_rank", "transport"], sort=True):
        line = line[line["n"] > 0].sort_values("interval_s", ascending=False)
        if line.empty:
            continue
        x = line["interval_s"].map(positions).to_numpy()
        colour, y = style.colour(framework), line["p50"].to_numpy(dtype=float) / 1e3
        if style.is_reference(framework):  # a floor to read against: a plain grey line
            ax.plot(x, y, color=colour, ls=style.linestyle(transport), marker="s", ms=3, lw=1.2, zorder=1)
            continue
        ax.fill_between(x, line["p5"] / 1e3, line["p95"] / 1e3, color=colour, alpha=0.12, lw=0)
        ax.plot(x, y, color=colour, ls=style.linestyle(transport, framework), marker="o", ms=4)
        if "p50_low" in line:
            error_bars(ax, x, y, line["p50_low"] / 1e3, line["p50_high"] / 1e3, colour)
        missed = line[line["missed_rate"]]
        mx = missed["interval_s"].map(positions).to_numpy()
        ax.scatter(mx, missed["p50"] / 1e3, s=140, facecolors="none", edgecolors="#D55E00", lw=1.6,
                   zorder=5)
        for x_, y_, got in zip(mx, missed["p50"] / 1e3, missed["achieved_rate"], strict=True):
            ax.annotate(f"got {style.si(got)}", (x_, y_), xytext=(6, -12), textcoords="offset points",
                        fontsize=7, color="#D55E00")
    rate_axis(ax, positions)
    _rtt_axis(ax, scale)
    ax.set_ylabel("median " + RTT_LABEL)


def rate_axis(ax, positions: dict) -> None:
    """The message-rate x axis: a tick at each rate of the sweep (rate_positions), ∞ last."""
    ticks = sorted(positions.items(), key=lambda kv: kv[1])
    ax.xaxis.set_major_locator(FixedLocator([p for _, p in ticks]))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda v, _: next((style.rate_label(i) for i, p in ticks if abs(p - v) < 1e-9), "")))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(ticks) > 1:
        pad = 0.4 * (ticks[-1][1] - ticks[0][1]) / (len(ticks) - 1)
        ax.set_xlim(ticks[0][1] - pad, ticks[-1][1] + pad)
    ax.set_xlabel("messages per second asked for (∞ = back-to-back)")


def error_bars(ax, x, y, low, high, colour: str) -> None:
    """The 95 % interval of each point as a vertical bar with caps; none where it is unknown."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    known = np.isfinite(low) & np.isfinite(high)
    if known.any():
        y = np.asarray(y, dtype=float)[known]
        ax.errorbar(np.asarray(x)[known], y, yerr=np.vstack([y - low[known], high[known] - y]).clip(0),
                    fmt="none", ecolor=colour, elinewidth=1, capsize=2.5, zorder=4)


def ecdf(ax, runs, shapes, scale: str) -> None:
    """Cumulative distribution on a logit scale: the body and both tails in one view."""
    low, high = 0.5, 0.5
    for run in runs.itertuples():
        shape = shapes[run.Index]
        if shape is None:
            continue
        ax.plot(shape.ecdf_ns / 1e3, shape.ecdf_p, color=style.colour(run.framework),
                ls=style.linestyle(run.transport, run.framework), drawstyle="steps-post", lw=1.3)
        low, high = min(low, shape.ecdf_p[0]), max(high, shape.ecdf_p[-1])
    ax.set_yscale("logit")
    ax.yaxis.set_major_locator(FixedLocator(_LOGIT_TICKS))  # those outside the range are not drawn
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: style.percent(v)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(low, high)
    ax.set_ylabel("replies at or below (logit scale)")
    _rtt_axis(ax, scale, "x")


def pdf(ax, runs, shapes, scale: str) -> None:
    """Distribution as a histogram density: per decade of RTT (log) or per µs up to p99.9 (lin)."""
    for run in runs.itertuples():
        shape = shapes[run.Index]
        if shape is None:
            continue
        edges, density = ((shape.log_edges_ns, shape.log_density) if scale == "log"
                          else (shape.lin_edges_ns, shape.lin_density))
        # A step line rather than ax.stairs: the same picture, drawn several times faster.
        ax.plot(np.concatenate([edges[:1], edges]) / 1e3, np.concatenate([[0], density, [0]]), drawstyle="steps-post",
                color=style.colour(run.framework), ls=style.linestyle(run.transport, run.framework), lw=1.3)
    _rtt_axis(ax, scale, "x")
    ax.set_ylabel("share of replies per decade of RTT" if scale == "log" else "share of replies per µs")
    ax.set_ylim(bottom=0)


def time(ax, runs, shapes, scale: str) -> None:
    """RTT over the run: every reply as a dot (small runs), else each time bin's p50 and p99."""
    for run in runs.itertuples():
        shape = shapes[run.Index]
        if shape is None or len(shape.time_s) == 0:
            continue
        colour = style.colour(run.framework)
        if len(shape.time_p99_ns) == 0:
            ax.plot(shape.time_s, shape.time_p50_ns / 1e3, ".", color=colour, ms=2.5, alpha=0.7)
        else:
            ax.plot(shape.time_s, shape.time_p50_ns / 1e3, color=colour, lw=1.2)
            ax.plot(shape.time_s, shape.time_p99_ns / 1e3, color=colour, lw=0.8, ls=":")
    _rtt_axis(ax, scale)
    estimated = runs["time_estimated"].any()
    ax.set_xlabel("time since the measurement started (s)" + (", estimated" if estimated else ""))


def tasks(ax, runs, scale: str) -> None:
    """p50 (solid) and p99 (dashed) RTT against the number of CPU-bound decoy tasks."""
    for (_, framework), line in runs.groupby(["framework_rank", "framework"], sort=True):
        line = line[line["n"] > 0].sort_values("tasks")
        colour = style.colour(framework)
        ax.plot(line["tasks"], line["p50"] / 1e3, color=colour, marker="o", ms=4, ls="-")
        ax.plot(line["tasks"], line["p99"] / 1e3, color=colour, marker="^", ms=4, ls="--", lw=1)
    counts = sorted(set(runs["tasks"]))
    if counts and max(counts) > 10:
        ax.set_xscale("symlog", linthresh=1)
    ax.xaxis.set_major_locator(FixedLocator(counts))
    ax.xaxis.set_major_formatter(PLAIN)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("decoy tasks (CPU-bound, on the measured runtime)")
    _rtt_axis(ax, scale)


def connections(ax, points, scale: str) -> None:
    """p50 (solid) and p99 (dashed) RTT against the connections of the ping, each with a pale bar from
    the smallest to the largest of the connections' own p50 (p99) and its 95 % interval; in open load
    the corrected latency's p99 (dotted). Means over repeats; the runtimes are drawn slightly apart at
    each count, so that their bars do not hide each other."""
    lines = list(points.groupby(["framework_rank", "framework"], sort=True))
    for i, ((_, framework), line) in enumerate(lines):
        line = line[line["n"] > 0].sort_values("connections")
        colour = style.colour(framework)
        x = line["connections"].to_numpy() * 10 ** (0.025 * (i - (len(lines) - 1) / 2))
        for metric, ls, marker in (("p50", "-", "o"), ("p99", "--", "^")):
            y = line[metric].to_numpy(dtype=float) / 1e3
            ax.vlines(x, line[f"conn_{metric}_min"] / 1e3, line[f"conn_{metric}_max"] / 1e3, color=colour, lw=5,
                      alpha=0.2, zorder=1)
            ax.plot(x, y, color=colour, ls=ls, marker=marker, ms=4, lw=1.5 if metric == "p50" else 1)
            error_bars(ax, x, y, line[f"{metric}_low"] / 1e3, line[f"{metric}_high"] / 1e3, colour)
        corrected = line["latency_p99"].notna().to_numpy()
        if corrected.any():
            y = line["latency_p99"].to_numpy(dtype=float)[corrected] / 1e3
            ax.plot(x[corrected], y, color=colour, ls=":", marker="x", ms=5, lw=1.2)
            error_bars(ax, x[corrected], y, line["latency_p99_low"][corrected] / 1e3,
                       line["latency_p99_high"][corrected] / 1e3, colour)
    counts = sorted(set(points["connections"]))
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(counts))
    ax.xaxis.set_major_formatter(PLAIN)
    ax.xaxis.set_minor_locator(NullLocator())
    if counts:
        ax.set_xlim(counts[0] / 1.6, counts[-1] * 1.6)
    ax.set_xlabel("connections of the ping (sharing the rate asked for)")
    _rtt_axis(ax, scale)
    ax.set_ylabel("round-trip time; open: latency (µs)")


THROUGHPUT_LABELS = {"msg_per_s": "messages received per second", "gbit_per_s": "Gb/s received (10⁹ bit/s)"}
_SI = FuncFormatter(lambda v, _: style.si(v))
_MAX_SIZE_TICKS = 9


def throughput(ax, runs, quantity: str, scale: str) -> None:
    """Throughput against payload size, `quantity` "msg_per_s" or "gbit_per_s": a line per
    framework and transport through the medians across windows, a p5–p95 band, log x.
    On a log y axis a band whose p5 window is empty ends at the bottom of the panel."""
    drawn = runs[runs["windows"] > 0]
    low, mid, high = (drawn[f"{quantity}_{p}"].to_numpy(dtype=float) for p in ("p5", "p50", "p95"))
    positive = np.concatenate([low[low > 0], mid[mid > 0], high[high > 0]])
    floor = positive.min() / 2 if scale == "log" and len(positive) and (low <= 0).any() else None
    for (_, framework, _, transport), line in drawn.groupby(
            ["framework_rank", "framework", "transport_rank", "transport"], sort=True):
        line = line.sort_values("payload")
        x, colour = line["payload"].to_numpy(), style.colour(framework)
        bottom = line[f"{quantity}_p5"].to_numpy(dtype=float)
        ax.fill_between(x, bottom if floor is None else np.maximum(bottom, floor), line[f"{quantity}_p95"],
                        color=colour, alpha=0.12, lw=0)
        ax.plot(x, line[f"{quantity}_p50"], color=colour, ls=style.linestyle(transport, framework), marker="o",
                ms=4)
        if f"{quantity}_p50_low" in line:
            error_bars(ax, x, line[f"{quantity}_p50"], line[f"{quantity}_p50_low"], line[f"{quantity}_p50_high"],
                       colour)
    _size_axis(ax, sorted(set(runs["payload"])))
    formatter = _SI if quantity == "msg_per_s" else PLAIN
    if scale == "log":
        ax.set_yscale("log")
        if floor is not None:
            ax.set_ylim(bottom=floor)
        span = np.log10(positive.max() / (floor or positive.min())) if len(positive) else 3
        # Decades when the data spans several; else 1-2-5 or every digit, so that some are labelled.
        subs = (1.0,) if span > 2.2 else (1.0, 2.0, 5.0) if span > 0.9 else np.arange(1.0, 10.0)
        ax.yaxis.set_major_locator(LogLocator(subs=subs))
        ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)) if len(subs) == 1 else NullLocator())
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(formatter)
    ax.set_ylabel(THROUGHPUT_LABELS[quantity])
    ax.grid(True, which="major", alpha=0.3)


def _size_axis(ax, sizes: list) -> None:
    """Log payload axis: a tick at every size measured, labelled where the label has room."""
    ax.set_xscale("log", base=2)
    if len(sizes) <= _MAX_SIZE_TICKS:
        # A label only where it clears the previous one (a factor of 3 on this axis), so that
        # 64 KiB and 65507 B do not print over each other.
        labelled = [sizes[0]]
        for size in sizes[1:]:  # a loop over sizes, not samples
            if size >= 3 * labelled[-1]:
                labelled.append(size)
        ax.xaxis.set_major_locator(FixedLocator(sizes))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: style.size_label(v) if v in labelled else ""))
    else:
        ax.xaxis.set_major_locator(LogLocator(base=4))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: style.size_label(v)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="x", labelsize=8.5)
    ax.set_xlim(sizes[0] / 1.6, sizes[-1] * 1.6)
    ax.set_xlabel("payload size (bytes per message)")


def throughput_time(ax, runs, windows) -> None:
    """Messages received in each window over the run, as steps from 0 (a stall shows as a drop).
    Solid lines whatever the transport: a dashed step line reads as noise, and the page says which."""
    for run in runs.itertuples():
        w = windows[run.Index]
        if w is None:
            continue
        x = np.append(w.time_s, w.time_s[-1] + run.window_s)  # the last window's step ends where it does
        ax.plot(x, np.append(w.msg_per_s, w.msg_per_s[-1]), drawstyle="steps-post", lw=1.1,
                color=style.colour(run.framework))
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(_SI)
    ax.set_xlabel("time since the measurement started (s)")
    ax.set_ylabel("messages received per second, per window")
    ax.grid(True, which="major", alpha=0.3)


def framework_handles(frameworks, transport: str = "tcp") -> list:
    """Legend entries: one colour per framework, in the suite's order; a variant (in its shade of its
    base's colour) with its line style for `transport`, right after its base."""
    names = sorted(set(frameworks), key=lambda f: (style.series_rank([f]), f))
    return [Line2D([], [], color=style.colour(f), lw=1.2 if style.is_reference(f) else 2,
                   ls=style.linestyle(transport, f), marker="s" if style.is_reference(f) else "", ms=3, label=f)
            for f in names]


def style_handles(transports=(), band=False, missed=False, percentiles=(), ci=False, series=(),
                  spread: str | None = None) -> list:
    """Legend entries for what line styles and marks mean; with a variant among `series`, the
    variants' line style of each transport too; `spread` labels the pale bars of a spread."""
    order = sorted(set(transports), key=lambda t: (style.order_key([t], style.TRANSPORT_ORDER), t))
    handles = [Line2D([], [], color="0.3", ls=style.linestyle(t), label=t.upper()) for t in order]
    if any(style.is_variant(f) for f in series):
        handles += [Line2D([], [], color="0.3", ls=style.VARIANT_STYLES[t], label=f"{t.upper()}, a variant")
                    for t in order if t in style.VARIANT_STYLES]
    for label, ls, marker in percentiles:
        handles.append(Line2D([], [], color="0.3", ls=ls, marker=marker, ms=4, label=label))
    if band:
        handles.append(Patch(color="0.3", alpha=0.15, label="p5–p95 band"))
    if spread:
        handles.append(Line2D([], [], color="0.3", alpha=0.3, lw=5, label=spread))
    if ci:
        handles.append(Line2D([], [], color="0.3", ls="", marker="|", ms=9, label="95 % interval\nof the median"))
    if missed:
        handles.append(Line2D([], [], ls="", marker="o", ms=10, mfc="none", mec="#D55E00", mew=1.6,
                              label="achieved rate\n< 95 % of target"))
    return handles
