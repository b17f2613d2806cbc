"""parse.py's command line: argparse, the folder to read, and main()."""

import argparse
import math
import os
import sys
from pathlib import Path

from . import compare, style, summary
from .load import newest_sweep
from .sweep import Filters, NothingUsable, collect

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
benchmarks, MODE=micro): -t scheduler, notify, channel or all; only -f filters.
"""

PLOTS = ("delta", "stat", "ecdf", "pdf", "time", "tasks", "connections", "compare", "scheduler", "notify", "channel",
         "all")
THROUGHPUT_PLOTS = ("stat", "time", "compare", "all")  # the others describe RTT distributions
MICRO_PLOTS = ("scheduler", "notify", "channel", "all")
DEFAULT_ROOT = Path("latency-logs")


class UsageError(Exception):
    """A mistake in the command line: exit status 2."""


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
    p.add_argument("-k", "--kind", choices=("rtt", "throughput", "micro"), default="rtt",
                   help="kind of log (default rtt)")
    p.add_argument("-t", "--type", choices=PLOTS, help="figure to draw; all = every figure, table and machine page "
                   f"(throughput: {', '.join(THROUGHPUT_PLOTS)}; micro: {', '.join(MICRO_PLOTS)})")
    p.add_argument("-p", "--protocol", choices=("tcp", "udp", "icmp"), help="only this transport")
    p.add_argument("-r", "--rate", type=_list(_rate), default=[], metavar="RATE[,RATE]",
                   help="only these message rates asked for, msg/s: 1000, 1k, inf (back-to-back)")
    p.add_argument("-l", "--tasks", type=_list(int), default=[], metavar="N[,N]", help="only these decoy counts")
    p.add_argument("-f", "--framework", type=_list(str.strip), default=[], metavar="NAME[,NAME]",
                   help=f"only these frameworks: {', '.join(style.FRAMEWORK_ORDER)}")
    p.add_argument("-s", "--scale", choices=("log", "lin"), default="log",
                   help="RTT axis scale; throughput: the rate axes of -t stat (default log)")
    p.add_argument("-o", "--out", type=Path, metavar="FILE.pdf", help="PDF to write (default: DIR/KIND-TYPE.pdf)")
    p.add_argument("--summary", action="store_true", help="print the summary table on stdout")
    p.add_argument("--format", choices=("text", "csv", "markdown"), help="summary table format, or the comparison's with --compare (default text)")
    p.add_argument("--variance", action="store_true",
                   help="print where each point's spread comes from (within a run, between runs, what a round "
                        "shares) instead of the summary table; needs 2 repeats or more (rtt)")
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


def _check_kind(args) -> None:
    """Options that mean nothing for the kind of log asked for are a command-line mistake."""
    if args.kind == "micro":
        for given, option in ((args.rate, "-r"), (args.protocol, "-p"), (args.tasks, "-l"),
                              (args.compare, "--compare"), (args.fail_above is not None, "--fail-above")):
            if given:
                raise UsageError(f"{option}: not for micro logs (in-process benchmarks have no transport, rate or "
                                 "decoys, and no comparison yet); choose frameworks with -f")
        if args.scale != "log":
            raise UsageError("-s: micro figures are drawn on log axes")
        if args.type is not None and args.type not in MICRO_PLOTS:
            raise UsageError(f"-t {args.type}: not drawn for micro logs; there are {', '.join(MICRO_PLOTS)} "
                             f"(see {parser().prog} -h)")
        return
    if args.type in MICRO_PLOTS and args.type != "all":
        raise UsageError(f"-t {args.type}: drawn for micro logs only (-k micro)")
    if args.variance and (args.kind != "rtt" or args.compare is not None or args.type is not None):
        raise UsageError("--variance reads one sweep of RTT logs: drop -k, --compare and -t")
    if args.kind != "throughput":
        return
    if args.rate:
        raise UsageError("-r: throughput runs send back-to-back, they have no message rate to pick "
                         "(choose with -p, -l, -f)")
    if args.type is not None and args.type not in THROUGHPUT_PLOTS:
        raise UsageError(f"-t {args.type}: not drawn for throughput logs; "
                         f"there are {', '.join(THROUGHPUT_PLOTS)} (see {parser().prog} -h)")


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


def run_compare(args, filters: Filters, warn) -> int:
    """Two sweeps point by point: the table on stdout, -t compare's forest plot, --fail-above."""
    old_dir, new_dir = args.compare
    for name, folder in (("OLD", old_dir), ("NEW", new_dir)):
        if not folder.is_dir():
            raise NothingUsable(f"--compare {name}: {folder}: no such folder")
    out = args.out or new_dir / f"{args.kind}-compare.pdf"
    if args.type:
        _check_writable(out)
    old, new = (collect(f, args.kind, filters, with_time=False, warn=warn).runs for f in (old_dir, new_dir))
    result = compare.compare(old, new, args.kind, args.noise / 100)
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
        from . import change_report, report

        try:
            count = report.save(change_report.compare_pages(result, str(old_dir), str(new_dir)), out,
                                f"{args.kind} compare — {old_dir.name} → {new_dir.name}")
        except OSError as e:
            raise NothingUsable(f"cannot write {out}: {e.strerror or e}") from None
        print(f"wrote {out} ({count} page{'s' if count != 1 else ''})", file=sys.stderr)
    if args.fail_above is not None:
        slower = compare.slower_than(result, args.fail_above)
        if slower:
            print(f"parse.py: slower by more than {args.fail_above:g} %: {'; '.join(slower)}", file=sys.stderr)
            return 1
    return 0


