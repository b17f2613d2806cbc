"""The RTT pages: each figure's page layout, a panel per transport, rate or load, titled with its point."""

# A page function takes the sweep and the axis scale and yields one matplotlib Figure per page; the
# figure table in rtt/__init__.py names them. The axes are drawn by rtt/figures.py, laid out and saved
# with the page kit (analysis/pages.py).

import math

from suite import fmt
from suite.palette import TRANSPORT_ORDER, order_key

from .. import pages as kit
from .. import plots
from . import cost_figures, costs, figures, protocols, table
from .runs import SHAPE, shape

_TASKS_TITLE = "Round-trip time against CPU-bound decoy tasks"


def point(payload, tasks, key=None) -> str:
    """A page's point in words: payload and decoy tasks, then the `shape` of `key` (a mapping)."""
    return f"{payload} B payload, {tasks} decoy task{'s' if tasks != 1 else ''}" + shape(key or {})


def _rate_title(interval: float) -> str:
    return fmt.rate_words(interval) + ("" if interval <= 0 else " asked for")



def stat_pages(sweep, scale: str):
    """A page per payload and decoy count, a panel per transport; the ICMP baseline in each. Points: the
    mean median over repeats with its 95 % interval."""
    palette = sweep.palette
    by = ["payload", "tasks", *SHAPE]
    for values, group in sweep.points.groupby(by, sort=True):
        key = dict(zip(by, values, strict=True))
        transports = [t for t in ordered(group["transport"]) if t != "icmp"] or ["icmp"]
        fig, axes = kit.new_page(f"Median round-trip time against message rate — "
                                 f"{point(key['payload'], key['tasks'], key)}", kit.context(sweep, group),
                                 len(transports), cols=2)
        positions = figures.rate_positions(group["interval_s"])
        for ax, transport in zip(axes, transports, strict=True):
            panel = group[(group["transport"] == transport) | (group["transport"] == "icmp")]
            figures.stat(ax, panel, scale, positions, palette)
            kit.panel_title(ax, transport.upper())
        kit.finish(fig, axes, plots.framework_handles(group["framework"], palette=palette) + plots.style_handles(
            group["transport"], band=True, missed=bool(group["missed_rate"].any()),
            ci=bool((group["repeats"] > 1).any()), series=group["framework"], palette=palette), "xy", cols=2)
        yield fig


def ordered(values) -> list:
    return sorted(set(values), key=lambda v: (order_key([v], TRANSPORT_ORDER), v))


def _grid_pages(sweep, runs, scale, draw, what: str, by=("transport", "payload", "tasks", *SHAPE)):
    """A page per `by` value, a panel per message rate, a line per framework."""
    palette = sweep.palette
    for key, group in runs.groupby(list(by), sort=False):
        key = dict(zip(by, key, strict=True))
        intervals = sorted(set(group["interval_s"]), key=lambda i: math.inf if i <= 0 else 1 / i)
        title = f"{what} — {key['transport'].upper()}, " + (
            point(key["payload"], key["tasks"]) if "tasks" in key else f"{key['payload']} B payload") + shape(key)
        fig, axes = kit.new_page(title, kit.context(sweep, group), len(intervals))
        for ax, interval in zip(axes, intervals, strict=True):
            panel = group[group["interval_s"] == interval]
            if draw is figures.tasks:
                draw(ax, panel, scale, palette)
            else:
                draw(ax, panel, sweep.shapes, scale, palette)
            kit.panel_title(ax, _rate_title(interval))
        handles = plots.framework_handles(group["framework"], key["transport"], palette)
        if draw is figures.time:
            big = any(s is not None and len(s.time_p99_ns) for s in (sweep.shapes[i] for i in group.index))
            handles += plots.style_handles(percentiles=[("p50 per time bin", "-", ""),
                                                        ("p99 per time bin", ":", "")] if big else [])
        elif draw is figures.tasks:
            handles += plots.style_handles(percentiles=[("p50", "-", "o"), ("p99", "--", "^")])
        kit.finish(fig, axes, handles, "y" if draw is figures.time else "xy")
        yield fig


def ecdf_pages(sweep, scale: str):
    """Every repeat's distribution, a line each."""
    return _grid_pages(sweep, sweep.runs, scale, figures.ecdf, "Distribution of round-trip times (ECDF)")


def pdf_pages(sweep, scale: str):
    return _grid_pages(sweep, sweep.runs, scale, figures.pdf, "Distribution of round-trip times")


