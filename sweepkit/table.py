"""A run's figures from its JSON log, and the closing table: parse.py's, or a plain one when parse.py cannot make it."""

# parse.py needs the analysis packages; this needs none. Numbers as suite/fmt.py writes them.

import json
import re
import subprocess
import sys
from pathlib import Path

from suite import fmt as style

from .knobs import SUITE_DIR

RTT_HEADER = ["framework", "transport", "target/s", "achieved/s", "tasks", "conns", "load", "run", "n", "p50 µs",
              "p99 µs", "p99.9 µs", "max µs", "lost", "starved"]
THROUGHPUT_HEADER = ["framework", "transport", "payload", "tasks", "run", "windows", "msg/s p5", "msg/s p50",
                     "msg/s p95", "Gb/s p5", "Gb/s p50", "Gb/s p95", "lost"]
MICRO_HEADER = ["framework", "bench", "sizes", "run", "repeats", "ns/op median", "op/s median", "peak RSS"]
UNKNOWN = "–"
REPEAT = re.compile(r"(.*)-r([0-9]+)")  # a run's log name: its point's, then -r{k}


def figures(log: dict) -> tuple:
    """p50 RTT (ns) and achieved rate (msg/s); for a throughput log, p50 msg/s and p50 Gb/s; for a
    micro log, the median ns per operation and operations per second."""
    if log.get("kind") == "micro":
        return (log.get("ns_per_op") or {}).get("median"), (log.get("ops_per_s") or {}).get("median")
    if log.get("kind") == "throughput":
        return (log.get("msg_per_s") or {}).get("p50"), (log.get("gbit_per_s") or {}).get("p50")
    return (log.get("rtt_ns") or {}).get("p50"), log.get("achieved_rate")


def starved(log: dict) -> int | None:
    """How many connections of an RTT run got fewer than half the median replies (the ping's
    per_connection.starved); None when its log does not say (one from before --connections, ICMP)."""
    return (log.get("per_connection") or {}).get("starved")


def read(path) -> dict | None:
    """A JSON log, or None when it cannot be read."""
    try:
        log = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return log if isinstance(log, dict) else None


def log_figures(path) -> tuple:
    """`figures` of a log file; unknown ones when it cannot be read."""
    log = read(path)
    return (None, None) if log is None else figures(log)


def series(log: dict) -> str:
    """The label a run is shown under: its variant's (VARIANTS), else its framework's."""
    return str(log.get("variant") or log.get("framework"))


def si(value) -> str:
    return UNKNOWN if value is None else style.si(value)


def count(value) -> str:
    return UNKNOWN if value is None else str(int(value))


def lost(log: dict) -> str:
    return count(log.get("lost")) + ("" if log.get("complete", True) else " (incomplete)")


def rtt_row(log: dict, run: str = UNKNOWN) -> list[str]:
    rtt = log.get("rtt_ns") or {}
    interval = log.get("interval_s")
    return [series(log), str(log.get("transport")),
            UNKNOWN if interval is None else style.rate_label(interval), si(log.get("achieved_rate")),
            count(log.get("tasks")), count(log.get("connections")), str(log.get("load") or UNKNOWN), run,
            count(rtt.get("n")), *(style.us(rtt.get(p)) for p in ("p50", "p99", "p999", "max")), lost(log),
            count(starved(log))]


def throughput_row(log: dict, run: str = UNKNOWN) -> list[str]:
    msgs, gbits = log.get("msg_per_s") or {}, log.get("gbit_per_s") or {}
    payload = log.get("payload")
    return [series(log), str(log.get("transport")),
            UNKNOWN if payload is None else style.size_label(payload), count(log.get("tasks")), run,
            count(log.get("windows")), *(si(msgs.get(p)) for p in ("p5", "p50", "p95")),
            *(si(gbits.get(p)) for p in ("p5", "p50", "p95")), lost(log)]


def micro_row(log: dict, run: str = UNKNOWN) -> list[str]:
    params = {k: v for k, v in (log.get("params") or {}).items() if v is not None}
    sizes = " ".join(f"{k}={v}" for k, v in params.items()) or UNKNOWN
    times = log.get("times_ns") or []
    if log.get("not_run"):
        cells = [f"not run ({log['not_run']})", "", ""]
    else:
        per_op, ops = figures(log)
        rss = log.get("peak_rss_bytes")
        cells = [UNKNOWN if per_op is None else style.time_ns(per_op), si(ops),
                 UNKNOWN if rss is None else style.bytes_iec(rss)]
    return [str(log.get("framework")), str(log.get("bench")), sizes, run,
            str(len(times)) + ("" if log.get("complete", True) else " (incomplete)"), *cells]


def render(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns two spaces apart; names left-aligned, figures right-aligned."""
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    return ["  ".join(cell.rjust(w) if c > 1 else cell.ljust(w)
                      for c, (cell, w) in enumerate(zip(row, widths))).rstrip()
            for row in [header] + rows]


def by_point_and_repeat(path: Path) -> tuple:
    """A point's repeats together, r2 before r10."""
    named = REPEAT.fullmatch(path.stem)
    return (named[1], int(named[2])) if named else (path.stem, 0)


def summary(sweep_dir) -> list[str]:
    """A table per kind of log found (a sweep holds one kind, unless logs were copied in), a row per
    run, the repeats of a point together."""
    rtt_rows, throughput_rows, micro_rows = [], [], []
    for path in sorted(Path(sweep_dir).glob("*.json"), key=by_point_and_repeat):
        if path.name == "sweep.json":
            continue
        try:
            log = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"{path}: unreadable ({error})", file=sys.stderr)
            continue
        named = REPEAT.fullmatch(path.stem)
        run = f"r{named[2]}" if named else UNKNOWN
        if log.get("kind") == "micro":
            micro_rows.append(micro_row(log, run))
        elif log.get("kind") == "throughput":
            throughput_rows.append(throughput_row(log, run))
        else:
            rtt_rows.append(rtt_row(log, run))
    lines = []
    for header, rows in ((RTT_HEADER, rtt_rows), (THROUGHPUT_HEADER, throughput_rows), (MICRO_HEADER, micro_rows)):
        if rows:
            lines += ([""] if lines else []) + render(header, rows)
    return lines or [f"no logs in {sweep_dir}"]


def summary_table(sweep_dir: Path, mode: str) -> list[str]:
    """parse.py's table when the analysis toolkit is installed, else the plain one."""
    lines, kind = [], ["-k", mode] if mode in ("throughput", "micro") else []
    if (SUITE_DIR / "parse.py").is_file():
        run = subprocess.run([sys.executable, "parse.py", "table", *kind, "-d", str(sweep_dir)],
                             cwd=SUITE_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = run.stdout.rstrip("\n")
        if run.returncode == 0:
            return [out]
        last = out.splitlines()[-1] if out else ""
        lines.append(f"(parse.py {' '.join(['table', *kind])} failed with status {run.returncode}: {last})")
    return lines + summary(sweep_dir)
