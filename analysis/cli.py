"""parse.py's command line: argparse, the folder to read, and main()."""

import argparse
import itertools
import math
import os
import sys
from pathlib import Path

from suite.palette import FRAMEWORK_ORDER, Palette

from . import compare, micro, rtt, throughput
from .kind import UsageError
from .load import newest_sweep
from .sweep import Filters, NothingUsable
from .uncertainty import NOISE

KINDS = {kind.name: kind for kind in (rtt.KIND, throughput.KIND, micro.KIND)}  # -k's choices, in this order
DEFAULT = rtt.KIND  # -k's default

DESCRIPTION = """Turn a sweep of round-trip-time or throughput logs into a summary table and PDF figures.

Reads this suite's STEM.json + STEM.csv logs and the 2022 suite's per-sample CSV, recursively
from DIR (default: the newest sweep under latency-logs/). Percentiles are exact, by nearest
rank. Without -t or --summary it does both: every figure to one PDF and the table on stdout.
Each point may have been run several times (stems ending -r1, -r2…): its numbers are the means
over the repeats with a 95 % t interval across them, and the latency each runtime adds over std
(Δ, paired by round) gets a verdict: slower, faster, same or unknown. --compare OLD NEW compares
two sweeps point by point. -t connections draws p50 and p99 (open load: the corrected latency's
p99 too) against the connections of each ping (CONNECTIONS, LOAD). With -k throughput: -t stat
draws msg/s and Gb/s against payload size, -t time the rate per window over each run; -r does not
apply. With -k micro (the in-process
benchmarks, MODE=micro): -t {micro} or all; only -f filters.
""".format(micro=", ".join(micro.FIGURES))

PLOTS = (*dict.fromkeys(plot for kind in KINDS.values() for plot in kind.plots), "all")  # every kind's -t
DEFAULT_ROOT = Path("latency-logs")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        raise UsageError(f"{message} (see {self.prog} -h)")


def _rate(text: str) -> float:
    """A message rate: 1000, 1k, 2.5k, 1M, or inf (back-to-back)."""
    word = text.strip().lower().replace(" ", "")
    if word in ("inf", "∞", "max", "b2b", "back-to-back"):
        return math.inf
    scale = {"k": 1e3, "m": 1e6}.get(word[-1:], 1.0)
    try:
        value = float(word[:-1] if scale != 1.0 else word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a message rate: {text!r} (e.g. 1000, 1k, inf)") from None
    if not value * scale > 0:
        raise argparse.ArgumentTypeError(f"a message rate must be positive: {text!r} (inf = back-to-back)")
    return value * scale


def _list(item):
    def parse(text: str) -> list:
        try:
            return [item(part) for part in text.split(",") if part.strip()]
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return parse


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="parse.py", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-d", "--dir", type=Path, help="folder of logs (default: newest sweep in latency-logs/)")
    p.add_argument("-k", "--kind", choices=tuple(KINDS), default=DEFAULT.name,
                   help=f"kind of log (default {DEFAULT.name})")
    p.add_argument("-t", "--type", choices=PLOTS, help="figure to draw; all = every figure, table and machine page "
                   f"({'; '.join(f'{k.name}: {_plots(k)}' for k in KINDS.values() if k is not DEFAULT)})")
    p.add_argument("-p", "--protocol", choices=("tcp", "udp", "icmp"), help="only this transport")
    p.add_argument("-r", "--rate", type=_list(_rate), default=[], metavar="RATE[,RATE]",
                   help="only these message rates asked for, msg/s: 1000, 1k, inf (back-to-back)")
    p.add_argument("-l", "--tasks", type=_list(int), default=[], metavar="N[,N]", help="only these decoy counts")
    p.add_argument("-f", "--framework", type=_list(str.strip), default=[], metavar="NAME[,NAME]",
                   help=f"only these frameworks: {', '.join(FRAMEWORK_ORDER)}")
    p.add_argument("-s", "--scale", choices=("log", "lin"), default="log",
                   help="RTT axis scale; throughput: the rate axes of -t stat (default log)")
    p.add_argument("-o", "--out", type=Path, metavar="FILE.pdf", help="PDF to write (default: DIR/KIND-TYPE.pdf)")
    p.add_argument("--summary", action="store_true", help="print the summary table on stdout")
    p.add_argument("--format", choices=("text", "csv", "markdown"), help="summary table format, or the comparison's with --compare (default text)")
    p.add_argument("--variance", action="store_true",
                   help="print where each point's spread comes from (within a run, between runs, what a round "
                        "and a block share, and what pairing with std cancels) instead of the summary table; "
                        "needs 2 repeats or more (rtt)")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"),
                   help="compare two sweep folders point by point (ratio new/old, 95 %% interval, verdict)")
    p.add_argument("--noise", type=_percent, default=2.0, metavar="PCT",
                   help="a change smaller than PCT %% is called `same` (default 2)")
    p.add_argument("--fail-above", type=_percent, metavar="PCT",
                   help="with --compare: exit 1 when a point is `slower` by more than PCT %%")
    return p


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"a percentage is 0 or more: {text!r}")
    return value


