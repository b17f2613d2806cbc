"""What a kind of log (rtt, throughput, micro) declares, so that nothing outside its module branches on it."""

# Each kind package (analysis/rtt, analysis/throughput, analysis/micro) builds one Kind: how its logs
# are read and combined into points, its tables, its figures (a -t name → the function in its drawing
# module that lays out the pages; a new figure is that function and one entry in the table), the
# options it refuses and how it is compared. The command line (cli.py), the reader (sweep.py,
# points.py), the comparison (compare.py) and the page kit (pages.py) take a Kind and never name one.
# This module imports no kind. Figures are named, not imported, so that a table alone never loads
# matplotlib.

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field


class UsageError(Exception):
    """A mistake in the command line: exit status 2."""


def refuse_variance(args, spread_here: bool) -> None:
    """--variance splits the spread of one sweep of RTT logs; with anything else it is a mistake."""
    if args.variance and (not spread_here or args.compare is not None or args.type is not None):
        raise UsageError("--variance reads one sweep of RTT logs: drop -k, --compare and -t")


@dataclass(frozen=True)
class Figure:
    """One -t value: the function of its kind's drawing module that lays out its pages, (sweep, scale) →
    matplotlib Figures, one per page."""

    pages: str
    in_all: str | None = None  # the function -t all draws it with, when not the same (e.g. fewer pages)


@dataclass(frozen=True)
class Comparing:
    """How two sweeps of a kind are compared (compare.py): each metric's run column and how it reads."""

    metrics: dict[str, str]  # metric → the column of a run it is read from
    lower_is_better: bool  # a latency; False for a rate
    unit: str  # of the old and new columns of the table
    value: Callable[[float], str]  # how the table writes a metric's value
    digits: int  # of the old and new columns in CSV; 0: integers


def _nothing(*_) -> None:
    return None


@dataclass(frozen=True)
class Kind:
    name: str  # the log's "kind" and -k's value
    what: str  # in titles: "round-trip time"
    figures: dict[str, Figure]  # -t NAME; their order is -t all's
    drawn_by: str  # the module of the figures' functions (imported when a figure is asked for)
    closing: str  # its function (sweep) → the pages -t all ends with (table, machine)
    tables: dict[str, Callable]  # --format → (points, noise) → the summary table as text
    read: Callable  # (folder, kind, filters, with_time, warn, noise) → a sweep (sweep.collect or the kind's own)
    meta: Callable[[dict], dict]  # a log's JSON the schema accepted → the run's metadata
    check: Callable = _nothing  # (args) → raises UsageError for an option this kind has no use for
    ready: Callable = _nothing  # (sweep, plot) → raises NothingUsable when that figure has nothing to draw
    nothing_drawn: Callable | None = None  # (sweep, plot) → why a figure drew no page; None: save it anyway
    compare: Comparing | None = None  # None: sweeps of this kind are not compared
    variance: Callable | None = None  # (sweep.Sweep, format) → where each point's spread comes from
    own_figures: bool = False  # its figure names are its alone: asked with another -k, they point here
    keys: tuple[str, ...] = ()  # the columns that name a point
    # The runs of a JSON + CSV log (sweep.py, points.py); the kinds that read their own way leave them empty.
    metrics: tuple[str, ...] = ()  # given a 95 % interval per point; the first says how many repeats
    means: tuple[str, ...] = ()  # averaged over a point's repeats
    sums: tuple[str, ...] = ()  # summed over them
    run: Callable | None = None  # (csv, meta, with_time) → (scalars, shape) of one run; load.LogError if damaged
    older_runs: Callable | None = None  # (found, with_time, warn) → (meta, measure) of logs of older suites
    tidy: Callable = field(default=lambda runs: runs)  # runs → runs with the kind's derived columns
    finish: Callable = field(default=lambda table, runs, noise: table)  # points → points with the kind's columns
    listing: Callable | None = None  # (runs' metadata frame) → what a filter could have matched, in words

    @property
    def plots(self) -> tuple[str, ...]:
        """Every -t value of this kind but all."""
        return (*self.figures, *(["compare"] if self.compare else []))

    def collect(self, folder, filters, with_time: bool, warn, noise: float):
        return self.read(folder, self, filters, with_time, warn, noise)

    def drawing(self):
        """The module of its figures' functions."""
        return importlib.import_module(self.drawn_by)
