"""Figures of differences: the latency each runtime adds over std, and a sweep-to-sweep forest plot."""

# Two figure functions in the manner of plots.py: each draws onto the axis it is given and returns
# nothing. The numbers and their 95 % intervals come from points.py (Δ vs std) and compare.py (ratios).

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import NullFormatter
from matplotlib.transforms import blended_transform_factory

from . import plots, style

DELTA_LABEL = "added latency: Δ median RTT vs std (µs)"
# Past this |Δ| (µs) the axis is logarithmic on both sides of a linear band of ±SYMLOG_LINEAR_US.
SYMLOG_ABOVE_US = 2000.0
SYMLOG_LINEAR_US = 10.0


def wants_symlog(points) -> bool:
    """Whether some |Δ| (or its interval) passes SYMLOG_ABOVE_US: then a runtime far slower than
    the rest (glommio under decoys: 100 ms) would flatten every other line onto 0 on a linear axis."""
    bounds = points[["delta_p50", "delta_p50_low", "delta_p50_high"]].to_numpy(dtype=float)
    return bool(np.nanmax(np.abs(bounds), initial=0.0) / 1e3 > SYMLOG_ABOVE_US)


def delta(ax, points, positions: dict, symlog: bool = False) -> None:
    """Δp50 vs std against message rate: a line per runtime with its 95 % interval, a band of ±its
    minimum detectable Δ (80 % power) and a zero line (std itself); a hollow marker where the
    interval is unknown (one round in common).
    `symlog`: a logarithmic axis on both sides of a linear band around 0."""
    ax.axhline(0, color=style.colour(style.BASELINE), lw=1, zorder=1)
    drawn = points[(points["verdict"] != "") & points["delta_p50"].notna()]
    lines = drawn.groupby(["framework_rank", "framework"], sort=True)
    for i, ((_, framework), line) in enumerate(lines):
        line = line.sort_values("interval_s", ascending=False)
        dodge = 0.05 * (i - (lines.ngroups - 1) / 2)  # so that the runtimes' bars do not hide each other
        x = line["interval_s"].map(positions).to_numpy() + dodge
        y = line["delta_p50"].to_numpy(dtype=float) / 1e3
        colour = style.colour(framework)
        # One line style per series on every panel, as in the legend: solid, a variant its own.
        ax.plot(x, y, color=colour, ls=style.linestyle("tcp", framework), marker="o", ms=4, lw=1.5)
        unknown = (line["verdict"] == "unknown").to_numpy()
        ax.scatter(x[unknown], y[unknown], s=30, facecolors="white", edgecolors=colour, zorder=5)
        plots.error_bars(ax, x, y, line["delta_p50_low"] / 1e3, line["delta_p50_high"] / 1e3, colour)
        # What this sweep could have called: a Δ inside the band would have been missed more than 1 in 5.
        mde = line["mde_p50"].to_numpy(dtype=float) / 1e3
        ax.fill_between(x, -mde, mde, color=colour, alpha=0.10, lw=0, zorder=0)
    plots.rate_axis(ax, positions)
    if symlog:
        ax.set_yscale("symlog", linthresh=SYMLOG_LINEAR_US)
    ax.set_ylabel(DELTA_LABEL)
    ax.grid(True, which="major", alpha=0.3)


def delta_handles() -> list:
    return [Line2D([], [], color=style.colour(style.BASELINE), lw=1, label=f"{style.BASELINE} (Δ = 0)"),
            Line2D([], [], color="0.3", ls="", marker="|", ms=9,
                   label="95 % interval,\npaired by round"),
            Patch(color="0.3", alpha=0.15, lw=0, label="±MDE: smallest Δ\ncalled 4 times in 5"),
            Line2D([], [], color="0.3", ls="", marker="o", mfc="white", ms=5, label="one round:\nno interval")]


def forest(ax, rows, kind: str, noise: float) -> None:
    """One row per point: the new/old ratio of each metric with its 95 % interval (first metric
    filled, second hollow), a vertical line at 1, the noise band shaded, the verdicts on the right."""
    labels = list(dict.fromkeys(rows["label"]))
    y_of = {name: i for i, name in enumerate(labels)}
    metrics = list(dict.fromkeys(rows["metric"]))
    ax.axvspan(1 / (1 + noise), 1 + noise, color="0.92", lw=0, zorder=0)
    ax.axvline(1, color="0.3", lw=1, zorder=1)
    for i, metric in enumerate(metrics):
        sub = rows[rows["metric"] == metric]
        offset = 0.18 * (i - (len(metrics) - 1) / 2)
        for framework, group in sub.groupby("framework", sort=False):
            colour = style.colour(framework)
            x, y = group["ratio"].to_numpy(dtype=float), group["label"].map(y_of).to_numpy() + offset
            low, high = group["ratio_low"].to_numpy(dtype=float), group["ratio_high"].to_numpy(dtype=float)
            known = np.isfinite(low)
            ax.errorbar(x[known], y[known], xerr=np.vstack([x - low, high - x])[:, known].clip(0), fmt="none",
                        ecolor=colour, elinewidth=1, capsize=2)
            ax.scatter(x, y, marker="o" if i == 0 else "^", s=22, color=colour,
                       facecolors=colour if i == 0 else "white", zorder=4)
    verdicts = rows.groupby("label", sort=False)["verdict"].agg(" · ".join)
    side = blended_transform_factory(ax.transAxes, ax.transData)
    for name, text in verdicts.items():
        ax.text(1.01, y_of[name], text, transform=side, va="center", fontsize=7)
    # A ratio is multiplicative: on a log axis ×2 and ÷2 lie equally far from 1, and a p99 that
    # moved 50-fold does not squash every p50 into one pixel.
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(plots.PLAIN)
    ax.xaxis.set_minor_formatter(plots.PLAIN if np.ptp(np.log10(ax.get_xlim())) < 1 else NullFormatter())
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    better = "< 1: new is faster" if kind == "rtt" else "> 1: new is faster"
    ax.set_xlabel(f"new / old, 95 % interval ({better}; shaded: within the noise threshold)")
    ax.grid(True, axis="x", which="major", alpha=0.3)


def forest_handles(metrics) -> list:
    marks = [("o", "0.3"), ("^", "white")]
    return [Line2D([], [], color="0.3", ls="", marker=m, mfc=face, ms=5, label=metric)
            for metric, (m, face) in zip(metrics, marks, strict=False)]
