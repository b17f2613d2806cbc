"""The README and the guide stay true: links and anchors resolve, figures come from their source or a generated
block, the README stays a landing page, and its first answer has today's table. Each check also fails on a plant."""

import os
import re
import subprocess
import textwrap

import pytest

from analysis.rtt import narrow
from analysis.rtt import table as rtt_table
from analysis.rtt.runs import MISSED_BY
from doc_checks import broken_links, paragraphs, sentence_lengths, unsourced_figures
from findings import first_answer, headline, page
from suite import tdist
from sweep_helpers import REPO
from sweepkit.defaults import DEFAULTS

README = REPO / "README.md"
PAGES = [README, REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md", REPO / "ARCHITECTURE.md",
         *sorted((REPO / "docs").glob("*.md"))]
# Figures of the README that are definitions, each checked against the code that defines it.
KNOWN = {"95 %": tdist.CONFIDENCE == 0.95, "5 %": MISSED_BY == 0.05}
DEFAULT_POINTS = 44  # -asStP: four runtimes × two transports × five rates, and ICMP at four


def test_the_readme_is_a_landing_page_a_newcomer_reads_in_five_minutes():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    median, longest = sentence_lengths(text)
    assert median <= 20 and longest <= 40, (median, longest)
    for section in ("## What it finds", "## What you need", "## A first answer in five minutes",
                    "## How to read a row", "## FAQ", "## Read further"):
        assert section in text


def test_a_long_sentence_is_counted_as_one():
    long = "The suite " + " ".join(["measures"] * 45) + " latency. Short one here."
    assert sentence_lengths(long)[1] > 40


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_relative_link_and_anchor_resolves(path):
    assert broken_links(path) == []


def test_a_broken_link_and_a_missing_anchor_are_found(tmp_path):
    (tmp_path / "there.md").write_text("# A heading: with `code`\n\ntext\n")
    page_md = tmp_path / "page.md"
    page_md.write_text("[ok](there.md#a-heading-with-code) [gone](nowhere.md) [anchor](there.md#no-such)\n"
                       "[self](#title)\n\n# Title\n\n```\n[in code](ignored.md)\n```\n")
    assert [p.split(": ", 1)[1] for p in broken_links(page_md)] == [
        "nowhere.md: no such file", "there.md#no-such: no such heading in there.md"]


def test_the_guide_index_links_every_page_and_each_page_opens_with_what_it_is_for():
    index = (REPO / "docs" / "index.md").read_text()
    linked = set(re.findall(r"\]\(([\w.-]+\.md)", index))
    pages = {p.name for p in (REPO / "docs").glob("*.md")} - {"index.md"}
    assert pages <= linked, pages - linked
    for name in pages | {"../CONTRIBUTING.md", "../CHANGELOG.md"}:
        lines = (REPO / "docs" / name).read_text().splitlines()
        assert lines[0].startswith("# ") and lines[1] == "" and len(lines[2]) > 20, name


def test_the_readme_headline_is_docs_findings_blocks():
    text = README.read_text()
    assert "findings:headline" in text
    assert page.rewrite(text, {"headline": headline.headline((REPO / "docs" / "findings.md").read_text())}) == text


