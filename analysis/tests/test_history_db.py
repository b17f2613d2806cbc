"""The history file: its schema version and migrations, files it refuses in one line, and a record killed mid-write."""

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import history_db, tracked
from analysis.cli import main
from suite import sequential

from .logs import write_design, write_repeats, write_sweep_info

REPO = Path(__file__).resolve().parents[2]


def small_sweep(folder: Path, started: str, seed: int, median_ns: float = 30_000) -> Path:
    """Two frameworks at one point, three repeats each, and a sweep.json that names its start and seed."""
    for framework in ("std", "tokio"):
        write_repeats(folder, framework, "tcp", 0.001, [0.0, 0.02, -0.01], median_ns=median_ns, n=500, seed=seed)
    return small_sweep_info(folder, started, seed)


def small_sweep_info(folder: Path, started: str, seed: int) -> Path:
    """The sweep.json of a test sweep that names its start and seed."""
    write_sweep_info(folder)
    info = json.loads((folder / "sweep.json").read_text())
    info |= {"started_at": started, "seed": seed, "cpu_dma_latency": "held at 0 us"}
    info["hosts"]["testhost"] |= {"suite_commit": "abc123", "cpuidle_driver": "haltpoll"}
    (folder / "sweep.json").write_text(json.dumps(info))
    return folder


