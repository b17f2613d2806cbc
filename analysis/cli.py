"""Turn a sweep of round-trip-time, throughput or in-process benchmark logs into a summary table and PDF figures.

Reads this suite's STEM.json + STEM.csv logs and the 2022 suite's per-sample CSV, recursively from DIR
(default: the newest sweep under latency-logs/). Percentiles are exact, by nearest rank. Each point may
have been run several times (stems ending -r1, -r2…): its numbers are the means over the repeats with a
95 % t interval across them, and the latency each runtime adds over std (Δ, paired by round) gets a
verdict: slower, faster, same or unknown. Without a command, parse.py is `parse.py figures --table`:
every figure to one PDF and the table on stdout (`figures -o report.html`: both in one offline web page).
The flags of earlier versions (--summary, --compare, --variance, -t without a command) still work, and
say the command they stand for.
"""

# The entry: pyperf's shape, a cmd_<name> per subcommand with only its own options. Each namespace is
# resolved once here (resolve_<name>) into a frozen request (request.py); below this module nothing
# reads it. The old flags are translated into these commands by legacy.py.

import argparse
import itertools
import os
import sys
from pathlib import Path

from suite.palette import Palette

from . import compare, export, history, history_db, legacy, options, request, tracked
from .kind import Asked, UsageError
from .load import newest_sweep
from .sweep import Filters, NothingUsable
from .uncertainty import NOISE

DEFAULT_ROOT = Path("latency-logs")
FORMAT = ("text", "csv", "markdown")


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
    p.add_argument("--format", choices=FORMAT, default="text", help="table format (default text)")
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
    p.add_argument("--format", choices=FORMAT, help="the table's format (implies --table; default text)")
    options.add_noise(p)


def _compare_options(p) -> None:
    p.add_argument("old", type=Path, metavar="OLD", help="the older sweep folder")
    p.add_argument("new", type=Path, metavar="NEW", help="the newer sweep folder")
    options.add_kind(p)
    options.add_filters(p)
    p.add_argument("--format", choices=FORMAT, default="text", help="table format (default text)")
    options.add_noise(p)
    p.add_argument("--fail-above", type=options.percent, metavar="PCT",
                   help="exit 1 when a point is `slower` by more than PCT %%")
    p.add_argument("--figure", action="store_true", help="draw the ratios with their intervals to a PDF too")
    options.add_out(p, "NEW/KIND-compare.pdf; implies --figure")


def _variance_options(p) -> None:
    options.add_dir(p)
    options.add_filters(p)
    p.add_argument("--format", choices=FORMAT, default="text", help="table format (default text)")


def _filters(ns) -> Filters:
    return Filters(tuple([ns.protocol] if ns.protocol else []), tuple(ns.rate), tuple(ns.tasks), tuple(ns.framework))


def _asked(ns, **more) -> Asked:
    return Asked(tuple([ns.protocol] if ns.protocol else []), tuple(ns.rate), tuple(ns.tasks), **more)


def _folder(given: Path | None) -> Path:
    if given is not None:
        if not given.is_dir():
            raise NothingUsable(f"{given}: no such folder")
        return given
    # ./latency-logs/ when there is one, else the repository's (parse.py run from elsewhere).
    here, repo = DEFAULT_ROOT, Path(__file__).resolve().parent.parent / DEFAULT_ROOT
    root = here if here.is_dir() or not repo.is_dir() else repo
    folder = newest_sweep(root)
    if folder is not None:
        print(f"reading {folder} (the newest sweep; choose another with -d)", file=sys.stderr)
        return folder
    raise NothingUsable(f"no logs found in {root}/: run a sweep first (e.g. ./run-localhost.sh -S -t) "
                        f"or point -d at a folder of logs")


def _writable(path: Path) -> Path:
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK) or (
            path.exists() and not os.access(path, os.W_OK)):
        reason = "is a folder" if path.is_dir() else (
            "no such folder" if not parent.is_dir() else "permission denied")
        raise NothingUsable(f"cannot write {path}: {reason}")
    return path


def _written_as(path: Path, command: str, writes: tuple[str, ...]) -> str:
    """What an output's extension asks for (pdf, html), when the command writes it: else a usage error, so that
    `-o report.htm` is never a PDF under that name."""
    form = path.suffix.lower().removeprefix(".")
    if form not in writes:
        raise UsageError(f"-o {path}: {command} writes {' or '.join(f'.{w}' for w in writes)}, not "
                         f"{path.suffix or 'a name without an extension'} (e.g. -o {path.with_suffix('.' + writes[-1])})")
    return form


def resolve_table(ns) -> request.Table:
    kind = options.KINDS[ns.kind]
    kind.check(_asked(ns))
    return request.Table(kind, _folder(ns.dir), _filters(ns), ns.format, ns.noise / 100)


