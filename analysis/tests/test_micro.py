"""parse.py -k micro on micro logs written as the binaries write them: the table in every format, the
figures as real PDFs, logs not run, pooled repeats, the options micro refuses, and the median's interval."""

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from analysis import micro
from analysis import pages as kit
from analysis.micro import figures as micro_report
from suite.palette import NO_VARIANTS, is_reference, micro_line
from analysis import uncertainty as u

from .conftest import cli, pages
from .logs import samples, write_run, write_sweep_info
from .micro_logs import reference_figures, reference_interval, write_micro

RUNTIMES = ("std", "tokio", "async-std", "smol")
SCALE = {"std": 4.0, "tokio": 1.0, "async-std": 1.3, "smol": 1.1, "go": 0.8}
CAP = "more than 20000 threads: std runs a thread per holder and per waiter"


@pytest.fixture
def micro_dir(tmp_path) -> Path:
    """Every runtime: the four scheduler benchmarks; notify and oneshot at N = 1000, 10000, 100000 (std not
    run at 100000); channel, int and string, at W = 10 and 100, with the Go reference."""
    folder = tmp_path / "latency-logs" / "localhost-20261124-060000"
    write_sweep_info(folder, MODE="micro", BENCHES=" ".join(micro.BENCH_ORDER))
    seed = 0
    for fw in RUNTIMES:
        for bench, base in (("spawn_many", 300), ("yield_many", 100), ("ping_pong", 5000), ("chained_spawn", 500)):
            seed += 1
            write_micro(folder, fw, bench, base * SCALE[fw], seed=seed)
        for bench in ("notify", "oneshot"):
            for n in (1000, 10_000, 100_000):
                seed += 1
                write_micro(folder, fw, bench, 1500 * SCALE[fw] * (1 + n / 1e5), seed=seed, instances=n,
                            not_run=CAP if fw == "std" and n > 20_000 else None)
    for fw in (*RUNTIMES, "go"):
        for event_type in ("int", "string"):
            for w in (10, 100):
                seed += 1
                write_micro(folder, fw, "channel", 20 * SCALE[fw] * (1 + w / 100), seed=seed,
                            event_type=event_type, workers=w)
    return folder


def csv_table(capsys, folder, *args) -> pd.DataFrame:
    status, out, err = cli(capsys, "-k", "micro", "-d", folder, "--format", "csv", *args)
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), keep_default_na=False)


def logs(folder):
    for path in sorted(folder.glob("*.json")):
        if path.name != "sweep.json":
            yield json.loads(path.read_text())


def test_the_median_interval_is_the_exact_binomial_one():
    for n in range(1, 61):
        assert u.median_interval_ranks(n) == reference_interval(n), n
    assert u.median_interval_ranks(10) == (2, 9) and u.median_interval_ranks(5) is None
    values = [x * 100 for x in range(1, 11)]
    est = u.median_interval(values)
    assert (est.value, est.low, est.high) == (500, 200, 900)
    few = u.median_interval([7, 8, 9])
    assert few.value == 8 and math.isnan(few.low) and math.isnan(few.high)
    # The normal approximation of within_run_quantile is close only for many values.
    big = list(range(10_000))
    assert abs(u.median_interval(big).low - u.within_run_quantile(big, 0.5).low) <= 2


