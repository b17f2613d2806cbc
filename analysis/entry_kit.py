"""What every command of parse.py's entry shares: a namespace's filters and folder, an output checked
writable and read for its format, and one line on stderr for what was written or skipped."""

# Part of the entry (with cli.py, tracking_cli.py, legacy.py and options.py): these take the argparse
# namespace; nothing below the entry does (tests/test_architecture.py).

import os
import sys
from pathlib import Path

from .kind import Asked, UsageError
from .load import newest_sweep
from .sweep import Filters, NothingUsable

DEFAULT_ROOT = Path("latency-logs")
FORMAT = ("text", "csv", "markdown")


def filters(ns) -> Filters:
    return Filters(tuple([ns.protocol] if getattr(ns, "protocol", None) else []), tuple(ns.rate), tuple(ns.tasks), tuple(ns.framework))


def asked(ns, **more) -> Asked:
    return Asked(tuple([ns.protocol] if getattr(ns, "protocol", None) else []), tuple(ns.rate), tuple(ns.tasks), **more)


def folder(given: Path | None) -> Path:
    """The sweep folder -d names, checked; without -d the newest sweep, said on stderr."""
    if given is not None:
        if not given.is_dir():
            raise NothingUsable(f"{given}: no such folder")
        return given
    # ./latency-logs/ when there is one, else the repository's (parse.py run from elsewhere).
    here, repo = DEFAULT_ROOT, Path(__file__).resolve().parent.parent / DEFAULT_ROOT
    root = here if here.is_dir() or not repo.is_dir() else repo
    newest = newest_sweep(root)
    if newest is not None:
        print(f"reading {newest} (the newest sweep; choose another with -d)", file=sys.stderr)
        return newest
    raise NothingUsable(f"no logs found in {root}/: run a sweep first (e.g. ./run-localhost.sh -S -t) "
                        f"or point -d at a folder of logs")


def writable(path: Path) -> Path:
    """`path`, when it can be written; else NothingUsable naming why, before anything is read."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK) or (
            path.exists() and not os.access(path, os.W_OK)):
        reason = "is a folder" if path.is_dir() else (
            "no such folder" if not parent.is_dir() else "permission denied")
        raise NothingUsable(f"cannot write {path}: {reason}")
    return path


def written_as(path: Path, command: str, writes: tuple[str, ...]) -> str:
    """What an output's extension asks for (pdf, html), when the command writes it: else a usage error, so that
    `-o report.htm` is never a PDF under that name."""
    form = path.suffix.lower().removeprefix(".")
    if form not in writes:
        named = [f".{w}" for w in writes]
        listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
        raise UsageError(f"-o {path}: {command} writes {listed}, not "
                         f"{path.suffix or 'a name without an extension'} (e.g. -o {path.with_suffix('.' + writes[-1])})")
    return form


def warn(path: Path, reason: str, skipped: bool = True) -> None:
    print(f"warning: {path}: {reason}{'; skipped' if skipped else ''}", file=sys.stderr)


def save(figures, out: Path, title: str) -> None:
    from . import pages  # matplotlib loads only when a figure is asked for

    written(out, lambda: pages.save(figures, out, title), "page")


def written(out: Path, write, what: str) -> None:
    """Runs `write` (→ how many `what`s it wrote to `out`) and says so; an OSError is one line."""
    try:
        count = write()
    except OSError as e:
        raise NothingUsable(f"cannot write {out}: {e.strerror or e}") from None
    print(f"wrote {out} ({count} {what}{'s' if count != 1 else ''})", file=sys.stderr)
