"""Pages of the PDF report: figures laid out with titles, the table and machine pages, and saving."""

# Pages of the PDF report: lays the figures of plots.py out on pages with titles that say
# what was measured, where and when, adds the summary-table and machine pages, and saves them
# (the one place that writes a file). Uses matplotlib's Agg backend, no display needed.

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from . import plots, style, summary

KINDS = ("delta", "stat", "ecdf", "pdf", "time", "tasks", "connections")  # the order of -t all
SHAPE = ["connections", "load"]  # a sweep's pages are split by them: one connection in a closed loop, or not
TABLE_ROWS = 32  # summary rows per page
TEXT_LINES = 42  # lines per column on the machine page
_LOOPBACK = ("127.", "localhost", "[::1]", "::1")


def new_page(title: str, context: str, panels: int = 1, cols: int = 3) -> tuple[Figure, list]:
    """A page with a title, a context line and `panels` axes in rows of up to `cols`."""
    cols = min(cols, panels)
    rows = math.ceil(panels / cols)
    # Fixed margins rather than a layout engine: that costs more than drawing the data.
    fig = Figure(figsize=style.PAGE_SIZE)
    fig.subplots_adjust(left=0.1, right=0.81, bottom=0.1, top=0.86, wspace=0.22, hspace=0.3)
    fig.suptitle(title, fontsize=13, y=0.975)
    fig.text(0.5, 0.915, context, ha="center", fontsize=9, color="0.35")
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    for ax in axes[panels:]:
        ax.remove()
    return fig, axes[:panels]


def context(sweep, runs) -> str:
    """Where and when: the hosts, the pong's address when not loopback, the sweep folder, dates."""
    hosts = sorted({h for h in runs["host"].dropna()})
    pongs = sorted({str(a).rsplit(":", 1)[0] for a in runs["address"].dropna()})
    remote = [p for p in pongs if not p.startswith(_LOOPBACK)]
    where = ", ".join(hosts) if hosts else "host not recorded"
    where += f" → {', '.join(remote)}" if remote else (" (loopback)" if pongs else "")
    # A point's repeats span the sweep: its first and its last start, where points are drawn.
    stamps = [runs[c].dropna() for c in ("started_at", "last_started_at") if c in runs]
    dates = sorted({str(s)[:16].replace("T", " ") for column in stamps for s in column})
    when = (dates[0] if len(dates) == 1 else f"{dates[0]} – {dates[-1]}") + " UTC" if dates else "date not recorded"
    return f"{where} · {when} · {sweep.folder.name}"


def point(payload, tasks, connections=1, load="closed") -> str:
    """A page's point in words: payload and decoy tasks, then `shape`."""
    return f"{payload} B payload, {tasks} decoy task{'s' if tasks != 1 else ''}" + shape(connections, load)


def shape(connections=1, load="closed") -> str:
    """Connections and load in a title (", 100 connections, open loop"); nothing for one connection in
    a closed loop, so that the pages of a sweep without CONNECTIONS and LOAD read as before."""
    return (f", {connections} connections" if connections != 1 else "") + (", open loop" if load == "open" else "")


def _rate_title(interval: float) -> str:
    return "back-to-back" if interval <= 0 else f"{style.rate_label(interval)} msg/s asked for"


def _share(axes, which: str, cols: int) -> None:
    """One range on axis `which` for every panel, its tick labels only on the outer panels."""
    limits = [ax.get_ylim() if which == "y" else ax.get_xlim() for ax in axes]
    low, high = min(lo for lo, _ in limits), max(hi for _, hi in limits)
    for i, ax in enumerate(axes):
        if which == "y":
            ax.set_ylim(low, high)
            ax.tick_params(axis="y", which="both", labelleft=i % cols == 0)
        else:
            ax.set_xlim(low, high)
            ax.tick_params(axis="x", which="both", labelbottom=i + cols >= len(axes))


