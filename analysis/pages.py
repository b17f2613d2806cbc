"""The page kit: pages of a PDF report with titles and a context line, shared axes, the table and machine pages, saving."""

# Every kind's pages are laid out with these (analysis/rtt/pages.py, throughput/pages.py,
# micro/figures.py, compare_pages.py), and saved by save(), the one place that writes a PDF. Uses
# matplotlib's Agg backend, no display needed. No kind is named here: report() draws what a Kind
# declares.

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

PAGE_SIZE = (11.0, 7.5)  # inches, landscape; every page of a report has the same size
TABLE_ROWS = 32  # summary rows per page
TEXT_LINES = 42  # lines per column on the machine page
_LOOPBACK = ("127.", "localhost", "[::1]", "::1")


def new_page(title: str, context: str, panels: int = 1, cols: int = 3) -> tuple[Figure, list]:
    """A page with a title, a context line and `panels` axes in rows of up to `cols`."""
    cols = min(cols, panels)
    rows = math.ceil(panels / cols)
    # Fixed margins rather than a layout engine: that costs more than drawing the data.
    fig = Figure(figsize=PAGE_SIZE)
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


def table_pages(text: str, title: str, where: str, notes: tuple[str, ...] = (), notes_size: float = 8,
                wrap: bool = False):
    """A summary table (`text`: aligned lines, a blank line, its notes) set in a monospaced font, one text
    block (fast and aligned), TABLE_ROWS rows a page; `notes` follow the table's own."""
    lines = text.rstrip("\n").split("\n")
    header, body = lines[:2], lines[2:lines.index("")]
    notes = [*lines[lines.index("") + 1:], *notes]
    # As large as fits the text block's width: a monospaced character is about 0.6 em wide.
    size = min(9.5, 0.9 * PAGE_SIZE[0] * 72 / (0.61 * max(len(line) for line in lines[:len(body) + 2])))
    pages = max(1, math.ceil(len(body) / TABLE_ROWS))
    for page in range(pages):
        chunk = body[page * TABLE_ROWS:(page + 1) * TABLE_ROWS]
        suffix = f" ({page + 1}/{pages})" if pages > 1 else ""
        fig, (ax,) = new_page(f"{title}{suffix}", where)
        ax.set_position((0.05, 0.05, 0.9, 0.83))
        ax.axis("off")
        ax.text(0, 1, "\n".join(header), transform=ax.transAxes, va="top", family="monospace",
                fontsize=size, weight="bold")
        ax.text(0, 1, "\n" * 2 + "\n".join(chunk), transform=ax.transAxes, va="top", family="monospace",
                fontsize=size)
        ax.text(0, 0, "\n".join(notes), transform=ax.transAxes, va="bottom", fontsize=notes_size, color="0.3",
                wrap=wrap)
        yield fig


# Fields of a log that are results of the run, not facts about the machine or the setup.
_RESULTS = {"schema", "kind", "framework", "transport", "payload", "interval_s", "target_rate", "tasks",
            "started_at", "sent", "received", "lost", "late", "out_of_order", "achieved_rate", "complete",
            "decoy_iterations", "framework_version", "error", "windows", "sent_bytes", "received_bytes",
            "msg_per_s", "gbit_per_s", "latency_ns", "per_connection", "http"}  # http: its statuses vary


def _warnings(runs) -> list[str]:
    """The system check's warnings (sweep.json hosts[].warnings), wrapped to the page's column."""
    if "host_warnings" not in runs:
        return []
    found = list(dict.fromkeys(line for text in runs["host_warnings"].dropna() for line in text.split("\n")))
    if not found:
        return []
    wrapped = [part for line in found for part in textwrap.wrap(line, 60, initial_indent="  ! ",
                                                               subsequent_indent="    ")]
    return ["warnings of the system check as the sweep started:", *wrapped, ""]


def facts(sweep, runs) -> list[str]:
    """The machine page's lines: the system check's warnings, every key of sweep.json, the setup the logs
    recorded and each framework's version (the HTML report shows them too)."""
    lines = _warnings(runs)
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
    lines = facts(sweep, runs)
    if len(lines) > 2 * TEXT_LINES:
        lines = [*lines[:2 * TEXT_LINES - 1], f"… {len(lines) - 2 * TEXT_LINES + 1} more lines"]
    for column in range(2):
        ax.text(0.5 * column, 1, "\n".join(lines[column * TEXT_LINES:(column + 1) * TEXT_LINES]),
                transform=ax.transAxes, va="top", family="monospace", fontsize=8.5)
    yield fig


def figure_pages(kind, sweep, plot: str, scale: str):
    """(name, page) of one figure of `kind` (a Kind), or for "all" of every figure in its table's order, each
    as -t all draws it: one matplotlib Figure per page, with the -t name it belongs to."""
    for name in kind.figures if plot == "all" else (plot,):
        figure = kind.figures[name]
        pages = figure.in_all if plot == "all" and figure.in_all else figure.pages
        yield from ((name, page) for page in pages(sweep, scale))


def report(kind, sweep, plot: str, scale: str):
    """The pages of a PDF report: figure_pages, then for "all" the kind's closing pages (table, machine)."""
    yield from (page for _, page in figure_pages(kind, sweep, plot, scale))
    if plot == "all":
        yield from kind.closing(sweep)


IMAGE_DPI = 80  # an 11 × 7.5 in page as an 880 × 600 px PNG: small enough to commit beside a page


def save(figures, path: Path, title: str) -> int:
    """Write the figures as the pages of one PDF, or as images when `path` ends in .png or .svg (page k > 1
    as NAME-k.png: an image holds one page); returns the page count."""
    if path.suffix.lower() in (".png", ".svg"):
        count = 0
        for count, fig in enumerate(figures, 1):
            page = path if count == 1 else path.with_name(f"{path.stem}-{count}{path.suffix}")
            fig.savefig(page, dpi=IMAGE_DPI, metadata={"Title": title} if path.suffix.lower() == ".svg" else None)
        return count
    count = 0
    with PdfPages(path, metadata={"Title": title, "Creator": "parse.py"}) as pdf:
        for fig in figures:
            pdf.savefig(fig)
            count += 1
    return count
