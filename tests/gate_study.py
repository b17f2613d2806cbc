#!/usr/bin/env python3
"""How often `parse.py history --fail-on-change` fails a history of identical sweeps, and how often it calls a planted slowdown."""

# Not a test of `make test` (its sweeps take minutes). `sweep` runs COUNT real sweeps, one after another, each of
# std, an identical variant std-x (`std:pong:--delay-ns 0`) and two planted lines, std-d10 and std-d30, whose pong
# holds each echo 10 % and 30 % of std's p50 (measured first by a pilot sweep), back-to-back over TCP,
# REPEATS=3 (--repeats) DURATION=0.5 WARMUP=0.1, each into DIR/NNN. `analyse` records every sweep into one history
# (DIR/all.sqlite), then makes histories of 6 sweeps out of it, each a copy of that file with only its sweeps and
# lines, and runs the gate on each (analysis.cli.main, as parse.py does):
# - A/A: std and std-x in 6 sweeps; a call is a false alarm.
# - planted 10 % / 30 %: the same 5 sweeps, then a sixth whose std-x is that sweep's std-d10 (std-d30) renamed,
#   its Δ vs std as the sweep's table paired it.
# Histories of consecutive sweeps (disjoint, in the order they ran) come first; `--shuffled N` adds N more, each 6
# sweeps drawn at random from all and put in random order (a replay: they share sweeps, so they are not independent).
# `--before PARSE_PY` runs another suite's parse.py on the same histories, taken down to schema 3 (no Δ rows), for
# the gate as it was (e.g. `git archive COMMIT analysis suite parse.py | tar -x -C /tmp/old`).
# `needs` asks what more repeats or sweeps would give: the gate's test of a Δ on its rounds
# (between_sweeps.robust_predicted, no change points) on DRAWS random histories of LENGTH sweeps, each sweep MERGE
# consecutive recorded sweeps' rounds together (3 × MERGE repeats: fair for a Δ, whose rounds show no spread
# between sweeps beyond their own), at each confidence.
#
#   python3 tests/gate_study.py sweep --dir /tmp/study --count 36
#   python3 tests/gate_study.py analyse --dir /tmp/study --shuffled 40
#   python3 tests/gate_study.py needs --dir /tmp/study --merge 1 2 --length 6 11

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # a script under tests/: the packages sit at the root

KNOBS = {"REPEATS": "3", "DURATION": "0.5", "WARMUP": "0.1", "INTERVALS": "0", "PROTOCOLS": "tcp", "PROBED": "0",
         "STOP": "fixed"}  # every round of every line, as a CI job that records a history runs
SWEEP_TIMEOUT_S = 300
LENGTH = 6  # sweeps per history
POINT = "tcp/64B/b2b/0tasks/1conn/closed"


def _sweep(out: Path, variants: str, repeats: int) -> Path:
    """One real sweep of std and `variants` into `out`, `repeats` rounds; the folder it made."""
    env = os.environ | KNOBS | {"OUT_DIR": str(out), "VARIANTS": variants, "REPEATS": str(repeats)}
    done = subprocess.run([str(REPO / "run-localhost.sh"), "-S"], env=env, capture_output=True, text=True,
                          timeout=SWEEP_TIMEOUT_S)
    if done.returncode != 0:
        raise SystemExit(f"sweep into {out} failed ({done.returncode}): {done.stderr[-2000:]}")
    (folder,) = out.glob("localhost-*")
    return folder