def finish(fig, axes, handles: list, shared: str, cols: int = 3) -> None:
    """Shared ranges (`shared`: "x", "y" or "xy"), one pair of axis labels, one legend."""
    for which in shared:
        _share(axes, which, min(cols, len(axes)))
    if len(axes) > 1:
        fig.supxlabel(axes[0].get_xlabel(), fontsize=10, x=0.45)
        fig.supylabel(axes[0].get_ylabel(), fontsize=10, x=0.02)
        for ax in axes:
            ax.set_xlabel("")
            ax.set_ylabel("")
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(0.825, 0.5), frameon=False, fontsize=9)


def panel_title(ax, text: str) -> None:
    ax.set_title(text, fontsize=10, y=1.0, pad=4)  # a fixed y skips a costly layout pass


def stat_pages(sweep, runs, scale):
    """A page per payload and decoy count, a panel per transport; the ICMP baseline in each. `runs`
    are points (points.combine): the mean median over repeats with its 95 % interval."""
    for (payload, tasks, connections, load), group in runs.groupby(["payload", "tasks", *SHAPE], sort=True):
        transports = [t for t in ordered(group["transport"]) if t != "icmp"] or ["icmp"]
        fig, axes = new_page(f"Median round-trip time against message rate — "
                             f"{point(payload, tasks, connections, load)}", context(sweep, group), len(transports),
                             cols=2)
        positions = plots.rate_positions(group["interval_s"])
        for ax, transport in zip(axes, transports, strict=True):
            panel = group[(group["transport"] == transport) | (group["transport"] == "icmp")]
            plots.stat(ax, panel, scale, positions)
            panel_title(ax, transport.upper())
        finish(fig, axes, plots.framework_handles(group["framework"]) + plots.style_handles(
            group["transport"], band=True, missed=bool(group["missed_rate"].any()),
            ci=bool((group["repeats"] > 1).any()), series=group["framework"]), "xy", cols=2)
        yield fig


def ordered(values) -> list:
    return sorted(set(values), key=lambda v: (style.order_key([v], style.TRANSPORT_ORDER), v))


def _grid_pages(sweep, runs, scale, draw, what: str, by=("transport", "payload", "tasks", *SHAPE)):
    """A page per `by` value, a panel per message rate, a line per framework."""
    for key, group in runs.groupby(list(by), sort=False):
        key = dict(zip(by, key, strict=True))
        intervals = sorted(set(group["interval_s"]), key=lambda i: math.inf if i <= 0 else 1 / i)
        title = f"{what} — {key['transport'].upper()}, " + (
            point(key["payload"], key["tasks"]) if "tasks" in key else f"{key['payload']} B payload") + shape(
            key["connections"], key["load"])
        fig, axes = new_page(title, context(sweep, group), len(intervals))
        for ax, interval in zip(axes, intervals, strict=True):
            panel = group[group["interval_s"] == interval]
            if draw is plots.tasks:
                draw(ax, panel, scale)
            else:
                draw(ax, panel, sweep.shapes, scale)
            panel_title(ax, _rate_title(interval))
        handles = plots.framework_handles(group["framework"], key["transport"])
        if draw is plots.time:
            big = any(s is not None and len(s.time_p99_ns) for s in (sweep.shapes[i] for i in group.index))
            handles += plots.style_handles(percentiles=[("p50 per time bin", "-", ""),
                                                        ("p99 per time bin", ":", "")] if big else [])
        elif draw is plots.tasks:
            handles += plots.style_handles(percentiles=[("p50", "-", "o"), ("p99", "--", "^")])
        finish(fig, axes, handles, "y" if draw is plots.time else "xy")
        yield fig


