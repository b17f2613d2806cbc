#!/usr/bin/env python3
"""A reproducible stand-in for a host whose noise drifts within seconds: spinners whose load on each CPU changes at random.

Run beside a sweep, to see whether its design copes with a shared machine's drift (docs/sweeps.md, "Noisy
machines"): one pinned spinner per CPU, whose duty is redrawn every few seconds from `--seed`.

  python3 tests/drifting_host.py run [--level 0.6] [--seed 29] [--cpus 0,1] --duration 900
  python3 tests/drifting_host.py calibrate [--levels 0,0.3,0.6,0.9] [--runs 16]

`calibrate` prints, for each level, the scatter of a std sweep's p50s under it: pick the one that fits.
"""

import argparse
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IDLE_SHARE = 0.3  # of a CPU's dwells: the drifting VM had quiet seconds between its loud ones
DWELL_MEAN_S, DWELL_MIN_S, DWELL_MAX_S = 3.0, 1.0, 8.0  # the drift moves "within seconds"
SLICE_S = 0.01  # one busy-then-sleep cycle: short beside a 1 s run, long beside a round trip
CALIBRATION_RUN_S = 2.0  # a generous bound on one run of the sweep's default length with its overhead
STOP_GRACE_S = 2.0


@dataclass(frozen=True)
class Dwell:
    start_s: float
    duty: float  # share of each slice spent spinning, 0 to 1


def schedule(seed: int, cpu: int, level: float, duration_s: float) -> list[Dwell]:
    """The dwells of one CPU over `duration_s`: the same seed, CPU and level give the same list."""
    rng = random.Random(f"{seed}/{cpu}")
    dwells, t = [], 0.0
    while t < duration_s:
        duty = 0.0 if rng.random() < IDLE_SHARE else rng.uniform(0.05, 1.0) * level
        dwells.append(Dwell(t, duty))
        t += min(DWELL_MAX_S, max(DWELL_MIN_S, rng.expovariate(1 / DWELL_MEAN_S)))
    return dwells


def spin(cpu: int, dwells: list[Dwell], deadline: float) -> None:
    """The body of one spinner process: pinned to `cpu`, it follows its dwells until the deadline."""
    os.sched_setaffinity(0, {cpu})
    begin = time.monotonic()
    index = 0
    while (now := time.monotonic()) < deadline:
        while index + 1 < len(dwells) and now - begin >= dwells[index + 1].start_s:
            index += 1
        busy_until = now + dwells[index].duty * SLICE_S
        while time.monotonic() < busy_until:
            pass
        time.sleep(max(0.0, SLICE_S - (time.monotonic() - now)))