def resolve_figures(ns) -> request.Figures:
    kind, plot = options.KINDS[ns.kind], ns.type
    options.refuse_foreign(kind, plot)
    kind.check(_asked(ns, scale=ns.scale))
    options.refuse_undrawn(kind, plot, kind.figures)
    folder = _folder(ns.dir)
    out = _writable(ns.out or folder / f"{kind.name}-{plot}.pdf")
    table = ns.format or ("text" if ns.table else None)
    return request.Figures(kind, folder, _filters(ns), plot, ns.scale, out, ns.noise / 100, table,
                           _written_as(out, "figures", options.WRITES))


def resolve_compare(ns) -> request.Compare:
    kind = options.KINDS[ns.kind]
    kind.check(_asked(ns, comparing=True, fail_above=ns.fail_above))
    for name, folder in (("OLD", ns.old), ("NEW", ns.new)):
        if not folder.is_dir():
            raise NothingUsable(f"--compare {name}: {folder}: no such folder")
    drawn = ns.figure or ns.out is not None
    out = _writable(ns.out or ns.new / f"{kind.name}-compare.pdf") if drawn else None
    if out is not None:
        _written_as(out, "compare", ("pdf",))
    return request.Compare(kind, ns.old, ns.new, _filters(ns), ns.format, ns.noise / 100, ns.fail_above, out)


def resolve_variance(ns) -> request.Variance:
    kind = options.DEFAULT
    kind.check(_asked(ns))
    return request.Variance(kind, _folder(ns.dir), _filters(ns), ns.format)


def _warn(path: Path, reason: str, skipped: bool = True) -> None:
    print(f"warning: {path}: {reason}{'; skipped' if skipped else ''}", file=sys.stderr)


def _save(figures, out: Path, title: str) -> None:
    from . import pages  # matplotlib loads only when a figure is asked for

    _written(out, lambda: pages.save(figures, out, title), "page")


def _written(out: Path, write, what: str) -> None:
    """Runs `write` (→ how many `what`s it wrote to `out`) and says so; an OSError is one line."""
    try:
        count = write()
    except OSError as e:
        raise NothingUsable(f"cannot write {out}: {e.strerror or e}") from None
    print(f"wrote {out} ({count} {what}{'s' if count != 1 else ''})", file=sys.stderr)


def cmd_table(asked: request.Table) -> int:
    """The summary table of a sweep on stdout, one line per point (its repeats combined)."""
    sweep = asked.kind.collect(asked.folder, asked.filters, False, _warn, asked.noise)
    sys.stdout.write(asked.kind.tables[asked.form](sweep.points, sweep.noise))
    return 0


def cmd_figures(asked: request.Figures) -> int:
    """PDF figures of a sweep: one (-t NAME), or every figure, the table and the machine page (-t all).

    With -o FILE.html, one offline web page instead: the table (sortable, filterable), the figures, the facts."""
    kind, plot = asked.kind, asked.plot
    sweep = kind.collect(asked.folder, asked.filters, plot in ("time", "all"), _warn, asked.noise)
    kind.ready(sweep, plot)
    if asked.table:
        sys.stdout.write(kind.tables[asked.table](sweep.points, sweep.noise))
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

        _written(asked.out, lambda: html_report.sweep_page(asked.out, kind, sweep, plot, drawn), "figure")
    else:
        _save((page for _, page in drawn), asked.out, f"{kind.name} {plot} — {asked.folder.name}")
    return 0


def cmd_compare(asked: request.Compare) -> int:
    """Two sweeps point by point: the ratio new/old with its 95 % interval and a verdict per point."""
    kind = asked.kind
    old, new = (kind.collect(f, asked.filters, False, _warn, NOISE) for f in (asked.old, asked.new))
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
    if asked.out is not None:
        from . import compare_pages

        palette = Palette(old.palette.variants | new.palette.variants)
        _save(compare_pages.compare_pages(result, str(asked.old), str(asked.new), palette), asked.out,
              f"{kind.name} compare — {asked.old.name} → {asked.new.name}")
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
    found = asked.kind.collect(asked.folder, asked.filters, False, _warn, NOISE)
    sys.stdout.write(asked.kind.variance(found, asked.form))
    return 0


COMMANDS = (("table", cmd_table, resolve_table), ("figures", cmd_figures, resolve_figures),
            ("compare", cmd_compare, resolve_compare), ("variance", cmd_variance, resolve_variance))
OWN = {"table": _table_options, "figures": _figures_options, "compare": _compare_options,
       "variance": _variance_options}


# Tracking results over time (docs/analysis.md): a sweep exported for CI tracking tools, recorded in the
# history, and the history's changes.

def _export_options(p) -> None:
    options.add_dir(p)
    options.add_kind(p)
    options.add_filters(p)
    p.add_argument("--format", choices=export.FORMATS, required=True, help="the tracking tool's format")
    p.add_argument("-o", "--out", type=Path, metavar="FILE",
                   help="file to write (default: DIR/KIND-FORMAT.json, .csv for otava)")


