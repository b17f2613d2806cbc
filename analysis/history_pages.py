"""The pages of a history (parse.py history -o FILE.pdf): one page per metric, each point's value sweep after sweep.

Each series (history.Series) is drawn by trend() onto the axis it is given, in the manner of the kinds'
figures: its value per sweep with the sweep's 95 % interval, in its runtime's colour, and a star where a change
was called with a dotted line at that sweep. A level's page has a log axis; a paired Δ's a linear one in µs,
with its zero (it may be negative). The page layout and saving are the page kit's.
"""

from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from suite import fmt
from suite.palette import NO_VARIANTS

from . import pages as kit
from . import plots

WHAT = {"latency": "latency (p50)", "p99-latency": "latency (p99)", "throughput": "throughput",
        "delta-latency": "Δp50 vs std (paired by round)", "delta-base-latency": "Δp50 vs its base (paired by round)"}


def trend(ax, series, numbers: dict, colour: str) -> None:
    """One series: its value at each sweep's number, the sweep's interval as a bar, a star at each change."""
    sweeps = series.sweeps
    x = sweeps["sweep"].map(numbers).to_numpy()
    ax.plot(x, sweeps["value"], color=colour, lw=1.2, marker="o", ms=2.5)
    plots.error_bars(ax, x, sweeps["value"], sweeps["low"], sweeps["high"], colour)
    for change in series.changes:
        ax.axvline(x[change.at] - 0.5, color=colour, ls=":", lw=1)
        ax.plot([x[change.at]], [sweeps["value"].iloc[change.at]], marker="*", ms=12, color=colour, mec="black",
                mew=0.6, zorder=5)


def history_pages(series: list, numbered, title: str):
    """A page per metric (latency p50, p99, throughput…), every point's series on it, on a log axis."""
    numbers = dict(zip(numbered["sweep"], numbered["number"]))
    measures = list(dict.fromkeys(s.key[3] for s in series))
    for measure in measures:
        chosen = [s for s in series if s.key[3] == measure]
        unit = chosen[0].sweeps["unit"].iloc[0]
        called = sum(len(s.changes) for s in chosen)
        fig, (ax,) = kit.new_page(f"History: {WHAT.get(measure, measure)}, {len(chosen)} "
                                  f"point{'s' if len(chosen) != 1 else ''} over "
                                  f"{len(numbered)} sweeps",
                                  f"{title} · each sweep's value with its 95 % interval · "
                                  f"{called} change{'s' if called != 1 else ''} called (★)")
        for s in chosen:
            trend(ax, s, numbers, NO_VARIANTS.colour(s.sweeps["runtime"].iloc[0]))
        if chosen[0].paired:
            ax.axhline(0, color="0.4", lw=0.8)
        else:
            ax.set_yscale("log")
        write = fmt.time_ns if unit == "ns" else fmt.si
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _, write=write: write(v)))
        if not chosen[0].paired:
            ax.yaxis.set_minor_formatter(plots.minor_labels(ax.yaxis, write))
        ax.set_xlabel("sweep (#, in the order they started)")
        ax.set_ylabel(f"{WHAT.get(measure, measure)}, {unit}")
        if len(numbers) <= 30:
            ax.set_xticks(sorted(numbers.values()))
        ax.set_xlim(0.5, len(numbers) + 0.5)
        ax.grid(True, which="major", alpha=0.3)
        runtimes = list(dict.fromkeys(s.sweeps["runtime"].iloc[0] for s in chosen))
        handles = plots.framework_handles(runtimes) + [
            Line2D([], [], color="0.3", ls="", marker="*", ms=10, mec="black", label="change called")]
        fig.legend(handles=handles, loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False, fontsize=9)
        yield fig