def _folder(args) -> Path:
    if args.dir is not None:
        if not args.dir.is_dir():
            raise NothingUsable(f"{args.dir}: no such folder")
        return args.dir
    # ./latency-logs/ when there is one, else the repository's (parse.py run from elsewhere).
    here, repo = DEFAULT_ROOT, Path(__file__).resolve().parent.parent / DEFAULT_ROOT
    root = here if here.is_dir() or not repo.is_dir() else repo
    folder = newest_sweep(root)
    if folder is not None:
        print(f"reading {folder} (the newest sweep; choose another with -d)", file=sys.stderr)
        return folder
    raise NothingUsable(f"no logs found in {root}/: run a sweep first (e.g. ./run-localhost.sh -S -t) "
                        f"or point -d at a folder of logs")


def _check_writable(path: Path) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK) or (
            path.exists() and not os.access(path, os.W_OK)):
        reason = "is a folder" if path.is_dir() else (
            "no such folder" if not parent.is_dir() else "permission denied")
        raise NothingUsable(f"cannot write {path}: {reason}")


def _plots(kind) -> str:
    return ", ".join((*kind.plots, "all"))


def _check_kind(kind, args) -> None:
    """Options that mean nothing for the kind of log asked for are a command-line mistake: a figure
    another kind draws, and what the kind itself refuses."""
    plot = args.type
    if not kind.own_figures:
        owner = next((k for k in KINDS.values() if k.own_figures and plot in k.figures), None)
        if owner is not None:
            raise UsageError(f"-t {plot}: drawn for {owner.name} logs only (-k {owner.name})")
    kind.check(args)
    if plot is not None and plot != "all" and plot not in kind.plots:
        raise UsageError(f"-t {plot}: not drawn for {kind.name} logs; there are {_plots(kind)} "
                         f"(see {parser().prog} -h)")


def _check_compare(args) -> None:
    """Options that need --compare, or mean nothing with it."""
    if args.compare is None:
        if args.fail_above is not None:
            raise UsageError("--fail-above needs --compare OLD NEW (it gates a sweep against an older one)")
        if args.type == "compare":
            raise UsageError("-t compare needs --compare OLD NEW")
        return
    if args.dir is not None:
        raise UsageError("--compare names its two folders: leave out -d")
    if args.type not in (None, "compare"):
        raise UsageError(f"-t {args.type}: with --compare the only figure is -t compare")


