"""The flags of parse.py before its commands (--summary, --compare, --variance, -t alone), as aliases of the commands.

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

from . import options
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
    return p


def _check(args) -> None:
    """The old command line's mistakes, in the order it found them."""
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
    if args.compare is not None:
        old, new = args.compare
        return ["compare", str(old), str(new), *_common(args), *form,
                *(["--fail-above", f"{args.fail_above:g}"] if args.fail_above is not None else []),
                *(["--figure"] if args.type else []), *(["-o", str(args.out)] if args.type and args.out else [])]
    if args.variance and options.KINDS[args.kind].spread:
        return ["variance", *folder, *_common(args, kind=False, noise=False), *form]
    table = args.summary or args.format is not None
    if args.type is None and table:
        return ["table", *folder, *_common(args), *form]
    return ["figures", *folder, *(["-t", args.type] if args.type not in (None, "all") else []), *_common(args),
            *(["-s", args.scale] if args.scale != "log" else []), *(["-o", str(args.out)] if args.out else []),
            *(["--table"] if table or args.type is None else []), *form]


def translate(argv: list[str]) -> list[str]:
    """The old command line as the command it stands for; says that command in one line on stderr."""
    args = parser().parse_args(argv)
    _check(args)
    new = command(args)
    print(f"parse.py: note: these flags are now `parse.py {shlex.join(new)}` (the old ones work for now)",
          file=sys.stderr)
    return new
