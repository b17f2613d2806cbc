"""The RTT figures: each draws runs or points onto the matplotlib axis it is given, and returns nothing."""

# Runs are rows of the sweep table with their Shapes (ecdf, pdf, time), points their repeats combined
# (stat, tasks, connections, delta). Pages, titles and legends are rtt/pages.py's; colours and line
# styles come from the Palette passed in.

import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

from suite import fmt
from suite.palette import NO_VARIANTS
from suite.palette import Palette, is_reference

from ..plots import PLAIN, error_bars, minor_labels
from .protocols import BASE, OVER
from .runs import BASELINE

RTT_LABEL = "round-trip time (µs)"
_LOGIT_TICKS = [0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999]
# The ECDF's y range reaches at least from p10 to p90, so that a panel of runs with a sample or two each
# (10 msg/s for 0.1 s; plotting position 0.5) still spans its body; a run of 10 samples or more reaches past it.
_ECDF_BODY = (0.1, 0.9)


def _rtt_axis(ax, scale: str, which: str = "y") -> None:
    axis = ax.yaxis if which == "y" else ax.xaxis
    (ax.set_yscale if which == "y" else ax.set_xscale)("log" if scale == "log" else "linear")
    axis.set_major_formatter(PLAIN)
    if scale == "log":
        # Minor ticks at 2× and 5× only: each tick costs a few ms to draw, and these are read.
        axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        axis.set_minor_formatter(minor_labels(axis))
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


def stat(ax, runs, scale: str, positions: dict | None = None, palette: Palette = NO_VARIANTS) -> None:
    """Median RTT against message rate; a line per framework and transport, p5–p95 band.
    `positions` (from rate_positions) keeps several panels on one rate axis."""
    positions = positions or rate_positions(runs["interval_s"])
    for (_, framework, _, transport), line in runs.groupby(
            ["framework_rank", "framework", "transport_rank", "transport"], sort=True):
        line = line[line["n"] > 0].sort_values("interval_s", ascending=False)
        if line.empty:
            continue
        x = line["interval_s"].map(positions).to_numpy()
        colour, y = palette.colour(framework), line["p50"].to_numpy(dtype=float) / 1e3
        if is_reference(framework):  # a floor to read against: a plain grey line
            ax.plot(x, y, color=colour, ls=palette.linestyle(transport), marker="s", ms=3, lw=1.2, zorder=1)
            continue
        ax.fill_between(x, line["p5"] / 1e3, line["p95"] / 1e3, color=colour, alpha=0.12, lw=0)
        ax.plot(x, y, color=colour, ls=palette.linestyle(transport, framework), marker="o", ms=4)
        if "p50_low" in line:
            error_bars(ax, x, y, line["p50_low"] / 1e3, line["p50_high"] / 1e3, colour)
        missed = line[line["missed_rate"]]
        mx = missed["interval_s"].map(positions).to_numpy()
        ax.scatter(mx, missed["p50"] / 1e3, s=140, facecolors="none", edgecolors="#D55E00", lw=1.6,
                   zorder=5)
        for x_, y_, got in zip(mx, missed["p50"] / 1e3, missed["achieved_rate"], strict=True):
            ax.annotate(f"got {fmt.si(got)}", (x_, y_), xytext=(6, -12), textcoords="offset points",
                        fontsize=7, color="#D55E00")
    rate_axis(ax, positions)
    _rtt_axis(ax, scale)
    ax.set_ylabel("median " + RTT_LABEL)


def rate_axis(ax, positions: dict) -> None:
    """The message-rate x axis: a tick at each rate of the sweep (rate_positions), ∞ last."""
    ticks = sorted(positions.items(), key=lambda kv: kv[1])
    ax.xaxis.set_major_locator(FixedLocator([p for _, p in ticks]))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda v, _: next((fmt.rate_label(i) for i, p in ticks if abs(p - v) < 1e-9), "")))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(ticks) > 1:
        pad = 0.4 * (ticks[-1][1] - ticks[0][1]) / (len(ticks) - 1)
        ax.set_xlim(ticks[0][1] - pad, ticks[-1][1] + pad)
    ax.set_xlabel("messages per second asked for (∞ = back-to-back)")


def run_line(runs) -> dict:
    """How one run's curve is drawn: thinner and fainter when a line has more than 3 runs (the
    default sweep has 14), so that its repeats read as a bundle whose width is their spread."""
    most = int(runs.groupby(["framework", "transport"]).size().max()) if len(runs) else 1
    return {"lw": 1.3} if most <= 3 else {"lw": 0.7, "alpha": 0.6}


