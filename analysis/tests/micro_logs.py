"""Writes micro logs ("kind": "micro") as the micro binaries do (/work/notes/micro-contract.md), for the tests.

The figures are computed here by a plain reference independent of analysis.uncertainty: the
nearest-rank median of the times and the exact binomial interval found by counting in fractions.
"""

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

PRIMITIVES = {
    ("tokio", "notify"): "tokio::sync::Notify", ("tokio", "oneshot"): "tokio::sync::oneshot",
    ("tokio", "channel"): "tokio::sync::mpsc", ("async-std", "notify"): "event-listener",
    ("async-std", "oneshot"): "futures::channel::oneshot", ("async-std", "channel"): "async-channel",
    ("smol", "notify"): "event-listener", ("smol", "oneshot"): "futures::channel::oneshot",
    ("smol", "channel"): "async-channel", ("std", "notify"): "Condvar",
    ("std", "oneshot"): "std::sync::mpsc::sync_channel", ("std", "channel"): "std::sync::mpsc::sync_channel",
    ("go", "channel"): "go chan",
}
SPAWN = {"tokio": "tokio::spawn", "async-std": "async_std::task::spawn", "smol": "smol::spawn",
         "std": "std::thread::spawn"}
DEFAULTS = {"spawn_many": {"tasks": 10_000}, "yield_many": {"tasks": 200, "yields": 1000},
            "ping_pong": {"tasks": 1000}, "chained_spawn": {"tasks": 1000}}


def reference_interval(n: int) -> tuple[int, int] | None:
    """The largest k with P(Binomial(n, ½) ≤ k − 1) ≤ 2.5 %, by exact counting; None if there is none."""
    best = None
    for k in range(1, n // 2 + 1):
        if Fraction(sum(math.comb(n, j) for j in range(k)), 2**n) <= Fraction(1, 40):
            best = k
    return None if best is None else (best, n + 1 - best)


def reference_figures(times, ops) -> tuple[dict, dict]:
    ordered = sorted(times)
    if not ordered:
        empty = {"median": None, "low": None, "high": None}
        return empty, dict(empty)
    median = ordered[math.ceil(len(ordered) / 2) - 1]
    ranks = reference_interval(len(ordered))
    low, high = (None, None) if ranks is None else (ordered[ranks[0] - 1], ordered[ranks[1] - 1])
    per_op = {"median": median / ops, "low": None if low is None else low / ops,
              "high": None if high is None else high / ops}
    rate = {"median": ops * 1e9 / median, "low": None if high is None else ops * 1e9 / high,
            "high": None if low is None else ops * 1e9 / low}
    return per_op, rate


def params_of(bench: str, **sizes) -> dict:
    params = dict.fromkeys(("tasks", "yields", "instances", "hold_ms", "workers", "events", "queue",
                            "event_type", "event_size"))
    params |= DEFAULTS.get(bench, {})
    if bench in ("notify", "oneshot"):
        params |= {"instances": 10_000, "hold_ms": 100}
    if bench == "channel":
        params |= {"workers": 100, "events": 10_000, "queue": 256, "event_type": "int"}
    return params | sizes


def ops_of(bench: str, params: dict) -> int:
    if bench == "yield_many":
        return params["tasks"] * params["yields"]
    if bench in ("notify", "oneshot"):
        return params["instances"]
    if bench == "channel":
        return params["workers"] * params["events"]
    return params["tasks"]


def micro_stem(framework, bench, params, repeat=1) -> str:
    parts = [framework, bench]
    if bench == "channel":
        parts += [params["event_type"], f"w{params['workers']}"]
    elif bench in ("notify", "oneshot"):
        parts.append(f"i{params['instances']}")
    return "-".join(parts) + ("" if repeat is None else f"-r{repeat}")


def write_micro(folder: Path, framework: str, bench: str, ns_per_op: float, *, repeat=10, seed=0,
                not_run=None, complete=True, error=None, round_=1, warmup=1, **sizes) -> Path:
    """A STEM.json as a micro binary's --out writes it; returns the JSON's path. Times are lognormal
    around ns_per_op × ops, one per timed repeat."""
    folder.mkdir(parents=True, exist_ok=True)
    params = params_of(bench, **sizes)
    ops = ops_of(bench, params)
    rng = np.random.default_rng(seed)
    times = [] if not_run else [int(t) for t in rng.lognormal(math.log(ns_per_op * ops), 0.05, repeat)]
    per_op, rate = reference_figures(times, ops)
    log = {
        "kind": "micro", "schema": "rtt-log/1", "framework": framework,
        "framework_version": {"go": "go1.22.2", "std": "1.85.0"}.get(framework, "1.0.0"),
        "flavor": {"std": "os_threads", "go": "goroutines", "tokio": "multi_thread"}.get(framework, "global_executor"),
        "threads": 2, "host": "testhost", "kernel": "6.1.0", "cpu_model": "Test CPU", "cpus_allowed": "0-1",
        "rustc": None if framework in ("go", "kotlin") else "rustc 1.85.0", "suite_version": "0.1.0 (git abc)",
        "started_at": "2026-11-24T06:00:00.000Z", "complete": complete, "error": error, "bench": bench,
        "primitive": PRIMITIVES.get((framework, bench), SPAWN.get(framework, "spawn")), "params": params,
        "ops": ops, "repeat": repeat, "warmup": warmup, "times_ns": times, "ns_per_op": per_op, "ops_per_s": rate,
        "peak_rss_bytes": None if not_run else int(4e6 + 300 * ops), "not_run": not_run,
    }
    path = folder / f"{micro_stem(framework, bench, params, round_)}.json"
    path.write_text(json.dumps(log, indent=2) + "\n")
    return path
