"""The RTT summary table, one line per point (its repeats combined): aligned text, CSV for scripts, or Markdown."""

# One line per point, its statistics the means over its repeats with their 95 % intervals and its Δ vs
# std (analysis/points.py, rtt/runs.py), as aligned text for people, CSV for scripts (integer
# nanoseconds) or Markdown for READMEs. Formatting only.

import io
import math

import pandas as pd

from suite import fmt

from .. import uncertainty as u
from ..summary import aligned, has_shape, integers, interval, markdown_table, repeats, signed
from ..summary import host_notes, variant_notes
from .. import summary
from .runs import DIMENSIONS, MISSED_BY

CSV_COLUMNS = ["framework", "transport", "payload", "interval_s", "target_rate", "achieved_rate",
               "tasks", "n", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "lost",
               "repeats", "p50_low_ns", "p50_high_ns", "p99_low_ns", "p99_high_ns", "p999_low_ns",
               "p999_high_ns", "delta_p50_ns", "delta_p50_low_ns", "delta_p50_high_ns", "verdict",
               "connections", "load", "latency_p99_ns", "latency_p99_low_ns", "latency_p99_high_ns", "starved",
               "mde_p50_ns", "mde_p50_pct", "interval_method", "delta_interval_method", "p9999_ns",
               "delta_p99_ns", "delta_p99_low_ns", "delta_p99_high_ns", "verdict_p99", "mde_p99_ns", "mde_p99_pct",
               "refused", "delta_base_p50_ns", "delta_base_p50_low_ns", "delta_base_p50_high_ns", "verdict_base",
               "decided_at", "decided_at_base", "decided_at_p99", "empty"]  # the round of the look that decided the Δp50,
# the Δ vs base, and the Δp99 where the sweep stopped on it too (STOP_ON=p50,p99); the runs that held no sample
# A dimension of suite/dimensions.py that the columns above do not name: a column of its own, after them
# in CSV, and in the text and Markdown tables of a sweep where it is not its default.
OTHERS = [name for name in DIMENSIONS if name not in CSV_COLUMNS]
HEADERS = ["framework", "transport", "size B", "target msg/s", "achieved msg/s", "tasks", "repeats", "n",
           "p50 µs [95 % CI]", "p99 µs [95 % CI]", "p99.9 µs", "max µs", "Δp50 vs std µs [CI]",
           "MDE µs (%)", "verdict", "at round", "Δp99 vs std µs [CI]", "verdict p99", "lost"]
UNMEASURED = {"framework": lambda p: f"{p['framework']} ×", "transport": lambda p: p["transport"],  # summary.unmeasured
              "size B": lambda p: str(p["payload"]), "target msg/s": lambda p: fmt.rate_label(p["interval_s"]),
              "tasks": lambda p: str(p.get("tasks", "–"))}
# The columns of many connections and open load, in the text and Markdown tables of a sweep that has
# either (a table of one connection in a closed loop stays as it was): header → the column it follows.
CONNECTION_HEADERS = {"conns": "tasks", "load": "conns", "latency p99 µs [95 % CI]": "p99 µs [95 % CI]",
                      "starved": "lost"}
CONNECTION_NOTE = ("conns: connections (UDP: sockets) of the ping, sharing the rate asked for; load: closed (each "
                   "message waits for the reply before it) or open (sent on schedule); latency p99: open load's "
                   "latency from the scheduled send to the echo, which counts the wait behind a late reply "
                   "(coordinated omission corrected); starved: connections that got under half the median "
                   "replies, the most of any repeat")