def connection_pages(sweep, points, scale):
    """A page per payload, rate and decoy count, a panel per transport and load (closed, open), a line per
    framework against the number of connections; the ICMP reference has one stream and is left out."""
    points = points[points["transport"] != "icmp"]
    for (payload, interval, tasks), group in points.groupby(["payload", "interval_s", "tasks"], sort=False):
        loads = sorted(set(group["load"]))  # closed, open: a column each
        panels = [(transport, load) for transport in ordered(group["transport"]) for load in loads]
        fig, axes = new_page(f"Round-trip time against connections per ping — {payload} B payload, "
                             f"{_rate_title(interval)}, {tasks} decoy task{'s' if tasks != 1 else ''}",
                             context(sweep, group), len(panels), cols=len(loads))
        for ax, (transport, load) in zip(axes, panels, strict=True):
            plots.connections(ax, group[(group["transport"] == transport) & (group["load"] == load)], scale)
            window = {int(w) for w in group.loc[group["load"] == load, "window"].dropna()}
            panel_title(ax, f"{transport.upper()}, {load} loop" + (
                f" (window {', '.join(map(str, sorted(window)))})" if load == "open" and window else ""))
        handles = plots.framework_handles(group["framework"]) + plots.style_handles(
            percentiles=[("p50", "-", "o"), ("p99", "--", "^")]
            + ([("corrected latency p99\n(open: from the\nscheduled send)", ":", "x")] if "open" in loads else []),
            ci=bool((group["repeats"] > 1).any()), spread="min–max across\nconnections of each\nconnection's own\n"
            "p50 and p99")
        finish(fig, axes, handles, "xy", cols=len(loads))
        yield fig


def table_pages(sweep, runs, kind: str = "rtt"):
    """The summary table, set in a monospaced font (one text block: fast and aligned)."""
    lines = summary.text(runs, kind, sweep.noise).rstrip("\n").split("\n")
    header, body = lines[:2], lines[2:lines.index("")]
    method = "all samples of each run (exact)" if kind == "rtt" else "the measured windows of each run"
    notes = [*lines[lines.index("") + 1:], f"percentiles: nearest rank on {method}"]
    what = "round-trip time" if kind == "rtt" else "throughput"
    # As large as fits the text block's width: a monospaced character is about 0.6 em wide.
    size = min(9.5, 0.9 * style.PAGE_SIZE[0] * 72 / (0.61 * max(len(line) for line in lines[:len(body) + 2])))
    pages = max(1, math.ceil(len(body) / TABLE_ROWS))
    for page in range(pages):
        chunk = body[page * TABLE_ROWS:(page + 1) * TABLE_ROWS]
        suffix = f" ({page + 1}/{pages})" if pages > 1 else ""
        fig, (ax,) = new_page(f"Summary: {what} per point, repeats combined{suffix}", context(sweep, runs))
        ax.set_position((0.05, 0.05, 0.9, 0.83))
        ax.axis("off")
        ax.text(0, 1, "\n".join(header), transform=ax.transAxes, va="top", family="monospace",
                fontsize=size, weight="bold")
        ax.text(0, 1, "\n" * 2 + "\n".join(chunk), transform=ax.transAxes, va="top", family="monospace",
                fontsize=size)
        ax.text(0, 0, "\n".join(notes), transform=ax.transAxes, va="bottom", fontsize=8, color="0.3")
        yield fig


# Fields of a log that are results of the run, not facts about the machine or the setup.
_RESULTS = {"schema", "kind", "framework", "transport", "payload", "interval_s", "target_rate", "tasks",
            "started_at", "sent", "received", "lost", "late", "out_of_order", "achieved_rate", "complete",
            "decoy_iterations", "framework_version", "error", "windows", "sent_bytes", "received_bytes",
            "msg_per_s", "gbit_per_s", "latency_ns", "per_connection"}


def _facts(sweep, runs) -> list[str]:
    lines = []
    for path, info in sorted(sweep.infos.items()):
        lines.append(f"{path.relative_to(sweep.folder) if path.is_relative_to(sweep.folder) else path}:")
        lines += _flatten(info, "  ")
    if not sweep.infos:
        lines.append(f"no sweep.json in {sweep.folder}")
    details = [d for d in runs["details"] if d]
    if details:
        keys = sorted({k for d in details for k in d} - _RESULTS)
        shared = {k: {repr(d.get(k)) for d in details} for k in keys}
        lines += ["", "setup, the same in every run:"]
        lines += [f"  {k} = {_short(details[0].get(k))}" for k in keys if len(shared[k]) == 1]
        varied = [k for k in keys if len(shared[k]) > 1]
        if varied:
            lines += ["", "setup that differs between runs:"]
            lines += [f"  {k}: {_short(', '.join(sorted(shared[k])))}" for k in varied]
        lines += ["", "framework versions:"]
        for framework, group in runs.groupby("framework", sort=False):
            versions = sorted({str(d.get("framework_version")) for d in group["details"] if d})
            lines.append(f"  {framework}: {', '.join(versions)}")
    if (runs["format"] == "2022 CSV").any():
        lines += ["", "2022 CSV logs: no machine facts recorded; sleep pacing; time axis estimated"]
    return lines


