"""sweepkit/icmp_log.py: iputils ping output to the suite's log pair, on synthetic output."""

import json
import math
import subprocess
import sys
from pathlib import Path

from sweep_helpers import REPO

from sweepkit import icmp_log, modes  # noqa: E402

from suite import logschema  # noqa: E402


def ping_output(replies, header=True):
    """Lines as `ping -D -n` prints them, from (receive time s, icmp_seq, rtt ms) triples."""
    lines = ["PING 127.0.0.1 (127.0.0.1) 64(92) bytes of data."] if header else []
    lines += [f"[{t:.6f}] 72 bytes from 127.0.0.1: icmp_seq={seq} ttl=64 time={ms:.3f} ms"
              for t, seq, ms in replies]
    return "\n".join(lines) + "\n"


def convert(tmp_path, text, *args):
    raw = tmp_path / "raw.txt"
    raw.write_text(text)
    stem = tmp_path / "ping-icmp-64B-0.1s-0t"
    rc = icmp_log.main([str(raw), str(stem), "--size", "64", "--address", "127.0.0.1", *args])
    csv = (tmp_path / f"{stem.name}.csv").read_text().splitlines()
    log = json.loads((tmp_path / f"{stem.name}.json").read_text())
    logschema.schema().validate(log)  # complete or not, the log fits the schema
    return rc, log, csv


def test_percentiles_are_by_nearest_rank_like_rtt_core():
    stats = icmp_log.rtt_stats(list(range(1000, 0, -1)))
    assert (stats["p50"], stats["p999"], stats["p9999"]) == (500, 999, 1000)
    assert icmp_log.rtt_stats([7])["p99"] == 7
    stats = icmp_log.rtt_stats([40, 10, 30, 20])
    assert (stats["p50"], stats["p90"], stats["p99"], stats["mean"]) == (20, 40, 40, 25)
    assert math.isclose(stats["stdev"], math.sqrt(500 / 3))
    assert icmp_log.rtt_stats([])["p50"] is None


def test_warm_up_replies_are_dropped_and_times_start_at_the_window(tmp_path):
    # One reply every 0.1 s, each taking 50 µs; 0.25 s warm-up, then 0.5 s measured.
    t0 = 1_700_000_000.0
    replies = [(t0 + 0.1 * k + 0.00005, k + 1, 0.050) for k in range(12)]
    rc, log, csv = convert(tmp_path, ping_output(replies), "--interval", "0.1",
                           "--warmup", "0.25", "--duration", "0.5")
    assert rc == 0
    assert csv[0] == "seq,t_ns,rtt_ns,conn,latency_ns"
    # One stream of echoes: connection 0; ping keeps no schedule to correct for: no latency_ns.
    cells = [row.split(",") for row in csv[1:]]
    assert all(c[3:] == ["0", ""] for c in cells)
    rows = [tuple(map(int, c[:3])) for c in cells]
    assert [r[0] for r in rows] == [3, 4, 5, 6, 7]  # 0-based: icmp_seq 4..8
    assert all(r[2] == 50_000 for r in rows)
    assert abs(rows[1][1] - 150_000_000) < 2_000  # µs timestamps
    assert log["framework"] == "ping" and log["transport"] == "icmp"
    assert (log["sent"], log["received"], log["lost"]) == (5, 5, 0)
    assert log["rtt_ns"]["n"] == 5 and log["rtt_ns"]["p50"] == 50_000
    assert log["target_rate"] == 10 and log["achieved_rate"] == 10
    assert log["complete"] is True
    for key in ("flavor", "threads", "pacing", "decoy", "decoy_work_us", "decoy_iterations",
                "late", "out_of_order", "rustc", "connections", "load", "window", "latency_ns", "per_connection"):
        assert log[key] is None, key


