"""Many connections and open load in parse.py: old and new logs, the spread across connections, the
summary's columns and the connections figure, on small logs written here."""

import io

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

from analysis import uncertainty as u
from analysis import stats

from .conftest import cli, pages
from .logs import HEADER_BEFORE_CONNECTIONS, reference_percentile, samples, stem, write_run

CONNECTIONS = (1, 16)
LOADS = ("closed", "open")
REPEATS = (1, 2, 3, 4, 5, 6)  # enough runs, and samples, for a pooled p99 with its interval


def starve_one(conn: np.ndarray, n: int) -> np.ndarray:
    """Connections as drawn, but the last one gets a single reply: it starves."""
    conn = np.where(conn == n - 1, 0, conn)
    conn[0] = n - 1
    return conn


@pytest.fixture
def connections_dir(tmp_path):
    """std and tokio over TCP at 1 k msg/s with 1 and 16 connections, closed and open loop, two
    repeats; an open run's latency is its RTT plus a wait that grows with the connections; in tokio's
    second repeat at 16 connections one connection starves."""
    folder = tmp_path / "connections"
    rng = np.random.default_rng(7)
    seed = 0
    for framework in ("std", "tokio"):
        for n in CONNECTIONS:
            for load in LOADS:
                for k in REPEATS:
                    seed += 1
                    rtt = samples(seed, 1_200, 20_000 * (1 + n / 8))
                    conn = rng.permutation(np.arange(len(rtt)) % n)  # 75 replies each at 16
                    if (framework, n, k) == ("tokio", 16, 2):
                        conn = starve_one(conn, n)
                    latency = rtt + rng.integers(0, 10_000 * n, len(rtt)) if load == "open" else None
                    write_run(folder, framework, "tcp", 0.001, rtt, connections=n, load=load, conn=conn,
                              latency=latency, repeat=k)
    return folder


def summary_csv(capsys, folder) -> pd.DataFrame:
    status, out, err = cli(capsys, "-d", folder, "--summary", "--format", "csv")
    assert status == 0 and err == "", err
    return pd.read_csv(io.StringIO(out))  # an empty cell: NaN


def test_a_log_from_before_connections_reads_as_one_connection_in_a_closed_loop(capsys, tmp_path):
    old = write_run(tmp_path, "std", "tcp", 0.001, samples(1, 300), before_connections=True, repeat=1)
    assert open(f"{old}.csv").readline().strip() == HEADER_BEFORE_CONNECTIONS
    # The same point from both suite versions: its two repeats, one point.
    write_run(tmp_path, "std", "tcp", 0.0, samples(2, 300), before_connections=True, repeat=1)
    write_run(tmp_path, "std", "tcp", 0.0, samples(3, 300), repeat=2)
    table = summary_csv(capsys, tmp_path)
    assert table[["interval_s", "connections", "load", "repeats"]].values.tolist() == [
        [0.001, 1, "closed", 1], [0, 1, "closed", 2]]
    assert table["latency_p99_ns"].isna().all()
    assert table["starved"].fillna(-1).tolist() == [-1, 0]  # the old log does not say; the new one's count
    status, out, _ = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 0 and "conns" not in out and "starved" not in out  # the table as before


def test_the_spread_across_connections_is_each_connections_own_nearest_rank_percentile():
    rng = np.random.default_rng(3)
    rtt, conn = samples(5, 3_001), rng.integers(0, 7, 3_001)
    conn[conn == 5] = 6  # connection 5 got no reply
    spread = stats.connection_spread(rtt, conn)
    own = {p: [reference_percentile(rtt[conn == c], p) for c in np.unique(conn)] for p in (50, 99)}
    assert spread == {"connections_seen": 6, "conn_p50_min": min(own[50]), "conn_p50_max": max(own[50]),
                      "conn_p99_min": min(own[99]), "conn_p99_max": max(own[99])}
    one, _ = stats.describe(rtt)  # a run without a conn column is one connection
    assert one["conn_p50_min"] == one["conn_p50_max"] == one["p50"] and one["connections_seen"] == 1


