"""The throughput figures and pages: rates against payload size, the rate over each run, the table."""

# Each figure function draws runs or points onto the axis it is given and returns nothing; each page
# function takes the sweep and the axis scale and yields a matplotlib Figure per page (FIGURES in
# throughput/__init__.py names them). Laid out and saved with the page kit (analysis/pages.py).

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from suite import fmt
from suite.palette import NO_VARIANTS, Palette

from .. import pages as kit
from .. import plots
from ..plots import PLAIN, SI, error_bars
from .table import text

THROUGHPUT_LABELS = {"msg_per_s": "messages received per second", "gbit_per_s": "Gb/s received (10⁹ bit/s)"}
_MAX_SIZE_TICKS = 9


def throughput(ax, runs, quantity: str, scale: str, palette: Palette = NO_VARIANTS) -> None:
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
        x, colour = line["payload"].to_numpy(), palette.colour(framework)
        bottom = line[f"{quantity}_p5"].to_numpy(dtype=float)
        ax.fill_between(x, bottom if floor is None else np.maximum(bottom, floor), line[f"{quantity}_p95"],
                        color=colour, alpha=0.12, lw=0)
        ax.plot(x, line[f"{quantity}_p50"], color=colour, ls=palette.linestyle(transport, framework), marker="o",
                ms=4)
        if f"{quantity}_p50_low" in line:
            error_bars(ax, x, line[f"{quantity}_p50"], line[f"{quantity}_p50_low"], line[f"{quantity}_p50_high"],
                       colour)
    _size_axis(ax, sorted(set(runs["payload"])))
    formatter = SI if quantity == "msg_per_s" else PLAIN
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
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.size_label(v) if v in labelled else ""))
    else:
        ax.xaxis.set_major_locator(LogLocator(base=4))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.size_label(v)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="x", labelsize=8.5)
    ax.set_xlim(sizes[0] / 1.6, sizes[-1] * 1.6)
    ax.set_xlabel("payload size (bytes per message)")


def throughput_time(ax, runs, windows, palette: Palette = NO_VARIANTS) -> None:
    """Messages received in each window over the run, as steps from 0 (a stall shows as a drop).
    Solid lines whatever the transport: a dashed step line reads as noise, and the page says which."""
    for run in runs.itertuples():
        w = windows[run.Index]
        if w is None:
            continue
        x = np.append(w.time_s, w.time_s[-1] + run.window_s)  # the last window's step ends where it does
        ax.plot(x, np.append(w.msg_per_s, w.msg_per_s[-1]), drawstyle="steps-post", lw=1.1,
                color=palette.colour(run.framework))
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(SI)
    ax.set_xlabel("time since the measurement started (s)")
    ax.set_ylabel("messages received per second, per window")
    ax.grid(True, which="major", alpha=0.3)


def size_pages(sweep, scale: str):
    """A page per decoy count: msg/s above Gb/s on one size axis, TCP and UDP in each panel, the repeats
    combined with 95 % intervals. Stacked rather than side by side: the size axis gets the page's width,
    and where the message rate falls the bit rate levels off, right below it."""
    palette = sweep.palette
    for tasks, group in sweep.points.groupby("tasks", sort=True):
        fig, axes = kit.new_page(
            f"Throughput against payload size — {tasks} decoy task{'s' if tasks != 1 else ''}",
            kit.context(sweep, group), 2, cols=1)
        fig.subplots_adjust(hspace=0.12)
        for ax, quantity in zip(axes, ("msg_per_s", "gbit_per_s"), strict=True):
            throughput(ax, group, quantity, scale, palette)
        axes[0].tick_params(axis="x", labelbottom=False)
        axes[0].set_xlabel("")
        fig.legend(handles=plots.framework_handles(group["framework"], palette=palette)
                   + plots.style_handles(group["transport"], band=True, ci=bool((group["repeats"] > 1).any()),
                                         series=group["framework"], palette=palette),
                   loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False, fontsize=9)
        window = " or ".join(sorted({fmt.window_label(w) for w in group["window_s"]}))
        fig.text(0.455, 0.015, f"each point: the median {window} window of a run, mean over repeats; "
                 "received, one way, sent back-to-back", ha="center", fontsize=8, color="0.35")
        yield fig


def time_pages(sweep, scale: str):
    """A page per transport and decoy count, a panel per payload size, a line per framework (every run)."""
    palette = sweep.palette
    for (_, transport, tasks), group in sweep.runs.groupby(["transport_rank", "transport", "tasks"], sort=True):
        sizes = sorted(set(group["payload"]))
        fig, axes = kit.new_page(f"Throughput over the run — {transport.upper()}, "
                                 f"{tasks} decoy task{'s' if tasks != 1 else ''}",
                                 kit.context(sweep, group), len(sizes))
        for ax, size in zip(axes, sizes, strict=True):
            throughput_time(ax, group[group["payload"] == size], sweep.shapes, palette)
            kit.panel_title(ax, f"{fmt.size_label(size)} payload")
        kit.finish(fig, axes, plots.framework_handles(group["framework"], palette=palette), "x")
        yield fig


def closing_pages(sweep):
    """The summary table and the machine page that end -t all."""
    yield from kit.table_pages(text(sweep.points, sweep.noise), "Summary: throughput per point, repeats combined",
                               kit.context(sweep, sweep.points),
                               ("percentiles: nearest rank on the measured windows of each run",))
    yield from kit.machine_page(sweep, sweep.runs)
