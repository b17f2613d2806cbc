"""Every figure type renders a real PDF with the pages and axis labels it should have."""

# Every figure type renders a real PDF with the pages it should have; the rate axis is labelled
# with exactly the rates of the intervals; the 2022 format draws the same figures.

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis import pages as kit
from analysis import rtt
from analysis.rtt import figures
from analysis.cli import main
from analysis.sweep import Filters, collect

from .conftest import REPO, pages, parse_py
from .logs import samples, write_2022

# sweep_dir: one payload and decoy count; transports tcp, udp (std, tokio) and icmp (ping).
SWEEP_PAGES = {"delta": 1, "stat": 1, "ecdf": 3, "pdf": 3, "time": 3, "tasks": 3, "connections": 3}
# all = delta + stat + ecdf + pdf + time + (no tasks or connections page: one decoy count, one
# connection count) + 1 table + 1 machine page.
SWEEP_ALL = 1 + 1 + 3 + 3 + 3 + 0 + 1 + 1


@pytest.mark.parametrize("kind", sorted(SWEEP_PAGES))
def test_each_figure_type_writes_a_pdf(kind, sweep_dir, tmp_path, capsys):
    out = tmp_path / f"{kind}.pdf"
    assert main(["-d", str(sweep_dir), "-t", kind, "-o", str(out)]) == 0
    assert pages(out) == SWEEP_PAGES[kind]
    assert f"wrote {out} ({SWEEP_PAGES[kind]} page" in capsys.readouterr().err


