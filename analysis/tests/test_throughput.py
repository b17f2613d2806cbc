"""parse.py -k throughput on small logs: rates that agree with numpy and the JSON, tables, figures, options."""

# Rates come from the CSV's windows; the summary in every format; the figures as real PDFs; and the
# options that mean nothing for throughput. What each figure draws: test_throughput_figures.py.

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import stats, throughput
from analysis.load import read_windows
from analysis.throughput import CSV_COLUMNS as THROUGHPUT_CSV_COLUMNS

from .conftest import cli, pages, parse_py
from .logs import samples, windows, write_run, write_sweep_info, write_throughput

FRAMEWORKS = ("std", "tokio", "smol")
SIZES = {"tcp": (8, 1024, 1048576), "udp": (8, 1024, 65507)}


@pytest.fixture
def tp_dir(tmp_path) -> Path:
    return write_tp_logs(tmp_path)


def write_tp_logs(tmp_path: Path) -> Path:
    """3 frameworks × TCP and UDP × 3 sizes, 0 and 2 decoy tasks; std UDP 8 B stalls in 12 windows."""
    folder = tmp_path / "latency-logs" / "localhost-20240601-090000"
    write_sweep_info(folder, MODE="throughput", SIZES="8 1024 65507 1048576")
    seed = 0
    for framework in FRAMEWORKS:
        for transport, sizes in SIZES.items():
            for size in sizes:
                for tasks in (0, 2):
                    seed += 1
                    rate = min(300_000.0, 4e9 / size) / (1 + tasks)
                    stalls = 12 if (framework, transport, size) == ("std", "udp", 8) else 0
                    counts = windows(seed, 37 + seed % 5, size, rate, stalls)
                    write_throughput(folder, framework, transport, size, counts, tasks=tasks,
                                     lost=7 * seed if transport == "udp" else 0)
    return folder


def table(capsys, *args) -> pd.DataFrame:
    status, out, err = cli(capsys, "-k", "throughput", "--format", "csv", *args)
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), keep_default_na=False)


def logs(folder: Path):
    for path in sorted(folder.rglob("*-throughput-*.json")):
        yield json.loads(path.read_text()), path.with_suffix(".csv")


def test_csv_has_exactly_the_documented_columns_and_a_row_per_run(capsys, tp_dir):
    assert ",".join(THROUGHPUT_CSV_COLUMNS) == ("framework,transport,payload,tasks,windows,msg_per_s_p5,"
                                                "msg_per_s_p50,msg_per_s_p95,gbit_per_s_p5,gbit_per_s_p50,"
                                                "gbit_per_s_p95,sent,received,lost,repeats,msg_per_s_p50_low,"
                                                "msg_per_s_p50_high,gbit_per_s_p50_low,gbit_per_s_p50_high")
    rows = table(capsys, "-d", tp_dir)
    assert list(rows.columns) == THROUGHPUT_CSV_COLUMNS
    assert len(rows) == len(FRAMEWORKS) * 2 * 3 * 2
    # Display order: framework, transport, payload, tasks.
    assert rows["framework"].tolist()[:12] == ["std"] * 12
    assert rows[["transport", "payload", "tasks"]].values.tolist()[:4] == [
        ["tcp", 8, 0], ["tcp", 8, 2], ["tcp", 1024, 0], ["tcp", 1024, 2]]


def test_rates_equal_numpys_on_the_csv_windows_and_the_json(capsys, tp_dir):
    rows = table(capsys, "-d", tp_dir)
    checked = 0
    for log, csv in logs(tp_dir):
        frame = pd.read_csv(csv)
        row = rows[(rows["framework"] == log["framework"]) & (rows["transport"] == log["transport"])
                   & (rows["payload"] == log["payload"]) & (rows["tasks"] == log["tasks"])]
        assert len(row) == 1
        row = row.iloc[0]
        msg = frame["messages"].to_numpy() / 0.1
        gbit = frame["bytes"].to_numpy() * 8 / 0.1 / 1e9
        for name, values, digits in (("msg_per_s", msg, 0.05), ("gbit_per_s", gbit, 6e-7)):
            expected = np.percentile(values, [5, 50, 95], method="inverted_cdf")
            got = row[[f"{name}_p5", f"{name}_p50", f"{name}_p95"]].to_numpy(dtype=float)
            assert got == pytest.approx(expected, abs=digits), (csv.name, name)
            # ... and the JSON's own statistics, written by an independent reference.
            assert got == pytest.approx([log[name][p] for p in ("p5", "p50", "p95")], abs=digits)
        assert row["windows"] == len(frame) == log["windows"]
        assert row["received"] == frame["messages"].sum() == log["received"]
        assert (row["sent"], row["lost"]) == (log["sent"], log["lost"])
        checked += 1
    assert checked == len(rows)


