"""The pages of a comparison of two sweeps (-t compare): a forest plot of each common point's new/old ratios."""

# forest() draws onto the axis it is given, in the manner of the kinds' figures; the numbers and their
# 95 % intervals are compare.py's, the page layout the page kit's.

import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import NullFormatter
from matplotlib.transforms import blended_transform_factory

from suite import fmt
from suite.palette import NO_VARIANTS, Palette

from . import pages as kit
from . import plots
from .compare import better_when

FOREST_ROWS = 24  # points per forest-plot page


def compare_pages(comparison, old_name: str, new_name: str, palette: Palette = NO_VARIANTS):
    """A forest plot of every common point, FOREST_ROWS points a page."""
    rows = comparison.rows
    names = list(dict.fromkeys(rows["label"]))
    count = max(1, math.ceil(len(names) / FOREST_ROWS))
    what = comparison.kind.what
    for page in range(count):
        chunk = rows[rows["label"].isin(names[page * FOREST_ROWS:(page + 1) * FOREST_ROWS])]
        suffix = f" ({page + 1}/{count})" if count > 1 else ""
        fig, (ax,) = kit.new_page(f"Sweep against sweep: {what}, new / old{suffix}",
                                     f"old: {old_name} · new: {new_name} · noise threshold "
                                     f"{fmt.percent(comparison.noise)}")
        ax.set_position((0.3, 0.1, 0.5, 0.78))
        forest(ax, chunk, comparison.kind.compare.lower_is_better, comparison.noise, palette)
        fig.legend(handles=plots.framework_handles(chunk["framework"], palette=palette)
                   + forest_handles(list(dict.fromkeys(rows["metric"]))),
                   loc="center left", bbox_to_anchor=(0.87, 0.5), frameon=False, fontsize=9)
        yield fig


def forest(ax, rows, lower_is_better: bool, noise: float, palette: Palette = NO_VARIANTS) -> None:
    """One row per point: the new/old ratio of each metric with its 95 % interval (first metric
    filled, second hollow), a vertical line at 1, the first metric's margin (`same` within it) and the noise band
    shaded, the verdicts on the right."""
    labels = list(dict.fromkeys(rows["label"]))
    y_of = {name: i for i, name in enumerate(labels)}
    metrics = list(dict.fromkeys(rows["metric"]))
    margin = rows.loc[rows["metric"] == metrics[0], "margin_pct"].max() / 100 if metrics else noise
    ax.axvspan(1 - margin, 1 + margin, color="0.96", lw=0, zorder=0)
    ax.axvspan(1 / (1 + noise), 1 + noise, color="0.9", lw=0, zorder=0)
    ax.axvline(1, color="0.3", lw=1, zorder=1)
    for i, metric in enumerate(metrics):
        sub = rows[rows["metric"] == metric]
        offset = 0.18 * (i - (len(metrics) - 1) / 2)
        for framework, group in sub.groupby("framework", sort=False):
            colour = palette.colour(framework)
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
    better = better_when(lower_is_better, "new is faster")
    ax.set_xlabel(f"new / old, 95 % interval ({better}; shaded: within the noise threshold, lighter: within "
                  f"{metrics[0] if metrics else ''}'s margin ±{100 * margin:g} %)")
    ax.grid(True, axis="x", which="major", alpha=0.3)


def forest_handles(metrics) -> list:
    marks = [("o", "0.3"), ("^", "white")]
    return [Line2D([], [], color="0.3", ls="", marker=m, mfc=face, ms=5, label=metric)
            for metric, (m, face) in zip(metrics, marks, strict=False)]
