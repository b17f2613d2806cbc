"""parse.py's option types and the options several commands share (argparse only; read by cli.py and legacy.py)."""

import argparse
import math
from pathlib import Path

from suite.palette import FRAMEWORK_ORDER
from suite.transports import ORDER as TRANSPORTS

from . import micro, rtt, throughput
from .kind import UsageError

KINDS = {kind.name: kind for kind in (rtt.KIND, throughput.KIND, micro.KIND)}  # -k's choices, in this order
DEFAULT = rtt.KIND  # -k's default
WRITES = ("pdf", "png", "svg", "html")  # what figures' -o writes, by the file's extension (png, svg: a page each)
FIGURES = (*dict.fromkeys(name for kind in KINDS.values() for name in kind.figures), "all")  # every kind's -t


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        raise UsageError(f"{message} (see {self.prog} -h)")


def rate(text: str) -> float:
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


def listed(item):
    def parse(text: str) -> list:
        try:
            return [item(part) for part in text.split(",") if part.strip()]
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return parse


def percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"a percentage is 0 or more: {text!r}")
    return value


def plots(kind) -> str:
    return ", ".join((*kind.plots, "all"))


def refuse_foreign(kind, plot: str | None) -> None:
    """A figure that another kind alone draws (micro's) asked of this one: point at that kind."""
    if not kind.own_figures:
        owner = next((k for k in KINDS.values() if k.own_figures and plot in k.figures), None)
        if owner is not None:
            raise UsageError(f"-t {plot}: drawn for {owner.name} logs only (-k {owner.name})")


def refuse_undrawn(kind, plot: str | None, drawn) -> None:
    """A figure this kind does not draw (`drawn`: its -t values): say which it does."""
    if plot is not None and plot != "all" and plot not in drawn:
        raise UsageError(f"-t {plot}: not drawn for {kind.name} logs; there are {plots(kind)} (see parse.py -h)")


def add_kind(p) -> None:
    p.add_argument("-k", "--kind", choices=tuple(KINDS), default=DEFAULT.name, help=f"kind of log (default {DEFAULT.name})")


def add_dir(p) -> None:
    p.add_argument("-d", "--dir", type=Path, help="folder of logs (default: newest sweep in latency-logs/)")


def add_filters(p, protocol: bool = True) -> None:
    """-p (unless `protocol` is False: a command that reads given transports), -r, -l and -f."""
    if protocol:
        p.add_argument("-p", "--protocol", choices=TRANSPORTS, help="only this transport")
    p.add_argument("-r", "--rate", type=listed(rate), default=[], metavar="RATE[,RATE]",
                   help="only these message rates asked for, msg/s: 1000, 1k, inf (back-to-back)")
    p.add_argument("-l", "--tasks", type=listed(int), default=[], metavar="N[,N]", help="only these decoy counts")
    p.add_argument("-f", "--framework", type=listed(str.strip), default=[], metavar="NAME[,NAME]",
                   help=f"only these frameworks: {', '.join(FRAMEWORK_ORDER)}")


def add_wide(p) -> None:
    p.add_argument("--wide", action="store_true",
                   help="every column of the table (achieved rate, n, p99.9, max, MDE, Δp99, lost, …); without it, "
                   "the RTT table shows the columns a reader needs first, in 120 columns (CSV: always every column)")


def add_noise(p) -> None:
    p.add_argument("--noise", type=percent, default=2.0, metavar="PCT",
                   help="a change smaller than PCT %% is called `same` (default 2)")


def add_scale(p) -> None:
    p.add_argument("-s", "--scale", choices=("log", "lin"), default="log",
                   help="RTT axis scale; throughput: the rate axes of -t stat (default log)")


def add_out(p, default: str, writes=("pdf",)) -> None:
    """-o: the file to write, in the format its extension names (`writes`: the ones this command writes)."""
    p.add_argument("-o", "--out", type=Path, metavar="|".join(f"FILE.{w}" for w in writes),
                   help=f"{' or '.join(w.upper() for w in writes)} to write{', by its extension' if len(writes) > 1 else ''}"
                   f" (default: {default})")
