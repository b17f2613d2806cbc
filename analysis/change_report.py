"""Pages of the difference figures: added latency over std (`-t delta`) and a sweep comparison (`-t compare`)."""

# Page layout, titles, legends and saving are report.py's; this module decides what goes on which page.

import math

from . import change_plots, plots, report, style

FOREST_ROWS = 24  # points per forest-plot page


def has_deltas(points) -> bool:
    return bool(((points["verdict"] != "") & points["delta_p50"].notna()).any())


def delta_pages(sweep, points):
    """A page per payload, a panel per transport × decoy count, a line per runtime."""
    drawn = points[(points["verdict"] != "") & points["delta_p50"].notna()]
    for (payload, connections, load), group in drawn.groupby(["payload", *report.SHAPE], sort=True):
        panels = group[["transport_rank", "transport", "tasks"]].drop_duplicates().sort_values(
            ["transport_rank", "transport", "tasks"])
        fig, axes = report.new_page(f"Latency each runtime adds over std, against message rate — {payload} B "
                                    f"payload{report.shape(connections, load)}", report.context(sweep, group),
                                    len(panels), cols=2)
        positions = plots.rate_positions(group["interval_s"])
        symlog = change_plots.wants_symlog(group)  # one scale for every panel of the page
        for ax, (_, transport, tasks) in zip(axes, panels.itertuples(index=False), strict=True):
            panel = group[(group["transport"] == transport) & (group["tasks"] == tasks)]
            change_plots.delta(ax, panel, positions, symlog)
            report.panel_title(ax, f"{transport.upper()}, {tasks} decoy task{'s' if tasks != 1 else ''}")
        report.finish(fig, axes, plots.framework_handles(group["framework"]) + change_plots.delta_handles(),
                      "xy", cols=2)
        yield fig


def compare_pages(comparison, old_name: str, new_name: str):
    """A forest plot of every common point, FOREST_ROWS points a page."""
    rows = comparison.rows
    names = list(dict.fromkeys(rows["label"]))
    count = max(1, math.ceil(len(names) / FOREST_ROWS))
    what = "round-trip time" if comparison.kind == "rtt" else "throughput"
    for page in range(count):
        chunk = rows[rows["label"].isin(names[page * FOREST_ROWS:(page + 1) * FOREST_ROWS])]
        suffix = f" ({page + 1}/{count})" if count > 1 else ""
        fig, (ax,) = report.new_page(f"Sweep against sweep: {what}, new / old{suffix}",
                                     f"old: {old_name} · new: {new_name} · noise threshold "
                                     f"{style.percent(comparison.noise)}")
        ax.set_position((0.3, 0.1, 0.5, 0.78))
        change_plots.forest(ax, chunk, comparison.kind, comparison.noise)
        fig.legend(handles=plots.framework_handles(chunk["framework"])
                   + change_plots.forest_handles(list(dict.fromkeys(rows["metric"]))),
                   loc="center left", bbox_to_anchor=(0.87, 0.5), frameon=False, fontsize=9)
        yield fig