def ecdf(ax, runs, shapes, scale: str, palette: Palette = NO_VARIANTS) -> None:
    """Cumulative distribution on a logit scale: the body and both tails in one view."""
    low, high = _ECDF_BODY
    style = run_line(runs)
    for run in runs.itertuples():
        shape = shapes[run.Index]
        if shape is None:
            continue
        ax.plot(shape.ecdf_ns / 1e3, shape.ecdf_p, color=palette.colour(run.framework),
                ls=palette.linestyle(run.transport, run.framework), drawstyle="steps-post", **style)
        low, high = min(low, shape.ecdf_p[0]), max(high, shape.ecdf_p[-1])
    ax.set_yscale("logit")
    ax.yaxis.set_major_locator(FixedLocator(_LOGIT_TICKS))  # those outside the range are not drawn
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.percent(v)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(low, high)
    ax.set_ylabel("replies at or below (logit scale)")
    _rtt_axis(ax, scale, "x")


def pdf(ax, runs, shapes, scale: str, palette: Palette = NO_VARIANTS) -> None:
    """Distribution as a histogram density: per decade of RTT (log) or per µs up to p99.9 (lin)."""
    style = run_line(runs)
    for run in runs.itertuples():
        shape = shapes[run.Index]
        if shape is None:
            continue
        edges, density = ((shape.log_edges_ns, shape.log_density) if scale == "log"
                          else (shape.lin_edges_ns, shape.lin_density))
        # A step line rather than ax.stairs: the same picture, drawn several times faster.
        ax.plot(np.concatenate([edges[:1], edges]) / 1e3, np.concatenate([[0], density, [0]]), drawstyle="steps-post",
                color=palette.colour(run.framework), ls=palette.linestyle(run.transport, run.framework), **style)
    _rtt_axis(ax, scale, "x")
    ax.set_ylabel("share of replies per decade of RTT" if scale == "log" else "share of replies per µs")
    ax.set_ylim(bottom=0)


def time(ax, runs, shapes, scale: str, palette: Palette = NO_VARIANTS) -> None:
    """RTT over the run: every reply as a dot (small runs), else each time bin's p50 and p99."""
    for run in runs.itertuples():
        shape = shapes[run.Index]
        if shape is None or len(shape.time_s) == 0:
            continue
        colour = palette.colour(run.framework)
        if len(shape.time_p99_ns) == 0:
            ax.plot(shape.time_s, shape.time_p50_ns / 1e3, ".", color=colour, ms=2.5, alpha=0.7)
        else:
            ax.plot(shape.time_s, shape.time_p50_ns / 1e3, color=colour, lw=1.2)
            ax.plot(shape.time_s, shape.time_p99_ns / 1e3, color=colour, lw=0.8, ls=":")
    _rtt_axis(ax, scale)
    estimated = runs["time_estimated"].any()
    ax.set_xlabel("time since the measurement started (s)" + (", estimated" if estimated else ""))


def tasks(ax, runs, scale: str, palette: Palette = NO_VARIANTS) -> None:
    """p50 (solid) and p99 (dashed) RTT against the number of CPU-bound decoy tasks."""
    for (_, framework), line in runs.groupby(["framework_rank", "framework"], sort=True):
        line = line[line["n"] > 0].sort_values("tasks")
        colour = palette.colour(framework)
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


def connections(ax, points, scale: str, palette: Palette = NO_VARIANTS) -> None:
    """p50 (solid) and p99 (dashed) RTT against the connections of the ping, each with a pale bar from
    the smallest to the largest of the connections' own p50 (p99) and its 95 % interval; in open load
    the corrected latency's p99 (dotted). Means over repeats; the runtimes are drawn slightly apart at
    each count, so that their bars do not hide each other."""
    lines = list(points.groupby(["framework_rank", "framework"], sort=True))
    for i, ((_, framework), line) in enumerate(lines):
        line = line[line["n"] > 0].sort_values("connections")
        colour = palette.colour(framework)
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


DELTA_LABEL = "added latency: Δ median RTT vs std (µs)"
# Past this |Δ| (µs) the axis is logarithmic on both sides of a linear band of ±SYMLOG_LINEAR_US.
SYMLOG_ABOVE_US = 2000.0
SYMLOG_LINEAR_US = 10.0


def wants_symlog(points) -> bool:
    """Whether some |Δ| (or its interval) passes SYMLOG_ABOVE_US: then a runtime far slower than
    the rest (glommio under decoys: 100 ms) would flatten every other line onto 0 on a linear axis."""
    bounds = points[["delta_p50", "delta_p50_low", "delta_p50_high"]].to_numpy(dtype=float)
    return bool(np.nanmax(np.abs(bounds), initial=0.0) / 1e3 > SYMLOG_ABOVE_US)


