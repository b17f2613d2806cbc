"""Writes small logs for the tests: this suite's JSON + CSV pairs, the 2022 suite's CSV, a sweep.json."""

# This suite's logs are RTT or throughput runs that the logs' JSON schema accepts (their fields and
# CSV headers come from it: what is not set here is null), with the JSON's statistics computed by
# a plain reference, independent of analysis.stats and suite.percentile.

import io
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from suite import logschema, sequential

OLD_HEADER = "framework,transport,test,count,rate,payload,tasks,value,unit"


def reference_percentile(samples, p) -> int:
    """The textbook definition, independent of analysis.percentile's rank arithmetic: the smallest
    sample with at least p % of the samples at or below it, in exact fractions."""
    ordered = np.sort(np.asarray(samples, dtype=np.int64))
    values = np.unique(ordered)
    at_or_below = np.searchsorted(ordered, values, side="right")
    share = Fraction(str(p)) / 100
    enough = at_or_below * share.denominator >= share.numerator * len(ordered)
    return int(values[np.argmax(enough)])


def samples(seed: int, n: int, median_ns: float = 30_000, spread: float = 0.3) -> np.ndarray:
    """Lognormal RTTs with a few large outliers, as int64 ns."""
    rng = np.random.default_rng(seed)
    rtt = rng.lognormal(math.log(median_ns), spread, n)
    rtt[rng.integers(0, n, max(1, n // 500))] *= 20
    return rtt.astype(np.int64)


def stem(framework, transport, payload, interval, tasks, repeat=None, connections=1, load="closed") -> str:
    """A sweep's stem (-{N}c and -open unless one connection in a closed loop); with `repeat` k, the stem
    of round k of a repeated sweep (-r{k})."""
    shape = (f"-{connections}c" if connections != 1 else "") + ("-open" if load == "open" else "")
    return f"{framework}-{transport}-{payload}B-{interval:g}s-{tasks}t{shape}" + (f"-r{repeat}" if repeat else "")


def summary_of(values) -> dict:
    """An `rtt_ns`-shaped summary (n, min, mean, stdev, percentiles, max) of samples, by the reference."""
    values = np.asarray(values, dtype=np.int64)
    return {"n": len(values), "min": int(values.min()), "mean": float(values.mean()), "stdev": float(values.std()),
            "max": int(values.max()),
            **{k: reference_percentile(values, p) for k, p in
               (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9), ("p9999", 99.99))}}


# An RTT CSV and the fields of its JSON from before --connections and --load.
HEADER_BEFORE_CONNECTIONS = "seq,t_ns,rtt_ns"
FIELDS_SINCE_CONNECTIONS = ("connections", "load", "window", "latency_ns", "per_connection")


def per_connection(conn, connections: int) -> dict:
    """The `per_connection` summary of replies per connection, as a ping writes it: starved are the
    connections with fewer than half the median replies."""
    received = np.bincount(np.asarray(conn, dtype=np.int64), minlength=connections)

    def spread(counts):  # the lower median, a count that was observed
        return {"min": int(counts.min()), "median": int(np.sort(counts)[(len(counts) - 1) // 2]),
                "max": int(counts.max())}

    median = spread(received)["median"]

    return {"sent": spread(received), "received": spread(received), "lost": spread(received * 0),
            "starved": int((received < median / 2).sum())}


def write_run(folder: Path, framework: str, transport: str, interval: float, rtt, *, payload=64,
              tasks=0, achieved=None, lost=0, host="testhost", started="2024-05-01T12:00:00Z",
              repeat=None, connections=1, load="closed", conn=None, latency=None, window=64,
              before_connections=False, **fields) -> Path:
    """A log pair like a ping's --out; returns the stem's path. `fields` override JSON fields;
    `repeat` k names it round k of a repeated point. `conn` gives each reply's connection (else all
    0), `latency` each reply's latency from the scheduled send (open load); `before_connections`
    writes a log of a suite version before --connections: the old CSV header, none of their fields."""
    folder.mkdir(parents=True, exist_ok=True)
    rtt = np.asarray(rtt, dtype=np.int64)
    gap = int(interval * 1e9)
    t = np.arange(len(rtt), dtype=np.int64) * gap if gap else np.concatenate([[0], np.cumsum(rtt[:-1])])
    conn = np.zeros(len(rtt), np.int64) if conn is None else np.asarray(conn, dtype=np.int64)
    base = folder / stem(framework, transport, payload, interval, tasks, repeat, connections, load)
    header = HEADER_BEFORE_CONNECTIONS if before_connections else logschema.schema().csv_header("rtt")
    cells = {"seq": np.arange(len(rtt)).astype(str), "t_ns": t.astype(str), "rtt_ns": rtt.astype(str),
             "conn": conn.astype(str),
             "latency_ns": np.full(len(rtt), "") if latency is None else np.asarray(latency).astype(str)}
    with open(f"{base}.csv", "w") as f:
        f.write(header + "\n")
        np.savetxt(f, np.column_stack([cells[c] for c in header.split(",")]), fmt="%s", delimiter=",")
    target = 1 / interval if interval > 0 else None
    stats = summary_of(rtt)
    log = logschema.schema().blank("rtt") | {
        "schema": "rtt-log/1", "kind": "rtt", "framework": framework, "framework_version": "1.0.0",
        "flavor": "multi_thread", "threads": 1, "transport": transport, "payload": payload,
        "interval_s": interval, "target_rate": target, "pacing": "schedule", "udp_timeout_ms": 1000, "tasks": tasks,
        "decoy": "spin", "decoy_work_us": 10, "decoy_iterations": 0, "duration_s": 10,
        "warmup_s": 1, "address": "127.0.0.1:9009", "host": host, "kernel": "6.1.0",
        "cpu_model": "Test CPU", "cpus_allowed": "0-1", "rustc": "rustc 1.80.0",
        "suite_version": "0.1.0", "started_at": started, "sent": len(rtt) + lost,
        "received": len(rtt), "lost": lost, "late": 0, "out_of_order": 0,
        "achieved_rate": achieved if achieved is not None else (target or 30_000.0),
        "complete": True, "rtt_ns": stats, "connections": connections, "load": load,
        "window": window if load == "open" else None,
        "latency_ns": None if latency is None else summary_of(latency),
        "per_connection": per_connection(conn, connections),
    }
    logschema.schema().validate(log)  # before `fields`, which may spoil it on purpose
    if before_connections:  # what parse.py reads as null, as it did for runtime_config and variant
        log = {k: v for k, v in log.items() if k not in FIELDS_SINCE_CONNECTIONS}
    log.update(fields)
    Path(f"{base}.json").write_text(json.dumps(log, indent=2))
    return base


def windows(seed: int, n: int, payload: int, per_window: float = 40_000, stalls: int = 0) -> np.ndarray:
    """Messages received in each of n windows: roughly `per_window`, with `stalls` empty windows."""
    rng = np.random.default_rng(seed)
    counts = rng.normal(per_window, per_window * 0.05, n).clip(1).astype(np.int64)
    counts[rng.choice(n, stalls, replace=False)] = 0
    return counts


def _spread(counts, scale: float) -> dict:
    """Mean and nearest-rank p5, p50, p95 of per-window counts × scale, as rtt-core writes them."""
    if len(counts) == 0:
        return {"mean": None, "p5": None, "p50": None, "p95": None}
    return {"mean": sum(int(c) for c in counts) / len(counts) * scale,
            **{k: reference_percentile(counts, p) * scale for k, p in (("p5", 5), ("p50", 50), ("p95", 95))}}


def write_throughput(folder: Path, framework: str, transport: str, payload: int, counts, *, tasks=0,
                     lost=0, warmup_messages=1000, started="2024-05-01T12:00:00Z", repeat=None,
                     **fields) -> Path:
    """A throughput log pair like a ping's --out in throughput mode; returns the stem's path.
    Every window holds whole messages, so its bytes are its messages × payload."""
    folder.mkdir(parents=True, exist_ok=True)
    counts = np.asarray(counts, dtype=np.int64)
    size = counts * payload
    base = folder / (f"{framework}-{transport}-{payload}B-throughput-{tasks}t" + (f"-r{repeat}" if repeat else ""))
    with open(f"{base}.csv", "w") as f:
        f.write(logschema.schema().csv_header("throughput") + "\n")
        n = np.arange(len(counts))
        np.savetxt(f, np.column_stack([n, n * 100_000_000, counts, size]), fmt="%d", delimiter=",")
    received = int(counts.sum())
    sent = received + warmup_messages + (lost or 0)
    log = logschema.schema().blank("throughput") | {
        "schema": "rtt-log/1", "kind": "throughput", "framework": framework, "framework_version": "1.0.0",
        "flavor": "multi_thread", "threads": 1, "transport": transport, "payload": payload, "window_s": 0.1,
        "windows": len(counts), "sent": sent, "sent_bytes": sent * payload, "received": received,
        "received_bytes": int(size.sum()), "lost": lost, "out_of_order": 0,
        "msg_per_s": _spread(counts, 10.0), "gbit_per_s": _spread(size, 10.0 * 8.0 / 1e9),
        "tasks": tasks, "decoy": "spin", "decoy_work_us": 10, "decoy_iterations": 0,
        "duration_s": len(counts) / 10, "warmup_s": 1, "address": "127.0.0.1:9009", "host": "testhost",
        "kernel": "6.1.0", "cpu_model": "Test CPU", "cpus_allowed": "0-1", "rustc": "rustc 1.80.0",
        "suite_version": "0.1.0", "started_at": started, "complete": True, "error": None,
    }
    logschema.schema().validate(log)  # before `fields`, which may spoil it on purpose
    log.update(fields)
    Path(f"{base}.json").write_text(json.dumps(log, indent=2))
    return base


def write_repeats(folder: Path, framework: str, transport: str, interval: float, offsets, *,
                  median_ns: float = 30_000, n: int = 2_000, seed: int = 0, **kwargs) -> None:
    """One log pair per round k = 1, 2…: round k's RTTs have median `median_ns` × exp(offsets[k-1]),
    as fresh processes on a noisy machine differ from run to run."""
    for k, offset in enumerate(offsets, start=1):
        write_run(folder, framework, transport, interval, samples(seed * 1000 + k, n, median_ns * math.exp(offset)),
                  repeat=k, **kwargs)


def write_2022(path: Path, runs) -> None:
    """One 2022-suite CSV holding `runs`: (framework, transport, interval, payload, tasks, rtt_ns, unit)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scale = {"ns": 1, "us": 1e3, "ms": 1e6}
    with open(path, "w") as f:
        f.write(OLD_HEADER + "\n")
        for framework, transport, interval, payload, tasks, rtt, unit in runs:
            for i, value in enumerate(rtt):
                shown = int(value) if unit == "ns" else f"{value / scale[unit]:.6f}"
                f.write(f"{framework},{transport},rtt,{i},{interval},{payload},{tasks},{shown},{unit}\n")


def write_sweep_info(folder: Path, **knobs) -> None:
    info = {"knobs": {"DURATION": 10, "WARMUP": 1, "SIZE": 64, "INTERVALS": "0.1 0.01 0.001 0",
                      "TASKS": "0", "PROTOCOLS": "tcp udp", **knobs},
            "hosts": {"testhost": {"kernel": "6.1.0", "cpus": 2, "cpu_model": "Test CPU"}}}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sweep.json").write_text(json.dumps(info, indent=2))


def read_table(text: str) -> pd.DataFrame:
    """A parse.py CSV table as a DataFrame, an empty cell NaN and every other cell as written."""
    return pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])


def write_design(folder: Path, design, looks=()) -> None:
    """A sweep.json's design and the looks its sweep took after the rounds `looks` (suite/sequential.py's records),
    as a STOP=decided sweep writes them; write_sweep_info first."""
    taken = sequential.Looks(design)
    for round_ in looks:
        taken.add(round_, design.maximum)
    path = folder / "sweep.json"
    info = json.loads(path.read_text()) | {"design": design.record(), "looks": [t.record() for t in taken.taken]}
    path.write_text(json.dumps(info, indent=2))