def test_a_png_or_svg_out_writes_an_image_per_page(sweep_dir, tmp_path, capsys):
    # An image for a page beside a document (docs/findings/): one file per page, the first under the name asked.
    assert main(["-d", str(sweep_dir), "-t", "delta", "-o", str(tmp_path / "delta.png")]) == 0
    assert (tmp_path / "delta.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["-d", str(sweep_dir), "-t", "ecdf", "-o", str(tmp_path / "ecdf.svg")]) == 0
    written = sorted(p.name for p in tmp_path.glob("ecdf*.svg"))
    assert written == ["ecdf-2.svg", "ecdf-3.svg", "ecdf.svg"]
    assert (tmp_path / "ecdf.svg").read_text().lstrip().startswith("<?xml")
    assert f"wrote {tmp_path / 'ecdf.svg'} (3 pages)" in capsys.readouterr().err


def test_all_has_every_page_and_parse_py_defaults_to_it(sweep_dir):
    result = parse_py("-d", sweep_dir)  # neither -t nor --summary: the table and every figure
    assert result.returncode == 0, result.stderr
    out = sweep_dir / "rtt-all.pdf"
    assert pages(out) == SWEEP_ALL
    assert result.stdout.startswith("framework")


def test_all_with_decoy_counts_adds_the_tasks_pages(tasks_dir, tmp_path, capsys):
    out = tmp_path / "all.pdf"
    assert main(["-d", str(tasks_dir), "-t", "all", "-o", str(out), "-s", "lin"]) == 0
    # delta: one (panels tcp × 0, 2 tasks); stat, ecdf, pdf, time: a page per decoy count (0, 2);
    # tasks: one (tcp); table; machine.
    assert pages(out) == 1 + 2 + 2 + 2 + 2 + 1 + 1 + 1


def test_2022_logs_draw_every_figure(tmp_path, capsys):
    runs = [(fw, "tcp", interval, 64, 0, samples(i, 2500), "ns")
            for i, (fw, interval) in enumerate([("std", 0.001), ("tokio", 0.001), ("std", 0), ("tokio", 0)])]
    write_2022(tmp_path / "logs" / "old.csv", runs)
    out = tmp_path / "old.pdf"
    assert main(["-d", str(tmp_path / "logs"), "-t", "all", "-o", str(out)]) == 0
    assert pages(out) == 1 + 1 + 1 + 1 + 1 + 0 + 1 + 1


def tick_labels(ax) -> list[str]:
    FigureCanvasAgg(ax.figure).draw()
    return [t.get_text() for t in ax.get_xticklabels() if t.get_text()]


def test_rate_axis_labels_match_the_intervals(sweep_dir):
    sweep = collect(sweep_dir, rtt.KIND, Filters(transports=["tcp"]), False, print)
    ax = Figure().add_subplot()
    figures.stat(ax, sweep.runs, "log")
    assert tick_labels(ax) == ["100", "1 k", "∞"]  # intervals 0.01, 0.001 and 0


def test_rate_axis_spaces_decades_evenly_with_infinity_one_step_on(tmp_path):
    positions = figures.rate_positions([0.1, 0.01, 0.001, 0.0001, 0])
    assert [round(positions[i], 9) for i in (0.1, 0.01, 0.001, 0.0001, 0)] == [1, 2, 3, 4, 5]
    ax = Figure().add_subplot()
    sweep_rows = _rows([0.1, 0.01, 0.001, 0.0001, 0.00001, 0])
    figures.stat(ax, sweep_rows, "lin")
    assert tick_labels(ax) == ["10", "100", "1 k", "10 k", "100 k", "∞"]


def _rows(intervals):
    n = len(intervals)
    return pd.DataFrame({
        "framework": ["std"] * n, "framework_rank": [0] * n, "transport": ["tcp"] * n,
        "transport_rank": [0] * n, "interval_s": intervals, "n": [10] * n,
        "p5": np.full(n, 9e3), "p50": np.full(n, 1e4), "p95": np.full(n, 2e4),
        "missed_rate": [False] * (n - 1) + [True], "achieved_rate": [5.0] * n,
    })


def test_a_missed_rate_is_marked_on_the_stat_figure():
    ax = Figure().add_subplot()
    rows = _rows([0.01, 0.001])
    figures.stat(ax, rows, "log")
    assert [t.get_text() for t in ax.texts] == ["got 5"]
    marks = [c for c in ax.collections if type(c).__name__ == "PathCollection"]
    assert len(marks) == 1 and len(marks[0].get_offsets()) == 1 and np.allclose(marks[0].get_offsets()[0], [3, 10])


def test_each_framework_keeps_its_colour_on_every_page(sweep_dir):
    sweep = collect(sweep_dir, rtt.KIND, Filters(), True, print)
    colours = {}
    for fig in kit.report(rtt.KIND, sweep, "all", "log"):
        for legend in fig.legends:
            for line, text in zip(legend.get_lines(), legend.get_texts()):
                if text.get_text() in ("std", "tokio", "ping"):
                    colours.setdefault(text.get_text(), set()).add(line.get_color())
    assert set(colours) == {"std", "tokio", "ping"}
    assert all(len(c) == 1 for c in colours.values())
    assert len({next(iter(c)) for c in colours.values()}) == 3


def test_every_kind_s_figure_table_holds_page_functions_and_a_table_loads_no_matplotlib(sweep_dir):
    from analysis.legacy import PLOTS
    from analysis.options import FIGURES, KINDS

    for kind in KINDS.values():
        drawn = [*(f.pages for f in kind.figures.values()), *(f.in_all for f in kind.figures.values())]
        assert all(callable(f) for f in filter(None, drawn)) and callable(kind.closing), kind.name
        assert set(kind.plots) <= set(PLOTS) and set(kind.tables) == {"text", "csv", "markdown"}
    # figures -t's choices, in the order of parse.py figures -h: every kind's figures, then all; the old -t's
    # had compare after RTT's.
    assert FIGURES == ("delta", "stat", "ecdf", "pdf", "time", "tasks", "connections", "protocols", "costs",
                       "scheduler", "notify", "channel", "all")
    assert PLOTS == ("delta", "stat", "ecdf", "pdf", "time", "tasks", "connections", "protocols", "costs", "compare",
                     "scheduler", "notify", "channel", "all")
    # The figure functions import their drawing modules when called: a table never loads matplotlib.
    script = ("import sys; from analysis.cli import main; status = main(['table', '-d', sys.argv[1]]); "
              "sys.exit(status or 'matplotlib' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", script, str(sweep_dir)], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0 and "framework" in run.stdout, run.stderr