def test_window_rates_agree_with_the_json_to_the_last_digits(tp_dir):
    for log, csv in logs(tp_dir):
        scalars, series = stats.window_rates(*read_windows(csv), log["window_s"])
        for name in ("msg_per_s", "gbit_per_s"):
            for p in ("mean", "p5", "p50", "p95"):
                assert scalars[f"{name}_{p}"] == pytest.approx(log[name][p], rel=1e-12), (csv.name, name, p)
        assert scalars["received_bytes"] == log["received_bytes"]
        assert len(series.time_s) == log["windows"] and series.time_s[1] == pytest.approx(0.1)
    # The stalled windows are the bottom of the band.
    stalled = next(csv for log, csv in logs(tp_dir) if "std-udp-8B-throughput-0t" in csv.name)
    scalars, _ = stats.window_rates(*read_windows(stalled), 0.1)
    assert scalars["msg_per_s_p5"] == 0.0 and scalars["msg_per_s_p50"] > 0


def test_text_and_markdown_tables(capsys, tp_dir):
    status, out, _ = cli(capsys, "-d", tp_dir, "-k", "throughput", "--summary", "-f", "tokio", "-l", "0")
    assert status == 0
    lines = out.splitlines()
    header, _, first = lines[:3]
    assert header.split()[:5] == ["framework", "transport", "size", "B", "tasks"]
    assert "msg/s p50" in header and "Gb/s p50" in header and header.rstrip().endswith("lost")
    assert len(first) == len(header.rstrip())  # right-aligned numbers end under their header
    assert first.split()[:5] == ["tokio", "tcp", "8", "0", str(len(pd.read_csv(
        next(tp_dir.glob("tokio-tcp-8B-throughput-0t.csv")))))]
    assert sum(line.startswith("tokio ") for line in lines) == 6
    assert any("across the measured windows" in line for line in lines)
    status, out, _ = cli(capsys, "-d", tp_dir, "-k", "throughput", "--format", "markdown", "-p", "udp")
    assert status == 0
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert rows[0].startswith("| framework | transport | size B | tasks | windows | repeats | msg/s p5 |")
    assert len(rows) == 2 + len(FRAMEWORKS) * 3 * 2


def test_a_run_without_windows_is_listed_empty_and_still_drawn(capsys, tmp_path):
    write_throughput(tmp_path, "std", "tcp", 64, windows(1, 20, 64))
    base = write_throughput(tmp_path, "tokio", "tcp", 64, [], complete=False, error="peer closed", lost=None)
    assert Path(f"{base}.csv").read_text() == "window,t_ns,messages,bytes\n"
    rows = table(capsys, "-d", tmp_path)
    tokio = rows[rows["framework"] == "tokio"].iloc[0]
    assert tokio["windows"] == 0 and tokio["received"] == 0
    assert tokio["msg_per_s_p50"] == "" and tokio["gbit_per_s_p95"] == "" and tokio["lost"] == ""
    status, out, _ = cli(capsys, "-d", tmp_path, "-k", "throughput", "--summary")
    assert "tokio *" in out and "ended early" in out
    out_pdf = tmp_path / "all.pdf"
    status, _, err = cli(capsys, "-d", tmp_path, "-k", "throughput", "-t", "all", "-o", out_pdf)
    assert status == 0, err
    assert pages(out_pdf) == 1 + 1 + 1 + 1


def test_each_figure_type_writes_a_pdf_with_its_pages(capsys, tp_dir, tmp_path):
    expected = {"stat": 2,  # a page per decoy count
                "time": 2 * 2,  # a page per transport and decoy count
                "all": 2 + 4 + 2 + 1}  # + the table (36 runs: 2 pages) and the machine page
    for plot, count in expected.items():
        out = tmp_path / f"{plot}.pdf"
        status, _, err = cli(capsys, "-d", tp_dir, "-k", "throughput", "-t", plot, "-o", out)
        assert status == 0, err
        assert pages(out) == count, plot
        assert f"wrote {out} ({count} pages)" in err


