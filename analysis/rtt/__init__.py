"""The RTT kind (-k rtt, the default): round-trip times of a ping against its pong, per point."""

# What the command line, the reader and the page kit need of it, in one class implementing Kind: its
# point keys and metrics (runs.py), its tables (table.py; narrow.py at a terminal's width), its figures
# (pages.py, drawn by figures.py), its comparison and its variance (variance.py). A figure is a page
# function in pages.py and one entry in FIGURES.

from suite import fmt

from .. import sweep
from ..kind import Asked, Comparing, Figure, Kind, Tracked, UsageError
from . import costs, costs_table, narrow, protocols, runs, table, variance
from .runs import BASELINE


def _pages():
    """pages.py, imported when a figure is drawn: a table alone never loads matplotlib."""
    from . import pages

    return pages


FIGURES = {  # -t NAME → the function of pages.py that lays out its pages, and how to read it; the order of -t all
    "delta": Figure(lambda found, scale: _pages().delta_pages(found, scale),
                    caption="The latency each runtime adds over std (Δp50 = runtime − std) against the message rate "
                    "asked for, with its 95 % interval, paired by round: a bar that crosses 0 is a difference this "
                    "sweep cannot tell from none; a hollow marker has a single round and no interval."),
    "stat": Figure(lambda found, scale: _pages().stat_pages(found, scale),
                   caption="The median round-trip time against the message rate asked for (∞: back-to-back), a line "
                   "per runtime with its 95 % interval as a bar and a p5–p95 band; ICMP and busy-poll, thin and "
                   "grey, are the floors. A ringed point missed its rate by more than 5 %."),
    "ecdf": Figure(lambda found, scale: _pages().ecdf_pages(found, scale),
                   caption="Each run's round-trip times, cumulative, on a logit axis: the median at 50 %, the tail "
                   "at 99 % and beyond. A line further left is faster; a bundle's width is the run-to-run spread."),
    "pdf": Figure(lambda found, scale: _pages().pdf_pages(found, scale),
                  caption="Each run's round-trip times as a density: several peaks are several regimes (a timer or "
                  "wake-up path taken some of the time)."),
    "time": Figure(lambda found, scale: _pages().time_pages(found, scale),
                   caption="Round-trip time over each run, after the warm-up (long runs: p50 and p99 per time bin): "
                   "drift, stalls or a slow start show as a slope or spikes."),
    "tasks": Figure(lambda found, scale: _pages().tasks_pages(found, scale),
                    in_all=lambda found, scale: _pages().varied_tasks_pages(found, scale),
                    caption="p50 (solid) and p99 (dashed) against the number of CPU-bound decoy tasks sharing the "
                    "runtime: how its latency holds up when its workers are busy."),
    "connections": Figure(lambda found, scale: _pages().connection_pages(found, scale),
                          in_all=lambda found, scale: _pages().varied_connection_pages(found, scale),
                          caption="p50 and p99 against connections per ping; pale bars span the connections' own "
                          "p50 (p99), lowest to highest; in open load the corrected p99 (dotted) counts the wait "
                          "behind a late reply."),
    "protocols": Figure(lambda found, scale: _pages().protocol_figure_pages(found, scale),
                        caption="Where a runtime ran over TCP and HTTP: HTTP − TCP on each runtime (what the "
                        "protocol stack costs there, paired by round) beside its Δ vs std over each transport (what "
                        "the runtime costs), on one µs scale, with 95 % intervals."),
    "costs": Figure(lambda found, scale: _pages().cost_pages(found, scale),
                    caption="Where a round trip goes, from the counters each ping logs for both ends (COUNTERS=1): "
                    "left, the mean RTT as the ping's and the pong's CPU time per message and the rest (the kernel's "
                    "network path and waiting), a tick at the mean; a CPU figure is the whole process's, off the "
                    "round trip's path too, so the ends may pass the RTT. Right, each runtime's Δ vs std in those "
                    "parts beside its measured Δp50, with 95 % intervals paired by round: the part that matches the "
                    "Δp50 is where the runtime's cost lies."),
}


def _not_both(found: sweep.Sweep) -> str:
    return (f"no runtime of {found.folder} ran over both tcp and http at one setting: sweep both, e.g. "
            f'PROTOCOLS="tcp http" ./run-localhost.sh -tS (there are transports '
            f"{sweep.listing(found.points['transport'])})")


