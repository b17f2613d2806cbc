"""parse.py --summary on small logs in both formats: the numbers, the formats and the filters."""

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import uncertainty as u

from analysis.rtt.table import CSV_COLUMNS

from .conftest import FRAMEWORKS, INTERVALS, TRANSPORTS, cli, parse_py
from .logs import samples, write_2022, write_run


def summary_csv(capsys, *args) -> pd.DataFrame:
    status, out, err = cli(capsys, "--summary", "--format", "csv", *args)
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), keep_default_na=False)


def test_csv_has_exactly_the_documented_columns_and_a_row_per_run(capsys, sweep_dir):
    table = summary_csv(capsys, "-d", sweep_dir)
    assert list(table.columns) == CSV_COLUMNS
    assert len(table) == len(FRAMEWORKS) * len(TRANSPORTS) * len(INTERVALS) + 1
    # Display order: framework, transport, then rate ascending with back-to-back last.
    assert table["framework"].tolist()[:6] == ["std"] * 6
    assert table["interval_s"].tolist()[:3] == [0.01, 0.001, 0]
    assert table["target_rate"].astype(str).tolist()[:3] == ["100", "1000", ""]


def test_summary_percentiles_equal_numpys_on_the_same_samples(capsys, sweep_dir):
    table = summary_csv(capsys, "-d", sweep_dir)
    for json_path in sorted(sweep_dir.glob("*.json")):
        if json_path.name == "sweep.json":
            continue
        log = json.loads(json_path.read_text())
        rtt = pd.read_csv(str(json_path)[:-5] + ".csv")["rtt_ns"].to_numpy()
        row = table[(table["framework"] == log["framework"]) & (table["transport"] == log["transport"])
                    & np.isclose(table["interval_s"], log["interval_s"])]
        assert len(row) == 1
        row = row.iloc[0]
        # A quantile the run's samples carry (10 beyond it) is numpy's, and the JSON's own statistic, written
        # by an independent reference; one they cannot carry is left empty, and the table says why.
        names, ps = ["p50", "p90", "p99", "p999", "max"], [50, 90, 99, 99.9, 100]
        expected = np.percentile(rtt, ps, method="inverted_cdf").astype(np.int64)
        for name, p, value in zip(names, ps, expected, strict=True):
            if name == "max" or len(rtt) >= u.min_samples(p / 100):
                assert int(row[f"{name}_ns"]) == value == log["rtt_ns"][name], (json_path.name, name)
            else:
                assert row[f"{name}_ns"] == "" and f"too few for {name.replace('999', '99.9')}" in row["refused"]
        assert row["n"] == len(rtt)
        assert row["lost"] == log["lost"]
        assert float(row["achieved_rate"]) == pytest.approx(log["achieved_rate"], abs=0.05)


def test_text_table_is_aligned_and_marks_a_missed_rate(capsys, tmp_path):
    write_run(tmp_path, "tokio", "udp", 0.0001, samples(1, 500), achieved=7_900.0, lost=3)
    write_run(tmp_path, "std", "udp", 0.0001, samples(2, 500), achieved=9_990.0)
    status, out, _ = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 0
    lines = out.splitlines()
    header, rule, std, tokio = lines[:4]
    assert header.split()[:3] == ["framework", "transport", "size"]
    # Right-aligned numbers end in the same column as their header.
    assert len(std) == len(tokio) == len(header.rstrip())
    assert std.split()[:5] == ["std", "udp", "64", "10", "k"]
    assert "7.9 k !" in tokio and tokio.split()[-1] == "3"
    assert any(line.startswith("! achieved rate") for line in lines)
    assert "10 k" in std and "!" not in std


def test_markdown_table(capsys, sweep_dir):
    status, out, _ = cli(capsys, "-d", sweep_dir, "--format", "markdown")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("| framework | transport |") and lines[0].endswith("| lost |")
    assert set(lines[1].replace(" ", "")) <= set("|:-")
    assert lines[2].startswith("| std | tcp | 64 | 100 |")
    assert sum(line.startswith("|") for line in lines) == 2 + 13


