"""parse.py's command line: argparse, the folder to read, and main()."""

import argparse
import math
import os
import sys
from pathlib import Path

from . import summary
from .load import newest_sweep
from .sweep import Filters, NothingUsable, collect

DESCRIPTION = """Turn a sweep of round-trip-time or throughput logs into a summary table and PDF figures.

Reads this suite's STEM.json + STEM.csv logs and the 2022 suite's per-sample CSV, recursively
from DIR (default: the newest sweep under latency-logs/). Percentiles are exact, by nearest
rank. Without -t or --summary it does both: every figure to one PDF and the table on stdout.
With -k throughput: -t stat draws msg/s and Gb/s against payload size, -t time the rate per
window over each run; -r does not apply.
"""

PLOTS = ("stat", "ecdf", "pdf", "time", "tasks", "all")
THROUGHPUT_PLOTS = ("stat", "time", "all")  # the others describe RTT distributions
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
    p.add_argument("-k", "--kind", choices=("rtt", "throughput"), default="rtt", help="kind of log (default rtt)")
    p.add_argument("-t", "--type", choices=PLOTS, help="figure to draw; all = every figure, table and machine page "
                   f"(throughput: {', '.join(THROUGHPUT_PLOTS)})")
    p.add_argument("-p", "--protocol", choices=("tcp", "udp", "icmp"), help="only this transport")
    p.add_argument("-r", "--rate", type=_list(_rate), default=[], metavar="RATE[,RATE]",
                   help="only these message rates asked for, msg/s: 1000, 1k, inf (back-to-back)")
    p.add_argument("-l", "--tasks", type=_list(int), default=[], metavar="N[,N]", help="only these decoy counts")
    p.add_argument("-f", "--framework", type=_list(str.strip), default=[], metavar="NAME[,NAME]",
                   help="only these frameworks: std, tokio, async-std, smol, ping")
    p.add_argument("-s", "--scale", choices=("log", "lin"), default="log",
                   help="RTT axis scale; throughput: the rate axes of -t stat (default log)")
    p.add_argument("-o", "--out", type=Path, metavar="FILE.pdf", help="PDF to write (default: DIR/KIND-TYPE.pdf)")
    p.add_argument("--summary", action="store_true", help="print the summary table on stdout")
    p.add_argument("--format", choices=("text", "csv", "markdown"), help="summary table format (default text)")
    return p


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
    if args.kind != "throughput":
        return
    if args.rate:
        raise UsageError("-r: throughput runs send back-to-back, they have no message rate to pick "
                         "(choose with -p, -l, -f)")
    if args.type is not None and args.type not in THROUGHPUT_PLOTS:
        raise UsageError(f"-t {args.type}: not drawn for throughput logs; "
                         f"there are {', '.join(THROUGHPUT_PLOTS)} (see {parser().prog} -h)")


def run(args) -> int:
    _check_kind(args)
    show_table = args.summary or args.format is not None
    plot = args.type
    if plot is None and not show_table:  # neither asked: everything
        plot, show_table = "all", True
    folder = _folder(args)
    out = args.out or folder / f"{args.kind}-{plot}.pdf"
    if plot:
        _check_writable(out)

    def warn(path: Path, reason: str, skipped: bool = True) -> None:
        print(f"warning: {path}: {reason}{'; skipped' if skipped else ''}", file=sys.stderr)

    filters = Filters([args.protocol] if args.protocol else [], args.rate, args.tasks, args.framework)
    sweep = collect(folder, args.kind, filters, with_time=plot in ("time", "all"), warn=warn)
    if show_table:
        formats = {"text": summary.text, "csv": summary.csv, "markdown": summary.markdown}
        sys.stdout.write(formats[args.format or "text"](sweep.runs, args.kind))
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