def _no_counters(found: sweep.Sweep) -> str:
    return (f"no RTT log of {found.folder} has counters: its pings ran before counting, or with COUNTERS=0 "
            "(--no-counters)")


class Rtt(Kind):
    name, what, figures = "rtt", "round-trip time", FIGURES
    tables = {"text": narrow.text, "csv": table.csv, "markdown": narrow.markdown}
    wide = {"text": table.text, "csv": table.csv, "markdown": table.markdown}
    compare = Comparing({"p50": "p50", "p99": "p99"}, lower_is_better=True, unit="µs", value=fmt.us, digits=0)
    keys, metrics, pooled, means, sums = runs.KEYS, runs.METRICS, runs.POOLED, runs.MEANS, runs.SUMS
    tracked = (Tracked("latency", "p50", "ns", True), Tracked("p99-latency", "p99", "ns", True))
    reads_older, spread = True, True

    def collect(self, folder, filters, with_time: bool, warn, noise: float) -> sweep.Sweep:
        return sweep.collect(folder, self, filters, with_time, warn, noise)

    def meta(self, data: dict) -> dict:
        return runs.run_meta(data)

    def run(self, csv, meta: dict, with_time: bool):
        return runs.run(csv, meta, with_time)

    def older_runs(self, found, with_time: bool, warn):
        return runs.older_runs(found, with_time, warn)

    def tidy(self, frame):
        return runs.tidy(frame)

    def finish(self, points, frame, noise: float):
        return runs.finish(points, frame, noise)

    def listing(self, frame) -> str:
        return f"rates {sweep.rates(frame['target_rate'])} msg/s"

    def cells(self, points, noise: float):
        return table.cells(points, noise)

    def closing(self, found: sweep.Sweep):
        return _pages().closing_pages(found)

    def check(self, asked: Asked) -> None:
        if asked.variance and (asked.comparing or asked.figure is not None):
            raise UsageError("--variance reads one sweep of RTT logs: drop -k, --compare and -t")

    def ready(self, found: sweep.Sweep, plot: str) -> None:
        """A figure that would have nothing to draw says why, before anything is drawn."""
        if plot == "delta" and not runs.has_deltas(found.points):
            raise sweep.NothingUsable(f"no Δ to draw in {found.folder}: it needs {BASELINE} and another "
                                      "runtime measured at the same points")
        if plot == "costs" and costs.points(found.runs).empty:  # the figure draws CPU: the measured runs' alone
            raise sweep.NothingUsable(_no_counters(found))
        if plot == "connections" and (found.points["transport"] == "icmp").all():
            raise sweep.NothingUsable(f"nothing to draw against connections in {found.folder}: the ICMP "
                                      "reference has one stream; sweep a runtime (e.g. CONNECTIONS=\"1 10 100\" "
                                      "./run-localhost.sh -S)")

    def protocols(self, found: sweep.Sweep, form: str) -> str:
        """HTTP against TCP per runtime and setting (protocols.py), in `form` (text, csv, markdown)."""
        if not protocols.both(found.points):
            raise sweep.NothingUsable(_not_both(found))
        return protocols.FORMS[form](protocols.stack_cost(found.points, found.runs))

    def nothing_drawn(self, found: sweep.Sweep, plot: str) -> str | None:
        """-t protocols draws nothing where no runtime ran over both TCP and HTTP: said, not an empty file."""
        return f"-t protocols: {_not_both(found)}" if plot == "protocols" else None

    def protocol_pages(self, found: sweep.Sweep):
        return _pages().protocol_pages(found)

    def costs(self, found: sweep.Sweep, form: str) -> str:
        """What each end did per message (costs.py), in `form` (text, csv, markdown)."""
        table = costs.points(found.runs, costs.probed_runs(found.runs, found.infos))
        if table.empty:
            raise sweep.NothingUsable(_no_counters(found))
        return costs_table.FORMS[form](table)

    def variance(self, found: sweep.Sweep, form: str) -> str:
        """Where each point's spread comes from, in `form` (text, csv, markdown); the text says the
        sweep's ORDER, which decides what a paired Δ cancels."""
        parts = variance.components(found.runs)
        if parts.empty:
            raise sweep.NothingUsable(f"no point of {found.folder} has 2 repeats or more: a spread needs REPEATS=2 "
                                      "or more")
        if form == "csv":
            return variance.csv(parts)
        return {"text": variance.text, "markdown": variance.markdown}[form](parts, sweep.order(found.infos))


KIND = Rtt()
