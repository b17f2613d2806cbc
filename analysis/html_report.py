"""The HTML report: one self-contained page of a title, facts, a sortable and filterable table, and figures as SVG.

write() is the one place that writes an HTML page, as pages.save() is for a PDF: the figures are the
matplotlib Figures the PDF gets, saved as SVG instead, and the page's style and script (report.css,
report.js beside this module) are inlined, so that it opens from disk, offline, and fetches nothing.
sweep_page() lays out a sweep's report; another command can call write() with a table and figures of its own.
"""

import html
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.lines import Line2D

from suite import dimensions, fmt

from . import pages as kit

HERE = Path(__file__).parent
# A filter over the points: its name → the points' column it reads and how a value reads. Only the
# columns a kind's points have, and that hold more than one value, get a filter.
FACETS = {"runtime": ("framework", str), "transport": ("transport", str), "rate": ("interval_s", fmt.rate_label),
          "size": ("payload", fmt.size_label), "benchmark": ("bench", str)}
_NUMBER = re.compile(r"[\d−+∞]")  # a cell that starts so is a number: right-aligned, as its header
_RIGHT = ' class="n"'
# A panel that draws more points than this is one image inside its SVG (axes and text stay vector): every
# reply of a default sweep's `time` page as an SVG dot weighs 9.6 MB; as images, 1 MB.
DENSE = 2000
RASTER_DPI = 150  # 1.5 pixels per pixel of the page, which shows an 11-inch figure 1100 px wide at most
_IDS = re.compile(r'(\bid="|url\(#|href="#)')  # an SVG's ids and the references to them


@dataclass(frozen=True)
class Table:
    """A table of the page: the summary table's cells, an id per row, and each filter's value per row."""

    headers: list[str]
    rows: list[list[str]]
    notes: list[str]
    anchors: list[str]  # a row's id: a link to it is report.html#ID
    facets: dict[str, list[str]]  # a filter's name (one lowercase word) → each row's value


def id_words(points: pd.DataFrame, keys) -> list[list[str]]:
    """The words of each point's id: the values of its keys (tokio, tcp, 64, 0.001, 0, 1, closed), a key it
    lacks (NaN) left out; unique_ids makes them ids."""
    return [[fmt.plain(v) if isinstance(v, float) else str(v) for v in values if not pd.isna(v)]
            for values in points.reindex(columns=list(keys)).itertuples(index=False)]  # a loop over points


def unique_ids(rows) -> list[str]:
    """An id per row from its words joined by -, what an id may not hold made _, a repeat numbered."""
    ids, seen = [], set()
    for words in rows:
        base = re.sub(r"[^\w.-]+", "_", "-".join(words)) or "point"
        name, n = base, 1
        while name in seen:
            n += 1
            name = f"{base}-{n}"
        seen.add(name)
        ids.append(name)
    return ids


def point_table(kind, sweep) -> Table:
    """The summary table of a sweep of `kind` (a Kind), as its text table has it, with its filters.

    A kind's table may end with a row per point the sweep planned and measured no run of (rtt's: `ping ×`,
    summary.unmeasured); such a row is named, filtered and sorted as a measured one, from its sweep.json record."""
    points = sweep.points
    headers, rows, notes = kind.cells(points, sweep.noise)
    unmeasured = _unmeasured(points, len(rows) - len(points))
    facets = {}
    for name, (column, write) in FACETS.items():
        values = [*points[column], *unmeasured.get(column, [])] if column in points else []
        if len({v for v in values if not pd.isna(v)}) > 1:
            facets[name] = [fmt.UNKNOWN if pd.isna(v) else write(v) for v in values]
    ids = unique_ids(id_words(points, kind.keys) + id_words(unmeasured, kind.keys))
    return Table(list(headers), rows, list(notes), ids, facets)


def _unmeasured(points: pd.DataFrame, count: int) -> pd.DataFrame:
    """The sweep.json records of the last `count` rows of a table (sweep.collect's `unmeasured`), each dimension a
    record lacks (ICMP's connections) at its default, as a measured point's log is read."""
    records = (points.attrs.get("unmeasured") or [])[:count]
    return pd.DataFrame([{**record, **{d.name: d.read(record) for d in dimensions.DIMENSIONS}} for record in records])


def _points(artist) -> int:
    if isinstance(artist, Line2D):
        return len(artist.get_xdata())
    return sum(len(path.vertices) for path in artist.get_paths()) + len(artist.get_offsets())


def svg(page, prefix: str) -> str:
    """A matplotlib Figure as an <svg> element: no XML prolog, no date (the same sweep gives the same page),
    the data of a DENSE panel as one image, and its ids prefixed so that they stay unique among the page's."""
    for ax in page.axes:
        data = [*ax.lines, *ax.collections]
        if sum(_points(a) for a in data) > DENSE:
            for artist in data:
                artist.set_rasterized(True)
    buffer = io.StringIO()
    page.savefig(buffer, format="svg", dpi=RASTER_DPI, metadata={"Date": None})
    text = buffer.getvalue()
    return _IDS.sub(lambda m: m.group(1) + prefix, text[text.index("<svg"):])


