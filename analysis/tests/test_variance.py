"""--variance: each point's spread split into within a run, between runs of a round, and what a round shares."""

import io

import numpy as np
import pandas as pd
import pytest

from .conftest import cli
from .logs import write_repeats

ROUND_SD, RUN_SD, ROUNDS = 0.20, 0.05, 8


@pytest.fixture(scope="module")
def known_parts(tmp_path_factory):
    """8 points × 8 rounds with a known truth: every point of round k is off by the same round offset (sd
    0.20 in log), each run by its own offset (sd 0.05), and each run's median carries the sampling error
    of its 2000 samples."""
    folder = tmp_path_factory.mktemp("variance")
    rng = np.random.default_rng(11)
    rounds = rng.normal(0, ROUND_SD, ROUNDS)
    for i, (framework, transport, interval) in enumerate(
            (f, t, iv) for f in ("std", "tokio") for t in ("tcp", "udp") for iv in (0.001, 0.0)):
        runs = rounds + rng.normal(0, RUN_SD, ROUNDS)
        write_repeats(folder, framework, transport, interval, runs, median_ns=30_000 * (1 + i), seed=i + 1)
    return folder


def variance_csv(capsys, folder) -> pd.DataFrame:
    status, out, err = cli(capsys, "-d", folder, "--variance", "--format", "csv")
    assert status == 0, err
    return pd.read_csv(io.StringIO(out))


def test_the_parts_come_out_as_planted(capsys, known_parts):
    table = variance_csv(capsys, known_parts)
    assert len(table) == 8 and (table["repeats"] == ROUNDS).all()
    assert table["p50_sd_round"].nunique() == 1  # sweep-wide
    assert 0.10 < table["p50_sd_round"].iloc[0] < 0.35
    assert 0.025 < table["p50_sd_between"].median() < 0.09
    assert table["p50_sd_within"].median() < 0.02  # 2000 samples pin a median down well
    assert 0.12 < table["p50_sd_total"].median() < 0.35
    assert (table["p99_sd_within"] > table["p50_sd_within"]).all()  # a tail has fewer samples behind it


def test_the_text_table_names_its_parts_and_a_single_repeat_is_refused(capsys, known_parts, tmp_path):
    status, out, err = cli(capsys, "-d", known_parts, "--variance")
    assert status == 0, err
    assert "p50 total" in out.splitlines()[0] and "p99 round" in out.splitlines()[0]
    assert "median over points: p50 total" in out
    write_repeats(tmp_path, "std", "tcp", 0.0, [0.0])
    status, out, err = cli(capsys, "-d", tmp_path, "--variance")
    assert status == 1 and "REPEATS=2 or more" in err
    status, out, err = cli(capsys, "-d", tmp_path, "--variance", "-k", "throughput")
    assert status == 2 and "--variance reads one sweep of RTT logs" in err
