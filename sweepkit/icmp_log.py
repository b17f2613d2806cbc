"""Turns the output of iputils `ping -D -n` into the suite's log pair, STEM.csv and STEM.json."""

import argparse
import json
import math
import socket
import sys
import time
from array import array
from datetime import datetime, timezone
from pathlib import Path

from suite import logschema, percentile

DESCRIPTION = """Turns the output of iputils `ping -D -n` into the suite's log pair, STEM.csv and STEM.json.

The ICMP baseline is measured by the kernel's own echo reply, so it has the same log format as
the runtimes with framework `ping`, transport `icmp`, and null for what does not apply. Per reply:
the send time is the `-D` receive timestamp minus the RTT; replies sent in the first WARMUP
seconds (counted from the first send) or after WARMUP + DURATION are dropped, a paced send counted
at the slot of the schedule it is nearest. ping prints RTTs in
microseconds (three decimals of a millisecond), so that is their resolution. Percentiles are
analysis/percentile.py's nearest rank, as in rtt-core; the log is checked against the logs'
JSON schema. Loss is counted between the first and last sequence number answered in the window.
Exit status 0: a log with replies; EMPTY: a whole log with no reply in the window from a ping that got
replies (the sweep measures such a run again); 1: anything else.
"""

EDGE_S = 1e-9  # both edges a nanosecond early: k × interval is a float (3 × 0.1 = 0.30000000000000004)
EMPTY = 3  # the log is whole and its window holds no reply, though ping got some (its exit status 0, or stopped)
SEQ_MODULUS = 65536  # icmp_seq is 16 bits: a long run at -i 0 wraps it many times
# A CSV row's cells by column of the schema's header: one stream of echoes is connection 0, and ping
# keeps no schedule of its own to correct for, so latency_ns is empty as in a runtime's closed loop.
CELLS = {"seq": "{seq}", "t_ns": "{t_ns}", "rtt_ns": "{rtt_ns}", "conn": "0", "latency_ns": ""}


def rtt_stats(values):
    """The `rtt_ns` object of a log (sample stdev, n - 1), all null when there are no samples."""
    n = len(values)
    if n == 0:
        return {"n": 0, **{k: None for k in
                           ("min", "mean", "stdev", "p50", "p90", "p99", "p999", "p9999", "max")}}
    ordered = sorted(values)
    mean = math.fsum(ordered) / n
    stdev = math.sqrt(math.fsum((x - mean) ** 2 for x in ordered) / (n - 1)) if n > 1 else 0.0
    return {
        "n": n, "min": ordered[0], "mean": mean, "stdev": stdev,
        "p50": percentile.of(ordered, 50), "p90": percentile.of(ordered, 90),
        "p99": percentile.of(ordered, 99), "p999": percentile.of(ordered, 99.9),
        "p9999": percentile.of(ordered, 99.99), "max": ordered[-1],
    }


def replies(lines):
    """(unwrapped sequence, send time in s since the epoch, rtt_ns) for each reply; duplicates
    (DUP!) are skipped, as ping itself does not count them as received."""
    last, base = None, 0
    for line in lines:
        # `[1795322664.080458] 72 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.024 ms`; split()
        # rather than a regex keeps up with the ~200 000 lines per second of `ping -i 0`.
        if not line.startswith("[") or "(DUP!)" in line:
            continue
        fields = line.split()
        if len(fields) < 8 or fields[5][:9] != "icmp_seq=" or fields[7][:5] != "time=":
            continue  # "no answer yet", errors from routers, truncated lines
        try:
            seq = int(fields[5][9:])
            rtt_ns = round(float(fields[7][5:]) * 1e6)
            stamp = float(fields[0][1:-1])
        except ValueError:
            continue
        if last is not None and seq + base < last - SEQ_MODULUS // 2:
            base += SEQ_MODULUS
        seq += base
        last = seq
        yield seq, stamp - rtt_ns / 1e9, rtt_ns


def in_window(since_first_s, interval, warmup, duration):
    """Whether a send this long after the first is measured. A paced send counts by the slot of the
    schedule it is nearest (k × interval), as the suite's pings count theirs, so that ping's timer sending
    a little early or late never moves it across an edge: at 10 msg/s the default window of 0.1 s after
    0.1 s of warm-up holds exactly one send, where by its own time it held none when that send was early."""
    at = round(since_first_s / interval) * interval if interval > 0 else since_first_s
    return warmup - EDGE_S <= at < warmup + duration - EDGE_S


