"""Changes in a history on synthetic series, the benchmark names every export shares, and the old flags' forms."""

import math

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
        "runtime": "tokio", "runtime_version": "1.0", "values": values})


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
