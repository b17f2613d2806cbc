"""--variance: each point's spread split into within a run, between runs of a round, what a round shares and
what a block (the frameworks of one setting in one round) shares."""

import io
import math

import numpy as np
import pandas as pd
import pytest

from analysis.rtt import variance
from analysis.rtt.runs import KEYS

from .conftest import cli
from .logs import write_repeats, write_sweep_info

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


def planted_table(rng, settings=12, rounds=30, round_sd=0.05, block_sd=0.15, run_sd=0.04) -> pd.DataFrame:
    """log p50 of std, tokio and smol at `settings` settings × `rounds` rounds: each point's level, plus its
    round's shift (shared by every point), plus its block's (shared by the frameworks of one setting in one
    round), plus its own."""
    index = pd.MultiIndex.from_tuples([(fw, "tcp", 64, 0.001 * (s + 1), 0, 1, "closed")
                                       for s in range(settings) for fw in ("std", "tokio", "smol")], names=KEYS)
    round_shift = rng.normal(0, round_sd, rounds)
    block_shift = np.repeat(rng.normal(0, block_sd, (settings, rounds)), 3, axis=0)
    values = (rng.uniform(9, 11, (len(index), 1)) + round_shift + block_shift
              + rng.normal(0, run_sd, (len(index), rounds)))
    return pd.DataFrame(values, index=index, columns=pd.RangeIndex(1, rounds + 1, name="round"))


def test_the_block_part_and_the_paired_spread_come_out_as_planted():
    rng = np.random.default_rng(29)
    table = planted_table(rng)
    block = np.sqrt(variance.block_share(table))
    assert block.notna().all() and block.groupby(level="interval_s").nunique().eq(1).all()  # one per setting
    assert 0.12 < block.median() < 0.2  # round and block: √(0.05² + 0.15²) = 0.158
    share, _ = variance._round_share(table)
    assert 0.02 < math.sqrt(share) < 0.09  # the round part alone
    paired, unpaired = variance.delta_spreads(table)
    assert paired.loc["std"].isna().all() and unpaired.loc["std"].isna().all()
    assert 0.045 < paired.drop("std", level="framework").median() < 0.07  # √2 × the runs' own 0.04
    assert 0.18 < unpaired.drop("std", level="framework").median() < 0.3  # √2 × √(0.05² + 0.15² + 0.04²) = 0.23


def test_without_a_shared_block_its_part_is_near_zero_and_pairing_buys_nothing():
    table = planted_table(np.random.default_rng(7), round_sd=0.0, block_sd=0.0, run_sd=0.1)
    assert np.sqrt(variance.block_share(table)).median() < 0.04
    paired, unpaired = variance.delta_spreads(table)
    assert paired.median() == pytest.approx(unpaired.median(), rel=0.15)


def test_a_missing_run_leaves_its_round_out_of_its_setting_only():
    rng = np.random.default_rng(3)
    table = planted_table(rng, settings=3, rounds=12)
    table.iloc[0, 4] = np.nan  # std at the first setting, round 5
    block = variance.block_share(table)
    assert block.notna().all()
    assert (block.iloc[3:] == variance.block_share(table.iloc[3:])).all()  # the other settings as before
    single = table.iloc[[0]]  # a setting with one framework (the ICMP reference's) has no block part
    assert variance.block_share(single).isna().all()


@pytest.fixture(scope="module")
def blocks_sweep(tmp_path_factory):
    """std and tokio at 4 settings × 8 rounds; each (setting, round) block shifted by sd 0.2, each run by 0.05."""
    folder = tmp_path_factory.mktemp("blocks")
    rng = np.random.default_rng(5)
    settings = [(t, iv) for t in ("tcp", "udp") for iv in (0.001, 0.0)]
    shifts = {s: rng.normal(0, 0.2, ROUNDS) for s in settings}
    for i, (framework, (transport, interval)) in enumerate((f, s) for f in ("std", "tokio") for s in settings):
        write_repeats(folder, framework, transport, interval, shifts[transport, interval] + rng.normal(0, RUN_SD, ROUNDS),
                      median_ns=30_000 * (1 + i), seed=i + 1)
    return folder


def test_the_variance_table_shows_the_block_part_the_paired_spread_and_the_order(capsys, blocks_sweep):
    table = variance_csv(capsys, blocks_sweep)
    assert 0.1 < table["p50_sd_block"].median() < 0.35 and table["p50_sd_round"].iloc[0] < 0.15
    tokio = table[table["framework"] == "tokio"]
    assert (tokio["delta_sd_paired"] < 0.12).all() and (tokio["delta_sd_unpaired"] > 0.15).all()
    assert table.loc[table["framework"] == "std", "delta_sd_paired"].isna().all()
    status, out, _ = cli(capsys, "-d", blocks_sweep, "--variance")
    assert status == 0 and "p50 block" in out.splitlines()[0] and "Δ paired" in out.splitlines()[0]
    assert "median over runtime points: Δ paired " in out and "ORDER=" not in out  # no sweep.json: not known
    write_sweep_info(blocks_sweep, ORDER="blocks")
    assert "ORDER=blocks: each setting's frameworks ran back to back" in cli(capsys, "-d", blocks_sweep, "--variance")[1]
    with_blocks = cli(capsys, "-d", blocks_sweep, "--summary", "--format", "csv")[1]
    write_sweep_info(blocks_sweep)  # a sweep.json from before ORDER: its runs ran in rounds
    assert "ORDER=rounds (or a sweep.json from before ORDER)" in cli(capsys, "-d", blocks_sweep, "--variance")[1]
    assert cli(capsys, "-d", blocks_sweep, "--summary", "--format", "csv")[1] == with_blocks  # the same Δs
