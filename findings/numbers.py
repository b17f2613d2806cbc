"""The figures the page's small tables need, read back from `parse.py table --format csv`, and those tables.

Ratios between two points of one sweep carry an interval from both points' own 95 % intervals, combined on the
log scale as if independent (unpaired: wider than a paired Δ's); a Δ vs std is parse.py's own, paired by round.
"""

import csv
import io
import math

from suite import fmt

# The laptop re-run (net-benchmark's updated script, 64 B, medians in µs), by rate asked for.
LAPTOP_US = {
    10: {"async-std": 340.8, "smol": 317.8, "std": 230.0, "tokio": 296.1},
    100: {"async-std": 239.1, "smol": 243.6, "std": 238.4, "tokio": 265.3},
    1000: {"async-std": 31.4, "smol": 31.1, "std": 25.4, "tokio": 112.4},
    10000: {"async-std": 22.3, "smol": 23.8, "std": 23.4, "tokio": 36.2},
    math.inf: {"async-std": 14.4, "smol": 14.3, "std": 11.0, "tokio": 35.3},
}
FRAMEWORKS = ("std", "tokio", "async-std", "smol")


def rows(csv_text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(csv_text)))


def num(row: dict | None, column: str) -> float:
    """A column as a number; NaN when the row or the value is missing."""
    text = (row or {}).get(column) or ""
    return float(text) if text else math.nan


def rate(interval_s: float) -> float:
    return math.inf if interval_s == 0 else round(1 / interval_s)


def find(table: list[dict], framework: str, transport: str = "tcp", msg_per_s: float = math.inf,
         tasks: int = 0) -> dict | None:
    for row in table:
        if (row["framework"], row["transport"], int(row["tasks"])) == (framework, transport, tasks) and \
                rate(float(row["interval_s"])) == msg_per_s:
            return row
    return None


def p50(row: dict | None) -> str:
    """`12.3 [11.9–12.8]`: the p50 in µs with its 95 % interval."""
    if row is None:
        return fmt.UNKNOWN
    return f"{fmt.us(num(row, 'p50_ns'))} [{fmt.us(num(row, 'p50_low_ns'))}–{fmt.us(num(row, 'p50_high_ns'))}]"


def delta(row: dict | None, against: str = "") -> str:
    """`+1.2 [0.4–2.0] slower`: parse.py's Δp50 in µs, paired by round, with its verdict: vs std, or (`against`
    "base") a variant's vs its base runtime."""
    part = f"_{against}" if against else ""
    if row is None or not row.get(f"delta{part}_p50_ns"):
        return fmt.UNKNOWN
    d, low, high = (num(row, f"delta{part}_p50{c}_ns") for c in ("", "_low", "_high"))
    return f"{d / 1e3:+.3g} [{low / 1e3:+.3g} to {high / 1e3:+.3g}] {row[f'verdict{part}']}"


def ratio(a: dict | None, b: dict | None) -> tuple[float, float, float]:
    """a's p50 over b's, and its interval from both p50s' intervals (log scale, unpaired)."""
    if a is not None and a is b:
        return 1.0, 1.0, 1.0  # a point against itself: no spread to combine
    values = [num(r, c) for r in (a, b) for c in ("p50_ns", "p50_low_ns", "p50_high_ns")]
    if any(math.isnan(v) or v <= 0 for v in values):
        return math.nan, math.nan, math.nan
    (ma, la, ha), (mb, lb, hb) = values[:3], values[3:]
    spread = math.hypot(math.log(ha / la) / 2, math.log(hb / lb) / 2)
    r = ma / mb
    return r, r * math.exp(-spread), r * math.exp(spread)


def times(r: tuple[float, float, float]) -> str:
    value, low, high = r
    if math.isnan(value):
        return fmt.UNKNOWN
    return "1" if low == high == value else f"{value:.2f} [{low:.2f}–{high:.2f}]"


def rate_label(msg_per_s: float) -> str:
    return "∞" if math.isinf(msg_per_s) else fmt.si(msg_per_s)


def markdown(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" :-- " if i < 2 else " --: " for i in range(len(header))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in body]) + "\n"


def slept_pair(main: list[dict], pacing: list[dict], fw: str, transport: str, msg_per_s: float):
    """A runtime's point and std's under the 2022 sleep pacing; back-to-back sleeps nothing here, so its
    points are the main sweep's."""
    if math.isinf(msg_per_s):
        return find(main, fw, transport, msg_per_s), find(main, "std", transport, msg_per_s)
    return find(pacing, f"{fw}-sleep", transport, msg_per_s), find(pacing, "std-sleep", transport, msg_per_s)


def laptop_table(main: list[dict], pacing: list[dict]) -> str:
    """The laptop's medians and ratios to std beside this machine's, TCP: the suite's schedule (main sweep) and
    the 2022 sleep pacing (pacing sweep; back-to-back sleeps nothing, so its ∞ is the main sweep's)."""
    body = []
    for msg_per_s, laptop in LAPTOP_US.items():
        for fw in FRAMEWORKS:
            here, std_here = find(main, fw, "tcp", msg_per_s), find(main, "std", "tcp", msg_per_s)
            slept, std_slept = slept_pair(main, pacing, fw, "tcp", msg_per_s)
            body.append([rate_label(msg_per_s), fw, f"{laptop[fw]:g}", f"{laptop[fw] / laptop['std']:.2f}",
                         p50(here), times(ratio(here, std_here)), p50(slept), times(ratio(slept, std_slept))])
    return markdown(["msg/s", "framework", "laptop p50 µs", "laptop ÷ std", "here, schedule: p50 µs [95 %]",
                     "÷ std [95 %]", "here, 2022 sleep pacing: p50 µs [95 %]", "÷ std [95 %]"], body)