def parse(*args, timeout=60):
    return subprocess.run([sys.executable, str(REPO / "parse.py"), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


def rows(db: Path) -> tuple:
    with closing(sqlite3.connect(db)) as conn:
        return (conn.execute("SELECT * FROM sweeps ORDER BY id").fetchall(),
                conn.execute("SELECT * FROM points ORDER BY sweep_id, benchmark, measure").fetchall())


def test_a_new_history_says_it_is_ours_and_has_every_migration(tmp_path):
    db = tmp_path / "history.sqlite"
    done = parse("record", "-d", small_sweep(tmp_path / "s1", "2026-01-01T00:00:00Z", 1), "--db", db)
    assert done.returncode == 0, done.stderr
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == history_db.APPLICATION_ID
        assert [v for v, in conn.execute("SELECT version FROM schema_version")] == list(
            range(1, history_db.VERSION + 1))
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    sweeps, points = rows(db)
    assert len(sweeps) == 1 and len(points) == 5  # std and tokio, p50 and p99; tokio's Δp50 vs std
    deltas = [p for p in points if p[2] == "delta-latency"]
    assert len(deltas) == 1 and deltas[0][1].startswith("tokio/") and deltas[0][-2:] == ("std", 3)  # against, decided_at


@pytest.mark.parametrize("older", range(1, history_db.VERSION))
def test_a_history_of_an_older_version_is_upgraded_and_keeps_its_sweeps(tmp_path, monkeypatch, older):
    db = tmp_path / "history.sqlite"
    # A sweep recorded by the suite of that version (its migrations only), then one by this suite, which
    # upgrades the file first.
    with monkeypatch.context() as old_suite:
        old_suite.setattr(history_db, "VERSION", older)
        assert main(["record", "-d", small_sweep(tmp_path / "s1", "2026-01-01T00:00:00Z", 1), "--db", db]) == 0
    with closing(sqlite3.connect(db)) as conn:
        assert history_db.version(conn, db) == older
    assert parse("record", "-d", small_sweep(tmp_path / "s2", "2026-01-02T00:00:00Z", 2), "--db", db).returncode == 0
    with closing(sqlite3.connect(db)) as conn:
        assert history_db.version(conn, db) == history_db.VERSION
        indexes = {name for name, in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"sweeps_by_machine", "points_by_series"} <= indexes
    history = history_db.read(db)
    assert list(history.drop_duplicates("sweep")["started_at"]) == ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]
    # A point recorded before the estimator was recorded was a mean of its runs' own statistics; this suite's
    # are quantiles of the samples pooled, and a history keeps the two in separate series.
    made = history.groupby("sweep")["estimator"].agg(set).to_dict()
    paired = {tracked.PAIRED} if older >= history_db.AGAINST_SINCE else set()
    if older < history_db.ESTIMATOR_SINCE:
        assert made == {1: {tracked.PER_RUN}, 2: {tracked.POOLED, tracked.PAIRED}}
        assert main(["history", "--db", db, "--format", "csv"]) == 0
    else:
        assert made == {1: {tracked.POOLED} | paired, 2: {tracked.POOLED, tracked.PAIRED}}
    # A suite before the Δ series recorded none; this one records tokio's Δp50 vs std, a series of its own.
    against = history.groupby("sweep")["against"].agg(set).to_dict()
    assert against == {1: {""} | ({"std"} if paired else set()), 2: {"", "std"}}
    # The round that decided a verdict: none recorded before it (NULL), tokio's for the sweep after (its one look).
    decided = history[history["benchmark"].str.startswith("tokio/")].groupby("sweep")["decided_at"].max()
    assert (decided[1] is pd.NA) == (older < history_db.DECIDED_SINCE) and decided[2] == 3


@pytest.mark.parametrize("older", range(1, history_db.VERSION))
def test_a_history_of_an_older_version_reads_as_it_is(tmp_path, monkeypatch, capsys, older):
    """`history` opens the file read-only: an older file is read without being upgraded, each column it lacks
    holding what its points were."""
    db = tmp_path / "history.sqlite"
    with monkeypatch.context() as old_suite:
        old_suite.setattr(history_db, "VERSION", older)
        for day in (1, 2):
            folder = small_sweep(tmp_path / f"s{day}", f"2026-01-0{day}T00:00:00Z", day)
            assert main(["record", "-d", folder, "--db", db]) == 0
    before = db.read_bytes()
    assert main(["history", "--db", db, "--fail-on-change"]) == 0
    out = capsys.readouterr().out
    deltas = older >= history_db.AGAINST_SINCE  # a file of a suite that recorded the Δ series
    assert "std/tcp/64B/1000msg_s/0tasks/1conn/closed" in out and ("  delta-latency  " in out) == deltas
    assert db.read_bytes() == before
    history = history_db.read(db)
    assert set(history["against"]) == ({"", "std"} if deltas else {""}) and len(history) == (10 if deltas else 8)
    assert history["decided_at"].isna().all()  # a column the file lacks: NULL


def _refused(tmp_path, db: Path, needle: str) -> None:
    before = db.read_bytes()
    folder = small_sweep(tmp_path / "s1", "2026-01-01T00:00:00Z", 1)
    for args in (("record", "-d", folder, "--db", db), ("history", "--db", db), ("--history", db)):
        done = parse(*args)
        lines = [line for line in done.stderr.splitlines() if not line.startswith("parse.py: note:")]
        assert done.returncode == 2 and len(lines) == 1 and needle in lines[0], done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
    assert db.read_bytes() == before


def test_a_damaged_history_gets_one_line_and_exit_2_and_is_left_alone(tmp_path):
    db = tmp_path / "history.sqlite"
    db.write_bytes(os.urandom(4096))
    _refused(tmp_path, db, "not a history database this suite can use (file is not a database)")


def test_another_programs_database_is_refused(tmp_path):
    db = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER)")
        conn.commit()
    _refused(tmp_path, db, "a SQLite database of another program, not an rtt-suite history")


def test_a_newer_suites_history_is_refused(tmp_path):
    db = tmp_path / "history.sqlite"
    assert parse("record", "-d", small_sweep(tmp_path / "s0", "2026-01-01T00:00:00Z", 7), "--db", db).returncode == 0
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99, 'later')")
        conn.commit()
    _refused(tmp_path, db, "a history of a newer suite (schema version 99")