def _short(value, width: int = 60) -> str:
    text = str(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def _flatten(value, indent: str) -> list[str]:
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                out.append(f"{indent}{key}:")
                out += _flatten(item, indent + "  ")
            else:
                out.append(f"{indent}{key} = {_short(item)}")
        return out
    if isinstance(value, list):
        return [f"{indent}- {_short(v)}" for v in value]
    return [f"{indent}{_short(value)}"]


def machine_page(sweep, runs):
    """sweep.json (whatever keys it has) and the setup recorded in the logs, on one page."""
    fig, (ax,) = new_page("Machine and knobs of this sweep", context(sweep, runs))
    ax.set_position((0.05, 0.05, 0.9, 0.83))
    ax.axis("off")
    lines = _facts(sweep, runs)
    if len(lines) > 2 * TEXT_LINES:
        lines = [*lines[:2 * TEXT_LINES - 1], f"… {len(lines) - 2 * TEXT_LINES + 1} more lines"]
    for column in range(2):
        ax.text(0.5 * column, 1, "\n".join(lines[column * TEXT_LINES:(column + 1) * TEXT_LINES]),
                transform=ax.transAxes, va="top", family="monospace", fontsize=8.5)
    yield fig


def pages(sweep, runs, kind: str, scale: str):
    """The figures of one kind of plot, or of every kind for "all", one Figure per page. `runs` are
    every repeat (drawn one by one in ecdf, pdf and time); stat, tasks, delta and the table draw
    sweep.points, the repeats combined."""
    from . import change_report  # imports this module

    points = sweep.points
    makers = {
        "delta": lambda: change_report.delta_pages(sweep, points),
        "stat": lambda: stat_pages(sweep, points, scale),
        "ecdf": lambda: _grid_pages(sweep, runs, scale, plots.ecdf, "Distribution of round-trip times (ECDF)"),
        "pdf": lambda: _grid_pages(sweep, runs, scale, plots.pdf, "Distribution of round-trip times"),
        "time": lambda: _grid_pages(sweep, runs, scale, plots.time, "Round-trip time over the run"),
        "tasks": lambda: _grid_pages(sweep, points, scale, plots.tasks,
                                     "Round-trip time against CPU-bound decoy tasks",
                                     by=("transport", "payload", *SHAPE)),
        "connections": lambda: connection_pages(sweep, points, scale),
    }
    if kind == "all":
        # A decoy-count or connection-count figure says nothing where a sweep tried one count only.
        varied = points.groupby(["transport", "payload", *SHAPE])["tasks"].transform("nunique") > 1
        makers["tasks"] = lambda: _grid_pages(sweep, points[varied], scale, plots.tasks,
                                              "Round-trip time against CPU-bound decoy tasks",
                                              by=("transport", "payload", *SHAPE))
        several = points.groupby(["payload", "interval_s", "tasks"])["connections"].transform("nunique") > 1
        makers["connections"] = lambda: connection_pages(sweep, points[several], scale)
    for name in (KINDS if kind == "all" else (kind,)):
        yield from makers[name]()
    if kind == "all":
        yield from table_pages(sweep, points)
        yield from machine_page(sweep, runs)


def save(figures, path: Path, title: str) -> int:
    """Write the figures as the pages of one PDF; returns the page count."""
    count = 0
    with PdfPages(path, metadata={"Title": title, "Creator": "parse.py"}) as pdf:
        for fig in figures:
            pdf.savefig(fig)
            count += 1
    return count
