#!/usr/bin/env python3
"""Bookkeeping for the sweep scripts: sweep.json, a point's one-line result, a fallback table.

  sweep_record.py write STATE_DIR SWEEP_JSON STATUS   build sweep.json from the scripts' state
  sweep_record.py point STEM.json                     print p50_ns, achieved_rate, complete, n, lost
                                                      (throughput: p50 msg/s, p50 Gb/s, complete,
                                                      windows, lost)
  sweep_record.py summary SWEEP_DIR                   a plain table of every log (no pandas needed)

Standard library only: it runs on a fresh machine before the analysis toolkit is installed.
"""

import json
import math
import os
import sys
from pathlib import Path

# meta.tsv keys that hold numbers, not text.
NUMERIC_META = {"estimated_s", "wall_s", "measured_s", "warmup_total_s", "overhead_per_point_s"}
LIST_META = {"frameworks"}
POINT_FIELDS = ["stem", "framework", "transport", "payload", "interval_s", "tasks", "status",
                "wall_s", "p50_ns", "achieved_rate", "message"]
# A throughput point has no interval; its two results are the p50s across the windows.
THROUGHPUT_RESULTS = {"p50_ns": "msg_per_s_p50", "achieved_rate": "gbit_per_s_p50"}


def read_tsv(path):
    """Key/value pairs of a `key<TAB>value` file; a later key wins. Missing file: empty."""
    pairs = {}
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return pairs
    for line in text.splitlines():
        key, _, value = line.partition("\t")
        if key:
            pairs[key] = value
    return pairs


def number(text):
    """An int or float from text; None for an empty field; the text itself when not a number."""
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else None


def host_facts(path):
    """Machine facts printed by host-facts.sh, with versions gathered into one object."""
    facts, versions = {}, {}
    for key, value in read_tsv(path).items():
        if key.startswith("version:"):
            versions[key.split(":", 1)[1]] = value
        elif key in {"cpus_online", "cpus_usable"}:
            facts[key] = number(value)
        else:
            facts[key] = value or None
    if versions:
        facts["binaries"] = versions
    return facts


def write(state_dir, out, status):
    state = Path(state_dir)
    meta = read_tsv(state / "meta.tsv")
    doc = {"schema": "rtt-sweep/1", "status": status}
    for key, value in meta.items():
        if key in NUMERIC_META:
            doc[key] = number(value)
        elif key in LIST_META:
            doc[key] = value.split()
        else:
            doc[key] = value
    knobs = read_tsv(state / "knobs.tsv")
    doc["knobs"] = knobs
    given = (state / "knobs-given.txt")
    if given.exists():
        doc["knobs_given"] = [k for k in given.read_text().split() if k]
    hosts = {}
    for path in sorted(state.glob("host-*.tsv")):
        role = path.stem.removeprefix("host-")
        facts = host_facts(path)
        facts["role"] = role
        name = facts.get("host") or role
        if name in hosts:  # two namespaces of one machine share a host name
            name = f"{name} ({role})"
        hosts[name] = facts
    doc["hosts"] = hosts
    points = []
    for line in (state / "points.tsv").read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        fields += [""] * (len(POINT_FIELDS) - len(fields))
        point = dict(zip(POINT_FIELDS, fields))
        for key in ("payload", "tasks", "wall_s", "p50_ns", "achieved_rate"):
            point[key] = number(point[key])
        point["message"] = point["message"] or None
        if point["interval_s"]:
            point["interval_s"] = float(point["interval_s"])
        else:
            del point["interval_s"]
            point = {THROUGHPUT_RESULTS.get(key, key): value for key, value in point.items()}
        points.append(point)
    doc["points"] = points
    doc["counts"] = {s: sum(p["status"] == s for p in points)
                     for s in ("ok", "failed", "skipped", "interrupted", "planned")}
    tmp = Path(f"{out}.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, out)


def point(path):
    """One tab-separated line for the progress display: p50_ns, achieved_rate, complete, n, lost;
    for a throughput log p50 msg/s, p50 Gb/s, complete, windows, lost."""
    log = json.loads(Path(path).read_text(encoding="utf-8"))
    if log.get("kind") == "throughput":
        fields = [(log.get("msg_per_s") or {}).get("p50"), (log.get("gbit_per_s") or {}).get("p50"),
                  log.get("complete"), log.get("windows"), log.get("lost")]
    else:
        rtt = log.get("rtt_ns") or {}
        fields = [rtt.get("p50"), log.get("achieved_rate"), log.get("complete"), rtt.get("n"),
                  log.get("lost")]
    print("\t".join("" if f is None else str(f) for f in fields))


def us(ns):
    return "-" if ns is None else f"{ns / 1000:.1f}"


def rate(value):
    return "-" if value is None else f"{value:.1f}"


def si(value):
    """4213000 -> 4.21M: message rates span 10^2 to 10^7."""
    if value is None:
        return "-"
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.2f}{suffix}"
    return f"{value:.0f}"


def gbit(value):
    return "-" if value is None else f"{value:.3f}"


def lost(log):
    return str(log.get("lost")) + ("" if log.get("complete", True) else " (incomplete)")


RTT_HEADER = ["framework", "transport", "target/s", "achieved/s", "tasks", "n", "p50 µs", "p99 µs",
              "p99.9 µs", "max µs", "lost"]
THROUGHPUT_HEADER = ["framework", "transport", "payload B", "tasks", "windows", "msg/s p5",
                     "msg/s p50", "msg/s p95", "Gb/s p5", "Gb/s p50", "Gb/s p95", "lost"]


def rtt_row(log):
    rtt = log.get("rtt_ns") or {}
    return [str(log.get("framework")), str(log.get("transport")), rate(log.get("target_rate")),
            rate(log.get("achieved_rate")), str(log.get("tasks")), str(rtt.get("n")),
            us(rtt.get("p50")), us(rtt.get("p99")), us(rtt.get("p999")), us(rtt.get("max")),
            lost(log)]


def throughput_row(log):
    msgs, gbits = log.get("msg_per_s") or {}, log.get("gbit_per_s") or {}
    return [str(log.get("framework")), str(log.get("transport")), str(log.get("payload")),
            str(log.get("tasks")), str(log.get("windows")),
            *(si(msgs.get(p)) for p in ("p5", "p50", "p95")),
            *(gbit(gbits.get(p)) for p in ("p5", "p50", "p95")), lost(log)]


def print_table(header, rows):
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.rjust(w) if c > 1 else cell.ljust(w)
                        for c, (cell, w) in enumerate(zip(row, widths))).rstrip())


def summary(sweep_dir):
    """A table per kind of log found (a sweep holds one kind, unless logs were copied in)."""
    rtt_rows, throughput_rows = [], []
    for path in sorted(Path(sweep_dir).glob("*.json")):
        if path.name == "sweep.json":
            continue
        try:
            log = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"{path}: unreadable ({error})", file=sys.stderr)
            continue
        if log.get("kind") == "throughput":
            throughput_rows.append(throughput_row(log))
        else:
            rtt_rows.append(rtt_row(log))
    if not rtt_rows and not throughput_rows:
        print(f"no logs in {sweep_dir}")
        return
    if rtt_rows:
        print_table(RTT_HEADER, rtt_rows)
    if rtt_rows and throughput_rows:
        print()
    if throughput_rows:
        print_table(THROUGHPUT_HEADER, throughput_rows)


def main(argv):
    if len(argv) == 4 and argv[0] == "write":
        write(*argv[1:])
    elif len(argv) == 2 and argv[0] == "point":
        point(argv[1])
    elif len(argv) == 2 and argv[0] == "summary":
        summary(argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
