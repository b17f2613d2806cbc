"""The summary table, one line per point (its repeats combined): aligned text, CSV for scripts, or Markdown."""

# One line per point, its statistics the means over its repeats with their 95 % intervals
# (points.py), as aligned text for people, CSV for scripts (integer nanoseconds) or Markdown for
# READMEs; an RTT table or a throughput table, by the kind of log. Formatting only.

import io
import math

import pandas as pd

from . import style
from . import uncertainty as u
from .sweep import MISSED_BY

CSV_COLUMNS = ["framework", "transport", "payload", "interval_s", "target_rate", "achieved_rate",
               "tasks", "n", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "lost",
               "repeats", "p50_low_ns", "p50_high_ns", "p99_low_ns", "p99_high_ns", "p999_low_ns",
               "p999_high_ns", "delta_p50_ns", "delta_p50_low_ns", "delta_p50_high_ns", "verdict",
               "connections", "load", "latency_p99_ns", "latency_p99_low_ns", "latency_p99_high_ns", "starved",
               "mde_p50_ns", "mde_p50_pct", "interval_method"]
HEADERS = ["framework", "transport", "size B", "target msg/s", "achieved msg/s", "tasks", "repeats", "n",
           "p50 µs [95 % CI]", "p99 µs [95 % CI]", "p99.9 µs", "max µs", "Δp50 vs std µs [95 % CI]",
           "MDE µs (%)", "verdict", "lost"]
# The columns of many connections and open load, in the text and Markdown tables of a sweep that has
# either (a table of one connection in a closed loop stays as it was): header → the column it follows.
CONNECTION_HEADERS = {"conns": "tasks", "load": "conns", "latency p99 µs [95 % CI]": "p99 µs [95 % CI]",
                      "starved": "lost"}
CONNECTION_NOTE = ("conns: connections (UDP: sockets) of the ping, sharing the rate asked for; load: closed (each "
                   "message waits for the reply before it) or open (sent on schedule); latency p99: open load's "
                   "latency from the scheduled send to the echo, which counts the wait behind a late reply "
                   "(coordinated omission corrected); starved: connections that got under half the median "
                   "replies, the most of any repeat")
THROUGHPUT_CSV_COLUMNS = ["framework", "transport", "payload", "tasks", "windows",
                          "msg_per_s_p5", "msg_per_s_p50", "msg_per_s_p95",
                          "gbit_per_s_p5", "gbit_per_s_p50", "gbit_per_s_p95", "sent", "received", "lost",
                          "repeats", "msg_per_s_p50_low", "msg_per_s_p50_high",
                          "gbit_per_s_p50_low", "gbit_per_s_p50_high"]
THROUGHPUT_HEADERS = ["framework", "transport", "size B", "tasks", "windows", "repeats", "msg/s p5",
                      "msg/s p50 [95 % CI]", "msg/s p95", "Gb/s p5", "Gb/s p50 [95 % CI]", "Gb/s p95",
                      "sent", "received", "lost"]
_LEFT = 2  # the first columns are words, left-aligned; the rest numbers, right-aligned
METHOD_NOTE = ("[low–high]: 95 % interval, Student t across repeats (each a fresh process; Kalibera & Jones 2013)\n"
               "1 (within-run): one repeat, its interval from the order statistics of its own samples, "
               "blind to run-to-run spread")
VERDICT_NOTE = ("verdict: slower/faster when the Δ interval excludes 0 and |Δ| ≥ {noise} of std's p50; "
                "same otherwise, within ±MDE; unknown with one round in common (no run-to-run spread measured)\n"
                "MDE: the smallest Δp50 this sweep calls 4 times in 5 (80 % power), from its repeats and their "
                "spread, never below {noise} of std's p50; % of std's p50")


def _signed(value_ns: float) -> str:
    """A latency in µs with a sign; − (U+2212) so that it never reads as the range's dash."""
    text = style.us(abs(value_ns))
    return text if text == "–" else ("−" if value_ns < 0 else "+") + text


def interval(value, low, high, fmt=style.us) -> str:
    """`value [low–high]`; `value [–]` without an interval."""
    if value is None or not math.isfinite(value):
        return "–"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{fmt(value)} [–]"
    bound = (lambda v: _signed(v).lstrip("+")) if fmt is _signed else fmt
    return f"{fmt(value)} [{bound(low)}–{bound(high)}]"


def detectable(point) -> str:
    """The minimum detectable Δp50, "12.3 (14 %)"; empty where there is no Δ or no spread to size it."""
    if not point.verdict or pd.isna(point.mde_p50):
        return ""
    return f"{style.us(point.mde_p50)} ({point.mde_p50_pct:.0f} %)"


def called(point) -> str:
    """The verdict; `same` says within what: "same within ±12.3 µs"."""
    if point.verdict == "same" and not pd.isna(point.mde_p50):
        return f"same within ±{style.us(point.mde_p50)} µs"
    return point.verdict


