"""parse.py's tracking commands: a sweep exported for CI tracking tools, recorded in the history, and the
history's trends and changes (docs/analysis.md, "Tracking results over time")."""

# Part of the entry: each command's options, its namespace resolved once into a frozen request
# (request.py), and the command run on that request alone. cli.py adds COMMANDS and OWN to its own.

import os
import sys
from pathlib import Path

from . import entry_kit as kit
from . import export, gate, history, history_db, history_table, options, request, tracked
from .between_sweeps import MIN_SWEEPS
from .sweep import Filters, NothingUsable
from .uncertainty import NOISE


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
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")
    options.add_noise(p)
    options.add_out(p, "none: no figure", options.WRITES)
    p.add_argument("--fail-on-change", action="store_true",
                   help="exit 1 when the newest sweep starts a change: its value outside the prediction interval "
                   "of the sweeps since the last change, in each paired Δ series (the levels where there are none)")


def _tracked(kind, folder: Path, filters: Filters):
    """A sweep's tracked metrics and facts; NothingUsable when its kind tracks none of them."""
    sweep = kind.collect(folder, filters, False, kit.warn, NOISE)
    rows, left = tracked.measures(sweep, kind), tracked.left_out(sweep, kind)
    if rows.empty:
        raise NothingUsable(f"no {kind.name} point of {folder} has a value to track"
                            + (f" ({left[0]}; {len(left)} such)" if left else ""))
    return rows, tracked.facts(sweep.infos, sweep.runs, kind.name), left


def _say_left_out(left: list[str]) -> None:
    """The metrics left out because their samples cannot carry them: a line each, on stderr."""
    for line in left:
        print(f"parse.py: left out {line}", file=sys.stderr)


def resolve_export(ns) -> request.Export:
    kind = options.KINDS[ns.kind]
    kind.check(kit.asked(ns))
    folder = kit.folder(ns.dir)
    out = ns.out or folder / f"{kind.name}-{ns.format}.{'csv' if ns.format == 'otava' else 'json'}"
    return request.Export(kind, folder, kit.filters(ns), ns.format, kit.writable(out))


def resolve_record(ns) -> request.Record:
    kind = options.KINDS[ns.kind]
    return request.Record(kind, kit.folder(ns.dir), kit.writable(ns.db))


def resolve_history(ns) -> request.History:
    out = kit.writable(ns.out) if ns.out is not None else None
    writes = kit.written_as(out, "history", options.WRITES) if out is not None else "pdf"
    return request.History(ns.db, ns.format, ns.noise / 100, out, ns.fail_on_change, writes)


def cmd_export(asked: request.Export) -> int:
    """A sweep's metrics for a CI tracking tool: Bencher's BMF, github-action-benchmark's JSON or a CSV for Otava.

    One benchmark per point, named by its dimensions (tokio/tcp/64B/1000msg_s/0tasks/1conn/closed), with each
    metric's 95 % interval across repeats; each file names the suite's commit, the machine and the seed."""
    rows, facts, left = _tracked(asked.kind, asked.folder, asked.filters)
    # The kind's metrics, then the paired Δs the sweep has (a sweep of a runtime beside std): Otava's columns
    measures = [t.measure for t in asked.kind.tracked] + [m for m in tracked.DELTA_OF if (rows["measure"] == m).any()]
    for path, text, what in export.files(asked.form, rows, facts, measures, asked.out):
        try:
            temporary = path.with_name(f".{path.name}.part")  # a reader never sees half a file
            temporary.write_text(text)
            os.replace(temporary, path)
        except OSError as e:
            raise NothingUsable(f"cannot write {path}: {e.strerror or e}") from None
        print(f"wrote {path} ({what})", file=sys.stderr)
    print(f"parse.py: exported {rows['benchmark'].nunique()} points of {export.note(facts)}", file=sys.stderr)
    _say_left_out(left)
    return 0


def cmd_record(asked: request.Record) -> int:
    """Append a sweep's points to the history (SQLite, one transaction); a sweep already there is refused."""
    rows, facts, left = _tracked(asked.kind, asked.folder, Filters())
    number = history_db.record(asked.db, facts, rows, asked.folder)
    print(f"parse.py: recorded {asked.folder} in {asked.db} as sweep {number}: {rows['benchmark'].nunique()} points "
          f"({export.note(facts)})", file=sys.stderr)
    _say_left_out(left)
    return 0


def cmd_history(asked: request.History) -> int:
    """Each point's trend across the recorded sweeps and the changes in it, judged by the spread between sweeps;
    whether the newest sweep starts one (in the paired Δs where the history has them)."""
    points = history_db.read(asked.db)
    confidence = gate.confidence(points)
    series, numbered = history.analyse_all(points, asked.noise, confidence), history.sweeps(points)
    sys.stdout.write(history_table.TABLES[asked.form](series, numbered, confidence))
    sys.stdout.flush()
    if asked.out is not None:
        from . import history_pages

        pages = history_pages.history_pages(series, numbered, str(asked.db))
        if asked.writes == "html":
            from . import html_report

            kit.written(asked.out, lambda: html_report.history_page(asked.out, history_table.layout(series, numbered, confidence),
                                                                  pages, str(asked.db)), "figure")
        else:
            kit.save(pages, asked.out, f"history — {asked.db.name}")
    if asked.fail_on_change:
        return _gate(series, points, numbered, asked.noise)
    return 0


def _gate(series: list, points, numbered, noise: float) -> int:
    """The gate's exit status, and its call in words: 1 when a judged series starts a change at the newest sweep;
    a note when some could not be judged (too few sweeps) or the machine changed under it."""
    newest = f"the newest sweep (#{len(numbered)})"
    changed = numbered["changed"].iloc[-1]
    if changed:
        print(f"parse.py: note: {newest} ran with {', '.join(changed)}", file=sys.stderr)
    unknown = gate.unknown(series, points, noise)
    if unknown:
        print(f"parse.py: note: {unknown} series of {newest} not judged: {history.TOO_FEW} since their last change "
              f"(fewer than {MIN_SWEEPS}) to know their spread", file=sys.stderr)
    called = gate.calls(series, points, noise)
    if called:
        print(f"parse.py: {newest} starts a change: {'; '.join(called)}", file=sys.stderr)
        return 1
    return 0


COMMANDS = (("export", cmd_export, resolve_export), ("record", cmd_record, resolve_record),
            ("history", cmd_history, resolve_history))
OWN = {"export": _export_options, "record": _record_options, "history": _history_options}