def test_a_paced_send_counts_at_its_slot_of_the_schedule_early_or_late(tmp_path):
    # 10 msg/s, the default 0.1 s warm-up and 0.1 s window: the window holds the second send, whether
    # ping's timer sends it 2 ms early or 2 ms late (by its own time, the early one fell before the window).
    t0 = 1_700_000_000.0
    for offset in (-0.002, 0.002):
        replies = [(t0 + 0.00005, 1, 0.050), (t0 + 0.1 + offset + 0.00007, 2, 0.070), (t0 + 0.2 + 0.00005, 3, 0.050)]
        rc, log, csv = convert(tmp_path, ping_output(replies), "--interval", "0.1", "--warmup", "0.1", "--duration", "0.1")
        assert rc == 0 and log["complete"] is True, offset
        ((seq, t_ns, rtt_ns),) = [tuple(map(int, row.split(",")[:3])) for row in csv[1:]]
        assert (seq, rtt_ns) == (1, 70_000) and abs(t_ns - max(0, offset) * 1e9) < 2_000, offset
        assert (log["sent"], log["received"], log["rtt_ns"]["n"]) == (1, 1, 1)


def test_sequence_numbers_unwrap_and_gaps_count_as_lost(tmp_path):
    # Back-to-back across the 16-bit wrap of icmp_seq, with two replies missing.
    t0, replies, seq = 1_700_000_000.0, [], 65530
    for k in range(12):
        if k not in (4, 5):
            replies.append((t0 + k * 1e-5, seq % 65536, 0.002))
        seq += 1
    extra = ["[1700000000.000300] 72 bytes from 127.0.0.1: icmp_seq=3 ttl=64 time=0.002 ms (DUP!)",
             "no answer yet for icmp_seq=4", "--- 127.0.0.1 ping statistics ---"]
    rc, log, csv = convert(tmp_path, ping_output(replies) + "\n".join(extra) + "\n",
                           "--interval", "0", "--warmup", "0", "--duration", "1")
    assert rc == 0
    assert (log["sent"], log["received"], log["lost"]) == (12, 10, 2)
    seqs = [int(row.split(",")[0]) for row in csv[1:]]
    assert seqs == sorted(seqs) and seqs[-1] - seqs[0] == 11
    assert log["target_rate"] is None


def test_no_reply_in_the_window_is_a_failure_with_an_incomplete_log(tmp_path):
    rc, log, csv = convert(tmp_path, "PING 127.0.0.1 (127.0.0.1) 64(92) bytes of data.\n",
                           "--interval", "0.1", "--warmup", "0", "--duration", "1",
                           "--exit-status", "1")
    assert rc == 1
    assert log["complete"] is False and log["rtt_ns"]["n"] == 0
    assert csv == ["seq,t_ns,rtt_ns,conn,latency_ns"]


def test_replies_only_outside_the_window_are_an_empty_window_to_measure_again(tmp_path):
    # Two replies in the warm-up, none in the window, ping ended well: the sweep's empty run, not a failure.
    rc, log, _ = convert(tmp_path, ping_output([(100.0, 1, 0.05), (100.05, 2, 0.05)]),
                         "--interval", "0.1", "--warmup", "0.1", "--duration", "0.1", "--exit-status", "0")
    assert rc == icmp_log.EMPTY and log["rtt_ns"]["n"] == 0
    assert modes.of("icmp").empty(log) == "no echo reply in its window, only outside it"


def test_it_runs_on_a_python_without_third_party_packages(tmp_path):
    raw = tmp_path / "raw.txt"
    raw.write_text(ping_output([(1_700_000_000.0 + 0.01 * k, k + 1, 0.030) for k in range(20)]))
    stem = tmp_path / "ping-icmp-64B-0.01s-0t"
    # -S: no site-packages at all, so numpy or pandas cannot sneak in.
    run = subprocess.run([sys.executable, "-S", "-m", "sweepkit.icmp_log", raw, stem, "--size", "64",
                          "--address", "127.0.0.1", "--interval", "0.01", "--warmup", "0", "--duration", "1"],
                         capture_output=True, text=True, timeout=60, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert json.loads(Path(f"{stem}.json").read_text())["rtt_ns"]["n"] == 20