def test_the_same_samples_in_2022_and_new_format_give_the_same_summary(capsys, tmp_path):
    runs = [("std", "tcp", 0.001, 64, 0, samples(11, 997), "ns"),
            ("tokio", "udp", 0.0, 64, 0, samples(12, 1234), "us"),
            ("async-std", "tcp", 0.01, 128, 4, samples(13, 301), "ns"),
            ("ping", "icmp", 0.1, 64, 0, samples(14, 40, 20_000) // 1000 * 1000, "ms")]
    old, new = tmp_path / "old", tmp_path / "new"
    # The 2022 suite wrote one file per run; put two runs in one file too.
    write_2022(old / "std-ping-tcp.csv", runs[:1])
    write_2022(old / "more.csv", [("async_std", *runs[2][1:]), runs[1], runs[3]])
    for framework, transport, interval, payload, tasks, rtt, _ in runs:
        write_run(new, framework, transport, interval, rtt, payload=payload, tasks=tasks)
    a, b = summary_csv(capsys, "-d", old), summary_csv(capsys, "-d", new)
    same = ["framework", "transport", "payload", "interval_s", "target_rate", "tasks", "n",
            "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"]
    assert len(a) == 4
    pd.testing.assert_frame_equal(a[same], b[same])
    # What the 2022 suite did not record stays empty rather than made up.
    assert set(a["achieved_rate"]) == {""} and set(a["lost"]) == {""}


def test_2022_units_become_ns(capsys, tmp_path):
    rtt = np.array([1_000, 2_000, 3_000, 250_000] * 5, dtype=np.int64)  # 20 samples: enough for a p50
    for unit in ("ns", "us", "ms"):
        write_2022(tmp_path / unit / "log.csv", [("smol", "udp", 0.001, 64, 0, rtt, unit)])
    for unit in ("ns", "us", "ms"):
        row = summary_csv(capsys, "-d", tmp_path / unit).iloc[0]
        assert row["p50_ns"] == 2_000 and row["max_ns"] == 250_000, unit


def test_filters_pick_transport_rate_tasks_and_framework(capsys, sweep_dir, tasks_dir):
    table = summary_csv(capsys, "-d", sweep_dir, "-p", "udp", "-r", "1k,inf", "-f", "tokio")
    assert table[["framework", "transport", "interval_s"]].values.tolist() == [
        ["tokio", "udp", 0.001], ["tokio", "udp", 0.0]]
    table = summary_csv(capsys, "-d", sweep_dir, "-r", "100")
    assert sorted(set(table["framework"])) == ["ping", "std", "tokio"]
    assert set(table["interval_s"]) == {0.01}
    table = summary_csv(capsys, "-d", tasks_dir, "-l", "2")
    assert set(table["tasks"]) == {2} and len(table) == 4


def test_default_folder_is_the_newest_sweep_and_is_named(tmp_path):
    logs = tmp_path / "latency-logs"
    write_run(logs / "localhost-20240101-000000", "std", "tcp", 0.001, samples(1, 100))
    write_run(logs / "network-hostb-20240301-101500", "tokio", "tcp", 0.001, samples(2, 100))
    write_run(logs / "localhost-20240201-000000", "smol", "tcp", 0.001, samples(3, 100))
    result = parse_py("--summary", "--format", "csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "network-hostb-20240301-101500" in result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["framework"] for r in rows] == ["tokio"]


def test_a_point_logged_twice_in_one_round_uses_both_runs_and_says_so(capsys, tmp_path):
    write_run(tmp_path / "a", "std", "tcp", 0.001, samples(1, 100), started="2024-05-01T10:00:00Z")
    write_run(tmp_path / "b", "std", "tcp", 0.001, samples(2, 200), started="2024-05-01T11:00:00Z")
    status, out, err = cli(capsys, "-d", tmp_path, "--format", "csv")
    assert status == 0
    assert out.count("\nstd,") == 1 and ",300," in out  # n summed over both repeats
    assert "same point and round; both are used" in err and str(tmp_path / "a") in err


def test_a_run_without_samples_is_listed_with_empty_percentiles(capsys, tmp_path):
    write_run(tmp_path, "std", "udp", 0.001, samples(1, 100))
    base = write_run(tmp_path, "tokio", "udp", 0.001, samples(2, 10), complete=False)
    Path(f"{base}.csv").write_text("seq,t_ns,rtt_ns\n")
    log = json.loads(Path(f"{base}.json").read_text())  # nothing received: n = 0, the rest null, as a ping writes it
    log["rtt_ns"] = dict.fromkeys(log["rtt_ns"]) | {"n": 0}
    Path(f"{base}.json").write_text(json.dumps(log))
    table = summary_csv(capsys, "-d", tmp_path)
    row = table[table["framework"] == "tokio"].iloc[0]
    assert row["n"] == 0 and row["p50_ns"] == "" and row["max_ns"] == ""
    status, out, _ = cli(capsys, "-d", tmp_path, "--summary")
    assert "tokio *" in out and "ended early" in out


def test_summary_does_not_write_a_pdf(capsys, sweep_dir):
    status, _, err = cli(capsys, "-d", sweep_dir, "--summary")
    assert status == 0 and "wrote" not in err
    assert not list(sweep_dir.glob("*.pdf"))


def test_a_point_given_up_gets_a_row_saying_why(capsys, tmp_path):
    write_run(tmp_path, "tokio", "tcp", 0.001, samples(1, 500), tasks=1000)
    why = ("unfinished: the runtime never ran the measurement to its end within the ping's 15 s (its watchdog "
           "ended it)")
    points = [{"stem": "tokio-tcp-64B-0.001s-1000t", "framework": "tokio", "transport": "tcp", "payload": 64,
               "interval_s": 0.001, "tasks": 1000, "status": "ok", "repeats_ok": 1, "message": None},
              {"stem": "std-tcp-64B-0.001s-1000t", "framework": "std", "transport": "tcp", "payload": 64,
               "interval_s": 0.001, "tasks": 1000, "status": "skipped", "repeats_ok": 0, "message": why}]
    (tmp_path / "sweep.json").write_text(json.dumps({"knobs": {}, "points": points}))
    status, out, _ = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 0
    header, _rule, tokio, std = out.splitlines()[:4]
    assert std.split()[:7] == ["std", "×", "tcp", "64", "1", "k", "–"] and len(std) <= len(header.rstrip())
    assert f"× std-tcp-64B-0.001s-1000t: not measured: {why}" in out.splitlines()
    # A filter that leaves the point out leaves its row out.
    status, out, _ = cli(capsys, "-d", tmp_path, "--summary", "-f", "tokio")
    assert status == 0 and "std-tcp" not in out and "std ×" not in out