def _table(table: Table) -> str:
    e = html.escape
    selects = "".join(
        f'<label>{e(name)} <select data-facet="{e(name)}"><option value="">all</option>'
        + "".join(f'<option>{e(v)}</option>' for v in dict.fromkeys(values)) + "</select></label>"
        for name, values in table.facets.items())
    numeric = [any(_NUMBER.match(row[i]) for row in table.rows) for i in range(len(table.headers))]
    head = "".join(f'<th scope="col"{_RIGHT if n else ""}><button type="button">{e(h)}</button></th>'
                   for h, n in zip(table.headers, numeric, strict=True))
    rows = []
    for i, (anchor, cells) in enumerate(zip(table.anchors, table.rows, strict=True)):
        data = "".join(f' data-{e(name)}="{e(values[i])}"' for name, values in table.facets.items())
        first, *rest = cells
        tds = [f'<td><a href="#{e(anchor)}">{e(first)}</a></td>',
               *(f'<td{_RIGHT if _NUMBER.match(c) else ""}>{e(c)}</td>' for c in rest)]
        rows.append(f'<tr id="{e(anchor)}"{data}>{"".join(tds)}</tr>')
    notes = "".join(f"<li>{e(n)}</li>" for n in table.notes)
    return (f'<div class="filters">{selects}<span id="shown">{len(rows)} rows</span></div>'
            f'<div class="scroll"><table id="points"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div><ul class="notes">{notes}</ul>')


def write(path: Path, title: str, facts: list[str], table: Table, figures, context: str = "") -> int:
    """One HTML page at `path`: the title, the table, each figure ((name, caption, matplotlib Figure): its id
    is name-N) with its caption, then the facts; returns the number of figures."""
    e = html.escape
    drawn, names = [], {}
    for name, caption, page in figures:
        names[name] = names.get(name, 0) + 1
        anchor = f"{name}-{names[name]}"
        drawn.append(f'<figure id="{e(anchor)}">{svg(page, anchor + "-")}<figcaption>{e(caption)}</figcaption>'
                     "</figure>")
    nav = " · ".join(['<a href="#summary">table</a>', *(f'<a href="#{e(n)}-1">{e(n)}</a>' for n in names),
                      '<a href="#facts">machine and knobs</a>'])
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{e(title)}</title>'
            f'<style>{(HERE / "report.css").read_text()}</style></head><body>'
            f'<header><h1>{e(title)}</h1><p class="context">{e(context)}</p><nav>{nav}</nav></header>'
            f'<section id="summary"><h2>Summary</h2>{_table(table)}</section>'
            f'<section id="figures"><h2>Figures</h2>{"".join(drawn)}</section>'
            f'<section id="facts"><h2>Machine and knobs</h2><pre>{e(chr(10).join(facts))}</pre></section>'
            f'<script>{(HERE / "report.js").read_text()}</script></body></html>\n')
    path.write_text(page, encoding="utf-8")
    return len(drawn)


def disturbed(runs) -> list[str]:
    """The runs the sweep flagged as disturbed, each with why (the machine page's sweep.json lines cut them short)."""
    if "disturbed" not in runs:
        return []
    flagged = runs[runs["disturbed"].notna()]
    return [f"runs the sweep flagged as disturbed (sweep.json runs[].disturbed; ‡ in the table): {len(flagged)} of "
            f"{len(runs)}", *(f"  {Path(source).name}: {why}" for source, why in zip(flagged["source"],
                                                                                   flagged["disturbed"])), ""]


def sweep_page(path: Path, kind, sweep, plot: str, drawn) -> int:
    """A sweep's report: its summary table, the figures of -t `plot` (`drawn`: (-t name, page), as
    pages.figure_pages yields them), each captioned by its kind, and the machine page's facts with the disturbed
    runs; returns the number of figures."""
    title = f"{kind.what[:1].upper()}{kind.what[1:]} — {sweep.folder.name}" + (f" (-t {plot})" if plot != "all" else "")
    figures = ((name, kind.figures[name].caption, page) for name, page in drawn)
    return write(path, title, disturbed(sweep.runs) + kit.facts(sweep, sweep.runs), point_table(kind, sweep),
                 figures, kit.context(sweep, sweep.runs))


def compare_page(path: Path, title: str, layout, pages) -> int:
    """The comparison's page (parse.py compare OLD NEW -o FILE.html): its table (compare.layout: a row per common
    point and metric), filterable by runtime and metric, and its forest plot."""
    headers, rows, notes = layout
    ids = unique_ids(row[:-6] for row in rows)  # the point and the metric
    facets = {"runtime": [row[0] for row in rows], "metric": [row[headers.index("metric")] for row in rows]}
    table = Table(headers, rows, notes, ids, {name: values for name, values in facets.items() if len(set(values)) > 1})
    figures = (("compare", "Each common point's new / old with its 95 % interval: left of 1 the new sweep is faster "
                "(a latency); a bar across 1 is a change this comparison cannot tell from none.", page) for page in pages)
    return write(path, title, [], table, figures, title)


def history_page(path: Path, layout, pages, db: str) -> int:
    """The history's page (parse.py history -o FILE.html): its table (history.layout: a row per series, the
    sweeps' numbers in its notes), filterable by metric and machine, and a figure per metric."""
    headers, rows, notes = layout
    ids = unique_ids(row[:3] for row in rows)  # benchmark, metric, machine
    facets = {"metric": [row[1] for row in rows], "machine": [row[2] for row in rows]}
    table = Table(headers, rows, [n for n in notes if not n.startswith("#")],
                  ids, {name: values for name, values in facets.items() if len(set(values)) > 1})
    figures = (("history", "Each point's value in each recorded sweep, with its 95 % interval; ★: a change "
                "called where a change point and the interval test agree.", page) for page in pages)
    return write(path, f"History — {Path(db).name}", [n for n in notes if n.startswith("#")], table, figures, db)

