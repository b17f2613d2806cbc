"""The HTML report in a real browser: three short real sweeps (rtt, throughput, micro), each's
`parse.py -o report.html` opened from disk in headless Chromium through selenium and Debian's chromium-driver.

Skipped, in one line, where Chromium, its driver or selenium is missing (`.ci/run` installs the first two,
requirements-dev.txt the third). Each page must load with no error or warning in the console, show every figure,
sort its table on a click on a header and hide rows when a filter is chosen; its screenshot is kept in the
test's tmp_path.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweep_helpers import REPO, require_binaries, run_script, sweep_dir

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
WAIT_S = 30  # a page load, or a script in it: the deadline of each browser call
QUIET = {"NICE": "19", "TUNE": "0"}  # a test's sweep yields to what else runs here
# A short real sweep of each kind: the runtimes, then the knobs.
SWEEPS = {
    "rtt": (["-tS"], {"INTERVALS": "0.001 0", "PROTOCOLS": "tcp udp", "REPEATS": "2", "DURATION": "0.3",
                      "WARMUP": "0.1"}),
    "throughput": (["-tS"], {"MODE": "throughput", "SIZES": "64 1024", "PROTOCOLS": "tcp udp", "DURATION": "0.3",
                             "WARMUP": "0.1"}),
    "micro": (["-tS"], {"MODE": "micro", "BENCHES": "spawn_many yield_many notify channel", "MICRO_INSTANCES": "200",
                        "MICRO_WORKERS": "2 4", "MICRO_EVENT_TYPES": "int", "MICRO_REPEAT": "5",
                        "MICRO_TIMEOUT": "60"}),
}
FILTER = {"rtt": "transport", "throughput": "transport", "micro": "runtime"}  # a filter each page has


@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("no selenium: pip install -r requirements-dev.txt")
    if not (CHROMIUM and DRIVER):
        pytest.skip("no Chromium or chromium-driver: apt-get install chromium chromium-driver (.ci/run does)")
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The driver named, so that selenium never looks for one on the network.
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(WAIT_S)
    driver.set_script_timeout(WAIT_S)
    yield driver
    driver.quit()


def report_of(kind: str, tmp_path: Path) -> tuple[Path, Path]:
    """A short real sweep of `kind` and its HTML report, written as a user would: parse.py -d SWEEP -o FILE."""
    require_binaries("std", "tokio")
    flags, knobs = SWEEPS[kind]
    run = run_script("run-localhost.sh", flags, tmp_path / "logs", timeout=300, **knobs, **QUIET)
    assert run.rc == 0, run.output
    out, folder = tmp_path / "report.html", sweep_dir(tmp_path / "logs")
    parse = subprocess.run([sys.executable, str(REPO / "parse.py"), "-d", str(folder), "-k", kind, "-o", str(out)],
                           capture_output=True, text=True, timeout=300)
    assert parse.returncode == 0 and f"wrote {out} (" in parse.stderr, parse.stderr
    return out, folder


def complaints(browser) -> list[dict]:
    """The console's errors and warnings since the last call (a page that fetched something would log one)."""
    return [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]


def cells(browser, column: int) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll('#points tbody tr')].map(r => r.cells[arguments[0]].textContent)",
        column)


@pytest.mark.parametrize("kind", list(SWEEPS))
def test_the_report_of_a_real_sweep_works_in_a_browser(kind, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    out, folder = report_of(kind, tmp_path)
    browser.get(out.as_uri())
    assert browser.title.endswith(folder.name)
    assert complaints(browser) == []

    figures = browser.find_elements(By.CSS_SELECTOR, "figure svg")
    assert figures and len(figures) == len(browser.find_elements(By.CSS_SELECTOR, "figcaption"))
    for svg in figures:
        browser.execute_script("arguments[0].scrollIntoView()", svg)
        assert svg.is_displayed() and svg.size["width"] > 300 and svg.size["height"] > 200, svg.size

    rows = browser.find_elements(By.CSS_SELECTOR, "#points tbody tr")
    assert len(rows) >= 4 and all(r.get_attribute("id") for r in rows)
    # A click on the framework header sorts by it; a second click, the other way.
    header = browser.find_element(By.CSS_SELECTOR, "#points thead th button")
    browser.execute_script("arguments[0].scrollIntoView()", header)
    header.click()
    names = cells(browser, 0)
    assert names == sorted(names) and len(set(names)) > 1
    header.click()
    assert cells(browser, 0) == sorted(names, reverse=True)

    facet = Select(browser.find_element(By.CSS_SELECTOR, f"select[data-facet='{FILTER[kind]}']"))
    facet.select_by_index(1)
    chosen = facet.first_selected_option.text
    visible = [r for r in rows if r.is_displayed()]
    assert 0 < len(visible) < len(rows)
    assert all(r.get_attribute(f"data-{FILTER[kind]}") == chosen for r in visible)
    assert browser.find_element(By.ID, "shown").text == f"{len(visible)} of {len(rows)} rows"
    facet.select_by_index(0)
    assert all(r.is_displayed() for r in rows)

    browser.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / f"{kind}-report.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    assert complaints(browser) == []


def test_the_console_check_sees_a_page_that_fetches_something_or_fails(browser, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><title>broken</title><img src="missing.png"><script>undefined_name()</script>')
    browser.get(page.as_uri())
    said = " ".join(entry["message"] for entry in complaints(browser))
    assert "missing.png" in said and "undefined_name" in said, said
