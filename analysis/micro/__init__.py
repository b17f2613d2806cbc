"""The in-process benchmarks (-k micro): their logs as runs, a point per benchmark, size and runtime, and the table."""

# The package holds the kind (a Kind: analysis/kind.py) and hands its modules' names on; its modules import
# one another (runs, table, then figures), never this file.

from pathlib import Path

from suite.benchmarks import SCHEDULER  # noqa: F401  (handed on)

from ..kind import Asked, Figure, Kind, Tracked, UsageError
from .runs import BENCH_ORDER, ESTIMATES, POINT, MicroSweep, pooled  # noqa: F401  (handed on)
from .runs import collect as collect_runs, micro_meta
from .table import CSV_COLUMNS, HEADERS, csv, markdown, rows, text  # noqa: F401  (CSV_COLUMNS handed on)


def _figures():
    """figures.py, imported when a figure is drawn: a table alone never loads matplotlib."""
    from . import figures

    return figures


FIGURES = {  # -t NAME → the function of figures.py that lays out its page, and how to read it
    "scheduler": Figure(lambda found, scale: _figures().scheduler_page(found, scale),
                        caption="Time per operation of each scheduler benchmark, a bar per runtime: the median of "
                        "a run's timed repeats with its 95 % interval; a reference is hatched."),
    "notify": Figure(lambda found, scale: _figures().notify_page(found, scale),
                     caption="Notify vs oneshot: the time until every one of N waiters woke, and the process's "
                     "peak RSS, against N."),
    "channel": Figure(lambda found, scale: _figures().channel_page(found, scale),
                      caption="Channel events received per second against the number of workers, a panel per "
                      "event type: what a runtime's channels and wake-ups cost under fan-in."),
}


def collect(folder: Path, frameworks: list[str], warn) -> MicroSweep:
    """Every micro log under `folder` (only these frameworks, when given), as runs and points (runs.collect)."""
    return collect_runs(folder, frameworks, warn, KIND)


class Micro(Kind):
    name, what, figures = "micro", "in-process benchmarks", FIGURES
    tables = {"text": lambda points, noise: text(points), "csv": lambda points, noise: csv(points),
              "markdown": lambda points, noise: markdown(points)}
    keys, own_figures = tuple(POINT), True
    # A log's median of its timed repeats, with the exact order-statistic interval (uncertainty.median_interval).
    tracked = (Tracked("latency", "ns_per_op", "ns", True, "median-order-statistics"),
               Tracked("throughput", "ops_per_s", "ops/s", False, "median-order-statistics"))

    def collect(self, folder: Path, filters, with_time: bool, warn, noise: float) -> MicroSweep:
        return collect_runs(folder, filters.frameworks, warn, self)

    def meta(self, data: dict) -> dict:
        return micro_meta(data)

    def cells(self, points, noise: float):
        return (HEADERS, *rows(points))

    def closing(self, found: MicroSweep):
        return _figures().closing_pages(found)

    def check(self, asked: Asked) -> None:
        """Options that mean nothing for in-process benchmarks are a command-line mistake."""
        for given, option in ((asked.rates, "-r"), (asked.transports, "-p"), (asked.tasks, "-l"),
                              (asked.comparing, "--compare"), (asked.fail_above is not None, "--fail-above")):
            if given:
                raise UsageError(f"{option}: not for micro logs (in-process benchmarks have no transport, rate or "
                                 "decoys, and no comparison yet); choose frameworks with -f")
        if asked.scale != "log":
            raise UsageError("-s: micro figures are drawn on log axes")

    def nothing_drawn(self, found: MicroSweep, plot: str) -> str:
        return (f"-t {plot}: no {plot} benchmark was run in {found.folder} "
                f"(there are {', '.join(dict.fromkeys(found.points['bench']))})")


KIND = Micro()
