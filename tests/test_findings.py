"""docs/findings.md stays regenerable: its markers pair up, every command on it is one the suite accepts
(DRY_RUN=1), and rewriting its blocks leaves the prose as it was. No sweep runs here."""

import os
import re
import subprocess

import pytest

from findings import numbers, page
from findings.sweeps import SWEEPS
from sweep_helpers import REPO

PAGE = REPO / "docs" / "findings.md"
BLOCKS = ["machine", "sweeps", "claim1", "claim2", "claim3", "claim4", "claim5", "laptop", "why", "versions"]


def sweep_commands(text: str) -> list[str]:
    """Every line of the page's sh blocks that runs a sweep script."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if re.search(r"\./run-\w+\.sh\b", line)]


def prose(text: str) -> str:
    """The page with every block's body taken out: what a rewrite must leave alone."""
    return re.sub(r"(^<!-- findings:([a-z0-9-]+) -->\n).*?(^<!-- /findings:\2 -->$)", r"\1\3", text,
                  flags=re.MULTILINE | re.DOTALL)


def test_the_page_has_every_block_once_each_closed():
    assert page.blocks(PAGE.read_text()) == BLOCKS


def test_the_page_shows_the_command_of_every_sweep_it_uses():
    shown = sweep_commands(PAGE.read_text())
    assert set(shown) == {s.command() for s in SWEEPS}


@pytest.mark.parametrize("command", sorted(set(sweep_commands(PAGE.read_text()))))
def test_every_command_on_the_page_is_one_the_suite_accepts(command, tmp_path):
    env = {**os.environ, "DRY_RUN": "1", "OUT_DIR": str(tmp_path)}
    done = subprocess.run(["bash", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Plan:" in done.stdout and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, why", [
    ("<!-- findings:a -->\n", "findings:a is never closed"),
    ("<!-- /findings:a -->\n", "/findings:a closes nothing"),
    ("<!-- findings:a -->\n<!-- findings:b -->\n<!-- /findings:b -->\n<!-- /findings:a -->\n", "opens inside"),
    ("<!-- findings:a -->\n<!-- /findings:a -->\n<!-- findings:a -->\n<!-- /findings:a -->\n", "a second time"),
])
def test_unbalanced_markers_are_named(text, why):
    with pytest.raises(page.PageError, match=why):
        page.blocks(text)


FAKE_CSV = """framework,transport,interval_s,tasks,p50_ns,p50_low_ns,p50_high_ns,achieved_rate,delta_p50_ns,delta_p50_low_ns,delta_p50_high_ns,verdict
std,tcp,0.001,0,20000,19000,21000,1000,,,,
tokio,tcp,0.001,0,30000,28000,32000,1000,10000,8000,12000,slower
std,tcp,0,0,10000,9500,10500,80000,,,,
tokio,tcp,0,0,12000,11000,13000,70000,2000,1000,3000,slower
"""


def test_rewriting_a_copy_of_the_page_keeps_its_prose(tmp_path):
    copy = tmp_path / "findings.md"
    copy.write_text(PAGE.read_text())
    table = numbers.rows(FAKE_CSV)
    bodies = {"claim5": numbers.tokio_added_table(table, table), "laptop": numbers.laptop_table(table, table)}
    before = copy.read_text()
    after = page.rewrite(before, bodies)
    assert prose(after) == prose(before)
    assert "| loopback | tcp | 1 k | 20 [19–21] | 30 [28–32] | +10 [+8 to +12] slower |" in after
    assert "| ∞ | tokio | 35.3 | 3.21 | 12 [11–13] | 1.20 [1.09–1.32] |" in after
    assert page.rewrite(after, bodies) == after  # a second rewrite changes nothing
    with pytest.raises(page.PageError, match="no block nowhere"):
        page.rewrite(before, {"nowhere": "x"})


def test_a_ratio_carries_both_medians_intervals():
    a = {"p50_ns": "200", "p50_low_ns": "180", "p50_high_ns": "220"}
    b = {"p50_ns": "100", "p50_low_ns": "100", "p50_high_ns": "100"}
    value, low, high = numbers.ratio(a, b)
    assert value == 2 and low == pytest.approx(2 * (180 / 220) ** 0.5) and high == pytest.approx(2 * (220 / 180) ** 0.5)
    assert numbers.times(numbers.ratio(a, None)) == "–"
