#!/usr/bin/env python3
"""Benchmark of parse.py's speed and memory on a synthetic sweep of N million samples."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from suite import logschema, percentile, runtimes  # noqa: E402

DESCRIPTION = """Benchmark of parse.py: writes a synthetic sweep of N million samples in the suite's log
format (STEM.json + STEM.csv per run, every point repeated R times as the sweeps do, stems
ending -r1 … -rR) into a temporary folder, then times `parse.py table`, `parse.py figures`
(-t all) and `parse.py compare` (the sweep against itself), each as a fresh process.

It reports the wall time per sample end to end, and the peak RSS growth per sample: the peak
RSS of the run on N samples minus that of the same command on a tiny sweep of the same shape
(imports, figures and pages cost the same in both), divided by the difference in samples.
Targets: at most 1 µs a sample and about 40 bytes a sample.

    python3 benches/bench_parse.py               # 5 million samples
    python3 benches/bench_parse.py -n 20 --keep  # 20 million, keep the folder
"""

FRAMEWORKS = tuple(e.label for e in runtimes.runtimes())
TRANSPORTS = ("tcp", "udp")
INTERVALS = (0.1, 0.01, 0.001, 0.0001, 0.0)  # the sweep scripts' defaults
TINY_RUN = 200  # samples per run of the baseline sweep


def write_sweep(folder: Path, per_run: int, repeats: int, seed: int = 1) -> int:
    """A sweep of every runtime × 2 transports × 5 rates × `repeats` rounds, `per_run` samples
    each; returns the total."""
    folder.mkdir(parents=True)
    (folder / "sweep.json").write_text(json.dumps({
        "knobs": {"DURATION": 10, "WARMUP": 1, "SIZE": 64, "INTERVALS": " ".join(map(str, INTERVALS)),
                  "TASKS": "0", "PROTOCOLS": " ".join(TRANSPORTS)},
        "hosts": {"bench": {"cpu_model": "synthetic", "cpus": os.cpu_count()}}}))
    rng = np.random.default_rng(seed)
    total = 0
    for i, (framework, transport, interval, k) in enumerate(
            (f, t, v, k) for f in FRAMEWORKS for t in TRANSPORTS for v in INTERVALS for k in range(1, repeats + 1)):
        rtt = (rng.lognormal(np.log(20_000 + 1_000 * i), 0.25, per_run)).astype(np.int64)
        gap = int(interval * 1e9)
        t = np.arange(per_run, dtype=np.int64) * gap if gap else np.cumsum(rtt) - rtt
        stem = folder / f"{framework}-{transport}-64B-{interval:g}s-0t-r{k}"
        # One connection in a closed loop: conn 0, and no latency_ns (open load's only).
        frame = pd.DataFrame({"seq": np.arange(per_run), "t_ns": t, "rtt_ns": rtt, "conn": 0,
                              "latency_ns": pd.array([pd.NA] * per_run, dtype="Int64")})
        assert ",".join(frame.columns) == logschema.schema().csv_header("rtt")
        frame.to_csv(f"{stem}.csv", index=False)
        ordered = np.sort(rtt)
        ps = {k: int(percentile.of(ordered, p)) for k, p in
              (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9), ("p9999", 99.99))}
        duration = max(float(t[-1]) / 1e9, 1e-9)
        log = logschema.schema().blank("rtt") | {
            "schema": "rtt-log/1", "kind": "rtt", "framework": framework, "framework_version": "0",
            "transport": transport, "payload": 64, "interval_s": interval,
            "target_rate": 1 / interval if interval else None, "pacing": "schedule", "tasks": 0,
            "duration_s": duration, "warmup_s": 0.0, "host": "bench", "address": "127.0.0.1:9009",
            "started_at": "2024-01-01T00:00:00Z", "sent": per_run, "received": per_run, "lost": 0,
            "achieved_rate": per_run / duration, "complete": True, "suite_version": "bench",
            "udp_timeout_ms": 1000,
            "rtt_ns": {"n": per_run, "min": int(ordered[0]), "mean": float(rtt.mean()),
                       "stdev": float(rtt.std(ddof=1)), **ps, "max": int(ordered[-1])}}
        logschema.schema().validate(log)
        Path(f"{stem}.json").write_text(json.dumps(log))
        total += per_run
    return total


def measure(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of `python3 parse.py ARGS` in a fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, str(REPO / "parse.py"), *args],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    err = child.stderr.read().decode()
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"parse.py {' '.join(args)} failed:\n{err}")
    return wall, usage.ru_maxrss * 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    p = argparse.ArgumentParser(description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", "--millions", type=float, default=5.0, help="samples in the sweep, millions (default 5)")
    p.add_argument("--repeat", type=int, default=1, help="runs of each command; the fastest counts")
    p.add_argument("--repeats", type=int, default=3, help="repeats of each point (default 3, as the sweeps)")
    p.add_argument("--keep", action="store_true", help="keep the generated folder")
    args = p.parse_args()

    runs = len(FRAMEWORKS) * len(TRANSPORTS) * len(INTERVALS) * args.repeats
    root = Path(tempfile.mkdtemp(prefix="bench-parse-"))
    try:
        t0 = time.perf_counter()
        n = write_sweep(root / "big", int(args.millions * 1e6 / runs), args.repeats)
        n_tiny = write_sweep(root / "tiny", TINY_RUN, args.repeats)
        size = sum(f.stat().st_size for f in (root / "big").iterdir())
        print(f"wrote {n:,} samples in {runs} runs ({size / 2**20:.0f} MiB of CSV and JSON) "
              f"in {time.perf_counter() - t0:.1f} s to {root}")
        print(f"{'command':<32}{'wall s':>8}{'µs/sample':>11}{'peak RSS MiB':>14}{'tiny-sweep MiB':>16}"
              f"{'B/sample':>10}")
        for name in ("table", "figures", "compare (2× samples)"):
            results = {}
            for which in ("big", "tiny"):
                folder = str(root / which)
                cmd = {"table": ["table", "-d", folder], "figures": ["figures", "-d", folder, "-o", f"{folder}.pdf"]
                       }.get(name, ["compare", folder, folder])
                results[which] = min(measure(cmd) for _ in range(max(1, args.repeat)))
            (wall, rss), (_, rss_tiny) = results["big"], results["tiny"]
            print(f"{'parse.py ' + name:<32}{wall:>8.2f}{wall / n * 1e6:>11.3f}{rss / 2**20:>14.0f}"
                  f"{rss_tiny / 2**20:>16.0f}{(rss - rss_tiny) / (n - n_tiny):>10.1f}")
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root)


if __name__ == "__main__":
    main()