VERDICT_NOTE = ("Δp50: the Hodges–Lehmann shift of the pairs (runtime − std, same setting and round) with Wilcoxon's "
                "signed-rank interval; 2 to 5 rounds in common: their mean with a t interval. Under STOP=decided each "
                "Δ is looked at as the sweep goes, and its interval is the deciding look's, wider than 95 % so that "
                "all the looks together call a false difference at most 5 % of the time (docs/analysis.md)\n"
                "verdict: slower/faster when the Δ interval excludes 0 and |Δ| ≥ {noise} of std's p50; same ±m when "
                "it lies within ±m of std's p50 (MARGIN, 5 % unless set); undecided otherwise: the data do not say; "
                "unknown with one round in common. at round: the look that decided it\n"
                "MDE: the smallest Δp50 this sweep calls 4 times in 5 (80 % power), from its repeats and their "
                "spread, never below {noise} of std's p50; % of std's p50\n"
                "Δp99: std's runs of the same rounds, each side's p99 of its runs' samples pooled, the interval from "
                "each round's paired share in the two (quantiles.py), at the Δp50's deciding look; its verdict as "
                "the p50's, its margin MARGIN_P99 (10 % of std's p99 unless set)")
BASE_HEADERS = ["Δp50 vs base µs [CI]", "verdict vs base"]  # after "verdict p99", where a variant has a base
BASE_NOTE = ("Δp50 vs base: a variant (VARIANTS) against its base runtime's line at the same setting and round, "
             "paired as the Δ vs std is (tokio-old against tokio: a version against the suite's); its verdict likewise")
METHOD_NOTE = ("p50, p99, p99.9: quantiles of all the point's samples pooled, each repeat (a fresh process) weighing "
               "the same; [low–high]: 95 % interval across the repeats (Woodruff's: the spread of the repeats' own "
               "ECDFs at the quantile, its t widened by their skewness, read back through the pooled one); [–]: runs "
               "that differ more than their number can bound, an interval reaching past the samples\n"
               "1 (within-run): one repeat, its interval from the order statistics of its own samples, blind to "
               "run-to-run spread\n"
               "n = 80: too few for p99: a quantile is printed from 10 samples beyond it (p90: n ≥ 100, p99: 1 000, "
               "p99.9: 10 000; n counts each repeat alike: repeats × their harmonic-mean size); its Δ likewise")
BACK_TO_BACK = "∞ = back-to-back (next message sent when the reply arrives)"


def quantile(point, name: str, bare: bool = False) -> str:
    """A pooled quantile with its interval (bare: without), or why it is not printed: "n = 80: too few"."""
    refused = getattr(point, f"{name}_refused")
    if refused:
        return refused.split(":")[0] + ": too few"
    value = getattr(point, name)
    return fmt.us(value) if bare else interval(value, getattr(point, f"{name}_low"), getattr(point, f"{name}_high"))


def tail_delta(point, name: str) -> str:
    """A tail's Δ vs std with its interval, or why there is none: "n = 80: too few"."""
    refused = getattr(point, f"delta_{name}_refused")
    if refused:
        return refused.split(":")[0] + ": too few"
    if not getattr(point, f"verdict_{name}"):
        return ""
    return interval(getattr(point, f"delta_{name}"), getattr(point, f"delta_{name}_low"),
                    getattr(point, f"delta_{name}_high"), signed)


def detectable(point) -> str:
    """The minimum detectable Δp50, "12.3 (14 %)"; empty where there is no Δ or no spread to size it, its share
    left out where std's p50 is refused."""
    if not point.verdict or pd.isna(point.mde_p50):
        return ""
    share = "" if pd.isna(point.mde_p50_pct) else f" ({point.mde_p50_pct:.0f} %)"
    return fmt.us(point.mde_p50) + share


def called(point, noise: float) -> str:
    """The verdict; `same` says within what share of std's p50: "same ±5 %"."""
    if point.verdict == "same":
        return f"same ±{100 * max(point.schedule.margin, noise):g} %"
    return point.verdict


def decided(point) -> str:
    """The round of the look that decided the Δp50 ("10"), empty where it is undecided or there is none."""
    return "" if pd.isna(point.decided_at) else str(int(point.decided_at))