def test_csv_has_a_row_per_point_and_the_logs_figures(capsys, micro_dir):
    rows = csv_table(capsys, micro_dir)
    assert list(rows.columns) == micro.CSV_COLUMNS
    assert len(rows) == 4 * 4 + 4 * 2 * 3 + 5 * 2 * 2
    assert rows["bench"].tolist()[:4] == ["spawn_many"] * 4
    assert rows["framework"].tolist()[:4] == list(RUNTIMES)  # runtimes.json's order within a benchmark
    checked = 0
    for log in logs(micro_dir):
        p = log["params"]
        row = rows[(rows["framework"] == log["framework"]) & (rows["bench"] == log["bench"])
                   & (rows["instances"].astype(str) == str(p["instances"] or ""))
                   & (rows["workers"].astype(str) == str(p["workers"] or ""))
                   & (rows["event_type"] == (p["event_type"] or ""))]
        assert len(row) == 1, log["framework"]
        row = row.iloc[0]
        if log["not_run"]:
            assert row["not_run"] == CAP and row["ns_per_op"] == "" and row["repeats"] == 0
        else:
            for name in micro.ESTIMATES:
                for key, suffix in (("median", ""), ("low", "_low"), ("high", "_high")):
                    assert float(row[f"{name}{suffix}"]) == pytest.approx(log[name][key], abs=0.051)
            assert row["repeats"] == len(log["times_ns"]) and row["ops"] == log["ops"]
            assert int(row["peak_rss_bytes"]) == log["peak_rss_bytes"] and row["primitive"] == log["primitive"]
        checked += 1
    assert checked == len(rows)


def test_the_text_and_markdown_tables_show_every_bench_and_what_was_not_run(capsys, micro_dir):
    status, out, _ = cli(capsys, "-k", "micro", "-d", micro_dir, "--summary")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["framework", "bench", "primitive", "size"]
    for bench in micro.BENCH_ORDER:
        assert any(line.split()[1:2] == [bench] for line in lines[2:]), bench
    not_run = [line for line in lines if "not run" in line]
    assert len(not_run) == 2 and all(f"not run ({CAP})" in line and line.startswith("std ") for line in not_run)
    tokio = next(line for line in lines if line.startswith("tokio ") and " spawn_many " in line)
    assert "tokio::spawn" in tokio and "10000 tasks" in tokio and " [" in tokio
    assert any(line.startswith("go ") and "go chan" in line and "int, W = 10," in line for line in lines)
    status, out, _ = cli(capsys, "-k", "micro", "-d", micro_dir, "--format", "markdown", "-f", "go,tokio")
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert rows[0].startswith("| framework | bench | primitive | size | repeats |")
    assert len(rows) == 2 + 4 + 2 * 3 + 2 * 2 * 2


def test_the_logs_of_a_point_pool_their_repeats(capsys, tmp_path):
    write_micro(tmp_path, "tokio", "spawn_many", 300, seed=1, repeat=4, round_=1)
    write_micro(tmp_path, "tokio", "spawn_many", 320, seed=2, repeat=4, round_=2)
    times = [t for log in logs(tmp_path) for t in log["times_ns"]]
    per_op, rate = reference_figures(times, 10_000)
    row = csv_table(capsys, tmp_path).iloc[0]
    assert (row["logs"], row["repeats"]) == (2, 8)
    for name, ref in (("ns_per_op", per_op), ("ops_per_s", rate)):
        assert [float(row[f"{name}{s}"]) for s in ("", "_low", "_high")] == pytest.approx(
            [ref["median"], ref["low"], ref["high"]], abs=0.051)
    # One log of 4 repeats has no interval: too few for one.
    status, out, _ = cli(capsys, "-k", "micro", "-d", tmp_path, "--summary", "-f", "tokio")
    assert "[" in out
    (tmp_path / "tokio-spawn_many-r2.json").unlink()
    status, out, _ = cli(capsys, "-k", "micro", "-d", tmp_path, "--summary")
    assert " [–]" in out and "too few repeats for a 95 % interval" in out


EXPECTED_PAGES = {"scheduler": 1, "notify": 1, "channel": 1}


@pytest.mark.parametrize("plot", sorted(EXPECTED_PAGES))
def test_each_figure_writes_a_pdf(capsys, micro_dir, tmp_path, plot):
    out = tmp_path / f"{plot}.pdf"
    status, _, err = cli(capsys, "-k", "micro", "-d", micro_dir, "-t", plot, "-o", out)
    assert status == 0, err
    assert pages(out) == EXPECTED_PAGES[plot] and f"wrote {out} (1 page)" in err


