"""The rtt kind: a runtime's round trips at an interval (closed or open load), and MODE=rtt, the default sweep."""

import shlex

from suite import fmt as style, sequential

from .. import carry, empty, plan, table
from ..checks import DECIMAL, MAX_UDP_SIZE, payload
from ..selection import has_pong
from .. import spec as spec_mod
from ..spec import Spec
from .base import CSV_ROW_BYTES, JSON_BYTES, Mode

MAX_MIN_MESSAGES = 1_000_000  # a run's window at 10 msg/s would be a day
STOPS = ("decided", "fixed")
STOP_ONS = ("p50", "p50,p99")
MAX_EXTRA_ROUNDS = 50  # TRACE's and PROBED's: each traced run is 2–6 MB of text
# Points whose runs' cost the plan can only guess (Mode.guessed): their processes start or stop slowly.
MANY = 100  # decoys or connections from which a run's start and stop cost more than its window
BACK_TO_BACK_PER_S = 80_000  # the plan's guess of a back-to-back run's round trips a second on loopback


def check_design(k: dict, problems: list[str]) -> None:
    """STOP, STOP_ON, MARGIN and MARGIN_P99."""
    if k["STOP"] not in STOPS:
        problems.append(f"STOP='{k['STOP']}': expected decided (each comparison stops once it is decided, the "
                        "default) or fixed (every point runs every round, REPEATS of them)")
    if k["STOP_ON"] not in STOP_ONS:
        problems.append(f"STOP_ON='{k['STOP_ON']}': expected p50 (the runs' p50s decide when a comparison stops, "
                        "the default) or p50,p99 (their p99s too)")
    for knob in ("MARGIN", "MARGIN_P99"):
        value = k[knob]
        if not (DECIMAL.fullmatch(value) and 0 < float(value) < 100):
            problems.append(f"{knob}='{value}': expected a share of std's {knob == 'MARGIN' and 'p50' or 'p99'} in "
                            "percent, above 0 and below 100, e.g. 5: a comparison whose interval lies within ± it "
                            "is called `same`")


def design_line(spec: Spec) -> str:
    """How the sweep decides its comparisons: its looks, its most rounds, its margins."""
    design = spec.design
    margins = f"`same` within ±{design.margin:.0%} of std's p50 (±{design.margin_p99:.0%} of its p99)"
    against, held = "vs std (and a variant's vs its base)", "a 5 % false-call rate over all the looks (docs/analysis.md)"
    if spec.text("PR"):  # the check's head against its base alone, its error held over them all (sweepkit/pr.py)
        against, margins = "of the head against the base at each setting", margins.replace("std's", "the base's")
        held = (f"a 5 % false-call rate over all the looks of all {round(sequential.ALPHA / design.alpha)} comparisons "
                f"(Bonferroni: each spends α = {design.alpha:.3g}; docs/pr-check.md)")
    if not design.sequential:
        return (f"  STOP={design.stop}: every point runs all {design.maximum} rounds; each Δ {against} is decided "
                f"once, after them: slower, faster, {margins}, or undecided" + (f"; {held}" if spec.text("PR") else ""))
    looks = design.rounds()
    shown = ", ".join(map(str, looks)) if len(looks) <= 4 else f"{looks[0]}, {looks[1]}, …, {looks[-1]}"
    most = "under BUDGET" if spec.budget else f"REPEATS={spec.repeats} × {sequential.INFLATION:g}"
    which = "every Δp50 and Δp99 of the runs (STOP_ON=p50,p99)" if "p99" in design.stop_on else "every Δ"
    return (f"  STOP=decided: {which} {against} is looked at after rounds {shown}, and a "
            f"line leaves a setting once all its comparisons are decided (slower, faster, or {margins}) and its runs "
            f"carry its own {' and '.join(design.stop_on)}; at most {design.maximum} rounds ({most}); {held}")