def _with_connections(headers: list[str], body: list[list[str]], points: pd.DataFrame) -> tuple[list, list]:
    """CONNECTION_HEADERS' columns added to the RTT table, each after the column it follows."""
    cells = {"conns": [str(c) for c in points["connections"]], "load": list(points["load"]),
             "latency p99 µs [95 % CI]": [quantile(p, "latency_p99") for p in points.itertuples()],
             "starved": [fmt.count(v) for v in points["starved"]]}
    headers, body = list(headers), [list(row) for row in body]
    for header, after in CONNECTION_HEADERS.items():
        at = headers.index(after) + 1
        headers.insert(at, header)
        for row, cell in zip(body, cells[header], strict=True):
            row.insert(at, cell)
    return headers, body


def _with_base(headers: list[str], body: list[list[str]], points: pd.DataFrame) -> tuple[list, list]:
    """BASE_HEADERS' columns added after the tail's verdict: each variant's Δp50 against its base runtime."""
    at = headers.index("verdict p99") + 1
    cells = [("", "") if not p.verdict_base else
             (interval(p.delta_base_p50, p.delta_base_p50_low, p.delta_base_p50_high, signed), p.verdict_base)
             for p in points.itertuples()]  # a loop over points
    return ([*headers[:at], *BASE_HEADERS, *headers[at:]],
            [[*row[:at], *mine, *row[at:]] for row, mine in zip(body, cells, strict=True)])


def rows(points: pd.DataFrame, noise: float = 0.02) -> tuple[list[list[str]], list[str]]:
    """The table for people: latencies in µs, rates with k/M; and the footnotes it needs."""
    lines, missed, partial, old, disturbed, empty = [], False, False, False, False, False
    for p in points.itertuples():  # a loop over points, not samples
        achieved = "–" if pd.isna(p.achieved_rate) else fmt.si(p.achieved_rate)
        if p.missed_rate:
            achieved += " !"
            missed = True
        name = p.framework
        if not p.complete:
            name += " *"
            partial = True
        if getattr(p, "disturbed", 0):
            name += " ‡"
            disturbed = True
        if getattr(p, "empty", 0):
            name += " ∅"
            empty = True
        old |= p.format == "2022 CSV"
        delta = "" if not p.verdict else interval(p.delta_p50, p.delta_p50_low, p.delta_p50_high, signed)
        lines.append([name, p.transport, str(p.payload), fmt.rate_label(p.interval_s), achieved,
                      str(p.tasks), repeats(p), str(p.n), quantile(p, "p50"), quantile(p, "p99"),
                      quantile(p, "p999", bare=True), fmt.us(p.max), delta, detectable(p), called(p, noise), decided(p),
                      tail_delta(p, "p99"), p.verdict_p99, fmt.count(p.lost)])
    notes = [METHOD_NOTE, VERDICT_NOTE.format(noise=fmt.percent(noise)), "n, lost: summed; max: the largest",
             *marks(missed, partial, disturbed, old, empty), BACK_TO_BACK]
    return lines, notes + variant_notes(points) + host_notes(points)


def marks(missed: bool, partial: bool, disturbed: bool, old: bool, empty: bool = False) -> list[str]:
    """The footnotes of the marks some row carries: !, *, ‡, ∅, –."""
    said = [(missed, f"! achieved rate more than {int(100 * MISSED_BY)} % off the target (below or above it)"),
            (partial, "* a run ended early (\"complete\": false); its samples are shown"),
            (disturbed, "‡ a repeat ran while other processes or the hypervisor took far more CPU than in the rest "
                        "of its round (sweep.json runs[].disturbed); kept in the figures"),
            (empty, "∅ a run's window held no sample, nor did its 2 retries (sweep.json points[].empty, the CSV's "
                    "empty): the point's figures pool its other runs, its repeats say how many"),
            (old, "– not recorded by the 2022 suite")]
    return [note for used, note in said if used]


def _with_others(headers: list[str], body: list[list[str]], points: pd.DataFrame) -> tuple[list, list]:
    """A column per OTHERS dimension that is not its default somewhere, after the point's other keys."""
    for name in (n for n in OTHERS if has_shape(points, [n])):
        at = headers.index("load" if "load" in headers else "tasks") + 1
        headers = [*headers[:at], name, *headers[at:]]
        body = [[*row[:at], str(cell), *row[at:]] for row, cell in zip(body, points[name], strict=True)]
    return headers, body


