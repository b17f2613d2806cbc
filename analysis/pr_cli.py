"""parse.py's `pr`: a pull-request check's sweep (run-localhost.sh --pr) as the comment it posts, pr-comment.md."""

# Part of the entry: the command's options, its namespace resolved once into a frozen request (request.py), and the
# command run on that request alone. cli.py adds COMMANDS and OWN to its own.

import sys
from pathlib import Path

from . import entry_kit as kit
from . import options, request, tracked
from .kind import UsageError
from .rtt import pr_check, pr_comment
from .sweep import Filters, NothingUsable
from .uncertainty import NOISE

COMMENT = "pr-comment.md"


def _pr_options(p) -> None:
    options.add_dir(p)
    p.add_argument("-o", "--out", type=Path, help=f"where the comment goes (default: the sweep folder's {COMMENT}; "
                                                   "- for stdout only)")
    p.add_argument("--fail-on-slower", type=float, metavar="PCT",
                   help="exit 1 when a setting is called slower and its interval lies wholly beyond PCT %% of "
                        "base's figure (default: never; the check is advisory)")


def resolve_pr(ns) -> request.PrCheck:
    if ns.fail_on_slower is not None and not 0 <= ns.fail_on_slower < 1000:
        raise UsageError(f"--fail-on-slower {ns.fail_on_slower:g}: expected a percentage from 0 to 1000")
    folder = kit.folder(ns.dir)
    out = None if ns.out == Path("-") else (ns.out or folder / COMMENT)
    return request.PrCheck(options.DEFAULT, folder, out, ns.fail_on_slower)


def cmd_pr(asked: request.PrCheck) -> int:
    """A pull-request check's comment: head − base at each setting, called only where the data carry it.

    Writes pr-comment.md in the sweep folder (or -o) and prints it: a headline, a table of the settings (both lines'
    p50, Δp50 and Δp99 with the intervals the sweep decided on, each end's CPU per message), and every comparison
    with the machine and the command to reproduce in a collapsed section. Exit 1 only with --fail-on-slower."""
    found = asked.kind.collect(asked.folder, Filters(), False, kit.warn, NOISE)
    if len(found.infos) != 1:
        raise NothingUsable(f"{asked.folder}: {len(found.infos)} sweep.json files: give one check's sweep folder")
    info = next(iter(found.infos.values()))
    settings = pr_check.of(found, info)
    facts = tracked.facts(found.infos, found.runs, "rtt")
    text = pr_comment.document(settings, info, facts.machine_name, facts.suite_version)
    if asked.out is not None:
        asked.out.write_text(text, encoding="utf-8")
    sys.stdout.write(text + (f"\n(written to {asked.out})\n" if asked.out is not None else ""))
    failing = pr_check.failing(settings, asked.fail_on_slower) if asked.fail_on_slower is not None else []
    for setting, figure in failing:
        print(f"slower beyond {asked.fail_on_slower:g} %: {figure} at {setting.words}", file=sys.stderr)
    return 1 if failing else 0


COMMANDS = (("pr", cmd_pr, resolve_pr),)
OWN = {"pr": _pr_options}