def convert(lines, csv_out, interval, warmup, duration):
    """Writes the CSV rows of the measured window; returns (rtts, first_seq, last_seq, t0)."""
    rtts = array("q")
    first_seq = last_seq = t0 = None
    header = logschema.schema().csv_header("rtt")
    row = ",".join(CELLS[column] for column in header.split(",")) + "\n"
    csv_out.write(header + "\n")
    for seq, sent_at, rtt_ns in replies(lines):
        if t0 is None:
            # The first send: earlier than this reply's by the sequences before it.
            t0 = sent_at - (seq - 1) * interval
        since_first = sent_at - t0
        if not in_window(since_first, interval, warmup, duration):
            continue
        since_start = since_first - warmup
        if first_seq is None:
            first_seq = seq
        last_seq = seq
        rtts.append(rtt_ns)
        csv_out.write(row.format(seq=seq - 1, t_ns=max(0, round(since_start * 1e9)), rtt_ns=rtt_ns))
    return rtts, first_seq, last_seq, t0


def machine_fact(path, key=None):
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if key is None:
        return text.splitlines()[0].strip() if text else None
    for line in text.splitlines():
        if line.startswith(key):
            return line.split(":", 1)[1].strip()
    return None


def rfc3339(epoch_s):
    return datetime.fromtimestamp(epoch_s, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _failure(received, exit_status):
    if received == 0:
        return "no ICMP echo reply in the measured window"
    return f"ping exited with status {exit_status}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("raw", help="the saved output of ping -D -n")
    parser.add_argument("stem", help="write STEM.csv and STEM.json")
    parser.add_argument("--interval", required=True, type=float)
    parser.add_argument("--size", required=True, type=int)
    parser.add_argument("--duration", required=True, type=float)
    parser.add_argument("--warmup", required=True, type=float)
    parser.add_argument("--address", required=True)
    parser.add_argument("--cpus-allowed", default="")
    parser.add_argument("--suite-version", default="unknown")
    parser.add_argument("--framework-version", default="unknown", help="iputils' version (ping -V)")
    parser.add_argument("--started-at", help="RFC 3339 UTC; default: the first send")
    parser.add_argument("--exit-status", type=int, default=0,
                        help="ping's, under timeout -s INT: 124 is the expected end")
    args = parser.parse_args(argv)

    csv_path, json_path = Path(f"{args.stem}.csv"), Path(f"{args.stem}.json")
    with open(args.raw, encoding="utf-8", errors="replace") as lines, \
            open(csv_path, "w", encoding="utf-8") as csv_out:
        rtts, first_seq, last_seq, t0 = convert(lines, csv_out, args.interval, args.warmup,
                                                args.duration)
    received = len(rtts)
    sent = (last_seq - first_seq + 1) if received else 0
    complete = received > 0 and args.exit_status in (0, 124)
    # What is not set here is a runtime's only (threads, decoys…): null, as the schema allows.
    log = logschema.schema().blank("rtt") | {
        "schema": "rtt-log/1", "kind": "rtt", "framework": "ping",
        "framework_version": args.framework_version,
        "transport": "icmp", "payload": args.size, "interval_s": args.interval,
        "target_rate": 1.0 / args.interval if args.interval > 0 else None,
        "tasks": 0, "duration_s": args.duration, "warmup_s": args.warmup, "address": args.address,
        "host": machine_fact("/proc/sys/kernel/hostname") or socket.gethostname(),
        "kernel": machine_fact("/proc/sys/kernel/osrelease"),
        "cpu_model": machine_fact("/proc/cpuinfo", "model name"),
        "cpus_allowed": args.cpus_allowed or None, "suite_version": args.suite_version,
        "started_at": args.started_at or rfc3339(t0 if t0 is not None else time.time()),
        "sent": sent, "received": received, "lost": sent - received, "achieved_rate": sent / args.duration,
        "complete": complete, "error": None if complete else _failure(received, args.exit_status),
        "rtt_ns": rtt_stats(rtts),
    }
    json_path.write_text(json.dumps(log, indent=2) + "\n", encoding="utf-8")
    try:
        logschema.schema().validate(log)
    except logschema.Invalid as e:
        print(f"{json_path}: does not fit the logs' schema: {e}", file=sys.stderr)
        return 1
    if received == 0:
        print(f"{args.raw}: no ICMP echo reply in the measured window", file=sys.stderr)
        return EMPTY if args.exit_status in (0, 124) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