def test_all_is_one_pdf_of_every_figure_the_table_and_the_machine_page(capsys, micro_dir):
    status, out, err = cli(capsys, "-k", "micro", "-d", micro_dir)  # neither -t nor --summary: both
    assert status == 0, err
    assert out.startswith("framework")
    table = len(micro.text(micro.collect(micro_dir, [], print).points).split("\n\n")[0].splitlines()) - 2
    assert pages(micro_dir / "micro-all.pdf") == 3 + math.ceil(table / 32) + 1


def test_a_figure_without_its_bench_is_said_and_an_empty_folder_points_at_the_other_kinds(capsys, tmp_path):
    write_micro(tmp_path / "m", "tokio", "spawn_many", 300)
    status, _, err = cli(capsys, "-k", "micro", "-d", tmp_path / "m", "-t", "channel", "-o", tmp_path / "c.pdf")
    assert status == 1 and "-t channel: no channel benchmark was run" in err and "spawn_many" in err
    write_run(tmp_path / "r", "std", "tcp", 0.001, samples(1, 50))
    status, _, err = cli(capsys, "-k", "micro", "-d", tmp_path / "r")
    assert status == 1 and "it holds 1 rtt logs; choose them with -k" in err
    status, _, err = cli(capsys, "-d", tmp_path / "m")
    assert status == 1 and "it holds 1 micro logs; choose them with -k" in err


@pytest.mark.parametrize("args, named", [
    (["-r", "1k"], "-r"), (["-p", "tcp"], "-p"), (["-l", "0"], "-l"), (["-t", "ecdf"], "-t ecdf"),
    (["-s", "lin"], "-s"), (["--compare", "a", "b"], "--compare")])
def test_options_that_mean_nothing_for_micro_are_usage_errors(capsys, micro_dir, args, named):
    status, _, err = cli(capsys, "-k", "micro", "-d", micro_dir, *args)
    assert status == 2 and named in err


def test_micro_figures_are_refused_for_other_kinds(capsys, micro_dir):
    status, _, err = cli(capsys, "-d", micro_dir, "-t", "channel")
    assert status == 2 and "micro logs only (-k micro)" in err


def data_lines(ax) -> list:
    """The lines drawn through points (not the caps of the error bars)."""
    return [line for line in ax.get_lines() if len(line.get_xdata()) and line.get_linestyle() != "None"]


def drawn(points, draw, *args):
    ax = Figure(figsize=kit.PAGE_SIZE).add_subplot()
    draw(ax, points, *args)
    FigureCanvasAgg(ax.figure).draw()
    return ax


def test_scheduler_bars_a_group_per_bench_a_bar_per_runtime_in_its_colour(micro_dir):
    points = micro.collect(micro_dir, [], print).points
    ax = drawn(points, micro_report.scheduler_bars)
    bars = ax.patches
    assert len(bars) == 4 * 4 and ax.get_yscale() == "log"
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == list(micro.SCHEDULER)
    colours = {tuple(round(c, 3) for c in bar.get_facecolor()[:3]) for bar in bars}
    assert len(colours) == 4
    tokio = points[(points["framework"] == "tokio") & (points["bench"] == "ping_pong")].iloc[0]
    assert any(bar.get_height() == pytest.approx(tokio["ns_per_op"]) for bar in bars)
    assert "time per operation" in ax.get_ylabel()


def test_notify_lines_per_runtime_and_primitive_on_log_log_axes_without_what_was_not_run(micro_dir):
    points = micro.collect(micro_dir, [], print).points
    ax = drawn(points, micro_report.notify_lines, "time")
    lines = data_lines(ax)
    assert len(lines) == 4 * 2 and ax.get_xscale() == ax.get_yscale() == "log"
    assert sorted(line.get_linestyle() for line in lines) == ["-"] * 4 + ["--"] * 4
    std = [line for line in lines if line.get_color() == NO_VARIANTS.colour("std")]
    assert [list(line.get_xdata()) for line in std] == [[1000, 10_000]] * 2  # 100000 was not run
    tokio = next(line for line in lines if line.get_color() == NO_VARIANTS.colour("tokio") and line.get_linestyle() == "-")
    expected = points[(points["framework"] == "tokio") & (points["bench"] == "notify")]
    assert list(tokio.get_ydata()) == pytest.approx(list(expected["ns_per_op"] * expected["instances"]))
    assert ax.get_xlabel() == "N: holder/waiter pairs"