def test_a_stale_headline_figure_is_found(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(README.read_text().replace(headline.figures((REPO / "docs" / "findings.md").read_text())["std"],
                                                 "15.8 [15.1–16.6]", 1))
    args = ["--readme", str(readme), "--page", str(REPO / "docs" / "findings.md")]
    assert headline.main(["--check", *args]) == 1
    assert headline.main(args) == 0 and headline.main(["--check", *args]) == 0


@pytest.mark.parametrize("name", ["README.md", "docs/index.md", "CHANGELOG.md"])
def test_every_figure_in_the_prose_is_in_a_page_its_paragraph_links_to(name):
    assert all(KNOWN.values()), KNOWN
    assert unsourced_figures(REPO / name, known=set(KNOWN)) == []


def test_a_planted_stale_figure_is_found(tmp_path):
    (tmp_path / "docs").symlink_to(REPO / "docs")
    text = README.read_text()
    assert "14 min 40 s" in text  # the default sweep's time with STOP=fixed, as docs/analysis.md measured it
    (tmp_path / "README.md").write_text(text.replace("14 min 40 s", "12 min 41 s"))
    assert [p.split(" ", 3)[:3] for p in unsourced_figures(tmp_path / "README.md", known=set(KNOWN))] == [
        ["12", "min", "41"]]


DEFAULT_CLAIM = re.compile(r"\bdefault (?:sweep|`-asStP`|`\./run-localhost\.sh -asStP`)[^.;]*?"
                           r"\b(\d[\d ]*\d|\d) (repeats|runs)\b")


def stale_defaults(text: str) -> list[str]:
    """Each "default sweep … N repeats/runs" whose N is not today's default (a figure of then says so)."""
    want = {"repeats": DEFAULTS["REPEATS"], "runs": DEFAULT_POINTS * int(DEFAULTS["REPEATS"])}
    return [f"{m[0]}" for para in paragraphs(text) for m in DEFAULT_CLAIM.finditer(para)
            if "of then" not in m[0] and int(m[1].replace(" ", "")) != int(want[m[2]])]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_a_default_sweep_is_said_with_todays_repeats_and_runs(path):
    assert stale_defaults(path.read_text()) == []


def test_a_default_sweep_of_old_repeats_is_found():
    assert stale_defaults("A default sweep (`-asStP`, 14 repeats, 616 runs) took long.") != []
    assert stale_defaults("A default sweep of then (`-asStP`, 14 repeats, 616 runs) took long.") == []


def test_every_command_of_parse_py_is_in_the_analysis_guide():
    from analysis.cli import COMMANDS

    guide = (REPO / "docs" / "analysis.md").read_text()
    said = re.search(r"^(\w+) commands, each with only its own options", guide, re.MULTILINE)
    numbers = {"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13}
    assert said and numbers[said[1].lower()] == len(COMMANDS)
    assert all(f"`{name}`" in guide for name, _, _ in COMMANDS)


def test_the_sweeps_guide_lists_every_flag_of_runtimes_json():
    from suite import runtimes

    guide = (REPO / "docs" / "sweeps.md").read_text()
    assert [e.flag for e in runtimes.entries() if f"| `-{e.flag}` |" not in guide] == []


# -- the first answer -----------------------------------------------------------------------------------------

def first_answer_block() -> list[str]:
    body = re.search(r"^<!-- findings:first-answer -->\n(.*?)^<!-- /findings:first-answer -->$", README.read_text(),
                     re.MULTILINE | re.DOTALL)
    assert body, "README.md has no first-answer block"
    console = re.search(r"```console\n(.*?)```", body[1], re.DOTALL)
    assert console, "the first-answer block holds no console output: python3 -m findings.first_answer"
    return console[1].splitlines()


def test_the_first_answers_command_still_plans_the_runs_it_shows(tmp_path):
    lines = first_answer_block()
    assert lines[0] == f"$ {first_answer.command()}"
    env = {**os.environ, **dict(first_answer.KNOBS), "DRY_RUN": "1", "OUT_DIR": str(tmp_path)}
    dry = subprocess.run(["./run-localhost.sh", first_answer.FLAGS], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=60)
    planned = next(line for line in dry.stdout.splitlines() if line.startswith("Plan:"))
    assert lines[1].split(", about")[0] == planned.split(", about")[0]


def test_the_first_answers_table_has_todays_columns_and_notes():
    lines = first_answer_block()
    header = next(line for line in lines if line.startswith("framework"))
    assert re.split(r"\s{2,}", header.strip()) == [narrow.SHORT.get(h, h) for h in narrow.FIRST]
    notes = lines[lines.index("", lines.index(header)) + 1:]
    hosts = "system check as the sweep started (sweep.json hosts[].warnings):"  # the sweep's own warnings follow
    notes = notes[:notes.index(hosts)] if hosts in notes else notes
    possible = [narrow.QUANTILES, narrow.INTERVAL, narrow.OPEN, narrow.WITHIN_RUN, narrow.TOO_FEW,
                narrow.DELTA.format(noise="2 %"), narrow.MISSED, rtt_table.BACK_TO_BACK, narrow.WIDE,
                *rtt_table.marks(True, True, True, True)]
    lines_of = {line for note in possible for line in textwrap.wrap(note, narrow.WIDTH, subsequent_indent="  ")}
    assert notes and [line for line in notes if line not in lines_of] == []
    rows = lines[lines.index(header) + 2:lines.index("", lines.index(header))]
    assert len(rows) == 8 and {row.split()[0] for row in rows} == {"std", "tokio"}


def test_the_row_the_readme_reads_is_a_row_of_its_first_answer():
    row = re.search(r"^<!-- findings:first-answer-row -->\n```\n(.*?)\n```\n^<!-- /findings:first-answer-row -->$",
                    README.read_text(), re.MULTILINE | re.DOTALL)
    assert row, "README.md's first-answer-row block is empty: python3 -m findings.first_answer --no-sweep"
    header, tokio = row[1].splitlines()
    shown = first_answer_block()
    assert header in shown and tokio in shown and [w for w in tokio.split() if w not in "‡*"][:3] == ["tokio", "tcp", "∞"]
