"""The flags of parse.py before its commands (--summary, --compare, --variance, -t alone, --export…), as aliases of the commands.

Kept for at least one release: the old command line is parsed and checked as it was (the same errors and
exit statuses), rewritten into the command it stands for, which is said in one line on stderr, and run as
that command, so that its output is the command's. Part of the entry, with cli.py: only these two read
a namespace.
"""

import argparse
import math
import shlex
import sys
from pathlib import Path

from . import export, options
from .kind import Asked, UsageError

PLOTS = (*dict.fromkeys(plot for kind in options.KINDS.values() for plot in kind.plots), "all")  # every kind's -t


def parser() -> argparse.ArgumentParser:
    p = options.Parser(prog="parse.py", description="parse.py's flags before its commands (see parse.py -h)")
    options.add_dir(p)
    options.add_kind(p)
    p.add_argument("-t", "--type", choices=PLOTS)
    options.add_filters(p)
    options.add_scale(p)
    options.add_out(p, "DIR/KIND-TYPE.pdf", options.WRITES)
    p.add_argument("--summary", action="store_true")
    p.add_argument("--format", choices=("text", "csv", "markdown"))
    p.add_argument("--variance", action="store_true")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    options.add_noise(p)
    p.add_argument("--fail-above", type=options.percent, metavar="PCT")
    # Tracking over time, in the words (#32): `-d SWEEP --export FORMAT -o FILE`, `--record DB`, `--history DB`.
    p.add_argument("--export", choices=export.FORMATS)
    p.add_argument("--record", type=Path, metavar="DB")
    p.add_argument("--history", type=Path, metavar="DB")
    p.add_argument("--fail-on-change", action="store_true")
    return p


def _check_tracking(args) -> None:
    """--export, --record and --history: one at a time, and with none of the table's and figures' own flags."""
    given = [f"--{name}" for name in ("export", "record", "history") if getattr(args, name) is not None]
    if args.fail_on_change and args.history is None:
        raise UsageError("--fail-on-change needs --history DB (it asks whether the newest sweep starts a change)")
    if not given:
        return
    others = [flag for flag, on in (("--compare", args.compare is not None), ("--summary", args.summary),
                                    ("--variance", args.variance), ("-t", args.type is not None)) if on]
    if len(given) > 1 or others:
        raise UsageError(f"{' '.join(given + others)}: one at a time (see parse.py -h)")
    if args.history is not None and args.dir is not None:
        raise UsageError("--history reads the recorded sweeps: leave out -d")


def _check(args) -> None:
    """The old command line's mistakes, in the order it found them."""
    _check_tracking(args)
    kind, plot = options.KINDS[args.kind], args.type
    options.refuse_foreign(kind, plot)
    kind.check(Asked(tuple([args.protocol] if args.protocol else []), tuple(args.rate), tuple(args.tasks),
                     args.scale, args.compare is not None, args.fail_above, args.variance, plot))
    options.refuse_undrawn(kind, plot, kind.plots)
    if args.compare is None:
        if args.fail_above is not None:
            raise UsageError("--fail-above needs --compare OLD NEW (it gates a sweep against an older one)")
        if plot == "compare":
            raise UsageError("-t compare needs --compare OLD NEW")
        return
    if args.dir is not None:
        raise UsageError("--compare names its two folders: leave out -d")
    if plot not in (None, "compare"):
        raise UsageError(f"-t {plot}: with --compare the only figure is -t compare")


def _rate(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:g}"


def _common(args, kind: bool = True, noise: bool = True) -> list[str]:
    """The options a command shares with the old flags, as words of the command line."""
    words = ["-k", args.kind] if kind and args.kind != options.DEFAULT.name else []
    words += ["-p", args.protocol] if args.protocol else []
    words += ["-r", ",".join(map(_rate, args.rate))] if args.rate else []
    words += ["-l", ",".join(map(str, args.tasks))] if args.tasks else []
    words += ["-f", ",".join(args.framework)] if args.framework else []
    return words + (["--noise", f"{args.noise:g}"] if noise and args.noise != 2.0 else [])


def command(args) -> list[str]:
    """The command the old flags stand for, as its command line."""
    form = ["--format", args.format] if args.format else []
    folder = ["-d", str(args.dir)] if args.dir is not None else []
    out = ["-o", str(args.out)] if args.out else []
    if args.export is not None:
        return ["export", *folder, *_common(args, noise=False), "--format", args.export, *out]
    if args.record is not None:
        return ["record", *folder, *(["-k", args.kind] if args.kind != options.DEFAULT.name else []),
                "--db", str(args.record)]
    if args.history is not None:
        return ["history", "--db", str(args.history), *form, *out, *(["--noise", f"{args.noise:g}"]
                if args.noise != 2.0 else []), *(["--fail-on-change"] if args.fail_on_change else [])]
    if args.compare is not None:
        old, new = args.compare
        return ["compare", str(old), str(new), *_common(args), *form,
                *(["--fail-above", f"{args.fail_above:g}"] if args.fail_above is not None else []),
                *(["--figure"] if args.type else []), *(["-o", str(args.out)] if args.type and args.out else [])]
    if args.variance and options.KINDS[args.kind].spread:
        return ["variance", *folder, *_common(args, kind=False, noise=False), *form]
    table = args.summary or args.format is not None
    wide = ["--wide"]  # the old flags' table had every column
    if args.type is None and table:
        return ["table", *folder, *_common(args), *form, *wide]
    return ["figures", *folder, *(["-t", args.type] if args.type not in (None, "all") else []), *_common(args),
            *(["-s", args.scale] if args.scale != "log" else []), *(["-o", str(args.out)] if args.out else []),
            *(["--table", *form, *wide] if table or args.type is None else form)]


def translate(argv: list[str]) -> list[str]:
    """The old command line as the command it stands for; says that command in one line on stderr."""
    args = parser().parse_args(argv)
    _check(args)
    new = command(args)
    print(f"parse.py: note: these flags are now `parse.py {shlex.join(new)}` (the old ones work for now)",
          file=sys.stderr)
    return new