def test_channel_lines_with_go_as_a_dashed_grey_reference(micro_dir):
    points = micro.collect(micro_dir, [], print).points
    ax = drawn(points[points["event_type"] == "int"], micro_report.channel_lines)
    lines = data_lines(ax)
    assert len(lines) == 5
    go = next(line for line in lines if line.get_color() == NO_VARIANTS.colour("go"))
    assert go.get_linestyle() == "--" and is_reference("go")
    assert all(line.get_linestyle() == "-" for line in lines if line is not go)
    assert list(go.get_xdata()) == [10, 100] and ax.get_xscale() == "log"
    page = next(micro_report.channel_page(micro.collect(micro_dir, [], print)))
    assert [ax.get_title() for ax in page.axes] == ["integer events", "a fresh string per event"]
    legend = [t.get_text() for t in page.legends[0].get_texts()]
    assert legend[:5] == ["std", "tokio", "async-std", "smol", "go (reference)"]


def test_kotlin_is_a_reference_of_its_own_style_beside_go(tmp_path):
    folder = tmp_path / "latency-logs" / "localhost-20261125-060000"
    write_sweep_info(folder, MODE="micro", BENCHES="spawn_many notify channel")
    for seed, fw in enumerate(("tokio", "go", "kotlin")):
        for w in (10, 100):
            write_micro(folder, fw, "channel", 20 + 10 * seed, seed=seed, workers=w, warmup=5 if fw == "kotlin" else 1)
        if fw != "go":
            write_micro(folder, fw, "spawn_many", 300 + 100 * seed, seed=seed, warmup=5 if fw == "kotlin" else 1)
            write_micro(folder, fw, "notify", 1500, seed=seed, instances=1000, warmup=5 if fw == "kotlin" else 1)
    sweep = micro.collect(folder, [], print)
    points = sweep.points
    assert is_reference("kotlin") and NO_VARIANTS.colour("kotlin") not in (NO_VARIANTS.colour("go"), NO_VARIANTS.colour("std"))
    assert micro_line("go")[:2] != micro_line("kotlin")[:2] != micro_line("tokio")[:2]

    lines = data_lines(drawn(points, micro_report.channel_lines))
    by_colour = {line.get_color(): line for line in lines}
    go, kotlin = by_colour[NO_VARIANTS.colour("go")], by_colour[NO_VARIANTS.colour("kotlin")]
    assert (go.get_linestyle(), go.get_marker()) == ("--", "s")
    assert (kotlin.get_linestyle(), kotlin.get_marker()) == ("-.", "D")
    assert by_colour[NO_VARIANTS.colour("tokio")].get_linestyle() == "-"

    bars = drawn(points, micro_report.scheduler_bars).patches
    assert {b.get_hatch() for b in bars if b.get_facecolor()[:3] == to_rgb(NO_VARIANTS.colour("kotlin"))} == {"///"}
    assert {b.get_hatch() for b in bars if b.get_facecolor()[:3] == to_rgb(NO_VARIANTS.colour("tokio"))} == {None}
    notify = data_lines(drawn(points, micro_report.notify_lines))
    assert [line.get_marker() for line in notify if line.get_color() == NO_VARIANTS.colour("kotlin")] == ["D"]

    legend = [t.get_text() for t in next(micro_report.channel_page(sweep)).legends[0].get_texts()]
    assert legend[:3] == ["tokio", "go (reference)", "kotlin (reference)"]
    scheduler = next(micro_report.scheduler_page(sweep))
    assert [t.get_text() for t in scheduler.legends[0].get_texts()][:2] == ["tokio", "kotlin (reference)"]
    notes = micro.text(points)
    assert "timed repeats after one untimed warm-up iteration (kotlin: 5, for the JIT)" in notes
    assert sum(line.startswith("kotlin ") for line in notes.split("\n")) == 4  # 2 channel, spawn_many, notify
