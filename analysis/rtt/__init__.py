"""The RTT kind (-k rtt, the default): round-trip times of a ping against its pong, per point."""

# What the command line, the reader and the page kit need of it, in one Kind: its point keys and
# metrics (runs.py), its tables (table.py), its figures (pages.py, drawn by figures.py), the options
# it refuses, its comparison and --variance (variance.py). A figure is a page function in pages.py
# and one entry in FIGURES.

from suite import fmt

from .. import sweep
from ..kind import Comparing, Figure, Kind, refuse_variance
from . import runs, table, variance
from .runs import BASELINE

FIGURES = {  # -t NAME → its page function in pages.py; the order of -t all
    "delta": Figure("delta_pages"),  # the latency each runtime adds over std, with its 95 % interval
    "stat": Figure("stat_pages"),  # the median RTT against the message rate
    "ecdf": Figure("ecdf_pages"),  # each run's RTT distribution, cumulative
    "pdf": Figure("pdf_pages"),  # each run's RTT distribution, a density
    "time": Figure("time_pages"),  # RTT over each run
    "tasks": Figure("tasks_pages", in_all="varied_tasks_pages"),  # p50 and p99 against the decoy count
    "connections": Figure("connection_pages", in_all="varied_connection_pages"),  # … against connections
}


def check(args) -> None:
    refuse_variance(args, spread_here=True)


def ready(found: sweep.Sweep, plot: str) -> None:
    """A figure that would have nothing to draw says why, before anything is drawn."""
    if plot == "delta" and not runs.has_deltas(found.points):
        raise sweep.NothingUsable(f"no Δ to draw in {found.folder}: it needs {BASELINE} and another "
                                  "runtime measured at the same points")
    if plot == "connections" and (found.points["transport"] == "icmp").all():
        raise sweep.NothingUsable(f"nothing to draw against connections in {found.folder}: the ICMP reference "
                                  "has one stream; sweep a runtime (e.g. CONNECTIONS=\"1 10 100\" "
                                  "./run-localhost.sh -S)")


def spread(found: sweep.Sweep, form: str) -> str:
    """--variance: where each point's spread comes from, in `form` (text, csv, markdown); the text says
    the sweep's ORDER, which decides what a paired Δ cancels."""
    parts = variance.components(found.runs)
    if parts.empty:
        raise sweep.NothingUsable(f"no point of {found.folder} has 2 repeats or more: a spread needs REPEATS=2 or "
                                  "more")
    if form == "csv":
        return variance.csv(parts)
    return {"text": variance.text, "markdown": variance.markdown}[form](parts, sweep.order(found.infos))


KIND = Kind(
    name="rtt", what="round-trip time", figures=FIGURES, drawn_by="analysis.rtt.pages", closing="closing_pages",
    tables={"text": table.text, "csv": table.csv, "markdown": table.markdown}, read=sweep.collect,
    meta=runs.run_meta, check=check, ready=ready,
    compare=Comparing({"p50": "p50", "p99": "p99"}, lower_is_better=True, unit="µs", value=fmt.us, digits=0),
    variance=spread, keys=runs.KEYS, metrics=runs.METRICS, means=runs.MEANS, sums=runs.SUMS, run=runs.run,
    older_runs=runs.older_runs, tidy=runs.tidy, finish=runs.finish,
    listing=lambda frame: f"rates {sweep.rates(frame['target_rate'])} msg/s")