def run_compare(args, kind, filters: Filters, warn) -> int:
    """Two sweeps point by point: the table on stdout, -t compare's forest plot, --fail-above."""
    old_dir, new_dir = args.compare
    for name, folder in (("OLD", old_dir), ("NEW", new_dir)):
        if not folder.is_dir():
            raise NothingUsable(f"--compare {name}: {folder}: no such folder")
    out = args.out or new_dir / f"{kind.name}-compare.pdf"
    if args.type:
        _check_writable(out)
    old, new = (kind.collect(f, filters, False, warn, NOISE) for f in (old_dir, new_dir))
    result = compare.compare(old.runs, new.runs, kind, args.noise / 100)
    if result.rows.empty:
        raise NothingUsable(f"no point is in both {old_dir} and {new_dir} ({len(result.only_old)} only in OLD, "
                            f"{len(result.only_new)} only in NEW, e.g. {(result.only_old + result.only_new)[0]})")
    fmt = args.format or "text"
    sys.stdout.write({"text": compare.text, "csv": compare.csv, "markdown": compare.markdown}[fmt](result))
    sys.stdout.flush()
    if fmt == "csv":  # stdout stays CSV: the unmatched points go to stderr
        for side, names in (("OLD", result.only_old), ("NEW", result.only_new)):
            for name in names:
                print(f"only in {side}: {name}", file=sys.stderr)
    if args.type:
        from . import compare_pages, pages  # matplotlib loads only when a figure is asked for

        palette = Palette(old.palette.variants | new.palette.variants)
        _save(pages, compare_pages.compare_pages(result, str(old_dir), str(new_dir), palette), out,
              f"{kind.name} compare — {old_dir.name} → {new_dir.name}")
    if args.fail_above is not None:
        slower = compare.slower_than(result, args.fail_above)
        if slower:
            print(f"parse.py: slower by more than {args.fail_above:g} %: {'; '.join(slower)}", file=sys.stderr)
            return 1
    return 0


def _warn(path: Path, reason: str, skipped: bool = True) -> None:
    print(f"warning: {path}: {reason}{'; skipped' if skipped else ''}", file=sys.stderr)


def _save(pages, figures, out: Path, title: str) -> None:
    try:
        count = pages.save(figures, out, title)
    except OSError as e:
        raise NothingUsable(f"cannot write {out}: {e.strerror or e}") from None
    print(f"wrote {out} ({count} page{'s' if count != 1 else ''})", file=sys.stderr)


def run_variance(args, kind, filters: Filters, warn) -> int:
    """--variance: the spread of each point split into its parts (the kind's `variance`)."""
    folder = _folder(args)
    found = kind.collect(folder, filters, False, warn, NOISE)
    sys.stdout.write(kind.variance(found, args.format or "text"))
    return 0


def run(args) -> int:
    kind = KINDS[args.kind]
    _check_kind(kind, args)
    _check_compare(args)
    filters = Filters([args.protocol] if args.protocol else [], args.rate, args.tasks, args.framework)
    warn = _warn

    if args.compare is not None:
        return run_compare(args, kind, filters, warn)
    if args.variance and kind.variance:
        return run_variance(args, kind, filters, warn)
    show_table = args.summary or args.format is not None
    plot = args.type
    if plot is None and not show_table:  # neither asked: everything
        plot, show_table = "all", True
    folder = _folder(args)
    out = args.out or folder / f"{kind.name}-{plot}.pdf"
    if plot:
        _check_writable(out)

    sweep = kind.collect(folder, filters, plot in ("time", "all"), warn, args.noise / 100)
    if plot:
        kind.ready(sweep, plot)
    if show_table:
        sys.stdout.write(kind.tables[args.format or "text"](sweep.points, sweep.noise))
        sys.stdout.flush()
    if plot:
        from . import pages  # matplotlib loads only when a figure is asked for

        figures = pages.report(kind, sweep, plot, args.scale)
        first = next(figures, None)
        if first is None and kind.nothing_drawn is not None:
            raise NothingUsable(kind.nothing_drawn(sweep, plot))
        _save(pages, itertools.chain([first] if first is not None else [], figures), out,
              f"{kind.name} {plot} — {folder.name}")
    return 0


def main(argv=None) -> int:
    """Entry point of parse.py; returns the exit status."""
    try:
        return run(parser().parse_args(argv))
    except UsageError as e:
        print(f"parse.py: error: {e}", file=sys.stderr)
        return 2
    except NothingUsable as e:
        print(f"parse.py: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `parse.py --summary | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
