"""The system check's warnings a sweep recorded (sweep.json hosts[].warnings) in the table's footnotes and on the
machine page; a sweep.json from before the check reads as before."""

import json

import numpy as np
import pytest

from analysis import pages, rtt
from analysis.sweep import Filters, collect

from .conftest import cli
from .logs import write_repeats

IRQ = "irqbalance is running: it moves interrupts between CPUs during the sweep; stop it (systemctl stop irqbalance)"
THP = "transparent huge pages are `always`: khugepaged can stall a process; set madvise"


@pytest.fixture
def sweep_dir(tmp_path):
    rounds = np.random.default_rng(3).normal(0.0, 0.1, 3)
    write_repeats(tmp_path, "std", "tcp", 0.0, rounds, seed=1)
    write_repeats(tmp_path, "tokio", "tcp", 0.0, rounds, seed=2)
    return tmp_path


def with_hosts(folder, hosts: dict) -> None:
    (folder / "sweep.json").write_text(json.dumps({"knobs": {"DURATION": "1"}, "hosts": hosts}))


def test_the_tables_footnotes_name_each_hosts_warnings(capsys, sweep_dir):
    with_hosts(sweep_dir, {"hosta": {"role": "ping", "warnings": [IRQ]},
                           "hostb": {"role": "pong", "warnings": [THP, IRQ]}})
    for table in ("text", "markdown"):
        status, out, err = cli(capsys, "-d", sweep_dir, "--summary", "--format", table)
        assert status == 0, err
        notes = out[out.index("system check as the sweep started"):]
        assert [line.strip() for line in notes.splitlines()[1:4]] == [f"hosta: {IRQ}", f"hostb: {THP}",
                                                                      f"hostb: {IRQ}"]


def test_a_sweep_without_warnings_or_from_before_the_check_has_no_such_footnote(capsys, sweep_dir):
    for hosts in ({"hosta": {"role": "local", "warnings": []}}, {"hosta": {"role": "local", "kernel": "6.1"}}):
        with_hosts(sweep_dir, hosts)
        status, out, err = cli(capsys, "-d", sweep_dir, "--summary")
        assert status == 0 and "system check" not in out, err


def test_the_machine_page_opens_with_the_warnings(sweep_dir):
    with_hosts(sweep_dir, {"hosta": {"role": "local", "warnings": [IRQ]}})
    sweep = collect(sweep_dir, rtt.KIND, Filters(), False, print)
    (fig,) = pages.machine_page(sweep, sweep.runs)
    first_column = fig.axes[0].texts[0].get_text().splitlines()
    assert first_column[0] == "warnings of the system check as the sweep started:"
    assert first_column[1].startswith("  ! hosta: irqbalance is running: it moves")
    assert " ".join(" ".join(first_column[1:4]).split()) == f"! hosta: {IRQ}"  # wrapped to the column, whole
