"""The HTML report on a small sweep: one self-contained page with the PDF's figures, the table and the facts; an
output name the suite does not write is refused. (Its browser test, on real sweeps: tests/test_html_report.py.)"""

import re

import pandas as pd
import pytest
from matplotlib.figure import Figure

from analysis import html_report

from .conftest import cli, pages

# sweep_dir's figures in -t all: delta, stat, and ecdf, pdf, time a page per transport (tcp, udp, icmp).
SWEEP_ALL_FIGURES = 1 + 1 + 3 + 3 + 3


def test_o_report_html_writes_one_page_with_the_pdfs_figures_the_table_and_the_facts(capsys, sweep_dir, tmp_path):
    out, pdf = tmp_path / "report.html", tmp_path / "report.pdf"
    status, _, err = cli(capsys, "-d", sweep_dir, "-o", out)  # the old flags: `figures --table`
    assert status == 0 and f"wrote {out} ({SWEEP_ALL_FIGURES} figures)" in err
    assert cli(capsys, "figures", "-d", sweep_dir, "-o", pdf)[0] == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == SWEEP_ALL_FIGURES == pages(pdf) - 2
    assert page.count("<figcaption>") == SWEEP_ALL_FIGURES and "Machine and knobs" in page
    # Offline: nothing outside the page is named, neither a script, a style sheet nor an image.
    assert not re.search(r"""(src|href)=["'](?!#|data:)|@import|url\((?!#)""", page)
    # An id per point (std and tokio × tcp and udp × 3 rates, and ICMP), and every id in the page once.
    assert page.count("<tr id=") == 13 and 'id="tokio-udp-64-0.001-0-1-closed"' in page
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    assert {"data-runtime", "data-transport", "data-rate"} <= set(re.findall(r"data-\w+", page))
    assert re.search(r">(same ±\d+ %|undecided|unknown|slower|faster)<", page)  # the verdicts


def test_one_figure_asked_for_is_the_only_one_in_the_page(capsys, sweep_dir, tmp_path):
    out = tmp_path / "stat.HTML"
    status, _, err = cli(capsys, "figures", "-d", sweep_dir, "-t", "stat", "-o", out)
    assert status == 0 and f"wrote {out} (1 figure)" in err
    assert out.read_text().count("<svg") == 1


@pytest.mark.parametrize(("command", "name", "says"), [
    ("figures", "report.htm", "figures writes .pdf, .png, .svg or .html, not .htm (e.g. -o {dir}/report.html)"),
    ("figures", "report", "figures writes .pdf, .png, .svg or .html, not a name without an extension (e.g. -o {dir}/report.html)"),
    ("old flags", "report.txt", "figures writes .pdf, .png, .svg or .html, not .txt (e.g. -o {dir}/report.html)"),
    ("compare", "compare.htm", "compare writes .pdf or .html, not .htm (e.g. -o {dir}/compare.html)"),
])
def test_an_output_name_the_suite_does_not_write_is_refused_in_one_line(capsys, sweep_dir, tmp_path, command,
                                                                         name, says):
    out = tmp_path / name
    args = {"figures": ["figures", "-d", sweep_dir], "old flags": ["-d", sweep_dir],
            "compare": ["compare", sweep_dir, sweep_dir]}[command]
    status, stdout, err = cli(capsys, *args, "-o", out)
    assert (status, stdout) == (2, "") and not out.exists()
    assert err == f"parse.py: error: -o {out}: {says.format(dir=tmp_path)}\n"


def test_write_lays_out_any_table_and_figures_for_another_command(tmp_path):
    fig = Figure()
    fig.add_subplot().plot(range(3000), range(3000))  # dense: an image inside the SVG
    table = html_report.Table(["sweep", "p50 µs"], [["a", "12.5"], ["b", "9"]], ["a note"], ["a", "b"],
                              {"runtime": ["tokio", "std"]})
    out = tmp_path / "history.html"
    assert html_report.write(out, "History", ["fact one"], table, [("p50", "p50 over time", fig)]) == 1
    page = out.read_text()
    assert '<figure id="p50-1">' in page and "<image" in page and 'data-runtime="std"' in page
    assert '<td class="n">12.5</td>' in page and "fact one" in page and "a note" in page


def test_the_facts_name_each_disturbed_run_and_why():
    runs = pd.DataFrame({"source": ["/s/std-tcp-64B-0s-0t-r1", "/s/std-tcp-64B-0s-0t-r2"],
                         "disturbed": ["its ends were preempted 410 times", None]})
    assert html_report.disturbed(runs) == [
        "runs the sweep flagged as disturbed (sweep.json runs[].disturbed; ‡ in the table): 1 of 2",
        "  std-tcp-64B-0s-0t-r1: its ends were preempted 410 times", ""]


def test_compare_o_html_writes_its_table_and_forest_plot_on_one_page(capsys, sweep_dir, tmp_path):
    out, pdf = tmp_path / "compare.html", tmp_path / "compare.pdf"
    status, table, err = cli(capsys, "compare", sweep_dir, sweep_dir, "-o", out)
    assert status == 0 and f"wrote {out} (1 figure)" in err, err
    assert cli(capsys, "compare", sweep_dir, sweep_dir, "-o", pdf)[0] == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == pages(pdf) == 1
    rows = [line for line in table.splitlines()[2:] if line and line[0] != " " and "µs" not in line
            and not line.startswith(("new/old", "verdict", "MDE", "only in", "left out"))]
    assert page.count("<tr id=") == len(rows) > 0  # a row per common point and metric, as the text table
    assert "new / old" in page and 'data-metric="p50"' in page
    assert not re.search(r"""(src|href)=["'](?!#|data:)|@import|url\((?!#)""", page)