def cells(points: pd.DataFrame, noise: float) -> tuple[list[str], list[list[str]], list[str]]:
    """Headers, a row per point and the notes: what the text, Markdown and HTML tables lay out."""
    body, notes = rows(points, noise)
    if has_shape(points, ("connections", "load")):
        headers, body = _with_connections(HEADERS, body, points)
        notes = [*notes, CONNECTION_NOTE]
    else:
        headers = HEADERS
    if (points["verdict_base"] != "").any():
        headers, body = _with_base(headers, body, points)
        notes = [*notes, BASE_NOTE]
    headers, body = _with_others(headers, body, points)
    unmeasured, why = summary.unmeasured(headers, points, UNMEASURED)
    return headers, body + unmeasured, notes + why


def text(points: pd.DataFrame, noise: float = 0.02) -> str:
    return aligned(*cells(points, noise))


def markdown(points: pd.DataFrame, noise: float = 0.02) -> str:
    return markdown_table(*cells(points, noise))


def csv(points: pd.DataFrame, noise: float = 0.02) -> str:
    """Machine-readable: integer ns (means over repeats rounded), empty cells for what is unknown."""
    finite = points["target_rate"].where(points["target_rate"].map(math.isfinite))
    table = pd.DataFrame({
        "framework": points["framework"], "transport": points["transport"], "payload": points["payload"],
        "interval_s": points["interval_s"].map(fmt.plain),
        "target_rate": finite.map(lambda r: "" if pd.isna(r) else fmt.plain(r)),
        "achieved_rate": points["achieved_rate"].astype(float).round(1),
        "tasks": points["tasks"], "n": points["n"], "repeats": points["repeats"], "verdict": points["verdict"],
        "connections": points["connections"], "load": points["load"], **{name: points[name] for name in OTHERS},
    })
    for name in ("p50", "p90", "p99", "p999", "p9999", "max", "p50_low", "p50_high", "p99_low", "p99_high",
                 "p999_low", "p999_high", "delta_p50", "delta_p50_low", "delta_p50_high", "latency_p99",
                 "latency_p99_low", "latency_p99_high", "delta_p99", "delta_p99_low", "delta_p99_high", "mde_p99",
                 "delta_base_p50", "delta_base_p50_low", "delta_base_p50_high"):
        table[f"{name}_ns"] = integers(points, name)
    table["verdict_p99"], table["verdict_base"] = points["verdict_p99"], points["verdict_base"]
    for name in ("decided_at", "decided_at_base", "decided_at_p99"):  # the round of the look that decided it
        table[name] = pd.to_numeric(points[name], errors="coerce").astype("Int64")
    table["mde_p99_pct"] = pd.to_numeric(points["mde_p99_pct"], errors="coerce").round(1)
    # The quantiles left empty, and why: "p99: n = 80: too few for p99; …"
    refusals = [c for c in points.columns if c.endswith("_refused")]
    said = points[refusals].fillna("").astype(str).to_numpy()
    table["refused"] = ["; ".join(v for v in row if v) for row in said]  # a loop over points
    table["lost"] = integers(points, "lost")
    table["starved"] = integers(points, "starved")
    table["empty"] = integers(points, "empty") if "empty" in points else 0  # logs without a sweep.json: none known
    table["mde_p50_ns"] = integers(points, "mde_p50")
    table["mde_p50_pct"] = pd.to_numeric(points["mde_p50_pct"], errors="coerce").round(1)
    table["interval_method"] = points["method"].map(u.INTERVAL_METHOD).fillna("")
    table["delta_interval_method"] = points["delta_method"].map(u.INTERVAL_METHOD).fillna("")
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, columns=[*CSV_COLUMNS, *OTHERS], lineterminator="\n")
    return buffer.getvalue()


