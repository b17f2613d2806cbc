"""scripts/sweep_record.py: sweep.json, the progress figures and the fallback table, on synthetic
state files and logs of both kinds."""

import json
import sys

from sweep_helpers import REPO

sys.path.insert(0, str(REPO / "scripts"))
import sweep_record  # noqa: E402

RTT_LOG = {"schema": "rtt-log/1", "kind": "rtt", "framework": "tokio", "transport": "tcp",
           "payload": 64, "target_rate": 1000.0, "achieved_rate": 999.5, "tasks": 0, "lost": 0,
           "complete": True, "rtt_ns": {"n": 10, "p50": 21000, "p99": 40000, "p999": 41000,
                                        "max": 42000}}
THROUGHPUT_LOG = {"schema": "rtt-log/1", "kind": "throughput", "framework": "async-std",
                  "transport": "udp", "payload": 64, "tasks": 2, "windows": 5, "lost": 12,
                  "complete": False, "msg_per_s": {"mean": 4.1e6, "p5": 3.9e6, "p50": 4.2e6, "p95": 4.4e6},
                  "gbit_per_s": {"mean": 2.1, "p5": 2.0, "p50": 2.15, "p95": 2.25}}


def write_logs(folder, **logs):
    for stem, log in logs.items():
        (folder / f"{stem}.json").write_text(json.dumps(log))


def test_a_point_line_carries_p50_rtt_or_p50_throughput(tmp_path, capsys):
    write_logs(tmp_path, rtt=RTT_LOG, tput=THROUGHPUT_LOG)
    sweep_record.point(tmp_path / "rtt.json")
    sweep_record.point(tmp_path / "tput.json")
    rtt, tput = capsys.readouterr().out.splitlines()
    assert rtt.split("\t") == ["21000", "999.5", "True", "10", "0"]
    assert tput.split("\t") == ["4200000.0", "2.15", "False", "5", "12"]


def test_a_throughput_log_without_windows_gives_empty_figures(tmp_path, capsys):
    empty = dict(THROUGHPUT_LOG, windows=0, lost=None,
                 msg_per_s={"mean": None, "p5": None, "p50": None, "p95": None})
    write_logs(tmp_path, empty=empty)
    sweep_record.point(tmp_path / "empty.json")
    assert capsys.readouterr().out.split("\t") == ["", "2.15", "False", "0", "\n"]


def test_the_fallback_table_has_a_throughput_form(tmp_path, capsys):
    write_logs(tmp_path, tput=THROUGHPUT_LOG, sweep={"schema": "rtt-sweep/1"})
    sweep_record.summary(tmp_path)
    header, row = capsys.readouterr().out.splitlines()
    assert header.split()[:5] == ["framework", "transport", "payload", "B", "tasks"]
    assert "msg/s p50" in header and "Gb/s p50" in header
    assert row.split() == ["async-std", "udp", "64", "2", "5", "3.90M", "4.20M", "4.40M", "2.000",
                           "2.150", "2.250", "12", "(incomplete)"]


def test_the_fallback_table_shows_each_kind_it_finds(tmp_path, capsys):
    write_logs(tmp_path, rtt=RTT_LOG, tput=THROUGHPUT_LOG)
    sweep_record.summary(tmp_path)
    out = capsys.readouterr().out
    assert "p50 µs" in out and "msg/s p50" in out and "\n\n" in out


def test_sweep_json_names_the_results_of_each_kind_of_point(tmp_path):
    (tmp_path / "meta.tsv").write_text("kind\tlocalhost\nestimated_s\t7.5\n")
    (tmp_path / "knobs.tsv").write_text("MODE\tthroughput\nSIZES\t64 100000\n")
    (tmp_path / "knobs-given.txt").write_text("MODE\nSIZES\n")
    rows = [
        ["std-tcp-64B-throughput-0t", "std", "tcp", "64", "", "0", "ok", "0.81", "4200000.5", "2.15", ""],
        ["std-udp-100000B-throughput-0t", "std", "udp", "100000", "", "0", "skipped", "0.00", "", "",
         "a UDP datagram carries at most 65507 bytes"],
        ["std-tcp-64B-0.001s-0t", "std", "tcp", "64", "0.001", "0", "ok", "1.2", "21000", "999.5", ""],
    ]
    (tmp_path / "points.tsv").write_text("".join("\t".join(r) + "\n" for r in rows))
    out = tmp_path / "sweep.json"
    sweep_record.write(tmp_path, out, "complete")
    doc = json.loads(out.read_text())
    assert doc["knobs"] == {"MODE": "throughput", "SIZES": "64 100000"}
    assert doc["knobs_given"] == ["MODE", "SIZES"] and doc["estimated_s"] == 7.5
    tput, skipped, rtt = doc["points"]
    assert tput == {"stem": "std-tcp-64B-throughput-0t", "framework": "std", "transport": "tcp",
                    "payload": 64, "tasks": 0, "status": "ok", "wall_s": 0.81,
                    "msg_per_s_p50": 4200000.5, "gbit_per_s_p50": 2.15, "message": None}
    assert skipped["msg_per_s_p50"] is None and "65507" in skipped["message"]
    assert rtt["interval_s"] == 0.001 and rtt["p50_ns"] == 21000 and rtt["achieved_rate"] == 999.5
    assert doc["counts"]["ok"] == 2 and doc["counts"]["skipped"] == 1
