"""The RTT table at a terminal's width: a default sweep's fits 120 columns, --wide and CSV keep every column."""

import json

import numpy as np
import pytest

from analysis.rtt import narrow, table

from .conftest import cli
from .logs import write_repeats, write_run

RUNTIMES = {"std": 20_000, "tokio": 23_000, "async-std": 25_000, "smol": 24_000}
RATES = (0.1, 0.01, 0.001, 0.0001, 0.0)  # the default INTERVALS
SAMPLES = {0.1: 8, 0.01: 80, 0.001: 800, 0.0001: 2_000, 0.0: 2_000}  # about what 0.1 s of each rate holds


@pytest.fixture(scope="module")
def default_sweep(tmp_path_factory):
    """The default -asStP's points, 6 rounds each: four runtimes over TCP and UDP at five rates, and ICMP."""
    folder = tmp_path_factory.mktemp("default")
    rng = np.random.default_rng(7)
    for i, (runtime, median) in enumerate(RUNTIMES.items()):
        for transport in ("tcp", "udp"):
            for j, interval in enumerate(RATES):
                write_repeats(folder, runtime, transport, interval, rng.normal(0, 0.05, 6), median_ns=median,
                              n=SAMPLES[interval], seed=100 * i + 10 * j + len(transport))
    for interval in RATES[:-1]:
        write_repeats(folder, "ping", "icmp", interval, rng.normal(0, 0.05, 6), median_ns=15_000,
                      n=SAMPLES[interval], seed=900)
    return folder


def lines_of(capsys, *args) -> list[str]:
    status, out, _ = cli(capsys, "table", *args)
    assert status == 0
    return out.splitlines()


def test_a_default_sweeps_table_fits_120_columns_notes_included(capsys, default_sweep):
    lines = lines_of(capsys, "-d", default_sweep)
    assert max(len(line) for line in lines) <= narrow.WIDTH
    assert lines[0].split()[:3] == ["framework", "transport", "msg/s"] and lines[0].split()[-2:] == ["verdict", "at"]
    assert sum(line.startswith(("std ", "tokio ", "async-std ", "smol ", "ping ")) for line in lines) == 44
    # The wide table is what the narrow one leaves out: it does not fit.
    wide = lines_of(capsys, "-d", default_sweep, "--wide")
    assert max(len(line) for line in wide) > 2 * narrow.WIDTH
    assert all(header in wide[0] for header in table.HEADERS)
    assert "MDE" not in lines[0] and "max µs" not in lines[0]


def test_the_narrow_table_keeps_the_verdict_and_says_only_what_its_rows_use(capsys, default_sweep):
    lines = lines_of(capsys, "-d", default_sweep)
    tokio = [line for line in lines if line.startswith("tokio ")]
    words = ("slower", "faster", "same", "undecided")  # and the round of the look that decided it, if one did
    assert len(tokio) == 10 and all(any(f" {word}" in line for word in words) for line in tokio)
    text = "\n".join(lines)
    assert "too few" in text and narrow.TOO_FEW.split(":")[0] + ":" in text  # p99 at 10 and 100 msg/s
    assert "∞ = back-to-back" in text
    for absent in ("! achieved", "‡", "(within-run)"):
        assert absent not in text, absent
    rows, notes = "\n".join(lines[:lines.index("")]), "\n".join(lines[lines.index(""):])
    assert ("[–]" in rows) == ("[–]:" in notes)
    # Only the back-to-back rows: no quantile is refused, and the note about refusals is left out too.
    fast = "\n".join(lines_of(capsys, "-d", default_sweep, "-r", "inf"))
    assert "too few" not in fast and "∞ = back-to-back" in fast


def test_a_dimension_that_differs_between_rows_keeps_its_column_and_a_missed_rate_its_mark(capsys, tmp_path):
    for k in (1, 2, 3):
        for tasks in (0, 100):
            write_run(tmp_path, "std", "tcp", 0.001, np.full(500, 20_000 + k), tasks=tasks, repeat=k)
            write_run(tmp_path, "tokio", "tcp", 0.001, np.full(500, 30_000 + k), tasks=tasks, repeat=k,
                      achieved=700.0)
    lines = lines_of(capsys, "-d", tmp_path)
    assert "tasks" in lines[0].split() and "size" not in lines[0]
    tokio = [line for line in lines if line.startswith("tokio ")]
    assert len(tokio) == 2 and all("1 k !" in line for line in tokio)
    assert any(line.startswith("! achieved rate") for line in lines)
    csv = lines_of(capsys, "-d", tmp_path, "--format", "csv")
    assert csv[0] == ",".join([*table.CSV_COLUMNS, *table.OTHERS])


def test_the_hosts_warnings_are_kept_and_wrapped_to_the_width(capsys, tmp_path):
    for k in (1, 2, 3):
        write_run(tmp_path, "std", "tcp", 0.0, np.full(500, 20_000 + k), repeat=k)
    busy = ("other processes are using 2.17 CPUs (busiest: python3 (pid 6249) 0.67 CPUs; python (pid 6093) 0.57 "
            "CPUs): their work lands in the figures and widens the spread; let them finish, or stop them")
    (tmp_path / "sweep.json").write_text(json.dumps({"knobs": {}, "hosts": {"vm": {"role": "local",
                                                                                  "warnings": [busy]}}}))
    lines = lines_of(capsys, "-d", tmp_path)
    assert max(len(line) for line in lines) <= narrow.WIDTH
    said = lines[lines.index("system check as the sweep started (sweep.json hosts[].warnings):") + 1:]
    assert said[0].startswith("  vm: other processes") and all(line.startswith("    ") for line in said[1:])
    assert " ".join(line.strip() for line in said) == f"vm: {busy}"
