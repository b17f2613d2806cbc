"""Changes in a history on synthetic series, the benchmark names every export shares, and the old flags' forms."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import history, legacy, tracked
from analysis.kind import UsageError
from analysis.rtt import runs


def series(levels, repeats=5, spread=0.01, seed=0, lower_is_better=True) -> pd.DataFrame:
    """One point's metric over len(levels) sweeps, history_db.read's columns: each sweep `repeats` values
    lognormal around its level."""
    rng = np.random.default_rng(seed)
    values = [list(level * np.exp(rng.normal(0, spread, repeats))) for level in levels]
    means = [float(np.mean(v)) for v in values]
    return pd.DataFrame({
        "sweep": range(1, len(levels) + 1), "started_at": [f"2026-01-{d:02d}T00:00:00Z" for d in range(1, len(levels) + 1)],
        "seed": range(len(levels)), "suite_version": "abc", "machine_id": "m", "kind": "rtt",
        "benchmark": "tokio/tcp/64B/1000msg_s/0tasks/1conn/closed", "measure": "latency", "unit": "ns",
        "lower_is_better": lower_is_better, "value": means, "low": [m * 0.98 for m in means],
        "high": [m * 1.02 for m in means], "repeats": repeats, "method": "t-across-repeats", "verdict": "",
        "runtime": "tokio", "runtime_version": "1.0", "values": values, "estimator": "pooled", "against": "",
        "machine": [{"hosts": [], "cpu_dma_latency": "held at 0 us"}] * len(levels)})


def analysed(frame):
    return history.analyse(frame, ("m", "rtt", frame["benchmark"][0], "latency"))


def test_a_step_is_called_at_the_first_sweep_after_it():
    found = analysed(series([30_000] * 6 + [36_000] * 6))
    assert [(c.at, c.verdict) for c in found.changes] == [(6, "slower")]
    assert found.changes[0].estimate.low > 1.15 and found.newest.verdict == "same"


def test_a_faster_rate_is_a_change_for_the_better():
    found = analysed(series([1e6] * 5 + [1.3e6] * 5, lower_is_better=False))
    assert [(c.at, c.verdict) for c in found.changes] == [(5, "faster")]


def test_a_flat_series_has_no_change():
    for seed in range(20):
        found = analysed(series([30_000] * 10, seed=seed))
        assert found.changes == [] and found.newest.verdict == "same", seed


def test_a_step_below_the_noise_threshold_is_not_a_change():
    found = analysed(series([30_000] * 6 + [30_300] * 6, spread=0.001))  # 1 %, measured precisely
    assert found.changes == []


def test_the_newest_sweep_alone_is_judged_against_the_window_since_the_last_change():
    found = analysed(series([30_000] * 4 + [40_000] * 4 + [52_000]))
    assert [c.at for c in found.changes][:1] == [4]
    assert found.newest.at == 8 and found.newest.verdict == "slower"
    # Its ratio is against the sweeps since the change (40 µs), not the whole history.
    assert found.newest.estimate.value == pytest.approx(1.3, rel=0.03)


def test_one_sweep_has_no_change_and_no_newest_verdict():
    found = analysed(series([30_000]))
    assert found.changes == [] and found.newest is None


def test_a_points_benchmark_name_is_its_dimensions_in_the_kinds_order():
    point = {"framework": "tokio", "transport": "tcp", "payload": 64, "interval_s": 0.001, "tasks": 0,
             "connections": 1, "load": "closed"}
    assert tracked.name(point, runs.KEYS) == "tokio/tcp/64B/1000msg_s/0tasks/1conn/closed"
    assert tracked.name(point | {"interval_s": 0.0, "connections": 100, "load": "open"}, runs.KEYS) == \
        "tokio/tcp/64B/b2b/0tasks/100conn/open"
    assert tracked.name(point | {"interval_s": 0.0001}, runs.KEYS).split("/")[3] == "10000msg_s"
    micro = {"framework": "tokio", "bench": "channel", "primitive": None, "workers": 4.0, "event_type": "int",
             "events": math.nan}
    assert tracked.name(micro, list(micro)) == "tokio/channel/4workers/int"


@pytest.mark.parametrize("argv, command", [
    (["-d", "S", "--export", "bencher", "-o", "out.json"], ["export", "-d", "S", "--format", "bencher", "-o", "out.json"]),
    (["-d", "S", "-k", "throughput", "--export", "otava"], ["export", "-d", "S", "-k", "throughput", "--format", "otava"]),
    (["-d", "S", "--record", "h.sqlite"], ["record", "-d", "S", "--db", "h.sqlite"]),
    (["--history", "h.sqlite", "--fail-on-change", "-o", "h.pdf"],
     ["history", "--db", "h.sqlite", "-o", "h.pdf", "--fail-on-change"]),
])
def test_the_old_form_of_the_tracking_flags_stands_for_its_command(argv, command):
    assert legacy.translate(argv) == command


@pytest.mark.parametrize("argv, message", [
    (["--fail-on-change"], "--fail-on-change needs --history DB"),
    (["--export", "bencher", "--record", "h"], "--export --record: one at a time"),
    (["--export", "bencher", "--summary"], "--export --summary: one at a time"),
    (["-d", "S", "--history", "h"], "--history reads the recorded sweeps: leave out -d"),
])
def test_the_old_form_refuses_tracking_flags_that_do_not_go_together(argv, message):
    with pytest.raises(UsageError, match=message):
        legacy.translate(argv)


def test_an_export_leaves_out_a_p99_the_samples_cannot_carry_and_says_so(capsys, tmp_path):
    import json

    from .conftest import cli
    from .logs import write_repeats, write_sweep_info

    write_repeats(tmp_path, "std", "tcp", 0.01, [0.0, 0.02, -0.01], n=100, seed=1)  # 300 samples: a p50, no p99
    write_repeats(tmp_path, "std", "tcp", 0.0, [0.0, 0.02, -0.01], n=2_000, seed=2)  # 6 000: both
    write_sweep_info(tmp_path)
    out = tmp_path / "bmf.json"
    status, _, err = cli(capsys, "export", "-d", tmp_path, "--format", "bencher", "-o", out)
    assert status == 0, err
    bmf = json.loads(out.read_text())
    paced, b2b = "std/tcp/64B/100msg_s/0tasks/1conn/closed", "std/tcp/64B/b2b/0tasks/1conn/closed"
    assert set(bmf[paced]) == {"latency"} and set(bmf[b2b]) == {"latency", "p99-latency"}
    for metric in bmf[b2b].values():  # runs that overlap: every interval closed, its bounds around the value
        assert metric["lower_value"] < metric["value"] < metric["upper_value"]
    assert f"left out {paced} p99-latency: n = 300: too few for p99" in err
    rows = tracked.measures(*_swept(tmp_path))
    assert set(rows["estimator"]) == {tracked.POOLED}


def _swept(folder):
    from analysis.rtt import KIND
    from analysis.sweep import Filters, collect

    return collect(folder, KIND, Filters(), False, lambda *a, **k: None), KIND


def test_an_open_interval_from_the_history_reads_as_open():
    """SQLite gives an open interval (NaN when recorded) back as NULL: the table says `[–]`, not a traceback."""
    from analysis import summary

    assert summary.interval(12_300.0, None, None) == summary.interval(12_300.0, math.nan, math.nan) == "12.3 [–]"


# A/A sweeps through record and history: std and an identical variant std-x, three rounds each, each round's
# level shared by both lines (a round's runs are seconds apart, as ORDER=blocks runs them), and each sweep's
# whole level moved by the machine: `drift` multiplies every line of it alike.
ROUND_LEVELS = [0.0, 0.03, -0.02]
B2B = "tcp/64B/b2b/0tasks/1conn/closed"


def aa_sweep(folder, number: int, drift: float = 1.0, slower_x: float = 1.0, cpu_dma_latency="held at 0 us",
             suite="abc123"):
    """Sweep `number` of a history: std and std-x at one back-to-back point; std-x `slower_x` times std's RTT."""
    import json

    from .logs import samples, write_run, write_sweep_info

    rng = np.random.default_rng(number)
    rounds = np.array(ROUND_LEVELS) + rng.normal(0, 0.02, len(ROUND_LEVELS))
    for label, factor in (("std", 1.0), ("std-x", slower_x)):
        for k, offset in enumerate(rounds, start=1):
            median = 30_000 * drift * factor * math.exp(offset + rng.normal(0, 0.002))
            stem = write_run(folder, label, "tcp", 0.0, samples(number * 100 + k + (label == "std-x") * 50, 4_000,
                                                               median, spread=0.1), repeat=k)
            if label != "std":  # a variant of std, as VARIANTS="std-x=std:pong:--delay-ns 0" runs one
                log = stem.with_name(f"{stem.name}.json")
                log.write_text(json.dumps(json.loads(log.read_text()) | {"framework": "std", "variant": label}))
    write_sweep_info(folder)
    info = json.loads((folder / "sweep.json").read_text())
    info |= {"started_at": f"2026-01-{number:02d}T00:00:00Z", "seed": number, "cpu_dma_latency": cpu_dma_latency}
    info["hosts"]["testhost"] |= {"suite_commit": suite, "cpuidle_driver": "haltpoll"}
    (folder / "sweep.json").write_text(json.dumps(info))
    return folder