def _p50(folder: Path, label: str) -> float:
    """A line's p50 (ns) from the sweep's table (parse.py --summary --format csv)."""
    done = subprocess.run([sys.executable, str(REPO / "parse.py"), "--summary", "--format", "csv", "-d", str(folder)],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    import csv

    rows = [r for r in csv.DictReader(io.StringIO(done.stdout)) if r.get("framework") == label]
    return float(rows[0]["p50_ns"])


def sweep(directory: Path, count: int, repeats: int) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    plan = directory / "plan.json"
    if not plan.exists():  # else: more sweeps of the plan already made
        p50 = _p50(_sweep(directory / "pilot", "std-x=std:pong:--delay-ns 0", repeats), "std")
        plan.write_text(json.dumps({"std_p50_ns": p50, "delays_ns": {s: round(p50 * s / 100) for s in (10, 30)}}))
    p50, delays = json.loads(plan.read_text()).values()
    variants = " ".join(["std-x=std:pong:--delay-ns 0"] + [f"std-d{s}=std:pong:--delay-ns {d}" for s, d in
                                                            delays.items()])
    print(f"pilot: std p50 {p50:.0f} ns; delays {delays}", flush=True)
    started = time.monotonic()
    done = len(list(directory.glob("[0-9][0-9][0-9]")))
    for k in range(done, done + count):
        _sweep(directory / f"{k:03d}", variants, repeats)
        print(f"sweep {k + 1 - done}/{count} done ({k + 1} in {directory}), {time.monotonic() - started:.0f} s", flush=True)
    return 0


def _record_all(directory: Path) -> tuple[Path, list[int]]:
    """Every sweep recorded into DIR/all.sqlite; the sweeps' ids in the order they ran."""
    from analysis.cli import main

    db = directory / "all.sqlite"
    had = set()
    if db.exists():
        with closing(sqlite3.connect(db)) as conn:
            had = {folder for folder, in conn.execute("SELECT folder FROM sweeps")}
    for folder in sorted(directory.glob("[0-9][0-9][0-9]/localhost-*")):
        if str(folder) not in had and (folder / "sweep.json").exists():
            with contextlib.redirect_stderr(io.StringIO()):
                if main(["record", "-d", str(folder), "--db", str(db)]) != 0:
                    raise SystemExit(f"could not record {folder}")
    with closing(sqlite3.connect(db)) as conn:
        ids = [i for i, in conn.execute("SELECT id FROM sweeps ORDER BY started_at, id")]
    return db, ids


def _history(db: Path, out: Path, sweeps: list[int], planted: str | None) -> Path:
    """A copy of the history with only `sweeps` (in that order of time) and the lines std and std-x; with
    `planted` (std-d10, std-d30), the last sweep's std-x is that line's renamed."""
    shutil.copy(db, out)
    last = sweeps[-1]
    with closing(sqlite3.connect(out)) as conn, conn:
        marks = ",".join("?" * len(sweeps))
        conn.execute(f"DELETE FROM points WHERE sweep_id NOT IN ({marks})", sweeps)
        conn.execute(f"DELETE FROM sweeps WHERE id NOT IN ({marks})", sweeps)
        for position, sweep_id in enumerate(sweeps):  # their order in time is the order asked
            conn.execute("UPDATE sweeps SET started_at = ? WHERE id = ?", (f"2030-01-01T00:{position:02d}:00Z",
                                                                           sweep_id))
        if planted:
            conn.execute("DELETE FROM points WHERE sweep_id = ? AND runtime = 'std-x'", (last,))
            conn.execute("UPDATE points SET runtime = 'std-x', benchmark = replace(benchmark, ?, 'std-x/') "
                         "WHERE sweep_id = ? AND runtime = ?", (f"{planted}/", last, planted))
        conn.execute("DELETE FROM points WHERE runtime NOT IN ('std', 'std-x')")
    return out


def _before(db: Path) -> Path:
    """The history as a suite of schema version 3 wrote it: no Δ rows, no `against`."""
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM points WHERE against != ''")
        conn.execute("ALTER TABLE points DROP COLUMN against")
        conn.execute("DELETE FROM schema_version WHERE version > 3")
    return db


def _gate(db: Path, before: Path | None = None) -> tuple[int, str]:
    if before is not None:
        done = subprocess.run([sys.executable, str(before), "history", "--db", str(_before(db)), "--fail-on-change"],
                              capture_output=True, text=True, timeout=120, cwd=before.parent)
        return done.returncode, done.stderr
    from analysis.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(["history", "--db", str(db), "--fail-on-change"])
    return status, err.getvalue()


def analyse(directory: Path, shuffled: int, seed: int, before: Path | None = None) -> int:
    db, ids = _record_all(directory)
    rng = random.Random(seed)
    groups = [("consecutive", ids[i:i + LENGTH]) for i in range(0, len(ids) - LENGTH + 1, LENGTH)]
    groups += [("shuffled", rng.sample(ids, LENGTH)) for _ in range(shuffled)]
    scratch = directory / "histories"
    scratch.mkdir(exist_ok=True)
    counts: dict = {}
    for n, (how, sweeps) in enumerate(groups):  # a loop over histories
        for planted in (None, "std-d10", "std-d30"):
            status, err = _gate(_history(db, scratch / f"h{n}-{planted}.sqlite", sweeps, planted), before)
            key = (how, planted or "A/A")
            called, total = counts.get(key, (0, 0))
            counts[key] = (called + (status == 1), total + 1)
            if status not in (0, 1):
                raise SystemExit(f"history {n}: exit {status}: {err}")
            if status == 1 and planted is None:
                print(f"false alarm, {how} history {sweeps}: {err.strip()}")
    for (how, what), (called, total) in sorted(counts.items()):
        print(f"{how:12s} {what:8s} called {called:3d} of {total:3d} ({100 * called / total:.0f} %)")
    return 0


def _ratios(db: Path, merge: int) -> list[dict]:
    """Per (merged) sweep, each line's per-round log ratios against std, from the recorded levels' rounds."""
    import numpy as np

    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT s.id, p.runtime, p.repeat_values FROM points p JOIN sweeps s ON s.id = p.sweep_id "
                            "WHERE p.measure = 'latency' ORDER BY s.started_at, s.id").fetchall()
    by_sweep: dict = {}
    for sweep_id, runtime, values in rows:
        by_sweep.setdefault(sweep_id, {})[runtime] = np.array(json.loads(values), dtype=float)
    sweeps = [{r: np.log(v / s["std"]) for r, v in s.items() if r != "std"} for s in by_sweep.values()]
    return [{r: np.concatenate([s[r] for s in sweeps[i:i + merge]]) for r in sweeps[i]}
            for i in range(0, len(sweeps) - merge + 1, merge)]