def _record_options(p) -> None:
    options.add_dir(p)
    options.add_kind(p)
    p.add_argument("--db", type=Path, default=history_db.DEFAULT, help=f"the history (default {history_db.DEFAULT})")


def _history_options(p) -> None:
    p.add_argument("--db", type=Path, default=history_db.DEFAULT, help=f"the history (default {history_db.DEFAULT})")
    p.add_argument("--format", choices=FORMAT, default="text", help="table format (default text)")
    options.add_noise(p)
    options.add_out(p, "none: no figure", options.WRITES)
    p.add_argument("--fail-on-change", action="store_true",
                   help="exit 1 when the newest sweep starts a change (its repeats against the sweeps since the last "
                   "change, by the interval test)")


def _tracked(kind, folder: Path, filters: Filters):
    """A sweep's tracked metrics and facts; NothingUsable when its kind tracks none of them."""
    sweep = kind.collect(folder, filters, False, _warn, NOISE)
    rows = tracked.measures(sweep, kind)
    if rows.empty:
        raise NothingUsable(f"no {kind.name} point of {folder} has a value to track")
    return rows, tracked.facts(sweep.infos, sweep.runs, kind.name)


def resolve_export(ns) -> request.Export:
    kind = options.KINDS[ns.kind]
    kind.check(_asked(ns))
    folder = _folder(ns.dir)
    out = ns.out or folder / f"{kind.name}-{ns.format}.{'csv' if ns.format == 'otava' else 'json'}"
    return request.Export(kind, folder, _filters(ns), ns.format, _writable(out))


def resolve_record(ns) -> request.Record:
    kind = options.KINDS[ns.kind]
    return request.Record(kind, _folder(ns.dir), _writable(ns.db))


def resolve_history(ns) -> request.History:
    out = _writable(ns.out) if ns.out is not None else None
    writes = _written_as(out, "history", options.WRITES) if out is not None else "pdf"
    return request.History(ns.db, ns.format, ns.noise / 100, out, ns.fail_on_change, writes)


def cmd_export(asked: request.Export) -> int:
    """A sweep's metrics for a CI tracking tool: Bencher's BMF, github-action-benchmark's JSON or a CSV for Otava.

    One benchmark per point, named by its dimensions (tokio/tcp/64B/1000msg_s/0tasks/1conn/closed), with each
    metric's 95 % interval across repeats; each file names the suite's commit, the machine and the seed."""
    rows, facts = _tracked(asked.kind, asked.folder, asked.filters)
    measures = [t.measure for t in asked.kind.tracked]
    for path, text, what in export.files(asked.form, rows, facts, measures, asked.out):
        try:
            temporary = path.with_name(f".{path.name}.part")  # a reader never sees half a file
            temporary.write_text(text)
            os.replace(temporary, path)
        except OSError as e:
            raise NothingUsable(f"cannot write {path}: {e.strerror or e}") from None
        print(f"wrote {path} ({what})", file=sys.stderr)
    print(f"parse.py: exported {rows['benchmark'].nunique()} points of {export.note(facts)}", file=sys.stderr)
    return 0


def cmd_record(asked: request.Record) -> int:
    """Append a sweep's points to the history (SQLite, one transaction); a sweep already there is refused."""
    rows, facts = _tracked(asked.kind, asked.folder, Filters())
    number = history_db.record(asked.db, facts, rows, asked.folder)
    print(f"parse.py: recorded {asked.folder} in {asked.db} as sweep {number}: {rows['benchmark'].nunique()} points "
          f"({export.note(facts)})", file=sys.stderr)
    return 0


def cmd_history(asked: request.History) -> int:
    """Each point's trend across the recorded sweeps and the changes in it (change points and the interval test
    agreeing); whether the newest sweep starts one."""
    points = history_db.read(asked.db)
    series, numbered = history.analyse_all(points, asked.noise), history.sweeps(points)
    sys.stdout.write(history.TABLES[asked.form](series, numbered))
    sys.stdout.flush()
    if asked.out is not None:
        from . import history_pages

        pages = history_pages.history_pages(series, numbered, str(asked.db))
        if asked.writes == "html":
            from . import html_report

            _written(asked.out, lambda: html_report.history_page(asked.out, history.layout(series, numbered),
                                                                  pages, str(asked.db)), "figure")
        else:
            _save(pages, asked.out, f"history — {asked.db.name}")
    if asked.fail_on_change:
        changed = history.newest_changes(series, int(numbered["sweep"].iloc[-1]))
        if changed:
            print(f"parse.py: the newest sweep (#{len(numbered)}) starts a change: {'; '.join(changed)}",
                  file=sys.stderr)
            return 1
    return 0


COMMANDS += (("export", cmd_export, resolve_export), ("record", cmd_record, resolve_record),
             ("history", cmd_history, resolve_history))
OWN |= {"export": _export_options, "record": _record_options, "history": _history_options}


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
