"""Damaged logs of real runs (a CSV or a JSON cut short): named, left out of their point, the repeats left said."""

# Three real repeats of one point (a real pong and ping each); one of them is then damaged the way a
# full disk or a stopped copy leaves a file: cut mid-line, cut at a line's end, or its JSON cut. The
# point's estimate must be the other two's, as if the damaged one had never been written.

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import quantiles
from analysis import uncertainty as u
from suite import runtimes

from .conftest import cli
from .real_runs import run_point

REPEATS = 4
DAMAGED = 2  # the round whose log is damaged


@pytest.fixture(scope="module", params=["rtt", "throughput"])
def repeated(request, tmp_path_factory) -> tuple[str, list[Path]]:
    """A kind and the stems of REPEATS real runs of one std TCP point, rounds 1…REPEATS, in one folder."""
    kind, folder = request.param, tmp_path_factory.mktemp(f"repeated-{request.param}")
    stems = []
    for k in range(1, REPEATS + 1):
        stem = run_point(folder / f"run{k}", runtimes.by_label("std"), "tcp", kind)
        stems.append(folder / "sweep" / f"{stem.name}-r{k}")
        stems[-1].parent.mkdir(exist_ok=True)
        for suffix in (".json", ".csv"):
            shutil.move(f"{stem}{suffix}", f"{stems[-1]}{suffix}")
    return kind, stems


def copy_of(stems: list[Path], where: Path) -> list[Path]:
    where.mkdir()
    for stem in stems:
        for suffix in (".json", ".csv"):
            shutil.copy(f"{stem}{suffix}", where / f"{stem.name}{suffix}")
    return [where / stem.name for stem in stems]


def cut_mid_line(csv: Path) -> None:
    """Keep about the first 60 % of the bytes, ending inside a row."""
    data = csv.read_bytes()
    at = int(0.6 * len(data))
    while data[at - 1:at] == b"\n" or data[at:at + 1] == b"\n":
        at -= 1
    csv.write_bytes(data[:at])


def cut_at_line_end(csv: Path) -> None:
    """Keep the header and about the first half of the rows, whole."""
    lines = csv.read_bytes().splitlines(keepends=True)
    csv.write_bytes(b"".join(lines[:max(2, len(lines) // 2)]))


def cut_json(json_path: Path) -> None:
    text = json_path.read_bytes()
    json_path.write_bytes(text[:len(text) // 2])


# What each kind's estimate is read from: the CSV column of the table, the JSON field of each run.
MEDIAN = {"rtt": ("p50_ns", "p50_low_ns", "p50_high_ns", lambda log: log["rtt_ns"]["p50"], 0),
          "throughput": ("msg_per_s_p50", "msg_per_s_p50_low", "msg_per_s_p50_high",
                         lambda log: log["msg_per_s"]["p50"], 1)}


def table(capsys, folder: Path, kind: str) -> tuple[pd.Series, list[str]]:
    status, out, err = cli(capsys, "-d", folder, "-k", kind, "--format", "csv")
    assert status == 0, err
    rows = pd.read_csv(pd.io.common.StringIO(out))
    assert len(rows) == 1, out
    return rows.iloc[0], [line for line in err.splitlines() if line.startswith("warning:")]


def assert_estimate_of_the_others(row: pd.Series, kind: str, stems: list[Path]) -> None:
    """The point's estimate is made of the intact repeats alone, to the table's digits."""
    value, low, high, of, digits = MEDIAN[kind]
    assert row["repeats"] == REPEATS - 1
    if kind == "rtt":  # a quantile of the intact repeats' samples pooled, or refused as they would refuse it
        runs = [np.sort(pd.read_csv(f"{s}.csv")["rtt_ns"].to_numpy()) for k, s in enumerate(stems, 1) if k != DAMAGED]
        expected = quantiles.estimates(runs, {"p50": 0.5})["p50"]
        if isinstance(expected, quantiles.Refused):
            assert np.isnan(row[value]) and str(expected) in row["refused"]
            return
    else:  # the mean of the intact repeats' medians with their t interval
        intact = [of(json.loads(Path(f"{s}.json").read_text())) for k, s in enumerate(stems, 1) if k != DAMAGED]
        expected = u.across_runs(intact, floor=0.0)
    assert row[value] == pytest.approx(round(expected.value, digits), abs=10**-digits)
    if np.isnan(expected.low):  # three runs that differ more than three can bound: an interval left open
        assert np.isnan(row[low]) and np.isnan(row[high])
        return
    assert row[low] == pytest.approx(round(expected.low, digits), abs=10**-digits)
    assert row[high] == pytest.approx(round(expected.high, digits), abs=10**-digits)
    assert 0 <= row[low] <= row[value] <= row[high]


@pytest.mark.parametrize(("cut", "fault"), [
    (cut_mid_line, "its CSV ends in the middle of a line (cut short)"),
    (cut_at_line_end, "but its JSON says"),
])
def test_a_csv_cut_short_is_named_and_left_out_of_its_point(capsys, tmp_path, repeated, cut, fault):
    kind, stems = repeated
    stems = copy_of(stems, tmp_path / "sweep")
    damaged = Path(f"{stems[DAMAGED - 1]}.csv")
    cut(damaged)
    row, warnings = table(capsys, tmp_path / "sweep", kind)
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"warning: {damaged}: ") and fault in warnings[0]
    assert warnings[0].endswith(f"; skipped: its point has {REPEATS - 1} repeats left")
    assert_estimate_of_the_others(row, kind, stems)


def test_a_json_cut_short_is_named_as_such_not_as_missing(capsys, tmp_path, repeated):
    kind, stems = repeated
    stems = copy_of(stems, tmp_path / "sweep")
    damaged = Path(f"{stems[DAMAGED - 1]}.json")
    cut_json(damaged)
    row, warnings = table(capsys, tmp_path / "sweep", kind)
    assert len(warnings) == 1, warnings  # not also "no ….json beside it" for its CSV
    assert warnings[0].startswith(f"warning: {damaged}: its JSON is not valid JSON (")
    assert warnings[0].endswith(f"; skipped: its point has {REPEATS - 1} repeats left")
    assert_estimate_of_the_others(row, kind, stems)


def test_the_last_repeat_of_a_point_damaged_leaves_none_and_says_so(capsys, tmp_path, repeated):
    kind, stems = repeated
    only = copy_of(stems[:1], tmp_path / "one")[0]
    cut_mid_line(Path(f"{only}.csv"))
    status, _, err = cli(capsys, "-d", tmp_path / "one", "-k", kind, "--summary")
    assert status == 1
    assert f"warning: {only}.csv: its CSV ends in the middle of a line (cut short); skipped: its point has no repeat " \
           "left\n" in err
    assert f"no usable {kind} log in {tmp_path / 'one'}: every one was skipped" in err