def test_the_summary_has_connections_load_corrected_latency_and_starved_connections(capsys, connections_dir):
    table = summary_csv(capsys, connections_dir)
    columns = list(table.columns)
    assert columns[columns.index("connections"):columns.index("starved") + 1] == [
        "connections", "load", "latency_p99_ns", "latency_p99_low_ns", "latency_p99_high_ns", "starved"]
    assert table[["framework", "connections", "load"]].values.tolist() == [
        [fw, n, load] for fw in ("std", "tokio") for n in CONNECTIONS for load in LOADS]
    for row in table.itertuples():
        runs = [connections_dir / f"{stem(row.framework, 'tcp', 64, 0.001, 0, k, row.connections, row.load)}.csv"
                for k in REPEATS]
        if row.load == "closed":
            assert np.isnan(row.latency_p99_ns) and np.isnan(row.latency_p99_low_ns)
            continue
        latencies = np.sort(np.concatenate([pd.read_csv(run)["latency_ns"].to_numpy() for run in runs]))
        if len(latencies) < u.min_samples(0.99):  # too few to carry a p99: left empty, and the table says why
            assert np.isnan(row.latency_p99_ns) and f"n = {len(latencies)}: too few for latency p99" in row.refused
            continue
        assert row.latency_p99_ns == reference_percentile(latencies, 99)  # of the repeats' samples pooled
        assert row.latency_p99_low_ns < row.latency_p99_ns < row.latency_p99_high_ns
        assert row.latency_p99_ns > row.p99_ns  # the wait behind a late reply is counted
    starved = table.set_index(["framework", "connections", "load"])["starved"]
    assert starved[("tokio", 16, "closed")] == 1 and starved[("std", 16, "closed")] == 0
    status, out, _ = cli(capsys, "-d", connections_dir, "--summary")
    header = out.splitlines()[0]
    assert status == 0
    for column in ("conns", "load", "latency p99 µs [95 % CI]", "starved"):
        assert column in header
    assert header.index("tasks") < header.index("conns") < header.index("load") < header.index("repeats")
    assert "coordinated omission" in out


def test_the_connections_figure_has_a_page_per_rate_with_a_panel_per_transport_and_load(capsys, connections_dir,
                                                                                      tmp_path):
    out = tmp_path / "connections.pdf"
    status, _, err = cli(capsys, "-d", connections_dir, "-t", "connections", "-o", out)
    assert status == 0 and "(1 page)" in err
    text = PdfReader(out).pages[0].extract_text()
    for words in ("Round-trip time against connections per ping", "1 k msg/s asked for", "TCP, closed loop",
                  "TCP, open loop (window 64)", "corrected latency p99", "min–max across"):
        assert words in text, words
    # -t all: every other figure a page (or a panel) per connection count and load; the connections
    # page; the table; the machine page.
    out = tmp_path / "all.pdf"
    assert cli(capsys, "-d", connections_dir, "-t", "all", "-o", out)[0] == 0
    shapes = len(CONNECTIONS) * len(LOADS)
    assert pages(out) == shapes * 5 + 1 + 1 + 1  # delta, stat, ecdf, pdf, time; connections; table; machine
    titles = [page.extract_text() for page in PdfReader(out).pages]
    assert sum("against connections" in t for t in titles) == 1
    assert any("Median round-trip time against message rate — 64 B payload, 0 decoy tasks, 16 connections, "
               "open loop" in t for t in titles)


def test_a_sweep_of_one_connection_count_leaves_the_figure_out_of_all(capsys, tmp_path):
    for load in LOADS:
        write_run(tmp_path, "std", "tcp", 0.001, samples(1, 300), connections=8, load=load,
                  conn=np.arange(300) % 8, latency=samples(2, 300) if load == "open" else None)
    out = tmp_path / "all.pdf"
    assert cli(capsys, "-d", tmp_path, "-t", "all", "-o", out)[0] == 0
    assert not any("against connections" in page.extract_text() for page in PdfReader(out).pages)
    assert cli(capsys, "-d", tmp_path, "-t", "connections", "-o", out)[0] == 0 and pages(out) == 1


def test_nothing_to_draw_against_connections_is_said(capsys, tmp_path):
    write_run(tmp_path, "ping", "icmp", 0.01, samples(1, 40), threads=None)
    status, _, err = cli(capsys, "-d", tmp_path, "-t", "connections", "-o", tmp_path / "x.pdf")
    assert status == 1 and "the ICMP reference has one stream" in err
    status, _, err = cli(capsys, "-d", tmp_path, "-k", "throughput", "-t", "connections")
    assert status == 2 and "not drawn for throughput logs" in err


def test_an_open_load_csv_without_its_latency_column_is_named_and_skipped(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 300))
    broken = write_run(tmp_path, "std", "tcp", 0.001, samples(2, 300), load="open", latency=samples(3, 300))
    rows = pd.read_csv(f"{broken}.csv")[["seq", "t_ns", "rtt_ns"]]
    rows.to_csv(f"{broken}.csv", index=False)
    status, out, err = cli(capsys, "-d", tmp_path, "--summary", "--format", "csv")
    assert status == 0 and out.count("\n") == 2
    assert f"{broken.name}.csv: its CSV has no latency_ns column, though its JSON says open load; skipped" in err


def test_an_old_sweep_and_a_new_one_compare_point_by_point(capsys, tmp_path):
    for k in (1, 2):
        write_run(tmp_path / "old", "std", "tcp", 0.001, samples(k, 300), before_connections=True, repeat=k)
        write_run(tmp_path / "new", "std", "tcp", 0.001, samples(10 + k, 300), repeat=k)
    write_run(tmp_path / "new", "std", "tcp", 0.001, samples(20, 300), connections=4, conn=np.arange(300) % 4)
    status, out, _ = cli(capsys, "--compare", tmp_path / "old", tmp_path / "new")
    assert status == 0
    assert "only in NEW: std tcp 64 B 1 k msg/s 0 tasks 4 conns" in out and "only in OLD" not in out