# A `record` that stops inside its transaction, points written, before COMMIT: the test kills it there.
PAUSED_RECORD = """
import sys, time
from pathlib import Path
from analysis import history_db, cli
insert = history_db._insert_points
def paused(*args):
    insert(*args)
    Path(sys.argv[1]).write_text("inside")
    time.sleep(60)
history_db._insert_points = paused
sys.exit(cli.main(sys.argv[2:]))
"""


def test_a_record_killed_mid_write_leaves_the_history_as_it_was(tmp_path):
    db, marker = tmp_path / "history.sqlite", tmp_path / "inside"
    assert parse("record", "-d", small_sweep(tmp_path / "s1", "2026-01-01T00:00:00Z", 1), "--db", db).returncode == 0
    before = rows(db)
    second = small_sweep(tmp_path / "s2", "2026-01-02T00:00:00Z", 2)
    proc = subprocess.Popen([sys.executable, "-c", PAUSED_RECORD, marker, "record", "-d", second, "--db", db],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the record never reached its write"
            time.sleep(0.02)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert rows(db) == before  # the journal rolls the half-written sweep back
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    done = parse("record", "-d", second, "--db", db)  # and the sweep can be recorded again, whole
    assert done.returncode == 0, done.stderr
    assert len(rows(db)[0]) == 2


def decided_sweep(folder: Path, started: str, seed: int) -> Path:
    """std and tokio at one point, 20 rounds, tokio at twice std's RTT, under STOP=decided: the look after round 10
    decides tokio's Δp50 (the sweep's own `looks`, as it recorded them)."""
    rng = np.random.default_rng(seed)
    offsets = rng.normal(0, 0.02, 20)  # a round's drift, shared by its runs
    for framework, median in (("std", 30_000), ("tokio", 60_000)):
        write_repeats(folder, framework, "tcp", 0.001, offsets, median_ns=median, n=500, seed=seed)
    small_sweep_info(folder, started, seed)
    write_design(folder, sequential.plan("decided", 20), looks=[10])
    return folder


def test_the_round_that_decided_a_comparison_reaches_the_history_and_the_exports(tmp_path):
    db = tmp_path / "history.sqlite"
    fixed = small_sweep(tmp_path / "fixed", "2026-01-01T00:00:00Z", 1)  # a sweep without a design, then one with
    decided = decided_sweep(tmp_path / "decided", "2026-01-02T00:00:00Z", 2)
    for folder in (fixed, decided):
        done = parse("record", "-d", folder, "--db", db)
        assert done.returncode == 0, done.stderr
    history = history_db.read(db)
    tokio = history[history["benchmark"].str.startswith("tokio/")].set_index(["sweep", "measure"])["decided_at"]
    assert tokio[(2, "delta-latency")] == tokio[(2, "latency")] == 10  # the level carries its Δp50's verdict
    assert tokio[(1, "delta-latency")] == 3  # a sweep without looks decides at its one look, after its last round
    assert history.loc[history["benchmark"].str.startswith("std/"), "decided_at"].isna().all()  # no comparison
    shown = parse("history", "--db", db, "--format", "csv")  # both designs read
    assert shown.returncode == 0 and "tokio/" in shown.stdout, shown.stderr
    gab, otava = tmp_path / "gab.json", tmp_path / "otava.csv"
    for form, out in (("github-action-benchmark", gab), ("otava", otava)):
        done = parse("export", "-d", decided, "--format", form, "-o", out)
        assert done.returncode == 0, done.stderr
    extra = {e["name"]: e["extra"] for e in json.loads(gab.read_text())}
    assert "Δp50 vs std: slower, decided at round 10" in extra["tokio/tcp/64B/1000msg_s/0tasks/1conn/closed (delta-latency)"]
    rows = {r["benchmark"]: r for r in csv.DictReader(io.StringIO(otava.read_text()))}
    assert rows["tokio/tcp/64B/1000msg_s/0tasks/1conn/closed"]["decided_at"] == "10"
    assert rows["std/tcp/64B/1000msg_s/0tasks/1conn/closed"]["decided_at"] == ""