class Rtt(Mode):
    kind = "rtt"

    def __init__(self, references: dict[str, Mode] | None = None):
        # The mode of each reference without a pong, by its transport (icmp: the system ping's), handed by the
        # registry (sweepkit.modes), which sits above both.
        self.reference_modes = references or {}

    # the p99: what STOP_ON=p50,p99 decides on; samples: whether a point's runs carry the quantiles it prints (looks)
    figure_keys = ("p50_ns", "achieved_rate", "p99_ns", "samples")
    # Measured on the 2-core test machine (docs/sweeps.md, "Time"): 0.02 s a runtime's RTT run, its record included.
    overhead_guess_s = 0.03
    header = ["framework", "transport", "target/s", "achieved/s", "tasks", "conns", "load", "run", "n", "p50 µs",
              "p99 µs", "p99.9 µs", "max µs", "lost", "starved"]

    def defaults(self) -> dict[str, str]:
        # decided: each comparison stops once decided (suite/sequential.py); fixed: every round, REPEATS of them.
        # MARGIN, MARGIN_P99: `same` within this many percent of std's p50, p99.
        # STOP_ON: which of the runs' figures decide when a comparison stops.
        return {"STOP": "decided", "STOP_ON": "p50", "MARGIN": "5", "MARGIN_P99": "10"}

    def fields(self, k: dict[str, str]) -> dict:
        return spec_mod.network_fields(k) | {"size": int(k["SIZE"]), "intervals": tuple(k["INTERVALS"].split()),
                                             "min_messages": int(k["MIN_MESSAGES"]), "trace": int(k["TRACE"]),
                                             "probed": int(k["PROBED"])}

    def check_measure(self, k: dict, problems: list[str]) -> None:
        size = payload(k["SIZE"], 8, 10**9)
        if size is None:
            problems.append(f"SIZE='{k['SIZE']}': expected bytes >= 8 (the sequence number)")
        else:
            k["SIZE"] = str(size)
        intervals = k["INTERVALS"].split()
        if not intervals:
            problems.append('INTERVALS is empty: expected seconds, e.g. "0.001 0"')
        for x in intervals:
            if not DECIMAL.fullmatch(x):
                problems.append(f"INTERVALS: '{x}' is not a number of seconds >= 0")
        counts = (("MIN_MESSAGES", MAX_MIN_MESSAGES, "a whole number of messages from 0 (off) to {top}, e.g. 13"),
                  ("TRACE", MAX_EXTRA_ROUNDS, "how many traced runs of each point after the rounds, from 0 (none) to "
                   "{top}: 1 shows where a round trip's time goes, 6 or more its Δ's parts with intervals (parse.py "
                   "phases)"),
                  ("PROBED", MAX_EXTRA_ROUNDS, "how many runs of each point after the rounds count system calls and "
                   "wake-ups, from 0 (none) to {top}; 2 or more give intervals (parse.py costs)"))
        check_design(k, problems)
        for knob, top, expected in counts:
            count = k[knob]
            if not (count.isascii() and count.isdigit() and int(count) <= top):
                problems.append(f"{knob}='{count}': expected {expected.format(top=top)}")
            else:
                k[knob] = str(int(count))

    def check_load(self, k: dict, problems: list[str]) -> None:
        """Open load sends on a schedule, so it needs an interval other than 0 (back-to-back has none)."""
        if any(p.startswith("LOAD") for p in problems):
            return
        loads, intervals = k["LOAD"].split(), k["INTERVALS"].split()
        if ("open" in loads and intervals and all(DECIMAL.fullmatch(x) for x in intervals)
                and all(float(x) == 0 for x in intervals)):
            problems.append("LOAD=open needs a schedule to send on: INTERVALS has only 0 (back-to-back), which "
                            'only a closed loop runs; give an interval, e.g. INTERVALS="0.001"')

    def check_udp(self, k: dict, warmup, duration, problems: list[str]) -> None:
        if payload(k["SIZE"], MAX_UDP_SIZE + 1, 10**9) is not None:
            problems.append(f"SIZE={k['SIZE']} is too large for UDP (at most {MAX_UDP_SIZE} bytes)")

    def warn(self, result) -> None:
        k = result.knobs
        if "open" in k["LOAD"].split() and any(float(x) == 0 for x in k["INTERVALS"].split()):
            result.warnings.append("LOAD=open: interval 0 (back-to-back) has no schedule to send on, so its "
                                   "open-loop points are not planned")
        if "SIZES" in result.given:
            result.warnings.append(f"SIZES applies to MODE=throughput; this RTT sweep uses SIZE={k['SIZE']}")

    def run_fields(self) -> dict:
        # starved: connections that got under half the median replies (per_connection)
        return dict.fromkeys(self.figure_keys) | {"starved": None}

    def probeable(self, point) -> bool:
        """The suite's own ping and pong: a reference without a pong (ICMP) counts nothing."""
        return point.binary is not None

    def traceable(self, point) -> bool:
        """One message in flight on one connection, both ends the suite's binaries: a chain of events to follow."""
        return point.binary is not None and point.get("connections") == 1 and point.get("load") == "closed"

    def ping_measure(self, point) -> list[str]:
        return ["--interval", point.interval]

    def run_bytes(self, point, spec: Spec) -> int:
        """A paced point sends 1/interval messages a second (shared by its connections); a back-to-back
        point as fast as a round trip allows, guessed from loopback here."""
        interval = float(point.interval)
        rows = spec.measured_at(point.interval) * (1 / interval if interval > 0 else BACK_TO_BACK_PER_S)
        return int(rows * CSV_ROW_BYTES) + JSON_BYTES

    def guessed(self, point, spec: Spec) -> str | None:
        """Many decoys (1 000 of std's timer threads took 15 s a run, against 0.3 s), many connections, HTTP."""
        tasks, connections = point.get("tasks"), point.get("connections")
        reasons = [f"{tasks} decoys" if tasks >= MANY else "", f"{connections} connections" if connections >= MANY else "",
                   "HTTP" if point.transport == "http" else "", super().guessed(point, spec) or ""]
        return ", ".join(filter(None, reasons)) or None

    def result(self, run: dict, connections: int | None) -> str:
        """Connections that starved (of `connections`, its point's) are a finding, so they are said."""
        p50, rate = run["p50_ns"], run["achieved_rate"]
        starved = f"   {run['starved']}/{connections or table.UNKNOWN} conns starved" if run.get("starved") else ""
        return table.progress(p50, rate, "msg/s") + starved

    def empty(self, log: dict) -> str | None:
        """A run without one round trip in its window has no p50 for the comparisons to pair."""
        return None if (log.get("rtt_ns") or {}).get("n") else self.why_empty(log)

    def why_empty(self, log: dict) -> str:
        """What a log without a round trip says of why: its counts and both ends' counters."""
        return empty.why(log, "no round trip in its window")

    def figures(self, log: dict) -> tuple:
        """p50 RTT (ns), achieved rate (msg/s), p99 RTT (ns) and the round trips in the window."""
        rtt = log.get("rtt_ns") or {}
        return rtt.get("p50"), log.get("achieved_rate"), rtt.get("p99"), rtt.get("n")

    def row(self, log: dict, run: str = table.UNKNOWN) -> list[str]:
        rtt = log.get("rtt_ns") or {}
        interval = log.get("interval_s")
        return [table.series(log), str(log.get("transport")),
                table.UNKNOWN if interval is None else style.rate_label(interval), table.si(log.get("achieved_rate")),
                table.count(log.get("tasks")), table.count(log.get("connections")), str(log.get("load") or table.UNKNOWN),
                run, table.count(rtt.get("n")), *(style.us(rtt.get(p)) for p in ("p50", "p99", "p999", "max")),
                table.lost(log), table.count(table.starved(log))]

    def measures(self, spec: Spec) -> list[tuple]:
        return [(spec.size, interval) for interval in spec.intervals]

    def references(self, spec: Spec, selection) -> list:
        """Each reference without a pong × intervals; it is the kind of its transport (icmp)."""
        return [plan.Point(e.label, None, e.transport, spec.size, interval, self.reference_modes[e.transport])
                for e in selection if not has_pong(e) for interval in spec.intervals]

    def plan_lines(self, spec: Spec) -> list[str]:
        connections, load = spec.text("CONNECTIONS"), spec.text("LOAD")
        lines = [f"  connections per ping: {connections} (sharing the rate asked for: each sends at "
                 f"rate/N); load: {load}"] if connections != "1" or load != "closed" else []
        lines.append(design_line(spec))
        if spec.probed_rounds:
            lines.append(f"  PROBED={spec.probed}: after the rounds, {spec.probed} round(s) of each point that also "
                         "count system calls and wake-ups, outside the estimates: parse.py costs")
        if spec.trace:
            lines.append(f"  TRACE={spec.trace}: after the rounds, {spec.trace} traced round(s) of each point of one "
                         "connection in closed load (root), kept in traces/ outside the estimates: parse.py phases")
        return lines

    def each(self, spec: Spec, points: list[dict]) -> str:
        longest = max((spec.window(x) for x in spec.intervals), key=lambda w: w.s, default=spec.duration)
        longer = f" (at least {spec.min_messages} messages: up to {longest} s)" if longest.s > spec.duration.s else ""
        return super().each(spec, points) + longer

    def sample_lines(self, spec: Spec, runs, estimate) -> list[str]:
        return carry.lines(spec, runs, estimate)

    def parse_args(self) -> list[str]:
        return []  # parse.py's default kind

    def serve_ready(self, spec: Spec) -> tuple[str, ...]:
        """An RTT pong of --serve is made ready for the most connections of CONNECTIONS."""
        return ("--connections", str(max(spec.values("connections"))))

    def peer_ready(self, spec: Spec) -> str:
        # the pongs of --serve are ready for the most connections, no more
        connections = spec.text("CONNECTIONS")
        return f"CONNECTIONS={shlex.quote(connections)} " if connections != "1" else ""

