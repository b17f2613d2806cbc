"""The reports of one small real sweep that holds what every default `-asStP` sweep holds and the other report tests'
sweeps do not: a point the sweep gave up (ICMP at 10 k msg/s, which iputils ping cannot pace), quantiles too few
samples carry (10 msg/s for 0.1 s: a sample a run) and a variant. On it the HTML report opens in headless Chromium,
the PDF is written without a warning, and every table command prints its table.

The sweep is run once for the module; the assertions are on structure and counts, never on timings.
"""

import csv
import io
import json
import subprocess
import sys

import pytest

from sweep_helpers import REPO, require_binaries, run_script, sweep_dir
from test_html_report import QUIET, browser, complaints  # noqa: F401  (browser: the fixture, found by its name)

# The default sweep's shape, small: std, a variant of it and the ICMP floor; 10 msg/s and 10 k msg/s.
KNOBS = {"INTERVALS": "0.1 0.0001", "PROTOCOLS": "tcp http", "REPEATS": "2", "DURATION": "0.1", "WARMUP": "0.1",
         "VARIANTS": "std-slow=std:pong:--delay-ns 4000"}
GIVEN_UP = "ping-icmp-64B-0.0001s-0t"  # the stem of the point the sweep gives up
NOTE = "parse.py: note: these flags are now"  # the old flags' note: what `parse.py -d DIR -o FILE` also says
# Each command that prints a table of an RTT sweep, in each of its formats (phases needs traced runs, wrk MODE=wrk's
# logs; compare is given the sweep twice).
TABLES = [(command, *extra) for command in ("table", "variance", "costs", "protocols", "compare")
          for extra in ([], ["--format", "csv"], ["--format", "markdown"])] + [("table", "--wide")]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    require_binaries("std")
    logs = tmp_path_factory.mktemp("default-shape") / "logs"
    run = run_script("run-localhost.sh", ["-SP"], logs, timeout=300, **KNOBS, **QUIET)
    assert run.rc == 0, run.output
    return sweep_dir(logs)


def parse_py(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "parse.py"), *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def quiet(stderr: str) -> list[str]:
    """The lines of parse.py's stderr besides `wrote FILE` and the old flags' note: a warning would be one."""
    return [line for line in stderr.splitlines() if line and not line.startswith(("wrote ", NOTE))]


def test_the_sweep_holds_a_given_up_point_refused_quantiles_and_a_variant(folder):
    points = {p["stem"]: p for p in json.loads((folder / "sweep.json").read_text())["points"]}
    assert len(points) == 10 and points[GIVEN_UP]["repeats_ok"] == 0 and points[GIVEN_UP]["message"], points
    table = parse_py("table", "-d", folder, "--format", "csv")
    assert table.returncode == 0, table.stderr
    rows = list(csv.DictReader(io.StringIO(table.stdout)))  # the measured points (CSV has no row for the others)
    assert len(rows) == sum(1 for p in points.values() if p["repeats_ok"])
    slow = [row for row in rows if row["interval_s"] == "0.1"]
    assert slow and all("too few for p99" in row["refused"] for row in slow), slow
    assert {row["framework"] for row in rows} == {"std", "std-slow", "ping"}
    assert all(row["verdict_base"] for row in rows if row["framework"] == "std-slow" and row["p50_ns"])


def test_its_html_report_opens_in_a_browser_with_the_given_up_row(folder, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    out = tmp_path / "report.html"
    made = parse_py("figures", "-d", folder, "-o", out)
    assert made.returncode == 0 and quiet(made.stderr) == [], made.stderr
    browser.get(out.as_uri())
    assert browser.title.endswith(folder.name) and complaints(browser) == []
    assert browser.find_elements(By.CSS_SELECTOR, "figure svg")

    rows = browser.find_elements(By.CSS_SELECTOR, "#points tbody tr")
    ids = [r.get_attribute("id") for r in rows]
    assert len(rows) == 10 and all(ids) and len(set(ids)) == len(ids)  # a row per planned point, measured or not
    given_up = [r for r in rows if r.find_element(By.TAG_NAME, "td").text == "ping ×"]
    assert len(given_up) == 1 and given_up[0].get_attribute("data-rate") == "10 k", ids
    # Filtered as any row: ICMP shows the floor's two points, the measured one and the one given up.
    Select(browser.find_element(By.CSS_SELECTOR, "select[data-facet='transport']")).select_by_visible_text("icmp")
    shown = sorted(r.find_element(By.TAG_NAME, "td").text for r in rows if r.is_displayed())
    assert shown == ["ping", "ping ×"], shown
    assert complaints(browser) == []


def test_its_pdf_is_written_without_a_warning(folder, tmp_path):
    from pypdf import PdfReader

    out = tmp_path / "out.pdf"
    made = parse_py("-d", folder, "-o", out)  # the default PDF, with the table on stdout
    assert made.returncode == 0 and quiet(made.stderr) == [], made.stderr
    assert len(PdfReader(out).pages) > 0 and "ping ×" in made.stdout


@pytest.mark.parametrize("command", TABLES, ids=" ".join)
def test_every_table_command_prints_its_table(folder, command):
    name, *options = command
    where = [folder, folder] if name == "compare" else ["-d", folder]
    run = parse_py(name, *where, *options)
    assert run.returncode == 0 and run.stdout.strip(), run.stderr
    assert "Traceback" not in run.stderr and "Warning" not in run.stderr, run.stderr
