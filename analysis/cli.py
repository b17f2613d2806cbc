"""Turn a sweep of round-trip-time, throughput or in-process benchmark logs into a summary table and PDF figures.

Reads the logs under DIR (default: the newest sweep in latency-logs/). The latency each runtime adds over std
(Δ, paired by round) gets a verdict: slower, faster, same (within a margin), undecided or unknown.
The table shows the columns a reader needs first (--wide: every column).
Without a command, parse.py is `parse.py figures --table`: every figure to one PDF and the table on stdout.
Earlier versions' flags (--summary, --compare, --variance, -t) still work.
"""

# The entry: pyperf's shape, a cmd_<name> per subcommand with only its own options. Each namespace is
# resolved once here (resolve_<name>; the tracking commands' in tracking_cli.py) into a frozen request
# (request.py); below the entry nothing reads it. The old flags are translated into these commands by legacy.py.

import argparse
import itertools
import os
import sys
from pathlib import Path

from suite.palette import Palette

from . import compare, costs_cli, legacy, options, pr_cli, request, tracking_cli, wrk
from . import entry_kit as kit
from .kind import UsageError
from .sweep import NothingUsable
from .uncertainty import NOISE

def parser() -> argparse.ArgumentParser:
    p = options.Parser(prog="parse.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=options.Parser)
    for name, cmd, resolve in COMMANDS:
        sub = commands.add_parser(name, help=cmd.__doc__.splitlines()[0].replace("%", "%%"), description=cmd.__doc__)
        OWN[name](sub)
        sub.set_defaults(cmd=cmd, resolve=resolve)
    return p


def _table_options(p) -> None:
    options.add_dir(p)
    options.add_kind(p)
    options.add_filters(p)
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")
    options.add_wide(p)
    options.add_noise(p)


def _figures_options(p) -> None:
    options.add_dir(p)
    options.add_kind(p)
    p.add_argument("-t", "--type", choices=options.FIGURES, default="all",
                   help="figure to draw; all (the default) = every figure, table and machine page "
                   f"({'; '.join(f'{k.name}: {options.plots(k)}' for k in options.KINDS.values())})")
    options.add_filters(p)
    options.add_scale(p)
    options.add_out(p, "DIR/KIND-TYPE.pdf", options.WRITES)
    p.add_argument("--table", action="store_true", help="print the summary table on stdout too")
    p.add_argument("--format", choices=kit.FORMAT, help="the table's format (implies --table; default text)")
    options.add_wide(p)
    options.add_noise(p)


def _compare_options(p) -> None:
    p.add_argument("old", type=Path, metavar="OLD", help="the older sweep folder")
    p.add_argument("new", type=Path, metavar="NEW", help="the newer sweep folder")
    options.add_kind(p)
    options.add_filters(p)
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")
    options.add_noise(p)
    p.add_argument("--fail-above", type=options.percent, metavar="PCT",
                   help="exit 1 when a point is `slower` by more than PCT %%")
    p.add_argument("--figure", action="store_true", help="draw the ratios with their intervals to a PDF too")
    options.add_out(p, "NEW/KIND-compare.pdf; .html writes the table and the figure on one page; implies --figure")


def _variance_options(p) -> None:
    options.add_dir(p)
    options.add_filters(p)
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")


def _wrk_options(p) -> None:
    options.add_dir(p)
    p.add_argument("-f", "--framework", type=options.listed(str.strip), default=[], metavar="NAME[,NAME]",
                   help="only these runtimes (or variants)")
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")


def _protocols_options(p) -> None:
    options.add_dir(p)
    options.add_filters(p, protocol=False)
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")
    options.add_out(p, "none: the table only", ("pdf", "png", "svg"))


def resolve_table(ns) -> request.Table:
    kind = options.KINDS[ns.kind]
    kind.check(kit.asked(ns))
    return request.Table(kind, kit.folder(ns.dir), kit.filters(ns), ns.format, ns.noise / 100, ns.wide)


def resolve_figures(ns) -> request.Figures:
    kind, plot = options.KINDS[ns.kind], ns.type
    options.refuse_foreign(kind, plot)
    kind.check(kit.asked(ns, scale=ns.scale))
    options.refuse_undrawn(kind, plot, kind.figures)
    folder = kit.folder(ns.dir)
    out = kit.writable(ns.out or folder / f"{kind.name}-{plot}.pdf")
    table = ns.format or ("text" if ns.table or ns.wide else None)
    return request.Figures(kind, folder, kit.filters(ns), plot, ns.scale, out, ns.noise / 100, table,
                           kit.written_as(out, "figures", options.WRITES), ns.wide)


def resolve_compare(ns) -> request.Compare:
    kind = options.KINDS[ns.kind]
    kind.check(kit.asked(ns, comparing=True, fail_above=ns.fail_above))
    for name, folder in (("OLD", ns.old), ("NEW", ns.new)):
        if not folder.is_dir():
            raise NothingUsable(f"--compare {name}: {folder}: no such folder")
    drawn = ns.figure or ns.out is not None
    out = kit.writable(ns.out or ns.new / f"{kind.name}-compare.pdf") if drawn else None
    writes = kit.written_as(out, "compare", ("pdf", "html")) if out is not None else "pdf"
    return request.Compare(kind, ns.old, ns.new, kit.filters(ns), ns.format, ns.noise / 100, ns.fail_above, out,
                           writes)


def resolve_variance(ns) -> request.Variance:
    kind = options.DEFAULT
    kind.check(kit.asked(ns))
    return request.Variance(kind, kit.folder(ns.dir), kit.filters(ns), ns.format)


def resolve_wrk(ns) -> request.Wrk:
    return request.Wrk(kit.folder(ns.dir), tuple(ns.framework), ns.format)


def resolve_protocols(ns) -> request.Protocols:
    kind = options.DEFAULT
    kind.check(kit.asked(ns))
    out = kit.writable(ns.out) if ns.out is not None else None
    if out is not None:
        kit.written_as(out, "protocols", ("pdf", "png", "svg"))
    return request.Protocols(kind, kit.folder(ns.dir), kit.filters(ns), ns.format, out)


def _tables(kind, wide: bool) -> dict:
    """A kind's tables by format: with every column (--wide), or the ones that fit a terminal."""
    return (kind.wide or kind.tables) if wide else kind.tables


def cmd_table(asked: request.Table) -> int:
    """The summary table of a sweep on stdout, one line per point (its repeats combined)."""
    sweep = asked.kind.collect(asked.folder, asked.filters, False, kit.warn, asked.noise)
    sys.stdout.write(_tables(asked.kind, asked.wide)[asked.form](sweep.points, sweep.noise))
    return 0


def cmd_figures(asked: request.Figures) -> int:
    """PDF figures of a sweep: one (-t NAME), or every figure, the table and the machine page (-t all).

    With -o FILE.html, one offline web page instead: the table (sortable, filterable), the figures, the facts."""
    kind, plot = asked.kind, asked.plot
    sweep = kind.collect(asked.folder, asked.filters, plot in ("time", "all"), kit.warn, asked.noise)
    kind.ready(sweep, plot)
    if asked.table:
        sys.stdout.write(_tables(kind, asked.wide)[asked.table](sweep.points, sweep.noise))
        sys.stdout.flush()
    from . import pages  # matplotlib loads only when a figure is asked for

    html = asked.writes == "html"  # the page lays out its own table and facts, not the PDF's closing pages
    drawn = pages.figure_pages(kind, sweep, plot, asked.scale) if html else (
        (plot, page) for page in pages.report(kind, sweep, plot, asked.scale))  # (-t name, page)
    first = next(drawn, None)
    why = kind.nothing_drawn(sweep, plot) if first is None and plot != "all" else None
    if why:
        raise NothingUsable(why)
    drawn = itertools.chain([first] if first is not None else [], drawn)
    if html:
        from . import html_report

        kit.written(asked.out, lambda: html_report.sweep_page(asked.out, kind, sweep, plot, drawn), "figure")
    else:
        kit.save((page for _, page in drawn), asked.out, f"{kind.name} {plot} — {asked.folder.name}")
    return 0


def cmd_compare(asked: request.Compare) -> int:
    """Two sweeps point by point: the ratio new/old with its 95 % interval and a verdict per point."""
    kind = asked.kind
    old, new = (kind.collect(f, asked.filters, False, kit.warn, NOISE) for f in (asked.old, asked.new))
    result = compare.compare(old.runs, new.runs, kind, asked.noise)
    if result.rows.empty:
        raise NothingUsable(f"no point is in both {asked.old} and {asked.new} ({len(result.only_old)} only in OLD, "
                            f"{len(result.only_new)} only in NEW, e.g. {(result.only_old + result.only_new)[0]})")
    sys.stdout.write({"text": compare.text, "csv": compare.csv, "markdown": compare.markdown}[asked.form](result))
    sys.stdout.flush()
    if asked.form == "csv":  # stdout stays CSV: the unmatched points go to stderr
        for side, names in (("OLD", result.only_old), ("NEW", result.only_new)):
            for name in names:
                print(f"only in {side}: {name}", file=sys.stderr)
        for name in result.refused:
            print(f"left out, {name}", file=sys.stderr)
    if asked.out is not None:
        from . import compare_pages

        palette = Palette(old.palette.variants | new.palette.variants)
        drawn = compare_pages.compare_pages(result, str(asked.old), str(asked.new), palette)
        title = f"{kind.name} compare — {asked.old.name} → {asked.new.name}"
        if asked.writes == "html":
            from . import html_report

            kit.written(asked.out, lambda: html_report.compare_page(asked.out, title, compare.layout(result), drawn),
                        "figure")
        else:
            kit.save(drawn, asked.out, title)
    if asked.fail_above is not None:
        slower = compare.slower_than(result, asked.fail_above)
        if slower:
            print(f"parse.py: slower by more than {asked.fail_above:g} %: {'; '.join(slower)}", file=sys.stderr)
            return 1
    return 0


def cmd_variance(asked: request.Variance) -> int:
    """Where each RTT point's spread comes from, for a sweep of 2 repeats or more.

    Its parts: within a run, between runs, what a round and a block share, and what pairing with std
    cancels."""
    found = asked.kind.collect(asked.folder, asked.filters, False, kit.warn, NOISE)
    sys.stdout.write(asked.kind.variance(found, asked.form))
    return 0


def cmd_wrk(asked: request.Wrk) -> int:
    """The HTTP figures cross-checked: wrk's and the suite's ping's req/s, p50 and p99 per runtime (MODE=wrk sweeps).

    Each side's median over repeats with its interval, the ratio suite/wrk of req/s with whether it is within
    ±15 %, and each side's ranking of the runtimes by req/s."""
    table = wrk.points(wrk.runs(asked.folder, asked.frameworks, kit.warn))
    sys.stdout.write(wrk.TABLES[asked.form](table))
    return 0


def cmd_protocols(asked: request.Protocols) -> int:
    """Per runtime, the TCP and the HTTP echo side by side: what the protocol costs beside what the runtime costs.

    For each setting a runtime ran over both (PROTOCOLS="tcp http"): each p50 with its 95 % interval, HTTP −
    TCP paired by round, and each transport's Δ vs std. With -o, a page of figures per setting and the table."""
    found = asked.kind.collect(asked.folder, asked.filters, False, kit.warn, NOISE)
    sys.stdout.write(asked.kind.protocols(found, asked.form))
    sys.stdout.flush()
    if asked.out is not None:
        kit.save(asked.kind.protocol_pages(found), asked.out, f"rtt protocols — {asked.folder.name}")
    return 0


COMMANDS = (("table", cmd_table, resolve_table), ("figures", cmd_figures, resolve_figures),
            ("compare", cmd_compare, resolve_compare), ("variance", cmd_variance, resolve_variance),
            ("wrk", cmd_wrk, resolve_wrk), ("protocols", cmd_protocols, resolve_protocols))
OWN = {"table": _table_options, "figures": _figures_options, "compare": _compare_options, "variance": _variance_options,
       "wrk": _wrk_options, "protocols": _protocols_options}
COMMANDS += tracking_cli.COMMANDS  # export, record, history
OWN |= tracking_cli.OWN
COMMANDS += costs_cli.COMMANDS  # costs, phases
OWN |= costs_cli.OWN
COMMANDS += pr_cli.COMMANDS  # pr
OWN |= pr_cli.OWN


def main(argv=None) -> int:
    """Entry point of parse.py; returns the exit status."""
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    try:
        if not argv:
            argv = ["figures", "--table"]
        elif argv[0] not in {name for name, _, _ in COMMANDS} and not {"-h", "--help"} & set(argv):
            argv = legacy.translate(argv)  # the flags of earlier versions: one line on stderr names the command
        ns = parser().parse_args(argv)
        if ns.command is None:
            raise UsageError(f"a command is needed: {', '.join(name for name, _, _ in COMMANDS)}")
        return ns.cmd(ns.resolve(ns))
    except UsageError as e:
        print(f"parse.py: error: {e}", file=sys.stderr)
        return 2
    except NothingUsable as e:
        print(f"parse.py: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `parse.py table | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