def recorded(tmp_path, capsys, sweeps) -> Path:
    from .conftest import cli

    db = tmp_path / "history.sqlite"
    for number, knobs in enumerate(sweeps, start=1):
        status, _, err = cli(capsys, "record", "-d", aa_sweep(tmp_path / f"s{number}", number, **knobs), "--db", db)
        assert status == 0, err
    return db


def gate(capsys, db):
    from .conftest import cli

    return cli(capsys, "history", "--db", db, "--fail-on-change")


def test_a_drift_that_moves_every_line_alike_keeps_the_gate_quiet(tmp_path, capsys):
    # Five sweeps at one level, then the machine slows every line by half at once: the levels move, the Δ not.
    db = recorded(tmp_path, capsys, [{}] * 5 + [{"drift": 1.5}])
    status, out, err = gate(capsys, db)
    assert status == 0, out + err
    assert f"std/{B2B}  " in out and f"std-x/{B2B}  delta-latency" in out
    # The levels saw it (a change the report shows), the gate looked past them.
    assert re.search(rf"std/{B2B} +latency .*#6 ×1\.[45]\d\d \[[\d.–]+\] slower", out), out


def test_a_drift_between_every_sweep_keeps_the_gate_quiet(tmp_path, capsys):
    db = recorded(tmp_path, capsys, [{"drift": d} for d in (1.0, 1.3, 0.8, 1.2, 0.9, 1.35)])
    status, out, err = gate(capsys, db)
    assert status == 0, out + err