def _warn(path: Path, reason: str, skipped: bool = True) -> None:
    print(f"warning: {path}: {reason}{'; skipped' if skipped else ''}", file=sys.stderr)


def run_micro(args, warn) -> int:
    """-k micro: the in-process benchmarks' table and figures (analysis/micro.py, micro_report.py)."""
    from . import micro

    show_table = args.summary or args.format is not None
    plot = args.type
    if plot is None and not show_table:
        plot, show_table = "all", True
    folder = _folder(args)
    out = args.out or folder / f"micro-{plot}.pdf"
    if plot:
        _check_writable(out)
    sweep = micro.collect(folder, args.framework, warn)
    if show_table:
        formats = {"text": micro.text, "csv": micro.csv, "markdown": micro.markdown}
        sys.stdout.write(formats[args.format or "text"](sweep.points))
        sys.stdout.flush()
    if plot:
        from . import micro_report, report

        figures = list(micro_report.pages(sweep, plot))
        if not figures:
            raise NothingUsable(f"-t {plot}: no {plot} benchmark was run in {folder} "
                                f"(there are {', '.join(dict.fromkeys(sweep.points['bench']))})")
        try:
            count = report.save(figures, out, f"micro {plot} — {folder.name}")
        except OSError as e:
            raise NothingUsable(f"cannot write {out}: {e.strerror or e}") from None
        print(f"wrote {out} ({count} page{'s' if count != 1 else ''})", file=sys.stderr)
    return 0


def run_variance(args, filters: Filters, warn) -> int:
    """--variance: the spread of each point split into its parts (analysis/variance.py)."""
    from . import variance

    folder = _folder(args)
    table = variance.components(collect(folder, "rtt", filters, with_time=False, warn=warn).runs)
    if table.empty:
        raise NothingUsable(f"no point of {folder} has 2 repeats or more: a spread needs REPEATS=2 or more")
    formats = {"text": variance.text, "csv": variance.csv, "markdown": variance.markdown}
    sys.stdout.write(formats[args.format or "text"](table))
    return 0


def run(args) -> int:
    _check_kind(args)
    if args.kind == "micro":
        return run_micro(args, _warn)
    _check_compare(args)
    filters = Filters([args.protocol] if args.protocol else [], args.rate, args.tasks, args.framework)
    warn = _warn

    if args.compare is not None:
        return run_compare(args, filters, warn)
    if args.variance:
        return run_variance(args, filters, warn)
    show_table = args.summary or args.format is not None
    plot = args.type
    if plot is None and not show_table:  # neither asked: everything
        plot, show_table = "all", True
    folder = _folder(args)
    out = args.out or folder / f"{args.kind}-{plot}.pdf"
    if plot:
        _check_writable(out)

    sweep = collect(folder, args.kind, filters, with_time=plot in ("time", "all"), warn=warn, noise=args.noise / 100)
    if plot == "delta":
        from .change_report import has_deltas

        if not has_deltas(sweep.points):
            raise NothingUsable(f"no Δ to draw in {folder}: it needs {style.BASELINE} and another "
                                "runtime measured at the same points")
    if plot == "connections" and (sweep.points["transport"] == "icmp").all():
        raise NothingUsable(f"nothing to draw against connections in {folder}: the ICMP reference has one "
                            "stream; sweep a runtime (e.g. CONNECTIONS=\"1 10 100\" ./run-localhost.sh -S)")
    if show_table:
        formats = {"text": summary.text, "csv": summary.csv, "markdown": summary.markdown}
        sys.stdout.write(formats[args.format or "text"](sweep.points, args.kind, sweep.noise))
        sys.stdout.flush()
    if plot:
        from . import report, throughput_report  # matplotlib loads only when a figure is asked for

        title = f"{args.kind} {plot} — {folder.name}"
        maker = throughput_report.pages if args.kind == "throughput" else report.pages
        try:
            count = report.save(maker(sweep, sweep.runs, plot, args.scale), out, title)
        except OSError as e:
            raise NothingUsable(f"cannot write {out}: {e.strerror or e}") from None
        print(f"wrote {out} ({count} page{'s' if count != 1 else ''})", file=sys.stderr)
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
