"""parse.py wrk: a MODE=wrk sweep's wrk logs beside the suite's ping logs, side by side per runtime."""

import json
from pathlib import Path

import pytest

from analysis import wrk
from analysis.cli import main

from .logs import samples, write_run

ROUNDS = 6


def write_wrk(folder: Path, framework: str, round_: int, req_per_s: float, p50_ns: float, *, flags=(),
              variant=None, complete=True, connections=50, body=64) -> Path:
    """A wrk log as sweepkit/wrk_log.py writes it (its figures given, the raw text a stand-in)."""
    label = variant or framework
    path = folder / f"{label}-http-{body}B-0s-0t-{connections}c-wrk-r{round_}.json"
    log = {"schema": "wrk-log/1", "kind": "wrk", "client": "wrk", "framework": framework, "variant": variant,
           "address": "127.0.0.1:1", "url": "http://127.0.0.1:1/echo", "method": "POST", "path": "/echo",
           "body_bytes": body, "threads": 1, "connections": connections, "duration_s": 3,
           "started_at": "2026-11-27T10:00:00.000Z", "client_version": "wrk 4.1.0", "command": ["wrk"],
           "exit_status": 0, "complete": complete, "error": None if complete else "wrk exited with status 1",
           "requests": int(req_per_s * 3), "elapsed_s": 3.0, "req_per_s": req_per_s,
           "latency_ns": {"mean": p50_ns * 1.1, "stdev": 1e4, "max": p50_ns * 10, "p50": p50_ns, "p75": p50_ns * 1.2,
                          "p90": p50_ns * 1.4, "p99": p50_ns * 3},
           "errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0, "non_2xx": 0},
           "flagged": bool(flags), "flags": list(flags), "raw": "Requests/sec: ..."}
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(log))
    return path


def write_suite(folder: Path, framework: str, round_: int, req_per_s: float, median_ns: float, **fields) -> None:
    base = write_run(folder, framework, "http", 0.0, samples(round_, 400, median_ns), connections=50,
                     achieved=req_per_s, repeat=round_, http={"method": "POST", "path": "/echo", "body_bytes": 64,
                                                              "request_head_bytes": 106, "response_head_bytes": 76,
                                                              "statuses": {"200": 400}}, **fields)
    assert base.name == f"{framework}-http-64B-0s-0t-50c-r{round_}"


@pytest.fixture
def cross_check(tmp_path) -> Path:
    """tokio: wrk 150 k req/s, the suite 10 % slower; std: wrk 100 k, the suite 40 % slower (outside ±15 %).
    Both clients rank tokio first."""
    folder = tmp_path / "localhost-20261127-100000"
    for k in range(1, ROUNDS + 1):
        wobble = 1 + 0.01 * (k - 3)
        write_wrk(folder, "tokio", k, 150_000 * wobble, 270_000)
        write_suite(folder, "tokio", k, 135_000 * wobble, 300_000)
        write_wrk(folder, "std", k, 100_000 * wobble, 400_000)
        write_suite(folder, "std", k, 60_000 * wobble, 700_000)
    return folder


def test_each_runtime_gets_both_clients_medians_their_ratio_and_ranks(cross_check):
    table = wrk.points(wrk.runs(cross_check))
    assert list(table["framework"]) == ["std", "tokio"]  # runtimes.json's order
    tokio, std = table.set_index("framework").loc["tokio"], table.set_index("framework").loc["std"]
    assert tokio["repeats"] == tokio["paired"] == ROUNDS
    assert tokio["ratio"] == pytest.approx(0.9) and tokio["within"] == "yes"
    assert std["ratio"] == pytest.approx(0.6) and std["within"] == "no"
    # 6 repeats: the median's interval is the range (ranks 1 and 6), the median the 3rd value
    assert tokio["wrk_req_per_s"] == pytest.approx(150_000) and tokio["wrk_req_per_s_low"] == pytest.approx(147_000)
    assert tokio["wrk_req_per_s_high"] == pytest.approx(154_500)
    assert (tokio["wrk_rank"], tokio["suite_rank"], std["wrk_rank"], std["suite_rank"]) == (1, 1, 2, 2)
    assert table["same_order"].all()


def test_the_text_table_says_the_ratio_the_verdict_and_the_order(cross_check, capsys):
    assert main(["wrk", "-d", cross_check]) == 0
    out = capsys.readouterr().out
    tokio = next(line for line in out.splitlines() if line.startswith("tokio"))
    assert "150 k [147 k–154 k]" in tokio and "0.900 [" in tokio and " yes " in tokio
    assert "both clients rank the servers the same way: yes" in out


def test_a_different_ranking_and_a_straddling_ratio_are_said(tmp_path):
    folder = tmp_path / "sweep"
    for k in range(1, ROUNDS + 1):
        write_wrk(folder, "tokio", k, 150_000, 270_000)
        write_suite(folder, "tokio", k, 90_000 if k < 4 else 160_000, 300_000)  # ratios 0.6 … 1.07: straddles 0.85
        write_wrk(folder, "smol", k, 120_000, 300_000)
        write_suite(folder, "smol", k, 110_000, 300_000)
    table = wrk.points(wrk.runs(folder)).set_index("framework")
    assert table.loc["tokio", "within"] == "unclear"
    assert (table.loc["tokio", "wrk_rank"], table.loc["tokio", "suite_rank"]) == (1, 2)
    assert not table["same_order"].any()
    assert "rank the servers the same way: no" in wrk.text(table.reset_index())


def test_flagged_runs_are_marked_and_named(cross_check, capsys):
    write_wrk(cross_check, "std", 2, 99_000, 400_000, flags=["3 socket errors (read 3)"])
    assert main(["wrk", "-d", cross_check, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| std ‡ |" in out and "‡ std: flagged runs, wrk: 3 socket errors (read 3)" in out


def test_csv_has_every_figure_with_its_bounds(cross_check, capsys):
    assert main(["wrk", "-d", cross_check, "--format", "csv", "-f", "tokio"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split(",") == wrk.CSV_COLUMNS and len(lines) == 2
    row = dict(zip(lines[0].split(","), lines[1].split(",")))
    assert row["framework"] == "tokio" and row["ratio"] == "0.9" and row["within"] == "yes"
    assert row["wrk_p50_ns"] == "270000" and row["same_order"] == "True"


def test_a_missing_ping_log_leaves_its_round_without_a_ratio(cross_check, capsys):
    (cross_check / "tokio-http-64B-0s-0t-50c-r4.json").unlink()
    table = wrk.points(wrk.runs(cross_check)).set_index("framework")
    assert (table.loc["tokio", "repeats"], table.loc["tokio", "paired"]) == (ROUNDS, ROUNDS - 1)


def test_the_other_commands_pass_over_wrk_logs_and_wrk_needs_them(cross_check, tmp_path, capsys):
    assert main(["table", "-d", cross_check, "--format", "csv"]) == 0
    assert "wrk" not in capsys.readouterr().err  # no warning about the wrk logs
    empty = tmp_path / "empty"
    write_suite(empty, "tokio", 1, 100_000, 300_000)
    assert main(["wrk", "-d", empty]) == 1
    assert "no usable wrk log" in capsys.readouterr().err