def repeats(point) -> str:
    return f"{point.repeats} (within-run)" if point.repeats == 1 else str(point.repeats)


def has_connections(points: pd.DataFrame) -> bool:
    """Whether a sweep measured more than one connection per ping or an open load."""
    return "connections" in points and bool(((points["connections"] != 1) | (points["load"] != "closed")).any())


def _with_connections(headers: list[str], body: list[list[str]], points: pd.DataFrame) -> tuple[list, list]:
    """CONNECTION_HEADERS' columns added to the RTT table, each after the column it follows."""
    cells = {"conns": [str(c) for c in points["connections"]], "load": list(points["load"]),
             "latency p99 µs [95 % CI]": [interval(p.latency_p99, p.latency_p99_low, p.latency_p99_high)
                                          for p in points.itertuples()],
             "starved": [style.count(v) for v in points["starved"]]}
    headers, body = list(headers), [list(row) for row in body]
    for header, after in CONNECTION_HEADERS.items():
        at = headers.index(after) + 1
        headers.insert(at, header)
        for row, cell in zip(body, cells[header], strict=True):
            row.insert(at, cell)
    return headers, body


def rows(points: pd.DataFrame, noise: float = 0.02) -> tuple[list[list[str]], list[str]]:
    """The table for people: latencies in µs, rates with k/M; and the footnotes it needs."""
    lines, missed, partial, old, disturbed = [], False, False, False, False
    for p in points.itertuples():  # a loop over points, not samples
        achieved = "–" if pd.isna(p.achieved_rate) else style.si(p.achieved_rate)
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
        old |= p.format == "2022 CSV"
        delta = "" if not p.verdict else interval(p.delta_p50, p.delta_p50_low, p.delta_p50_high, _signed)
        lines.append([name, p.transport, str(p.payload), style.rate_label(p.interval_s), achieved,
                      str(p.tasks), repeats(p), str(p.n), interval(p.p50, p.p50_low, p.p50_high),
                      interval(p.p99, p.p99_low, p.p99_high), style.us(p.p999), style.us(p.max),
                      delta, detectable(p), called(p), style.count(p.lost)])
    notes = [METHOD_NOTE, VERDICT_NOTE.format(noise=style.percent(noise)),
             "p50, p99, p99.9: means over the repeats of each run's nearest rank; n, lost: summed; max: the largest"]
    if missed:
        notes.append(f"! achieved rate more than {int(100 * MISSED_BY)} % below the target")
    if partial:
        notes.append("* a run ended early (\"complete\": false); its samples are shown")
    if disturbed:
        notes.append("‡ a repeat ran while other processes or the hypervisor took far more CPU than in the rest of "
                     "its round (sweep.json runs[].disturbed); kept in the figures")
    if old:
        notes.append("– not recorded by the 2022 suite")
    notes.append("∞ = back-to-back (next message sent when the reply arrives)")
    return lines, notes + variant_notes(points)


def _config(points: pd.DataFrame, label: str) -> dict | None:
    """The runtime_config its log gave a series (the first of its points that has one)."""
    configs = [c for c in points.loc[points["framework"] == label, "runtime_config"] if isinstance(c, dict)]
    return configs[0] if configs else None


def variant_notes(points: pd.DataFrame) -> list[str]:
    """A footnote per variant: its base runtime and the runtime_config entries that differ from the
    base's in this table (all of them when the base was not measured)."""
    if "variant" not in points:
        return []
    notes = []
    for label, base in points.loc[points["variant"].notna(), ["framework", "base"]].drop_duplicates().itertuples(
            index=False):
        mine, theirs = _config(points, label), _config(points, base)
        one_end = points.loc[points["framework"] == label, "one_end"].dropna() if "one_end" in points else ()
        if len(one_end):
            notes.append(f"{label}: {base} with {one_end.iloc[0]} (that end only)")
            continue
        if mine is None:
            notes.append(f"{label}: a variant of {base}")
            continue
        differ = {k: v for k, v in mine.items() if theirs is None or theirs.get(k) != v}
        than = f"differs from {base}'s" if theirs is not None else f"{base}'s not measured here"
        notes.append(f"{label}: {base} with {style.settings(differ) or 'the same runtime_config'} "
                     f"(runtime_config; {than})")
    return notes


