"""Sweeps of both designs through compare, export, record and history, on real sweeps: std and a line whose pong
holds each echo 100 µs (std-d), 30 rounds back-to-back over TCP, once with STOP=decided and once with STOP=fixed
(the same SEED). The round at which the sweep decided std-d's Δp50 reaches the exports and the history."""

import csv
import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from analysis import history_db
from sweep_helpers import REPO, load_json, require_binaries, run_script, sweep_dir

KNOBS = {"DURATION": "0.05", "WARMUP": "0.02", "INTERVALS": "0", "PROTOCOLS": "tcp", "SEED": "4242", "COUNTERS": "0",
         "TUNE": "0", "NICE": "19", "REPEATS": "30", "VARIANTS": "std-d=std:pong:--delay-ns 100000"}
DELAYED = "std-d/tcp/64B/b2b/0tasks/1conn/closed"


def parse(*args, timeout=120):
    return subprocess.run([sys.executable, str(REPO / "parse.py"), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    """{"decided": folder, "fixed": folder}."""
    require_binaries("std")
    found = {}
    for stop in ("decided", "fixed"):
        out = tmp_path_factory.mktemp(stop)
        run = run_script("run-localhost.sh", ["-S"], out, timeout=300, **(KNOBS | {"STOP": stop}))
        assert run.rc == 0, run.output
        found[stop] = sweep_dir(out)
    return found


def decided_at(folder) -> int | None:
    """The round at which the sweep itself decided std-d's Δp50 (sweep.json), None where it did not."""
    return {d["line"]: d for d in load_json(folder / "sweep.json").get("decisions") or ()}.get("std-d", {}).get(
        "decided_at")


def test_sweeps_of_either_design_compare_either_way_round(designs):
    decided, fixed = designs["decided"], designs["fixed"]
    assert load_json(decided / "sweep.json")["design"]["stop"] == "decided"
    assert load_json(fixed / "sweep.json")["looks"] == []
    for old, new in ((fixed, decided), (decided, fixed)):
        done = parse("compare", old, new, "--format", "csv")
        assert done.returncode == 0, done.stderr
        rows = list(csv.DictReader(io.StringIO(done.stdout)))
        # The p99 is compared where both sweeps' samples carry it: a loaded machine's short runs may not.
        assert {r["framework"] for r in rows} == {"std", "std-d"} and {"p50"} <= {r["metric"] for r in rows} <= {
            "p50", "p99"}
        assert {r["verdict"] for r in rows} <= {"slower", "faster", "same", "undecided", "unknown"}
        text = parse("compare", old, new)
        assert text.returncode == 0 and "undecided otherwise: the data do not say" in text.stdout, text.stderr


def test_the_round_that_decided_a_comparison_reaches_the_exports_and_the_history(designs, tmp_path):
    decided, fixed = designs["decided"], designs["fixed"]
    at = decided_at(decided)
    assert at is not None, "a 100 µs delay is decided within 30 rounds"
    gab, otava = tmp_path / "gab.json", tmp_path / "otava.csv"
    for form, out in (("github-action-benchmark", gab), ("otava", otava)):
        done = parse("export", "-d", decided, "--format", form, "-o", out)
        assert done.returncode == 0, done.stderr
    extra = {e["name"]: e["extra"] for e in json.loads(gab.read_text())}[f"{DELAYED} (delta-latency)"]
    assert f"Δp50 vs std: slower, decided at round {at}" in extra, extra
    rows = {r["benchmark"]: r for r in csv.DictReader(io.StringIO(otava.read_text()))}
    assert rows[DELAYED]["decided_at"] == str(at) and rows["std/tcp/64B/b2b/0tasks/1conn/closed"]["decided_at"] == ""
    db = tmp_path / "history.sqlite"
    for folder in (fixed, decided):  # the fixed design first: the history reads both
        done = parse("record", "-d", folder, "--db", db)
        assert done.returncode == 0, done.stderr
    history = history_db.read(db)
    delta = history[(history["benchmark"] == DELAYED) & (history["measure"] == "delta-latency")]
    by_sweep = delta.set_index("sweep")["decided_at"]  # by the order recorded: fixed 1, decided 2
    assert sorted(by_sweep.index) == [1, 2] and by_sweep[2] == at
    assert by_sweep[1] is pd.NA or by_sweep[1] == 30  # STOP=fixed: its one look, after its last round, or undecided
    shown = parse("history", "--db", db)
    assert shown.returncode == 0 and DELAYED in shown.stdout, shown.stderr
