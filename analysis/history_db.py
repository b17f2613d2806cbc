"""The history of sweeps: a SQLite file (standard library sqlite3) with a schema version, its migrations, and one transaction per write.

A sweep is recorded once, under its identity (its start, seed, machine fingerprint and kind: tracked.Facts),
with each point's tracked metrics (tracked.measures: value, 95 % interval, the repeats' own values, the runtime's
version, the round that decided its verdict; a paired Δ's rows say which line it is against). The file says it is this suite's (PRAGMA application_id) and which migrations it has had (the
schema_version table); a file that is not SQLite, another program's database or one from a newer suite is
refused with one line, and nothing in it is changed. A write is one transaction: a process killed in it leaves
the file as it was (SQLite's rollback journal).
"""

import json
import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from .kind import UsageError
from .sweep import NothingUsable

APPLICATION_ID = 0x72747468  # "rtth": this suite's history, in the file's header
# Each migration takes the file from the version before it to its own (its index + 1); a released one is never
# edited, a change of schema is a new entry (tests/test_history_db.py upgrades a file of every older version).
MIGRATIONS = (
    # 1: the sweeps, and their points' tracked metrics
    """CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
    CREATE TABLE sweeps (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
        started_at TEXT NOT NULL, seed INTEGER, suite_version TEXT NOT NULL, machine_id TEXT NOT NULL,
        machine TEXT NOT NULL, folder TEXT NOT NULL, recorded_at TEXT NOT NULL);
    CREATE TABLE points (sweep_id INTEGER NOT NULL REFERENCES sweeps (id), benchmark TEXT NOT NULL,
        measure TEXT NOT NULL, unit TEXT NOT NULL, lower_is_better INTEGER NOT NULL, value REAL NOT NULL,
        low REAL, high REAL, repeats INTEGER NOT NULL, method TEXT NOT NULL, verdict TEXT NOT NULL,
        runtime TEXT NOT NULL, runtime_version TEXT NOT NULL, repeat_values TEXT NOT NULL,
        PRIMARY KEY (sweep_id, benchmark, measure))""",
    # 2: a series (one point's metric on one machine) read in time order without a scan of every point
    """CREATE INDEX sweeps_by_machine ON sweeps (machine_id, kind, started_at);
    CREATE INDEX points_by_series ON points (benchmark, measure)""",
    # 3: how a point's value was made of its runs (tracked.POOLED or PER_RUN); every point recorded before it was
    # a statistic of each run averaged over the repeats
    """ALTER TABLE points ADD COLUMN estimator TEXT NOT NULL DEFAULT 'per-run'""",
    # 4: the paired Δs as series of their own (tracked.DELTAS): the line a row's Δ is against, empty for a level;
    # no point recorded before it was a Δ
    """ALTER TABLE points ADD COLUMN against TEXT NOT NULL DEFAULT ''""",
    # 5: the round of the look that decided a point's verdict (STOP=decided); NULL where none did, and for every
    # point recorded before it
    """ALTER TABLE points ADD COLUMN decided_at INTEGER""",
)
VERSION = len(MIGRATIONS)
ESTIMATOR_SINCE = 3  # the schema version that added points.estimator
AGAINST_SINCE = 4  # and points.against
DECIDED_SINCE = 5  # and points.decided_at
DEFAULT = Path("latency-logs") / "history.sqlite"
POINT_COLUMNS = ("benchmark", "measure", "unit", "lower_is_better", "value", "low", "high", "repeats", "method",
                 "verdict", "runtime", "runtime_version", "estimator", "against", "decided_at")
# A column a file of an older schema lacks: the version that added it, and what every older point holds (None:
# NULL).
ADDED = {"estimator": (ESTIMATOR_SINCE, "per-run"), "against": (AGAINST_SINCE, ""),
         "decided_at": (DECIDED_SINCE, None)}


class Unusable(UsageError):
    """The file named is not a history this suite can read or write (exit status 2)."""


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def _unusable(path: Path, error: Exception) -> Unusable:
    return Unusable(f"{path}: not a history database this suite can use ({error}): give --db another file, "
                    "or move this one away to start a new history")