def time_pages(sweep, scale: str):
    return _grid_pages(sweep, sweep.runs, scale, figures.time, "Round-trip time over the run")


def tasks_pages(sweep, scale: str, points=None):
    """p50 and p99 against the decoy count, a page per transport, payload and shape, a panel per rate."""
    return _grid_pages(sweep, sweep.points if points is None else points, scale, figures.tasks, _TASKS_TITLE,
                       by=("transport", "payload", *SHAPE))


def varied_tasks_pages(sweep, scale: str):
    """tasks_pages where a sweep tried more than one decoy count: one count says nothing against it."""
    points = sweep.points
    varied = points.groupby(["transport", "payload", *SHAPE])["tasks"].transform("nunique") > 1
    return tasks_pages(sweep, scale, points[varied])


def connection_pages(sweep, scale: str, points=None):
    """A page per payload, rate and decoy count, a panel per transport and load (closed, open), a line per
    framework against the number of connections; the ICMP reference has one stream and is left out."""
    palette = sweep.palette
    points = sweep.points if points is None else points
    points = points[points["transport"] != "icmp"]
    for (payload, interval, tasks), group in points.groupby(["payload", "interval_s", "tasks"], sort=False):
        loads = sorted(set(group["load"]))  # closed, open: a column each
        panels = [(transport, load) for transport in ordered(group["transport"]) for load in loads]
        fig, axes = kit.new_page(f"Round-trip time against connections per ping — {payload} B payload, "
                                 f"{_rate_title(interval)}, {tasks} decoy task{'s' if tasks != 1 else ''}",
                                 kit.context(sweep, group), len(panels), cols=len(loads))
        for ax, (transport, load) in zip(axes, panels, strict=True):
            figures.connections(ax, group[(group["transport"] == transport) & (group["load"] == load)], scale,
                                palette)
            window = {int(w) for w in group.loc[group["load"] == load, "window"].dropna()}
            kit.panel_title(ax, f"{transport.upper()}, {load} loop" + (
                f" (window {', '.join(map(str, sorted(window)))})" if load == "open" and window else ""))
        handles = plots.framework_handles(group["framework"], palette=palette) + plots.style_handles(
            percentiles=[("p50", "-", "o"), ("p99", "--", "^")]
            + ([("corrected latency p99\n(open: from the\nscheduled send)", ":", "x")] if "open" in loads else []),
            ci=bool((group["repeats"] > 1).any()), spread="min–max across\nconnections of each\nconnection's own\n"
            "p50 and p99")
        kit.finish(fig, axes, handles, "xy", cols=len(loads))
        yield fig


def varied_connection_pages(sweep, scale: str):
    """connection_pages where a sweep tried more than one connection count."""
    points = sweep.points
    several = points.groupby(["payload", "interval_s", "tasks"])["connections"].transform("nunique") > 1
    return connection_pages(sweep, scale, points[several])


def delta_pages(sweep, scale: str):
    """A page per payload, a panel per transport × decoy count, a line per runtime."""
    palette, points = sweep.palette, sweep.points
    drawn = points[(points["verdict"] != "") & points["delta_p50"].notna()]
    by = ["payload", *SHAPE]
    for values, group in drawn.groupby(by, sort=True):
        key = dict(zip(by, values, strict=True))
        panels = group[["transport_rank", "transport", "tasks"]].drop_duplicates().sort_values(
            ["transport_rank", "transport", "tasks"])
        fig, axes = kit.new_page(f"Latency each runtime adds over std, against message rate — {key['payload']} B "
                                 f"payload{shape(key)}", kit.context(sweep, group),
                                 len(panels), cols=2)
        positions = figures.rate_positions(group["interval_s"])
        symlog = figures.wants_symlog(group)  # one scale for every panel of the page
        for ax, (_, transport, tasks) in zip(axes, panels.itertuples(index=False), strict=True):
            panel = group[(group["transport"] == transport) & (group["tasks"] == tasks)]
            figures.delta(ax, panel, positions, symlog, palette)
            kit.panel_title(ax, f"{transport.upper()}, {tasks} decoy task{'s' if tasks != 1 else ''}")
        kit.finish(fig, axes, plots.framework_handles(group["framework"], palette=palette)
                   + figures.delta_handles(palette), "xy", cols=2)
        yield fig