def run(level: float, seed: int, cpus: list[int], duration_s: float, quiet: bool = False) -> int:
    """Loads `cpus` for `duration_s` (or until SIGTERM/SIGINT); returns 0."""
    deadline = time.monotonic() + duration_s
    children = []
    for cpu in cpus:
        dwells = schedule(seed, cpu, level, duration_s)
        if not quiet:
            mean = sum(d.duty for d in dwells) / len(dwells)
            print(f"cpu {cpu}: {len(dwells)} dwells over {duration_s:g} s, mean duty {mean:.2f} "
                  f"(level {level:g}, seed {seed})", flush=True)
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the spinners
            try:
                spin(cpu, dwells, deadline)
            finally:
                os._exit(0)
        children.append(pid)

    def stop(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        for pid in children:
            os.waitpid(pid, 0)  # each spinner ends at the deadline by itself
    finally:
        for pid in children:
            _stop_child(pid)
    return 0


def _stop_child(pid: int) -> None:
    """SIGTERM one of our spinners by its PID, SIGKILL past the grace; reaps it either way."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    end = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < end:
        try:
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                return
        except ChildProcessError:
            return
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def calibrate(levels: list[float], runs: int, seed: int, cpus: list[int]) -> int:
    """For each level, a short std sweep under the generator; prints the scatter it gave."""
    print("level  runs  sd log p50 between runs  sd of an A/A Δ (back to back)  median p50")
    for level in levels:
        with tempfile.TemporaryDirectory(prefix="drifting-host-") as out:
            env = {**os.environ, "OUT_DIR": out, "REPEATS": str(runs), "SEED": str(seed), "PROTOCOLS": "tcp",
                   "INTERVALS": "0.001", "ORDER": "blocks",
                   "VARIANTS": "std-again=std:pong:--delay-ns 0"}
            estimate_s = runs * 2 * CALIBRATION_RUN_S + 60
            load = subprocess.Popen([sys.executable, __file__, "run", "--level", str(level), "--seed", str(seed),
                                     "--cpus", ",".join(map(str, cpus)), "--duration", str(estimate_s), "--quiet"])
            try:
                sweep = subprocess.run([str(REPO / "run-localhost.sh"), "-S"], env=env, capture_output=True,
                                       text=True, timeout=estimate_s + 120)
            finally:
                load.terminate()
                load.wait(timeout=STOP_GRACE_S * 3)
            if sweep.returncode:
                print(f"level {level:g}: the sweep failed (exit {sweep.returncode}):\n{sweep.stderr[-2000:]}",
                      file=sys.stderr)
                return 1
            record = json.loads(next(Path(out).glob("*/sweep.json")).read_text())
        p50 = {}  # (framework, round) → log p50
        for r in record["runs"]:
            if r["status"] == "ok" and r.get("p50_ns"):
                p50[(r["stem"].split("-tcp-")[0], r["round"])] = math.log(r["p50_ns"])
        std = [v for (fw, _), v in p50.items() if fw == "std"]
        deltas = [p50[("std-again", k)] - v for (fw, k), v in p50.items() if fw == "std" and ("std-again", k) in p50]
        print(f"{level:5g}  {len(std):4d}  {statistics.stdev(std):23.3f}  {statistics.stdev(deltas):29.3f}  "
              f"{math.exp(statistics.median(std)) / 1000:8.1f} µs", flush=True)
    return 0


def cpu_list(text: str) -> list[int]:
    try:
        cpus = [int(c) for c in text.split(",") if c.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of CPU numbers, e.g. 0,1") from None
    usable = os.sched_getaffinity(0)
    if not cpus or not set(cpus) <= usable:
        raise argparse.ArgumentTypeError(f"{text!r}: this process may use CPUs {sorted(usable)}")
    return cpus


def share(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share between 0 and 1")
    return value


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = p.add_subparsers(dest="command", required=True)
    all_cpus = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    r = commands.add_parser("run", help="load the CPUs with a drifting duty cycle")
    r.add_argument("--level", type=share, default=0.6, help="the largest duty a dwell draws (default 0.6)")
    r.add_argument("--duration", type=float, required=True, help="seconds to run (a deadline, always)")
    r.add_argument("--quiet", action="store_true", help="print nothing")
    c = commands.add_parser("calibrate", help="the scatter each level gives a std sweep on this machine")
    c.add_argument("--levels", type=lambda t: [share(x) for x in t.split(",")], default=[0, 0.3, 0.6, 0.9])
    c.add_argument("--runs", type=int, default=16, help="rounds of each level's sweep (default 16)")
    for sub in (r, c):
        sub.add_argument("--seed", type=int, default=29, help="fixes every CPU's schedule (default 29)")
        sub.add_argument("--cpus", type=cpu_list, default=cpu_list(all_cpus), help=f"CPUs to load (default {all_cpus})")
    a = p.parse_args(argv)
    if a.command == "run":
        if not 0 < a.duration <= 86400:
            p.error(f"--duration {a.duration:g}: give the seconds to run, up to a day")
        return run(a.level, a.seed, a.cpus, a.duration, a.quiet)
    if a.runs < 3:
        p.error(f"--runs {a.runs}: a scatter needs at least 3 runs")
    return calibrate(a.levels, a.runs, a.seed, a.cpus)


if __name__ == "__main__":
    sys.exit(main())
