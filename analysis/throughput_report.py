"""Pages of a throughput report: rates against payload size and over each run, then the table."""

# Pages of a throughput report: messages per second and Gb/s against payload size, the rate
# over each run, then the summary-table and machine pages. Page layout, titles and saving are
# report.py's; this module only decides what goes on which page.

from . import plots, report, style

# -t values that mean something for throughput logs, and what each draws.
PLOTS = {"stat": "msg/s and Gb/s against payload size", "time": "msg/s per window over the run",
         "all": "every figure, the table and the machine page"}


def size_pages(sweep, runs, scale: str):
    """A page per decoy count: msg/s above Gb/s on one size axis, TCP and UDP in each panel.
    Stacked rather than side by side: the size axis gets the page's width, and where the message
    rate falls the bit rate levels off, right below it."""
    for tasks, group in runs.groupby("tasks", sort=True):
        fig, axes = report.new_page(
            f"Throughput against payload size — {tasks} decoy task{'s' if tasks != 1 else ''}",
            report.context(sweep, group), 2, cols=1)
        fig.subplots_adjust(hspace=0.12)
        for ax, quantity in zip(axes, ("msg_per_s", "gbit_per_s"), strict=True):
            plots.throughput(ax, group, quantity, scale)
        axes[0].tick_params(axis="x", labelbottom=False)
        axes[0].set_xlabel("")
        fig.legend(handles=plots.framework_handles(group["framework"])
                   + plots.style_handles(group["transport"], band=True, ci=bool((group["repeats"] > 1).any()),
                                         series=group["framework"]),
                   loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False, fontsize=9)
        window = " or ".join(sorted({style.window_label(w) for w in group["window_s"]}))
        fig.text(0.455, 0.015, f"each point: the median {window} window of a run, mean over repeats; "
                 "received, one way, sent back-to-back", ha="center", fontsize=8, color="0.35")
        yield fig


def time_pages(sweep, runs):
    """A page per transport and decoy count, a panel per payload size, a line per framework."""
    for (_, transport, tasks), group in runs.groupby(["transport_rank", "transport", "tasks"], sort=True):
        sizes = sorted(set(group["payload"]))
        fig, axes = report.new_page(f"Throughput over the run — {transport.upper()}, "
                                    f"{tasks} decoy task{'s' if tasks != 1 else ''}",
                                    report.context(sweep, group), len(sizes))
        for ax, size in zip(axes, sizes, strict=True):
            plots.throughput_time(ax, group[group["payload"] == size], sweep.shapes)
            report.panel_title(ax, f"{style.size_label(size)} payload")
        report.finish(fig, axes, plots.framework_handles(group["framework"]), "x")
        yield fig


def pages(sweep, runs, plot: str, scale: str):
    """The figures of one kind of plot, or of every kind for "all", one Figure per page."""
    if plot in ("stat", "all"):
        yield from size_pages(sweep, sweep.points, scale)  # the repeats combined, with 95 % intervals
    if plot in ("time", "all"):
        yield from time_pages(sweep, runs)
    if plot == "all":
        yield from report.table_pages(sweep, sweep.points, "throughput")
        yield from report.machine_page(sweep, runs)
