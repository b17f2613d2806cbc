"""What one parse.py command asks for, resolved once at the entry (cli.py): a frozen dataclass per subcommand."""

# Below the entry nothing reads the command line: each cmd_<name> of cli.py takes one of these, with
# its folder found, its PDF checked writable and its kind's refusals already said.

from dataclasses import dataclass
from pathlib import Path

from .kind import Kind
from .sweep import Filters


@dataclass(frozen=True)
class Table:
    """`parse.py table`: a sweep's summary table on stdout."""

    kind: Kind
    folder: Path
    filters: Filters
    form: str  # text, csv, markdown
    noise: float  # a share: changes below it are `same`
    wide: bool = False  # every column, not the ones that fit a terminal


@dataclass(frozen=True)
class Figures:
    """`parse.py figures`: one figure (or all of them) to a PDF, and with --table the table too."""

    kind: Kind
    folder: Path
    filters: Filters
    plot: str  # a figure of the kind, or all
    scale: str  # log, lin
    out: Path  # the PDF or HTML page, checked writable
    noise: float
    table: str | None  # the table's format on stdout; None: no table
    writes: str = "pdf"  # what `out` is written as, by its extension: pdf, html (html_report.py)
    wide: bool = False  # the table with every column


@dataclass(frozen=True)
class Compare:
    """`parse.py compare OLD NEW`: two sweeps point by point."""

    kind: Kind
    old: Path
    new: Path
    filters: Filters
    form: str
    noise: float
    fail_above: float | None  # %: exit 1 when a point is slower by more
    out: Path | None  # the forest plot's PDF or HTML page, checked writable; None: no figure
    writes: str = "pdf"  # what `out` is: pdf, or html (the table and the forest plot on one page)


@dataclass(frozen=True)
class Costs:
    """`parse.py costs`: what each end of each RTT point did per message."""

    kind: Kind
    folder: Path
    filters: Filters
    form: str


@dataclass(frozen=True)
class PrCheck:
    """`parse.py pr`: a pull-request check's comment."""

    kind: Kind
    folder: Path
    out: Path | None  # where pr-comment.md goes; None: stdout only
    fail_on_slower: float | None  # percent: exit 1 on a slower call wholly beyond it; None: advisory


@dataclass(frozen=True)
class Variance:
    """`parse.py variance`: where each RTT point's spread comes from."""

    kind: Kind
    folder: Path
    filters: Filters
    form: str


@dataclass(frozen=True)
class Wrk:
    """`parse.py wrk`: a MODE=wrk sweep's cross-check, wrk's HTTP figures beside the suite's ping's."""

    folder: Path
    frameworks: tuple[str, ...]  # -f: only these runtimes (or variants); empty: all
    form: str  # text, csv, markdown


@dataclass(frozen=True)
class Protocols:
    """`parse.py protocols`: per runtime, HTTP against TCP, what the protocol and the runtime each cost."""

    kind: Kind
    folder: Path
    filters: Filters
    form: str
    out: Path | None  # its pages (PDF, or an image a page), checked writable; None: the table only


@dataclass(frozen=True)
class Export:
    """`parse.py export`: a sweep's tracked metrics in a CI tracking tool's format."""

    kind: Kind
    folder: Path
    filters: Filters
    form: str  # export.FORMATS
    out: Path  # checked writable


@dataclass(frozen=True)
class Record:
    """`parse.py record`: a sweep appended to the history."""

    kind: Kind
    folder: Path
    db: Path  # its folder checked writable


@dataclass(frozen=True)
class History:
    """`parse.py history`: each point's trend across the recorded sweeps, and the changes in it."""

    db: Path
    form: str
    noise: float
    out: Path | None  # the pages, checked writable; None: no figure
    fail_on_change: bool  # exit 1 when the newest sweep starts a change
    writes: str = "pdf"  # out's format, from its extension: pdf or html


@dataclass(frozen=True)
class Phases:
    """`parse.py phases`: a TRACE=1 sweep's traced runs, each round trip split into its phases."""

    folder: Path
    form: str  # text, csv, markdown
    out: Path | None  # a page of bars (PDF, or an image), checked writable; None: the table only
