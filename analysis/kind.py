"""What a kind of log (rtt, throughput, micro) implements, so that nothing outside its package branches on it."""

# Each kind package (analysis/rtt, analysis/throughput, analysis/micro) defines one class that implements
# Kind: how its logs are read and combined into points, its tables, its figures (a -t name → the
# function that lays out its pages; a new figure is that function and one entry in the table), the
# options it refuses and how it is compared. The command line (cli.py), the reader (sweep.py, points.py),
# the comparison (compare.py) and the page kit (pages.py) take a Kind and never name one. This module
# imports no kind. A figure's function imports its drawing module when called, so that a table alone
# never loads matplotlib.

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol


class UsageError(Exception):
    """A mistake in the command line: exit status 2."""


@dataclass(frozen=True)
class Figure:
    """One -t value: the function that lays out its pages, (sweep, scale) → matplotlib Figures, one per page."""

    pages: Callable[..., Iterable]
    in_all: Callable[..., Iterable] | None = None  # how -t all draws it, when not the same (e.g. fewer pages)
    caption: str = ""  # how to read it, in a sentence: under each of its pages in the HTML report


@dataclass(frozen=True)
class Comparing:
    """How two sweeps of a kind are compared (compare.py): each metric's run column and how it reads."""

    metrics: dict[str, str]  # metric → the column of a run it is read from
    lower_is_better: bool  # a latency; False for a rate
    unit: str  # of the old and new columns of the table
    value: Callable[[float], str]  # how the table writes a metric's value
    digits: int  # of the old and new columns in CSV; 0: integers


@dataclass(frozen=True)
class Tracked:
    """A metric a kind's points are tracked by over time (exports, history): its measure's name in Bencher's
    words, the point column it is read from (its 95 % interval: COLUMN_low, COLUMN_high; its repeats: the runs'
    COLUMN), its unit and which way is better."""

    measure: str  # latency, p99-latency, throughput
    column: str  # of a point, and of each of its runs
    unit: str  # ns, msg/s, ops/s
    lower_is_better: bool
    method: str | None = None  # how the interval was computed; None: the point's `method` column says


@dataclass(frozen=True)
class Asked:
    """What a request asks of a kind, for the options it refuses (Kind.check): the filters and the axis."""

    transports: tuple[str, ...] = ()
    rates: tuple[float, ...] = ()
    tasks: tuple[int, ...] = ()
    scale: str = "log"
    comparing: bool = False
    fail_above: float | None = None
    # Only parse.py's old flags (legacy.py) ask for these together with others.
    variance: bool = False
    figure: str | None = None


class Kind(Protocol):
    """A kind of log. The attributes and methods with a body here are what a kind that has no use for
    them inherits (e.g. no older logs, nothing to refuse)."""

    name: str  # the log's "kind" and -k's value
    what: str  # in titles: "round-trip time"
    figures: dict[str, Figure]  # -t NAME; their order is -t all's
    tables: dict[str, Callable]  # --format → (points, noise) → the summary table as text
    wide: dict[str, Callable] | None = None  # --wide: the tables with every column, where `tables` show fewer
    keys: tuple[str, ...]  # the columns that name a point
    own_figures: bool = False  # its figure names are its alone: asked with another -k, they point here
    spread: bool = False  # whether its spread splits into parts (variance)
    compare: Comparing | None = None  # None: sweeps of this kind are not compared
    tracked: tuple[Tracked, ...] = ()  # what exports and the history carry of a point
    # The runs of a JSON + CSV log (sweep.py, points.py); the kinds that read their own way leave them empty.
    metrics: tuple[str, ...] = ()  # given a 95 % interval per point; the first says how many repeats
    # Quantiles of the samples pooled across a point's runs (points.py, quantiles.py): a run's column of sorted
    # samples → {metric: q}. RTT's; a kind without samples per run has none.
    pooled: Mapping[str, Mapping[str, float]] = MappingProxyType({})
    means: tuple[str, ...] = ()  # averaged over a point's repeats
    sums: tuple[str, ...] = ()  # summed over them

    def collect(self, folder, filters, with_time: bool, warn, noise: float):
        """The sweep of this kind's logs under `folder` (sweep.collect, or the kind's own reader)."""
        ...

    def meta(self, data: dict) -> dict:
        """A log's JSON the schema accepted → the run's metadata."""
        ...

    def cells(self, points, noise: float) -> tuple[list[str], list[list[str]], list[str]]:
        """The table for people as cells: its headers, a row per point (in the points' order), its notes."""
        ...

    def closing(self, sweep) -> Iterator:
        """The pages -t all ends with (table, machine)."""
        ...

    def check(self, asked: Asked) -> None:
        """Raises UsageError for an option this kind has no use for."""

    def ready(self, sweep, plot: str) -> None:
        """Raises NothingUsable when that figure has nothing to draw."""

    def nothing_drawn(self, sweep, plot: str) -> str | None:
        """Why a figure drew no page; None: save it anyway."""
        return None

    def variance(self, sweep, form: str) -> str:
        """Where each point's spread comes from, for a kind with `spread`."""
        raise UsageError(f"variance reads RTT logs, not {self.name} logs")

    def costs(self, sweep, form: str) -> str:
        """`parse.py costs`: what each end did per message."""
        raise UsageError(f"costs reads RTT logs, not {self.name} logs")

    def protocols(self, sweep, form: str) -> str:
        """What the protocol costs beside what the runtime costs, where a runtime ran over TCP and HTTP."""
        raise UsageError(f"protocols reads RTT logs, not {self.name} logs")

    def protocol_pages(self, sweep) -> Iterator:
        """The pages of `protocols`."""
        raise UsageError(f"protocols reads RTT logs, not {self.name} logs")

    def run(self, csv, meta: dict, with_time: bool):
        """(scalars, shape) of one run from its CSV; load.LogError if damaged."""
        ...

    def older_runs(self, found, with_time: bool, warn) -> Iterable:
        """(meta, measure) of the logs of older suites; none but RTT's."""
        return ()

    def tidy(self, runs):
        """Runs → runs with the kind's derived columns."""
        return runs

    def finish(self, table, runs, noise: float):
        """Points → points with the kind's columns."""
        return table

    def listing(self, frame) -> str:
        """What a filter could have matched, in words, from the runs' metadata frame."""
        return ""

    @property
    def plots(self) -> tuple[str, ...]:
        """Every -t value of this kind but all."""
        return (*self.figures, *(["compare"] if self.compare else []))

    @property
    def reads_older(self) -> bool:
        """Whether the 2022 suite's CSVs are this kind's (older_runs reads them)."""
        return False
