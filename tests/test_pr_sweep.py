"""A real --pr check of tokio's source with a planted TCP cost: called slower at TCP, not at UDP, in its comment."""

import subprocess
import sys

import pytest

import pr_fixture
from analysis.rtt.pr_comment import MARKER
from suite import sequential
from sweep_helpers import REPO, load_json, require_binaries, run_script, sweep_dir

# Short runs at back-to-back, the rate where a few µs per read is a few % of a round trip; built in the tests'
# profile (the spin is timed, so unoptimised code shows it too).
KNOBS = {"VERSION_PROFILE": "harness", "DURATION": "0.05", "WARMUP": "0.02", "INTERVALS": "0", "TASKS": "0",
         "REPEATS": "40", "COUNTERS": "1", "SEED": "5959"}


@pytest.fixture(scope="module")
def check(tmp_path_factory):
    require_binaries("std")
    fixture = pr_fixture.make(tmp_path_factory.mktemp("tokio"))
    out = tmp_path_factory.mktemp("out")
    run = run_script("run-localhost.sh", ["--pr", f"tokio@path:{fixture.repo}:main..slow"], out, timeout=1200,
                     **KNOBS)
    assert run.rc == 0, run.output
    return fixture, run, sweep_dir(out, "pr-tokio")


def comment(folder, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "parse.py", "pr", "-d", str(folder), *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def test_the_check_compares_head_with_base_alone_and_holds_the_error_over_its_four_comparisons(check):
    fixture, run, folder = check
    doc = load_json(folder / "sweep.json")
    assert doc["pr"]["head"]["commit"] == fixture.slow and doc["pr"]["base"]["commit"] == fixture.base
    assert doc["design"]["alpha"] == pytest.approx(sequential.ALPHA / 4)  # 2 transports × p50, p99
    assert {(d["line"], d["against"]) for d in doc["decisions"]} == {("tokio-head", "tokio-base")}
    assert "4 comparisons (Bonferroni" in run.output


def test_its_comment_calls_tcp_slower_and_not_udp(check):
    fixture, run, folder = check
    text = (folder / "pr-comment.md").read_text()
    assert text.startswith(MARKER) and text in run.output  # the sweep's closing output is its comment
    head, *_ = [line for line in text.splitlines() if line.startswith("### ")]
    assert "**slower** at 1 of 2: +" in head and "back-to-back TCP" in head and "UDP" not in head, head
    rows = {row.split(" | ")[0].strip("| "): row for row in text.splitlines() if row.startswith("| back-to-back")}
    assert rows.keys() == {"back-to-back TCP", "back-to-back UDP"}
    assert "| **slower**" in rows["back-to-back TCP"]
    assert "**slower**" not in rows["back-to-back UDP"] and "**faster**" not in rows["back-to-back UDP"]
    details = text[text.index("<details>"):]
    assert f"({fixture.base[:12]}) → `slow` ({fixture.slow[:12]})" in details
    assert "reproduce: `SEED=5959 " in details and f"--pr tokio@path:{fixture.repo}:main..slow`" in details
    assert "machine: " in details and "guest_halt_poll_ns" in details


def test_the_comment_fails_the_job_only_when_asked_and_only_beyond_the_threshold(check):
    _, _, folder = check
    said = comment(folder, "-o", "-")
    assert said.returncode == 0 and said.stdout.startswith(MARKER), said.stderr
    failed = comment(folder, "-o", "-", "--fail-on-slower", "1")
    assert failed.returncode == 1 and "p50 at back-to-back TCP" in failed.stderr, failed.stderr
    assert comment(folder, "-o", "-", "--fail-on-slower", "500").returncode == 0