def cost_pages(sweep, scale: str = "linear"):
    """Where a round trip goes, from every run's counters (costs.breakdown): a page per transport, payload, decoy
    count and shape, a row per message rate: the mean RTT as each end's CPU and the rest, beside the Δ vs std in
    those parts and the Δp50 measured. Nothing where no run counted."""
    rows = costs.breakdown(sweep.points, sweep.runs)
    by = ["transport", "payload", "tasks", *SHAPE]
    for values, group in (rows.groupby(by, sort=False) if not rows.empty else ()):
        key = dict(zip(by, values, strict=True))
        intervals = sorted(set(group["interval_s"]), key=lambda i: math.inf if i <= 0 else 1 / i)
        fig, axes = kit.new_page(f"Where a round trip goes, from each end's counters — {key['transport'].upper()}, "
                                 f"{point(key['payload'], key['tasks'], key)}", kit.context(sweep, sweep.points),
                                 2 * len(intervals), cols=2)
        for k, interval in enumerate(intervals):
            panel = group[group["interval_s"] == interval].sort_values(["framework_rank", "framework"])
            cost_figures.where(axes[2 * k], panel)
            cost_figures.deltas(axes[2 * k + 1], panel)
            kit.panel_title(axes[2 * k], f"{_rate_title(interval)}: the mean RTT in parts")
            kit.panel_title(axes[2 * k + 1], f"{_rate_title(interval)}: Δ vs std in parts")
        kit.finish(fig, axes, cost_figures.handles(), "", cols=2)
        yield fig


def protocol_pages(sweep, scale: str = "log"):
    """`parse.py protocols -o`: the figures of protocol_figure_pages, then their table."""
    yield from protocol_figure_pages(sweep, scale)
    yield from protocol_table_pages(sweep)


def protocol_table_pages(sweep):
    """HTTP against TCP as a table (rtt/protocols.py), where a runtime ran over both; nothing otherwise."""
    if protocols.both(sweep.points):
        yield from kit.table_pages(protocols.text(protocols.stack_cost(sweep.points, sweep.runs)),
                                   "HTTP against TCP: what the protocol and the runtime cost",
                                   kit.context(sweep, sweep.points))


def protocol_figure_pages(sweep, scale: str = "log"):
    """What the protocol costs beside what the runtime costs (rtt/protocols.py), for the settings a runtime
    ran over both TCP and HTTP (`-t protocols`): a page per payload, decoy count and shape, HTTP − TCP in one
    panel and each transport's Δ vs std in the other, a line per runtime."""
    if not protocols.both(sweep.points):
        return
    palette, rows = sweep.palette, protocols.stack_cost(sweep.points, sweep.runs)
    by = ["payload", "tasks", *SHAPE]
    for values, group in rows.groupby(by, sort=True):
        key = dict(zip(by, values, strict=True))
        fig, axes = kit.new_page(f"What HTTP costs, beside what the runtime costs — "
                                 f"{point(key['payload'], key['tasks'], key)}",
                                 kit.context(sweep, sweep.points[sweep.points["transport"].isin((protocols.BASE, protocols.OVER))]),
                                 2, cols=2)
        positions = figures.rate_positions(group["interval_s"])
        figures.stack_cost(axes[0], group, positions, palette)
        kit.panel_title(axes[0], "the protocol: HTTP − TCP on each runtime")
        figures.runtime_cost(axes[1], group, positions, palette)
        kit.panel_title(axes[1], "the runtime: Δ vs std over TCP and over HTTP")
        axes[0].set_ylabel("added median round-trip time (µs)")  # the page's one y label: both panels' unit
        handles = plots.framework_handles(group["framework"], palette=palette) + plots.style_handles(
            [protocols.BASE, protocols.OVER], ci=bool((group["pairs"] > 1).any()), series=group["framework"], palette=palette)
        kit.finish(fig, axes, handles, "xy", cols=2)  # one µs scale: the two costs read against each other
        yield fig


def closing_pages(sweep):
    """The summary table, where a runtime ran over TCP and HTTP the table of what each costs (its figures are
    -t protocols, drawn before), and the machine page: the end of -t all."""
    yield from kit.table_pages(table.text(sweep.points, sweep.noise), "Summary: round-trip time per point, repeats "
                               "combined", kit.context(sweep, sweep.points),
                               ("percentiles: nearest rank on all samples of each run (exact)",))
    yield from protocol_table_pages(sweep)
    yield from kit.machine_page(sweep, sweep.runs)
