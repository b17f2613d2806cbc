"""Repeated runs: every repeat is used, intervals come from the spread across them (or, with one
repeat, from the run's own samples, marked within-run), and Δ vs std is paired by round."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

from analysis import quantiles, rtt
from suite import palette, percentile
from analysis import uncertainty as u
from analysis.load import round_of
from analysis.rtt.table import CSV_COLUMNS

from .conftest import cli, pages
from .logs import samples, write_repeats, write_run

NEW_COLUMNS = ("repeats,p50_low_ns,p50_high_ns,p99_low_ns,p99_high_ns,p999_low_ns,p999_high_ns,"
               "delta_p50_ns,delta_p50_low_ns,delta_p50_high_ns,verdict")
CONNECTION_COLUMNS = "connections,load,latency_p99_ns,latency_p99_low_ns,latency_p99_high_ns,starved"
SENSITIVITY_COLUMNS = "mde_p50_ns,mde_p50_pct,interval_method,delta_interval_method"
TAIL_COLUMNS = "p9999_ns,delta_p99_ns,delta_p99_low_ns,delta_p99_high_ns,verdict_p99,mde_p99_ns,mde_p99_pct,refused"
BASE_COLUMNS = "delta_base_p50_ns,delta_base_p50_low_ns,delta_base_p50_high_ns,verdict_base"  # a variant vs its base


def csv_table(capsys, *args) -> pd.DataFrame:
    status, out, err = cli(capsys, "--format", "csv", *args)
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), keep_default_na=False)


def row(table, framework, transport="tcp") -> pd.Series:
    found = table[(table["framework"] == framework) & (table["transport"] == transport)]
    assert len(found) == 1
    return found.iloc[0]


@pytest.fixture
def paired_dir(tmp_path):
    """std and tokio, TCP back-to-back, 5 rounds. Each round shifts both by a large common offset
    (the machine was busier in that round); tokio is 5 % slower than std in every round."""
    rounds = np.random.default_rng(7).normal(0.0, 0.25, 5)
    write_repeats(tmp_path, "std", "tcp", 0.0, rounds, seed=1)
    write_repeats(tmp_path, "tokio", "tcp", 0.0, rounds + np.log(1.05), seed=2)
    return tmp_path


def test_the_round_comes_from_the_stem_and_is_1_without_a_suffix():
    assert round_of("tokio-tcp-64B-0.001s-0t-r3") == 3
    assert round_of("tokio-tcp-64B-throughput-10t-r12") == 12
    assert round_of("tokio-tcp-64B-0.001s-0t") == 1


def test_csv_keeps_its_columns_and_adds_exactly_the_interval_and_connection_columns(capsys, paired_dir):
    table = csv_table(capsys, "-d", paired_dir)
    assert ",".join(CSV_COLUMNS).endswith(
        f",lost,{NEW_COLUMNS},{CONNECTION_COLUMNS},{SENSITIVITY_COLUMNS},{TAIL_COLUMNS},{BASE_COLUMNS},"
        "decided_at,decided_at_base,decided_at_p99,empty")
    assert list(table.columns) == CSV_COLUMNS


def test_every_repeat_is_used(capsys, paired_dir):
    table = csv_table(capsys, "-d", paired_dir)
    std = row(table, "std")
    assert std["repeats"] == 5 and std["n"] == 5 * 2_000
    values = [pd.read_csv(paired_dir / f"std-tcp-64B-0s-0t-r{k}.csv")["rtt_ns"].to_numpy() for k in range(1, 6)]
    pooled = np.sort(np.concatenate(values))  # runs of one size: the pooled nearest rank, rank 5 000 of 10 000
    assert std["p50_ns"] == pooled[5_000 - 1] == percentile.of(pooled, 50)
    found = quantiles.woodruff([np.sort(v) for v in values], [0.5])
    low, high, inside = found.lows, found.highs, found.inside
    assert inside[0] and (std["p50_low_ns"], std["p50_high_ns"]) == (low[0], high[0])
    assert low[0] < pooled[5_000 - 1] < high[0]
    assert std["interval_method"] == "woodruff-across-runs"
    assert std["delta_p50_ns"] == "" and std["verdict"] == ""  # std is the baseline


def test_delta_is_paired_by_round_and_calls_a_5_percent_slowdown(capsys, paired_dir):
    table = csv_table(capsys, "-d", paired_dir)
    tokio, std = row(table, "tokio"), row(table, "std")
    assert tokio["verdict"] == "slower"
    low, delta, high = (float(tokio[f"delta_p50{end}_ns"]) for end in ("_low", "", "_high"))
    assert 0 < low < delta < high
    assert delta == pytest.approx(0.05 * std["p50_ns"], rel=0.3)
    # Unpaired, the rounds' common offsets would swamp the difference: the intervals overlap.
    assert tokio["p50_low_ns"] < std["p50_high_ns"]
    # The smallest Δ it could have called, from the paired spread: below the 5 % it did call.
    mde = u.detectable(u.Estimate(delta, low, high, 5, u.ACROSS_RUNS, 4))
    detectable, share = float(tokio["mde_p50_ns"]), float(tokio["mde_p50_pct"])
    assert detectable == pytest.approx(max(mde, 0.02 * std["p50_ns"]), abs=1)
    assert detectable < delta and share == pytest.approx(100 * detectable / std["p50_ns"], abs=0.1)
    assert tokio["interval_method"] == std["interval_method"] == "woodruff-across-runs"
    assert tokio["delta_interval_method"] == "t-across-repeats" and std["delta_interval_method"] == ""  # 5 rounds


def test_same_says_within_what(capsys, paired_dir):
    status, out, err = cli(capsys, "-d", paired_dir, "--summary", "--noise", "10")
    assert status == 0, err
    tokio = next(line for line in out.splitlines() if line.startswith("tokio"))
    std_p50 = row(csv_table(capsys, "-d", paired_dir), "std")["p50_ns"]
    assert "same ±10 %" in tokio and std_p50 > 0  # a noise threshold above the margin widens what counts as the same
    assert "MDE: the smallest Δp50" in out


def test_delta_uses_only_the_rounds_both_ran(capsys, tmp_path):
    write_repeats(tmp_path, "std", "tcp", 0.0, [0.0, 0.1, -0.1], seed=1)
    write_repeats(tmp_path, "tokio", "tcp", 0.0, [0.05, 0.15, -0.05, 0.5], seed=2)  # a 4th round alone
    status, out, err = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 0, err
    tokio = next(line for line in out.splitlines() if line.startswith("tokio"))
    assert " 4 " in tokio and "slower" in tokio  # 4 repeats shown, Δ from the 3 rounds in common
    from analysis.sweep import Filters, collect

    points = collect(tmp_path, rtt.KIND, Filters(), False, lambda *a, **k: None).points
    assert points.loc[points["framework"] == "tokio", "pairs"].item() == 3


def test_noise_threshold_turns_a_small_real_difference_into_same(capsys, paired_dir):
    assert row(csv_table(capsys, "-d", paired_dir, "--noise", "10"), "tokio")["verdict"] == "same"


def test_a_one_repeat_sweep_is_marked_within_run_and_its_delta_unknown(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 3_000))
    write_run(tmp_path, "tokio", "tcp", 0.001, samples(2, 3_000, 40_000))
    status, out, err = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 0, err
    lines = out.splitlines()
    assert all("1 (within-run)" in line for line in lines[2:4])
    assert lines[3].split()[-2] == "unknown" and "[–]" in lines[3]
    assert any("within-run" in line and "order statistics" in line for line in lines)
    table = csv_table(capsys, "-d", tmp_path)
    tokio = row(table, "tokio")
    assert tokio["repeats"] == 1 and tokio["p50_low_ns"] < tokio["p50_ns"] < tokio["p50_high_ns"]
    assert tokio["verdict"] == "unknown" and tokio["delta_p50_low_ns"] == ""
    assert tokio["mde_p50_ns"] == "" and tokio["interval_method"] == "within-run"


def test_references_get_no_delta_and_are_drawn(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(palette, "REFERENCES", palette.REFERENCES | {"busy-poll"})
    for framework, median in (("std", 30_000), ("tokio", 33_000), ("busy-poll", 12_000)):
        write_repeats(tmp_path, framework, "tcp", 0.001, [0.0, 0.03, -0.03], median_ns=median, n=500, seed=len(framework))
    table = csv_table(capsys, "-d", tmp_path)
    assert row(table, "busy-poll")["verdict"] == "" and row(table, "busy-poll")["delta_p50_ns"] == ""
    assert row(table, "tokio")["verdict"] == "slower"
    out = tmp_path / "stat.pdf"
    assert cli(capsys, "-d", tmp_path, "-t", "stat", "-o", out)[0] == 0 and pages(out) == 1


def test_delta_figure_has_a_page_per_payload_and_all_puts_it_first(capsys, tmp_path):
    for payload in (64, 1024):
        for framework, median in (("std", 30_000), ("tokio", 33_000), ("smol", 31_000)):
            for transport in ("tcp", "udp"):
                for interval in (0.001, 0.0):
                    write_repeats(tmp_path, framework, transport, interval, [0.0, 0.04, -0.02], n=300,
                                  median_ns=median, payload=payload, seed=payload + len(framework))
    out = tmp_path / "delta.pdf"
    assert cli(capsys, "-d", tmp_path, "-t", "delta", "-o", out)[0] == 0
    assert pages(out) == 2
    out = tmp_path / "all.pdf"
    assert cli(capsys, "-d", tmp_path, "-t", "all", "-o", out)[0] == 0
    first = PdfReader(out).pages[0].extract_text()
    assert "Latency each runtime adds over std" in first and "64 B" in first


def test_delta_figure_without_std_is_one_line_and_exit_1(capsys, tmp_path):
    write_run(tmp_path, "tokio", "tcp", 0.001, samples(1, 300))
    status, out, err = cli(capsys, "-d", tmp_path, "-t", "delta", "-o", tmp_path / "d.pdf")
    assert status == 1 and err.count("\n") == 1 and "no Δ to draw" in err


def test_throughput_repeats_give_msg_per_s_with_an_interval(capsys, tmp_path):
    from .logs import windows, write_throughput

    for k in range(1, 4):
        write_throughput(tmp_path, "tokio", "tcp", 64, windows(k, 30, 64, 40_000 * (1 + 0.02 * k)), repeat=k)
    write_throughput(tmp_path, "std", "tcp", 64, windows(9, 30, 64))
    table = csv_table(capsys, "-d", tmp_path, "-k", "throughput")
    tokio, std = row(table, "tokio"), row(table, "std")
    assert tokio["repeats"] == 3 and tokio["windows"] == 90
    assert tokio["msg_per_s_p50_low"] < tokio["msg_per_s_p50"] < tokio["msg_per_s_p50_high"]
    assert std["repeats"] == 1 and std["msg_per_s_p50_low"] <= std["msg_per_s_p50"] <= std["msg_per_s_p50_high"]
    status, out, _ = cli(capsys, "-d", tmp_path, "-k", "throughput", "--summary")
    assert status == 0 and "1 (within-run)" in out and " 3 " in out


def test_the_delta_axis_turns_logarithmic_when_one_runtime_is_far_slower():
    import matplotlib.pyplot as plt

    from analysis.rtt import figures

    def panel(slowest_us: float) -> pd.DataFrame:
        return pd.DataFrame({"framework": ["tokio", "glommio"], "framework_rank": [1, 2],
                             "interval_s": [0.0, 0.0], "verdict": ["slower", "slower"],
                             "delta_p50": [600e3, slowest_us * 1e3], "delta_p50_low": [590e3, slowest_us * 990],
                             "delta_p50_high": [610e3, slowest_us * 1010], "mde_p50": [20e3, 20e3]})
    for slowest_us, symlog in ((100_000.0, True), (1_000.0, False)):
        points = panel(slowest_us)
        assert figures.wants_symlog(points) is symlog
        fig, ax = plt.subplots()
        figures.delta(ax, points, figures.rate_positions(points["interval_s"]), symlog)
        assert ax.get_yscale() == ("symlog" if symlog else "linear")
        plt.close(fig)


def test_a_point_with_a_disturbed_repeat_is_marked_and_kept(capsys, paired_dir):
    stems = sorted(p.stem for p in paired_dir.glob("tokio-*-r2.json"))
    (paired_dir / "sweep.json").write_text(json.dumps({"runs": [
        {"stem": stems[0], "disturbed": "other processes used 0.90 CPUs during the run, its round's median 0.03"}]}))
    status, out, err = cli(capsys, "-d", paired_dir, "--summary")
    assert status == 0, err
    tokio = next(line for line in out.splitlines() if line.startswith("tokio"))
    std = next(line for line in out.splitlines() if line.startswith("std"))
    assert tokio.startswith("tokio ‡") and "‡" not in std and " 5 " in tokio  # all 5 repeats still counted
    assert "‡ a repeat ran while other processes or the hypervisor took far more CPU" in out


def test_a_rare_planted_delay_moves_the_p99_and_is_called_there_while_the_p50_is_the_same(capsys, tmp_path):
    """std and a variant whose every 50th sample is 200 µs late, 30 rounds of 1 000 samples: its Δp99 is called
    `slower` with an interval near +200 µs, its Δp50 `same`; an A/A variant is `same` on both."""
    rounds = np.random.default_rng(39).normal(0.0, 0.1, 30)
    write_repeats(tmp_path, "std", "tcp", 0.0001, rounds, n=1_000, seed=1)
    write_repeats(tmp_path, "tokio", "tcp", 0.0001, rounds, n=1_000, seed=2)  # the A/A line
    for k, offset in enumerate(rounds, start=1):
        delayed = samples(3000 + k, 1_000, 30_000 * np.exp(offset))
        delayed[::50] += 200_000
        write_run(tmp_path, "smol", "tcp", 0.0001, delayed, repeat=k)
    table = csv_table(capsys, "-d", tmp_path)
    tail, same = row(table, "smol"), row(table, "tokio")
    assert tail["verdict_p99"] == "slower" and tail["verdict"] == "same", tail
    assert 100_000 < int(tail["delta_p99_low_ns"]) < int(tail["delta_p99_ns"]) < int(tail["delta_p99_high_ns"])
    assert same["verdict_p99"] == "same" and same["verdict"] == "same"
    assert float(tail["mde_p99_pct"]) > 0 and row(table, "std")["verdict_p99"] == ""


def test_a_p99_the_samples_cannot_carry_is_left_empty_with_its_reason_and_so_is_its_delta(capsys, tmp_path):
    rounds = [0.0, 0.02, -0.01, 0.01]
    write_repeats(tmp_path, "std", "tcp", 0.01, rounds, n=10, seed=1)  # 40 samples a point, as at 100 msg/s
    write_repeats(tmp_path, "tokio", "tcp", 0.01, rounds, n=10, seed=2)
    table = csv_table(capsys, "-d", tmp_path)
    tokio = row(table, "tokio")
    assert tokio["p50_ns"] != "" and tokio["p99_ns"] == "" and tokio["p90_ns"] == ""  # p90 needs 100
    assert "n = 40: too few for p99" in tokio["refused"] and "n = 40: too few for p90" in tokio["refused"]
    assert tokio["delta_p99_ns"] == "" and tokio["verdict_p99"] == ""
    status, out, _ = cli(capsys, "-d", tmp_path, "--summary")
    tokio_line = next(line for line in out.splitlines() if line.startswith("tokio"))
    assert status == 0 and "n = 40: too few" in tokio_line