def test_without_t_or_summary_it_prints_the_table_and_writes_every_page(tp_dir):
    result = parse_py("-d", tp_dir, "-k", "throughput", "-l", "0", "-p", "tcp")
    assert result.returncode == 0, result.stderr
    assert pages(tp_dir / "throughput-all.pdf") == 1 + 1 + 1 + 1
    assert result.stdout.startswith("framework") and result.stdout.count("\nstd ") == 3


@pytest.mark.parametrize("plot", ["ecdf", "pdf", "tasks"])
def test_rtt_only_figures_are_a_usage_error_that_names_the_others(plot, capsys, tp_dir):
    status, _, err = cli(capsys, "-d", tp_dir, "-k", "throughput", "-t", plot)
    assert status == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"-t {plot}" in err and "stat, time, compare, all" in err
    assert throughput.KIND.plots == ("stat", "time", "compare")


def test_a_rate_filter_is_a_usage_error_for_throughput(capsys, tp_dir):
    status, _, err = cli(capsys, "-d", tp_dir, "-k", "throughput", "-r", "1k", "--summary")
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("parse.py: error: -r:") and "back-to-back" in err


def test_rtt_and_throughput_logs_in_one_folder_are_told_apart_quietly(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 100))
    write_run(tmp_path, "tokio", "udp", 0.0, samples(2, 100))
    write_throughput(tmp_path, "smol", "tcp", 64, windows(3, 20, 64))
    status, out, err = cli(capsys, "-d", tmp_path, "--format", "csv")
    assert status == 0 and err == "" and out.count("\n") == 3 and "smol" not in out
    status, out, err = cli(capsys, "-d", tmp_path, "-k", "throughput", "--format", "csv")
    assert status == 0 and err == "" and out.count("\n") == 2 and "\nsmol,tcp,64,0,20," in out


def test_filters_pick_transport_tasks_and_framework_and_say_what_exists(capsys, tp_dir):
    rows = table(capsys, "-d", tp_dir, "-p", "udp", "-l", "2", "-f", "std,smol")
    assert rows[["framework", "transport", "payload", "tasks"]].values.tolist() == [
        [f, "udp", s, 2] for f in ("std", "smol") for s in SIZES["udp"]]
    status, _, err = cli(capsys, "-d", tp_dir, "-k", "throughput", "-p", "icmp", "--summary")
    assert status == 1 and err.count("\n") == 1
    assert "no throughput run" in err and "-p icmp" in err
    assert "transports tcp, udp, payloads 8, 1024, 65507, 1048576 B, tasks 0, 2" in err


def test_an_empty_throughput_folder_points_at_the_rtt_logs_there(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 100))
    status, _, err = cli(capsys, "-d", tmp_path, "-k", "throughput", "--summary")
    assert status == 1 and "no throughput logs" in err and "1 rtt logs; choose them with -k" in err


def test_disagreements_and_bad_files_are_named(capsys, tmp_path):
    write_throughput(tmp_path, "std", "tcp", 64, windows(1, 20, 64))
    off = write_throughput(tmp_path, "tokio", "tcp", 64, windows(2, 20, 64), windows=21)
    bad = write_throughput(tmp_path, "smol", "tcp", 64, windows(3, 20, 64))
    Path(f"{bad}.csv").write_text("window,t_ns,messages,bytes\n0,0,12x,3\n")
    no_window = write_throughput(tmp_path, "async-std", "tcp", 64, windows(4, 20, 64), window_s=None)
    zero = write_throughput(tmp_path, "std", "udp", 0, windows(5, 20, 0))
    orphan = tmp_path / "lonely-tcp-64B-throughput-0t.csv"
    orphan.write_text("window,t_ns,messages,bytes\n0,0,1,64\n")
    status, out, err = cli(capsys, "-d", tmp_path, "-k", "throughput", "--format", "csv")
    assert status == 0 and out.count("\n") == 2  # std's: tokio's CSV is at odds with its JSON, left out
    assert f"{off}.csv: 20 windows but its JSON says windows = 21; skipped: its point has no repeat left\n" in err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    for path in (f"{off}.csv", f"{bad}.csv", f"{no_window}.json", f"{zero}.json", orphan):
        assert any(str(path) in w for w in warnings), path
    assert len(warnings) == 5 and "Traceback" not in err
    assert f"{zero}.json: field 'payload' is 0, not a positive number; skipped" in err
    status, _, err = cli(capsys, "-d", tmp_path, "--summary")  # as rtt: nothing of ours, no warnings
    assert status == 1 and "warning" not in err and "5 throughput logs" in err
