"""parse.py's `phases` command: a TRACE=1 sweep's traced runs, where each round trip's time went."""

# Part of the entry: the command's options, its namespace resolved once into a frozen request (request.py), and
# the command run on that request alone. cli.py adds COMMANDS and OWN to its own.

import sys

from suite import traces

from . import entry_kit as kit
from . import options, phases_table, request
from .sweep import NothingUsable


def _phases_options(p) -> None:
    options.add_dir(p)
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")
    options.add_out(p, "none: the table only", ("pdf", "png", "svg"))


def resolve_phases(ns) -> request.Phases:
    out = kit.writable(ns.out) if ns.out is not None else None
    if out is not None:
        kit.written_as(out, "phases", ("pdf", "png", "svg"))
    return request.Phases(kit.folder(ns.dir), ns.format, out)


def cmd_phases(asked: request.Phases) -> int:
    """Where a round trip's time goes: each traced run's round trips split into the ping's send, the pong's wake-up,
    its turnaround, the ping's wake-up and its receive (a sweep run with TRACE=1; docs/analysis.md, "Traced round
    trips").

    A row per traced point: each phase's mean in µs over its traced runs (TRACE=N: N runs, a 95 % interval from
    2), their sum, how much of the runs' own p50 the traced round trips account for, system calls and
    same-process hand-offs per round trip at each end, and what tracing cost (the traced runs' p50 over the
    point's measured p50); then, for each runtime beside std, each phase's Δ paired by traced round. With -o, a
    page of stacked bars, then a few round trips of each traced run on a timeline."""
    table = phases_table.rows(asked.folder, kit.warn)
    if not table:
        raise NothingUsable(f"{asked.folder}: no traced runs in {traces.FOLDER}/ (sweep with TRACE=1, as root)")
    sys.stdout.write(phases_table.TABLES[asked.form](table))
    sys.stdout.flush()
    if asked.out is not None:
        from . import phases_pages  # matplotlib loads only when a figure is asked for

        kit.save(phases_pages.pages_of(table, asked.folder.name), asked.out, f"rtt phases — {asked.folder.name}")
    return 0


COMMANDS = (("phases", cmd_phases, resolve_phases),)
OWN = {"phases": _phases_options}