def async_table(main: list[dict], pacing: list[dict]) -> str:
    """async-std and smol against std at every rate and transport, both pacings."""
    body = []
    for transport in ("tcp", "udp"):
        for msg_per_s in LAPTOP_US:
            std, cells = find(main, "std", transport, msg_per_s), []
            for fw in ("async-std", "smol"):
                cells.append(delta(find(main, fw, transport, msg_per_s)))
            for fw in ("async-std", "smol"):
                cells.append(times(ratio(*slept_pair(main, pacing, fw, transport, msg_per_s))))
            body.append([transport, rate_label(msg_per_s), p50(std), *cells])
    return markdown(["transport", "msg/s", "std p50 µs [95 %]", "async-std − std µs (schedule, paired)",
                     "smol − std µs (schedule, paired)", "async-std ÷ std (2022 sleep pacing)",
                     "smol ÷ std (2022 sleep pacing)"], body)


def transports_table(main: list[dict], pacing: list[dict]) -> str:
    """tokio's p50 over UDP and over TCP at each rate, both pacings, and the achieved rate under sleep pacing."""
    body = []
    for msg_per_s in (*LAPTOP_US, 100_000):
        cells = []
        for table, label in ((main, "tokio"), (pacing, "tokio-sleep")):
            tcp, udp = find(table, label, "tcp", msg_per_s), find(table, label, "udp", msg_per_s)
            cells += [p50(tcp), p50(udp), times(ratio(udp, tcp))]
        achieved = [num(find(pacing, f"{fw}-sleep", "tcp", msg_per_s), "achieved_rate") for fw in ("tokio", "std")]
        cells += [fmt.UNKNOWN if math.isnan(a) else fmt.si(a) for a in achieved]
        if any(c != fmt.UNKNOWN for c in cells):
            body.append([rate_label(msg_per_s), *cells])
    return markdown(["msg/s asked", "tokio TCP p50 µs (schedule)", "UDP", "UDP ÷ TCP", "tokio TCP p50 µs (sleep)",
                     "UDP", "UDP ÷ TCP", "tokio-sleep achieved msg/s (TCP)", "std-sleep achieved msg/s (TCP)"], body)


def decoys_table(decoys: list[dict], counts=(0, 10, 100, 1000)) -> str:
    """Each framework's p50 at 1 k msg/s against its decoy count, as a ratio to its own p50 without decoys."""
    body = []
    for fw in FRAMEWORKS:
        for label, kind in ((fw, "spin (the suite's)"), (f"{fw}-timers", "1 ms timers (2022)")):
            none = find(decoys, label, "tcp", 1000, 0)
            body.append([fw, kind] + [f"{p50(find(decoys, label, 'tcp', 1000, n))} ×{times(ratio(find(decoys, label, 'tcp', 1000, n), none))}"
                                      for n in counts])
    return markdown(["framework", "decoys", *[f"{n} tasks: p50 µs [95 %] ×(÷ 0 tasks)" for n in counts]], body)


def tokio_added_table(main: list[dict], network: list[dict]) -> str:
    """tokio − std, paired by round, on loopback and across the veth pair."""
    body = []
    for where, table in (("loopback", main), ("veth pair", network)):
        for transport in ("tcp", "udp"):
            for msg_per_s in (1000, math.inf):
                tokio = find(table, "tokio", transport, msg_per_s)
                body.append([where, transport, rate_label(msg_per_s), p50(find(table, "std", transport, msg_per_s)),
                             p50(tokio), delta(tokio)])
    return markdown(["link", "transport", "msg/s", "std p50 µs [95 %]", "tokio p50 µs [95 %]",
                     "tokio − std µs [95 %], verdict"], body)


def versions_table(versions: list[dict]) -> str:
    """Each older release beside today's line of its runtime: both p50s and the release's Δp50 against today's,
    paired by round (parse.py's `Δp50 vs base`), with its verdict."""
    from .sweeps import OLD_RELEASES

    body = []
    for fw, release in OLD_RELEASES:
        old_label = f"{fw}-{release.rsplit('.', 1)[0]}"
        for tasks in (0, 100):
            for transport in ("tcp", "udp"):
                for msg_per_s in (1000, math.inf):
                    new, old = find(versions, fw, transport, msg_per_s, tasks), find(versions, old_label, transport,
                                                                                     msg_per_s, tasks)
                    body.append([f"{fw} {release} against today's", f"{transport}, {tasks} decoys",
                                 rate_label(msg_per_s), p50(new), p50(old), delta(old, "base")])
    return markdown(["runtime", "setting", "msg/s", "today's p50 µs [95 %]", "the release's p50 µs [95 %]",
                     "the release − today's, µs [95 %], paired by round"], body)