def test_a_planted_ten_percent_on_one_runtime_alone_is_called_on_its_delta_series(tmp_path, capsys):
    db = recorded(tmp_path, capsys, [{"drift": d} for d in (1.0, 1.3, 0.8, 1.2, 0.9)] + [{"drift": 1.1,
                                                                                          "slower_x": 1.1}])
    status, out, err = gate(capsys, db)
    assert status == 1, out + err
    assert re.search(rf"the newest sweep \(#6\) starts a change: std-x/{B2B} delta-latency \+\d", err), err
    assert "(slower)" in err and f"std/{B2B} latency" not in err


def test_the_gate_says_when_too_few_sweeps_know_their_spread(tmp_path, capsys):
    db = recorded(tmp_path, capsys, [{}] * 3 + [{"slower_x": 1.5}])
    status, out, err = gate(capsys, db)
    assert status == 0, out + err
    assert "1 series of the newest sweep (#4) not judged: too few sweeps since their last change" in err
    assert "#4 too few sweeps to know their spread" in out


def test_what_else_changed_at_a_sweep_is_named_beside_its_change_and_by_the_gate(tmp_path, capsys):
    db = recorded(tmp_path, capsys, [{}] * 5 + [{"drift": 1.5, "suite": "def456"}])
    status, out, err = gate(capsys, db)
    assert status == 0, out + err
    assert "the newest sweep (#6) ran with suite abc123 → def456" in err
    assert re.search(r"#6 ×1\.[45]\d\d \[[\d.–]+\] slower \(with suite abc123 → def456\)", out), out
    # Idle CPUs no longer held (TUNE=0) is another machine: its series start anew, and the history says why.
    db = recorded(tmp_path / "tune", capsys, [{}] * 5 + [{"drift": 1.5, "cpu_dma_latency": "not held"}])
    status, out, err = gate(capsys, db)
    assert status == 0 and "ran with idle CPUs held (TUNE) held at 0 us → not held" in err, err
    assert "#6: 2026-01-06T00:00:00Z rtt" in out and "changed: idle CPUs held (TUNE) held at 0 us → not held" in out


def test_without_the_sweeps_own_intervals_the_prediction_interval_is_the_textbook_one():
    from analysis import between_sweeps as between
    from suite.tdist import t_quantile

    window = [1.0, 1.2, 0.9, 1.1, 1.0]
    found = between.predicted(window, 2.0, 0.95)
    half = t_quantile(4, 0.95) * np.std(window, ddof=1) * math.sqrt(1 + 1 / 5)
    assert found.value == pytest.approx(2.0 - np.mean(window)) and found.high - found.value == pytest.approx(half)
    assert between.predicted(window[:3], 2.0, 0.95) is None  # too few sweeps to know their spread


def test_a_newest_sweep_whose_own_repeats_disagree_is_not_called_on_its_value_alone():
    """One disturbed run moves a 3-repeat sweep's value far, and widens its own interval as far: the sweeps'
    spread and its own are both counted, and it is not called; the same value measured tightly is."""
    from analysis import between_sweeps as between

    window, se = [0.1, -0.2, 0.3, -0.1, 0.0], [0.15] * 5
    tight = between.predicted(window, 3.0, 0.95, se, 0.15, 2)
    loose = between.predicted(window, 3.0, 0.95, se, 2.5, 2)
    assert tight.low > 0 and loose.low < 0 < loose.high