def needs(directory: Path, merges: list[int], lengths: list[int], draws: int, seed: int) -> int:
    import math

    from analysis.between_sweeps import robust_predicted

    for merge in merges:
        sweeps = _ratios(_record_all(directory)[0], merge)
        for length, level in ((n, c) for n in lengths if n < len(sweeps) for c in (0.95, 0.975, 0.99)):
            rng, called = random.Random(seed), {"std-x": 0, "std-d10": 0, "std-d30": 0}
            for _ in range(draws):
                *window, newest = rng.sample(sweeps, length)
                for line in called:
                    found = robust_predicted([w["std-x"] for w in window], newest[line], level)
                    called[line] += not found.contains(0) and abs(math.expm1(found.value)) >= 0.02
            print(f"{3 * merge} repeats, {length} sweeps, {level:.1%}: " + ", ".join(
                f"{'A/A' if line == 'std-x' else line} {100 * n / draws:.1f} %" for line, n in called.items()))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("sweep", help="run the real sweeps")
    run.add_argument("--dir", type=Path, required=True)
    run.add_argument("--count", type=int, default=36)
    run.add_argument("--repeats", type=int, default=3, help="rounds a sweep (`needs` reads 3-round sweeps)")
    read = commands.add_parser("analyse", help="the gate on histories made of them")
    read.add_argument("--dir", type=Path, required=True)
    read.add_argument("--shuffled", type=int, default=0)
    read.add_argument("--seed", type=int, default=53)
    read.add_argument("--before", type=Path, help="another suite's parse.py: its gate on the same histories")
    more = commands.add_parser("needs", help="what more repeats or sweeps would give, from the recorded rounds")
    more.add_argument("--dir", type=Path, required=True)
    more.add_argument("--merge", type=int, nargs="+", default=[1, 2, 3])
    more.add_argument("--length", type=int, nargs="+", default=[6, 11, 16])
    more.add_argument("--draws", type=int, default=2000)
    more.add_argument("--seed", type=int, default=53)
    args = parser.parse_args(argv)
    if args.command == "sweep":
        return sweep(args.dir, args.count, args.repeats)
    if args.command == "needs":
        return needs(args.dir, args.merge, args.length, args.draws, args.seed)
    return analyse(args.dir, args.shuffled, args.seed, args.before)


if __name__ == "__main__":
    sys.exit(main())