def delta(ax, points, positions: dict, symlog: bool = False, palette: Palette = NO_VARIANTS) -> None:
    """Δp50 vs std against message rate: a line per runtime with its 95 % interval, a band of ±its
    minimum detectable Δ (80 % power) and a zero line (std itself); a hollow marker where the
    interval is unknown (one round in common).
    `symlog`: a logarithmic axis on both sides of a linear band around 0."""
    ax.axhline(0, color=palette.colour(BASELINE), lw=1, zorder=1)
    drawn = points[(points["verdict"] != "") & points["delta_p50"].notna()]
    lines = drawn.groupby(["framework_rank", "framework"], sort=True)
    for i, ((_, framework), line) in enumerate(lines):
        line = line.sort_values("interval_s", ascending=False)
        dodge = 0.05 * (i - (lines.ngroups - 1) / 2)  # so that the runtimes' bars do not hide each other
        x = line["interval_s"].map(positions).to_numpy() + dodge
        y = line["delta_p50"].to_numpy(dtype=float) / 1e3
        colour = palette.colour(framework)
        # One line style per series on every panel, as in the legend: solid, a variant its own.
        ax.plot(x, y, color=colour, ls=palette.linestyle("tcp", framework), marker="o", ms=4, lw=1.5)
        unknown = (line["verdict"] == "unknown").to_numpy()
        ax.scatter(x[unknown], y[unknown], s=30, facecolors="white", edgecolors=colour, zorder=5)
        error_bars(ax, x, y, line["delta_p50_low"] / 1e3, line["delta_p50_high"] / 1e3, colour)
        # What this sweep could have called: a Δ inside the band would have been missed more than 1 in 5.
        mde = line["mde_p50"].to_numpy(dtype=float) / 1e3
        ax.fill_between(x, -mde, mde, color=colour, alpha=0.10, lw=0, zorder=0)
    rate_axis(ax, positions)
    if symlog:
        ax.set_yscale("symlog", linthresh=SYMLOG_LINEAR_US)
    ax.set_ylabel(DELTA_LABEL)
    ax.grid(True, which="major", alpha=0.3)


def delta_handles(palette: Palette = NO_VARIANTS) -> list:
    return [Line2D([], [], color=palette.colour(BASELINE), lw=1, label=f"{BASELINE} (Δ = 0)"),
            Line2D([], [], color="0.3", ls="", marker="|", ms=9,
                   label="95 % interval,\npaired by round"),
            Patch(color="0.3", alpha=0.15, lw=0, label="±MDE: smallest Δ\ncalled 4 times in 5"),
            Line2D([], [], color="0.3", ls="", marker="o", mfc="white", ms=5, label="one round:\nno interval")]


def _cost_lines(ax, table, positions: dict, palette: Palette, columns: list[tuple[str, str, str, str]]) -> None:
    """A line per runtime and (value, low, high columns, transport) against rate, with its 95 % interval,
    dodged so that the runtimes' bars do not hide each other; a zero line."""
    ax.axhline(0, color="0.5", lw=1, zorder=1)
    lines = table.groupby("framework", sort=False)
    for i, (framework, line) in enumerate(lines):
        line = line.sort_values("interval_s", ascending=False)
        x = line["interval_s"].map(positions).to_numpy() + 0.05 * (i - (lines.ngroups - 1) / 2)
        colour = palette.colour(framework)
        for column, low, high, transport in columns:
            y = line[column].to_numpy(dtype=float) / 1e3
            if np.isnan(y).all():
                continue
            ax.plot(x, y, color=colour, ls=palette.linestyle(transport, framework), marker="o", ms=4, lw=1.5)
            error_bars(ax, x, y, line[low] / 1e3, line[high] / 1e3, colour)
    rate_axis(ax, positions)
    ax.grid(True, which="major", alpha=0.3)


def stack_cost(ax, table, positions: dict, palette: Palette = NO_VARIANTS) -> None:
    """HTTP − TCP p50 against message rate, a line per runtime (rtt/protocols.py's rows): what the protocol
    costs on each runtime."""
    _cost_lines(ax, table, positions, palette, [("cost", "cost_low", "cost_high", OVER)])
    ax.set_ylabel("HTTP − TCP, median RTT (µs)")


def runtime_cost(ax, table, positions: dict, palette: Palette = NO_VARIANTS) -> None:
    """Δp50 vs std against message rate over TCP and over HTTP (each its transport's line style), a line per
    runtime: what the runtime costs, on either protocol."""
    _cost_lines(ax, table, positions, palette, [(f"delta_p50_{t}", f"delta_p50_low_{t}", f"delta_p50_high_{t}", t)
                                                   for t in (BASE, OVER)])
    ax.set_ylabel(DELTA_LABEL)
