"""parse.py -k throughput's figures on small logs: what each draws, its axes and ticks, and each framework's colour."""

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis import pages as kit
from analysis import throughput
from analysis.sweep import Filters, collect
from analysis.throughput import pages as throughput_pages
from suite.palette import NO_VARIANTS

from .test_throughput import FRAMEWORKS, write_tp_logs


@pytest.fixture
def tp_dir(tmp_path):
    return write_tp_logs(tmp_path)  # the logs of test_throughput.py's tests


def _drawn(quantity: str, scale: str, runs) -> Figure:
    ax = Figure().add_subplot()
    throughput_pages.throughput(ax, runs, quantity, scale)
    FigureCanvasAgg(ax.figure).draw()
    return ax


def test_size_figure_draws_tcp_solid_udp_dashed_on_a_log_size_axis(tp_dir):
    sweep = collect(tp_dir, throughput.KIND, Filters(tasks=[0]), False, print)
    ax = _drawn("gbit_per_s", "log", sweep.runs)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = [line for line in ax.get_lines() if len(line.get_xdata())]
    assert len(lines) == len(FRAMEWORKS) * 2
    assert sorted(line.get_linestyle() for line in lines) == ["-"] * 3 + ["--"] * 3
    assert {line.get_color() for line in lines} == {NO_VARIANTS.colour(f) for f in FRAMEWORKS}
    assert len(ax.collections) == len(lines)  # a p5–p95 band per line
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels == ["8 B", "1 KiB", "65507 B", "1 MiB"]
    tcp = next(line for line in lines if line.get_linestyle() == "-" and line.get_color() == NO_VARIANTS.colour("std"))
    expected = sweep.runs.query("framework == 'std' and transport == 'tcp'")["gbit_per_s_p50"]
    assert tcp.get_ydata().tolist() == expected.tolist() and tcp.get_xdata().tolist() == [8, 1024, 1048576]
    assert _drawn("msg_per_s", "lin", sweep.runs).get_yscale() == "linear"


def test_close_sizes_get_a_tick_each_but_no_overlapping_labels():
    runs = pd.DataFrame({"framework": "std", "framework_rank": 0, "transport": "tcp", "transport_rank": 0,
                         "payload": [8, 16384, 65507, 65536, 1048576], "windows": 5,
                         **{f"msg_per_s_{p}": 1e5 for p in ("p5", "p50", "p95")}})
    ax = _drawn("msg_per_s", "log", runs)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["8 B", "16 KiB", "65507 B", "", "1 MiB"]


def test_an_empty_p5_window_takes_the_band_to_the_bottom_of_a_log_panel(tp_dir):
    sweep = collect(tp_dir, throughput.KIND, Filters(tasks=[0]), False, print)
    runs = sweep.runs
    assert (runs["msg_per_s_p5"] == 0).sum() == 1  # std, UDP, 8 B
    ax = _drawn("msg_per_s", "log", runs)
    floor = runs["msg_per_s_p5"][runs["msg_per_s_p5"] > 0].min() / 2
    assert ax.get_ylim()[0] == pytest.approx(floor)
    lowest = min(c.get_paths()[0].vertices[:, 1].min() for c in ax.collections)
    assert lowest == pytest.approx(floor)
    assert _drawn("msg_per_s", "lin", runs).get_ylim()[0] == 0


def test_a_narrow_log_range_still_has_labelled_ticks():
    runs = pd.DataFrame({"framework": "std", "framework_rank": 0, "transport": "tcp", "transport_rank": 0,
                         "payload": [8, 64], "windows": 5, "msg_per_s_p5": [2.8e5, 2.9e5],
                         "msg_per_s_p50": [3e5, 3.2e5], "msg_per_s_p95": [3.9e5, 4.4e5]})
    ax = _drawn("msg_per_s", "log", runs)
    labels = [t.get_text() for t in ax.get_yticklabels()
              if t.get_text() and ax.get_ylim()[0] <= t.get_position()[1] <= ax.get_ylim()[1]]
    assert labels == ["300 k", "400 k"]


def test_the_time_figure_shows_stalls_as_drops_to_zero(tp_dir):
    sweep = collect(tp_dir, throughput.KIND, Filters(transports=["udp"], tasks=[0], frameworks=["std"]), False, print)
    runs = sweep.runs[sweep.runs["payload"] == 8]
    ax = Figure().add_subplot()
    throughput_pages.throughput_time(ax, runs, sweep.shapes)
    (line,) = ax.get_lines()
    assert line.get_drawstyle() == "steps-post" and ax.get_ylim()[0] == 0
    assert (line.get_ydata() == 0).sum() >= 12
    assert line.get_xdata()[-1] == pytest.approx(runs["windows"].iloc[0] * 0.1)  # the last window's end


def test_each_framework_keeps_its_colour_on_every_throughput_page(tp_dir):
    sweep = collect(tp_dir, throughput.KIND, Filters(), False, print)
    seen = {}
    for fig in kit.report(throughput.KIND, sweep, "all", "log"):
        for legend in fig.legends:
            for line, text in zip(legend.get_lines(), legend.get_texts()):
                seen.setdefault(text.get_text(), set()).add(line.get_color())
    for framework in FRAMEWORKS:
        assert seen[framework] == {NO_VARIANTS.colour(framework)}