def throughput_rows(points: pd.DataFrame) -> tuple[list[list[str]], list[str]]:
    """The throughput table for people: rates with k/M and Gb/s; and its footnotes."""
    lines, partial = [], False
    for p in points.itertuples():  # a loop over points, not windows
        name = p.framework
        if not p.complete:
            name += " *"
            partial = True
        lines.append([name, p.transport, str(p.payload), str(p.tasks), style.count(p.windows), repeats(p),
                      style.si(p.msg_per_s_p5) if math.isfinite(p.msg_per_s_p5) else "–",
                      interval(p.msg_per_s_p50, p.msg_per_s_p50_low, p.msg_per_s_p50_high, _si),
                      style.si(p.msg_per_s_p95) if math.isfinite(p.msg_per_s_p95) else "–",
                      style.gbit(p.gbit_per_s_p5),
                      interval(p.gbit_per_s_p50, p.gbit_per_s_p50_low, p.gbit_per_s_p50_high, style.gbit),
                      style.gbit(p.gbit_per_s_p95), style.count(p.sent), style.count(p.received),
                      style.count(p.lost)])
    windows = ", ".join(sorted({style.window_label(w) for w in points["window_s"]}))
    notes = [f"msg/s and Gb/s (10⁹ bit/s) received per {windows} window: p5, p50, p95 across the measured "
             "windows, each the mean over the repeats", METHOD_NOTE,
             "sent: the whole run, warm-up included; received: the measured windows; "
             "lost: sent − received over the whole run; counts summed over the repeats"]
    if partial:
        notes.append("* a run ended early (\"complete\": false); its windows are shown")
    return lines, notes + variant_notes(points)


def _si(value: float) -> str:
    return style.si(value) if math.isfinite(value) else "–"


def _layout(points: pd.DataFrame, kind: str, noise: float) -> tuple[list[str], list[list[str]], list[str]]:
    if kind == "throughput":
        return THROUGHPUT_HEADERS, *throughput_rows(points)
    body, notes = rows(points, noise)
    if not has_connections(points):
        return HEADERS, body, notes
    return *_with_connections(HEADERS, body, points), [*notes, CONNECTION_NOTE]


def aligned(headers: list[str], body: list[list[str]], notes: list[str], left: int = _LEFT) -> str:
    """An aligned plain-text table with its footnotes."""
    table = [headers, *body]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    out = []
    for r in table:
        cells = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*out, "", *notes]) + "\n"


def markdown_table(headers: list[str], body: list[list[str]], notes: list[str], left: int = _LEFT) -> str:
    align = [":--" if i < left else "--:" for i in range(len(headers))]
    lines = ["| " + " | ".join(r) + " |" for r in (headers, align, *body)]
    return "\n".join(lines + [""] + [f"{n}  " for n in notes]) + "\n"


def text(points: pd.DataFrame, kind: str = "rtt", noise: float = 0.02) -> str:
    return aligned(*_layout(points, kind, noise))


def markdown(points: pd.DataFrame, kind: str = "rtt", noise: float = 0.02) -> str:
    return markdown_table(*_layout(points, kind, noise))


def _integers(points: pd.DataFrame, column: str) -> pd.Series:
    return pd.to_numeric(points[column], errors="coerce").astype("Float64").round().astype("Int64")


def csv(points: pd.DataFrame, kind: str = "rtt", noise: float = 0.02) -> str:
    """Machine-readable: integer ns (means over repeats rounded), empty cells for what is unknown."""
    if kind == "throughput":
        return _throughput_csv(points)
    finite = points["target_rate"].where(points["target_rate"].map(math.isfinite))
    table = pd.DataFrame({
        "framework": points["framework"], "transport": points["transport"], "payload": points["payload"],
        "interval_s": points["interval_s"].map(style.plain),
        "target_rate": finite.map(lambda r: "" if pd.isna(r) else style.plain(r)),
        "achieved_rate": points["achieved_rate"].astype(float).round(1),
        "tasks": points["tasks"], "n": points["n"], "repeats": points["repeats"], "verdict": points["verdict"],
        "connections": points["connections"], "load": points["load"],
    })
    for name in ("p50", "p90", "p99", "p999", "max", "p50_low", "p50_high", "p99_low", "p99_high",
                 "p999_low", "p999_high", "delta_p50", "delta_p50_low", "delta_p50_high", "latency_p99",
                 "latency_p99_low", "latency_p99_high"):
        table[f"{name}_ns"] = _integers(points, name)
    table["lost"] = _integers(points, "lost")
    table["starved"] = _integers(points, "starved")
    table["mde_p50_ns"] = _integers(points, "mde_p50")
    table["mde_p50_pct"] = pd.to_numeric(points["mde_p50_pct"], errors="coerce").round(1)
    table["interval_method"] = points["method"].map(u.INTERVAL_METHOD).fillna("")
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, columns=CSV_COLUMNS, lineterminator="\n")
    return buffer.getvalue()


def _throughput_csv(points: pd.DataFrame) -> str:
    """msg/s to 0.1, Gb/s to 1e-6 (1 kbit/s); empty cells for what is unknown."""
    table = points.reindex(columns=THROUGHPUT_CSV_COLUMNS).copy()
    for quantity, digits in (("msg_per_s", 1), ("gbit_per_s", 6)):
        for p in ("p5", "p50", "p95", "p50_low", "p50_high"):
            table[f"{quantity}_{p}"] = points[f"{quantity}_{p}"].astype(float).round(digits)
    for column in ("windows", "sent", "received", "lost"):
        table[column] = _integers(points, column)
    buffer = io.StringIO()
    table.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()