def version(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of an open file: 0 for an empty one. Raises Unusable for another program's
    database or a newer suite's."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app == 0 and not tables:
        return 0
    if app != APPLICATION_ID or "schema_version" not in tables:
        raise Unusable(f"{path}: a SQLite database of another program, not an rtt-suite history: give --db "
                       "another file")
    found = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0
    if found > VERSION:
        raise Unusable(f"{path}: a history of a newer suite (schema version {found}; this one knows up to "
                       f"{VERSION}): update the suite to read it")
    return found


def migrate(conn: sqlite3.Connection, path: Path, upto: int | None = None) -> None:
    """Brings the file to schema version `upto` (default: this suite's), in the transaction the caller opened."""
    for number in range(version(conn, path) + 1, (VERSION if upto is None else upto) + 1):
        if number == 1:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        for statement in _statements(MIGRATIONS[number - 1]):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (?, ?)", (number, _now()))


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _connect(path: Path, write: bool) -> sqlite3.Connection:
    if write:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    else:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    return conn


def record(path: Path, facts, rows: pd.DataFrame, folder: Path) -> int:
    """Appends a sweep (its Facts and tracked.measures' rows) in one transaction; returns its number in the file.
    Raises NothingUsable when this sweep is already there (nothing is written) and Unusable for a file that is
    not a history."""
    try:
        with closing(_connect(path, write=True)) as conn:
            conn.execute("BEGIN IMMEDIATE")  # the write lock first: two recorders take turns
            try:
                migrate(conn, path)
                had = conn.execute("SELECT id, folder, recorded_at FROM sweeps WHERE identity = ?",
                                   (facts.identity,)).fetchone()
                if had is not None:
                    raise NothingUsable(f"{folder}: this sweep is already in {path} (sweep {had[0]}, recorded "
                                        f"{had[2]} from {had[1]}); nothing written")
                sweep_id = conn.execute(
                    "INSERT INTO sweeps (identity, kind, started_at, seed, suite_version, machine_id, machine, folder,"
                    " recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (facts.identity, facts.kind, facts.started_at, facts.seed, facts.suite_version, facts.machine_id,
                     json.dumps(facts.machine, sort_keys=True), str(folder), _now())).lastrowid
                _insert_points(conn, sweep_id, rows, version(conn, path))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
    except sqlite3.DatabaseError as e:
        raise _unusable(path, e) from None
    return sweep_id


def _columns(schema: int) -> list[str]:
    """POINT_COLUMNS a file of this schema version has."""
    return [c for c in POINT_COLUMNS if schema >= ADDED.get(c, (0,))[0]]


def _insert_points(conn: sqlite3.Connection, sweep_id: int, rows: pd.DataFrame, schema: int) -> None:
    """The rows of a sweep, in the columns of the file's schema version (a suite of a version before a column
    wrote none; before 4, no Δ rows)."""
    def nullable(value):
        return None if pd.isna(value) else float(value)

    def added(r, column):
        value = getattr(r, column)
        return (None if pd.isna(value) else int(value)) if column == "decided_at" else value

    columns = _columns(schema)
    if schema < AGAINST_SINCE:
        rows = rows[rows["against"] == ""]
    conn.executemany(
        f"INSERT INTO points (sweep_id, {', '.join(columns)}, repeat_values) VALUES ({', '.join('?' * (len(columns) + 2))})",
        [(sweep_id, r.benchmark, r.measure, r.unit, int(r.lower_is_better), float(r.value), nullable(r.low),
          nullable(r.high), int(r.repeats), r.method, r.verdict, r.runtime, r.runtime_version,
          *(added(r, c) for c in columns if c in ADDED),  # the last of POINT_COLUMNS
          json.dumps(r.values)) for r in rows.itertuples()])


def _literal(value) -> str:
    """A column's value for the points of an older schema, in SQL."""
    return "NULL" if value is None else f"'{value}'"


def read(path: Path) -> pd.DataFrame:
    """Every recorded point, one row per sweep, point and metric, in the order the sweeps started (then recorded):
    the sweep's facts (sweep, started_at, seed, suite_version, machine_id, kind, machine: its fingerprint, a dict)
    and the point's POINT_COLUMNS and `values`, the repeats'. The file is opened read-only, so one of an older
    schema is read as it is, each column it lacks holding what its points were (ADDED). Raises NothingUsable when
    there is no such file."""
    if not path.is_file():
        raise NothingUsable(f"no history at {path}: record sweeps first (parse.py record -d SWEEP --db {path})")
    try:
        with closing(_connect(path, write=False)) as conn:
            schema = version(conn, path)
            if schema == 0:
                raise NothingUsable(f"{path} holds no sweep yet: record one (parse.py record -d SWEEP --db {path})")
            columns = [f"p.{c}" if c in _columns(schema) else f"{_literal(ADDED[c][1])} AS {c}" for c in POINT_COLUMNS]
            frame = pd.read_sql_query(
                "SELECT s.id AS sweep, s.started_at, s.seed, s.suite_version, s.machine_id, s.kind, s.machine, "
                f"{', '.join(columns)}, p.repeat_values FROM points p "
                "JOIN sweeps s ON s.id = p.sweep_id ORDER BY s.started_at, s.id", conn)
    except (sqlite3.DatabaseError, pd.errors.DatabaseError) as e:
        raise _unusable(path, e) from None
    frame["values"] = frame.pop("repeat_values").map(json.loads)
    frame["machine"] = frame["machine"].map(json.loads)
    frame["lower_is_better"] = frame["lower_is_better"].astype(bool)
    frame["decided_at"] = pd.to_numeric(frame["decided_at"]).astype("Int64")  # NULL: <NA>
    return frame
