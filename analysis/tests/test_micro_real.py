"""parse.py -k micro on logs the real micro binaries wrote: their figures recomputed from their times with
analysis/uncertainty.py, the table in every format, and every figure rendered to a real PDF."""

import io
import json
import math

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from analysis import micro
from analysis.micro import figures as micro_report
from suite import logschema
from suite.palette import NO_VARIANTS
from analysis import uncertainty as u

from .conftest import pages, parse_py
from .micro_real import REPEAT, RUNS, STD_CAPPED, go_built, micro_runtimes


def real(paths) -> list[dict]:
    return [json.loads(p.read_text()) for p in paths]


def test_every_log_fits_the_schema_and_its_figures_recompute_from_its_times(real_micro_logs):
    logs = real(real_micro_logs)
    frameworks = {log["framework"] for log in logs}
    assert frameworks == {e.label for e in micro_runtimes()} | ({"go"} if go_built() else set())
    recomputed = 0
    for log in logs:
        logschema.schema().validate(log)
        assert log["kind"] == "micro" and log["warmup"] == 1 and log["repeat"] == REPEAT
        if log["not_run"]:
            assert log["framework"] == "std" and log["params"]["instances"] == STD_CAPPED
            assert log["times_ns"] == [] and log["ns_per_op"]["median"] is None
            continue
        assert log["complete"] is True and len(log["times_ns"]) == REPEAT, log
        est = u.median_interval(sorted(log["times_ns"]))  # nearest rank; the exact 95 % interval
        ops = log["ops"]
        assert [log["ns_per_op"][k] for k in ("median", "low", "high")] == pytest.approx(
            [est.value / ops, est.low / ops, est.high / ops], rel=1e-12)
        assert [log["ops_per_s"][k] for k in ("median", "low", "high")] == pytest.approx(
            [ops * 1e9 / est.value, ops * 1e9 / est.high, ops * 1e9 / est.low], rel=1e-12)
        assert micro.pooled(log["times_ns"], ops) == pytest.approx(
            {f"{n}{s}": log[n][k] for n in micro.ESTIMATES for s, k in (("", "median"), ("_low", "low"),
                                                                      ("_high", "high"))}, rel=1e-12)
        recomputed += 1
    assert recomputed == (len(micro_runtimes()) + (1 if go_built() else 0)) * len(RUNS)


def test_the_table_has_every_log_and_says_what_std_did_not_run(real_micro_logs):
    folder = real_micro_logs[0].parent
    result = parse_py("-k", "micro", "--format", "csv", "-d", folder)
    assert result.returncode == 0, result.stderr
    rows = pd.read_csv(io.StringIO(result.stdout), keep_default_na=False)
    assert len(rows) == len(real_micro_logs) and list(rows.columns) == micro.CSV_COLUMNS
    for log in real(real_micro_logs):
        row = rows[(rows["framework"] == log["framework"]) & (rows["bench"] == log["bench"])
                   & (rows["instances"].astype(str) == str(log["params"]["instances"] or ""))
                   & (rows["workers"].astype(str) == str(log["params"]["workers"] or ""))
                   & (rows["event_type"] == (log["params"]["event_type"] or ""))]
        assert len(row) == 1
        if not log["not_run"]:
            assert float(row.iloc[0]["ns_per_op"]) == pytest.approx(log["ns_per_op"]["median"], abs=0.051)
            assert int(row.iloc[0]["peak_rss_bytes"]) == log["peak_rss_bytes"]
    text = parse_py("-k", "micro", "--summary", "-d", folder)
    assert text.returncode == 0, text.stderr
    capped = [line for line in text.stdout.splitlines() if "not run (" in line]
    assert len(capped) == 2 and all(line.startswith("std ") and "cap" in line for line in capped), capped


def test_every_figure_and_the_table_render_to_one_pdf(real_micro_logs, tmp_path):
    folder = real_micro_logs[0].parent
    out = tmp_path / "micro-all.pdf"
    result = parse_py("-k", "micro", "-t", "all", "-o", out, "-d", folder)
    assert result.returncode == 0, result.stderr
    points = len(real_micro_logs)
    assert pages(out) == 3 + math.ceil(points / 32) + 1
    assert f"wrote {out} ({pages(out)} pages)" in result.stderr


def test_the_figures_of_real_logs_draw_every_runtime_and_leave_out_what_was_not_run(real_micro_logs):
    sweep = micro.collect(real_micro_logs[0].parent, [], print)
    runtime_labels = [e.label for e in micro_runtimes()]
    drawn_frameworks = len(runtime_labels) + (1 if go_built() else 0)  # go runs every benchmark
    scheduler = next(micro_report.scheduler_page(sweep))
    (ax,) = scheduler.axes
    FigureCanvasAgg(scheduler).draw()
    assert len(ax.patches) == 4 * drawn_frameworks and ax.get_yscale() == "log"
    assert [t.get_text() for t in scheduler.legends[0].get_texts()][:len(runtime_labels)] == runtime_labels
    notify = next(micro_report.notify_page(sweep))
    lines = [line for line in notify.axes[0].get_lines() if line.get_linestyle() != "None"]
    assert len(lines) == 2 * drawn_frameworks  # std's capped N has no point
    assert all(list(line.get_xdata()) == [100] for line in lines)
    channel = next(micro_report.channel_page(sweep))
    assert [a.get_title() for a in channel.axes] == ["integer events", "a fresh string per event (16 B)"]
    for a in channel.axes:
        drawn = [line for line in a.get_lines() if line.get_linestyle() != "None"]
        assert len(drawn) == drawn_frameworks
        assert all(list(line.get_xdata()) == [2, 8] for line in drawn)
        go = [line for line in drawn if line.get_color() == NO_VARIANTS.colour("go")]
        assert len(go) == (1 if go_built() else 0) and all(line.get_linestyle() == "--" for line in go)
