"""parse.py's commands on where a round trip's time goes: `costs`, what each end did per message (every run's
counters), and `phases`, each round trip of a TRACE=N sweep's traced runs split into its parts."""

# Part of the entry: the command's options, its namespace resolved once into a frozen request (request.py), and
# the command run on that request alone. cli.py adds COMMANDS and OWN to its own.

import sys

from suite import traces

from . import entry_kit as kit
from . import options, phases_table, request
from .sweep import NothingUsable
from .uncertainty import NOISE


def _costs_options(p) -> None:
    options.add_dir(p)
    options.add_filters(p)
    p.add_argument("--format", choices=kit.FORMAT, default="text", help="table format (default text)")


def resolve_costs(ns) -> request.Costs:
    options.DEFAULT.check(kit.asked(ns))
    return request.Costs(options.DEFAULT, kit.folder(ns.dir), kit.filters(ns), ns.format)


def cmd_costs(asked: request.Costs) -> int:
    """What each end did per message: CPU µs (user, kernel), system calls, switches, wake-ups, from the runs' counters.

    A row per point and end (ping, pong): each the mean over the runs with its 95 % t interval, and its Δ vs
    std paired by round as the Δp50 is. Logs without counters (before them, COUNTERS=0) are left out."""
    found = asked.kind.collect(asked.folder, asked.filters, False, kit.warn, NOISE)
    sys.stdout.write(asked.kind.costs(found, asked.form))
    return 0


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
    its turnaround, the ping's wake-up, its receive and its return (a sweep run with TRACE=N).

    A row per traced point: each phase's mean in µs over its traced runs, their sum, the share of the runs' own
    p50 they account for, system calls and hand-offs per round trip, and what tracing cost; then each phase's Δ
    vs std paired by traced round. With -o, stacked bars and a few round trips on a timeline."""
    table = phases_table.rows(asked.folder, kit.warn)
    if not table:
        raise NothingUsable(f"{asked.folder}: no traced runs in {traces.FOLDER}/ (sweep with TRACE=1, as root)")
    sys.stdout.write(phases_table.TABLES[asked.form](table))
    sys.stdout.flush()
    if asked.out is not None:
        from . import phases_pages  # matplotlib loads only when a figure is asked for

        kit.save(phases_pages.pages_of(table, asked.folder.name), asked.out, f"rtt phases — {asked.folder.name}")
    return 0


COMMANDS = (("costs", cmd_costs, resolve_costs), ("phases", cmd_phases, resolve_phases))
OWN = {"costs": _costs_options, "phases": _phases_options}
