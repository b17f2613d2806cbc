"""`parse.py costs` on small logs with known counters: a row per point and end, each cost per message with its t
interval across runs and its Δ vs std paired by round; a counter refused is left blank; logs from before counting
load as before and are left out."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.cli import main
from analysis.rtt import costs
from suite import logschema
from suite.tdist import t_quantile

from .logs import read_table, samples, write_run

N = 300  # messages a run


def count(value, source="perf_event_open"):
    return {"value": value, "source": source, "unavailable": None if value is not None else "refused: test"}


def end_counters(cpu_us: float, syscalls: float, switches: float = 1.0, wakeups: float = 1.0) -> dict:
    """One end's counters over a run of N messages, per message as given."""
    per = {"cpu_ns": cpu_us * 1000, "user_ns": cpu_us * 300, "kernel_ns": cpu_us * 700, "switches": switches,
           "syscalls": syscalls, "wakeups_made": wakeups}
    fields = {name: count(round(v * N)) for name, v in per.items()}
    rest = {name: count(0) for name in ("voluntary_switches", "involuntary_switches", "migrations", "page_faults")}
    return {"pid": 7, "window_s": 0.3, **fields, **rest, "syscalls_by_name": {"read": count(N)}}


# (framework, interval) → round → (ping CPU µs, pong CPU µs) a message; the pong's syscalls: std 2, tokio 3.
CPU = {("std", 0.001): {1: (50, 40), 2: (52, 44), 3: (48, 42)},
       ("tokio", 0.001): {1: (60, 50), 2: (63, 55), 3: (57, 54)},
       ("std", 0.0): {1: (30, 30), 2: (31, 29), 3: (32, 31)},
       ("tokio", 0.0): {1: (36, 33), 2: (37, 35), 3: (38, 34)}}


@pytest.fixture
def counted_dir(tmp_path):
    folder = tmp_path / "counted"
    for seed, ((framework, interval), rounds) in enumerate(CPU.items()):
        for repeat, (ping_us, pong_us) in rounds.items():
            counters = {"ping": end_counters(ping_us, 3.0), "pong": end_counters(pong_us, 2.0 if framework == "std" else 3.0)}
            base = write_run(folder, framework, "tcp", interval, samples(10 * seed + repeat, N), repeat=repeat,
                             counters=counters)
            logschema.schema().validate(json.loads(Path(f"{base}.json").read_text()))  # what a ping writes
    return folder


def test_each_point_and_end_gets_its_costs_a_message_with_the_t_interval_across_runs(counted_dir, capsys):
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    keys = list(rows[["framework", "interval_s", "end"]].itertuples(index=False, name=None))
    assert sorted(keys) == sorted((f, i, end) for f, i in CPU for end in ("ping", "pong"))
    pong = rows[(rows["framework"] == "std") & (rows["end"] == "pong") & (rows["interval_s"] == 0.001)].iloc[0]
    values = np.array([40, 44, 42], dtype=float)
    half = t_quantile(2, 0.95) * values.std(ddof=1) / math.sqrt(3)
    assert pong["cpu_us_per_msg"] == pytest.approx(42.0)
    assert (pong["cpu_us_per_msg_low"], pong["cpu_us_per_msg_high"]) == pytest.approx((42 - half, 42 + half), rel=1e-4)
    assert pong["syscalls_per_msg"] == pytest.approx(2.0) and pong["switches_per_msg"] == pytest.approx(1.0)
    assert pong["runs"] == 3 and pong["split_refused"] == "4 ticks: too few for user/kernel"  # 12.6 ms a run
    assert math.isnan(pong["delta_cpu_us_per_msg"])  # std has no Δ vs itself


def test_the_delta_vs_std_pairs_the_runs_of_one_round(counted_dir, capsys):
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    tokio = rows[(rows["framework"] == "tokio") & (rows["end"] == "pong") & (rows["interval_s"] == 0.001)].iloc[0]
    diffs = np.array([50 - 40, 55 - 44, 54 - 42], dtype=float)  # round by round
    half = t_quantile(2, 0.95) * diffs.std(ddof=1) / math.sqrt(3)  # 3 pairs: the t interval
    assert tokio["delta_cpu_us_per_msg"] == pytest.approx(diffs.mean())
    assert tokio["delta_cpu_us_per_msg_low"] == pytest.approx(diffs.mean() - half, rel=1e-4)
    assert tokio["delta_syscalls_per_msg"] == pytest.approx(1.0)  # tokio's pong waits in epoll_wait too


def test_a_refused_counter_is_blank_and_the_text_says_so(counted_dir, capsys):
    for path in counted_dir.glob("tokio-*.json"):
        log = json.loads(path.read_text())
        log["counters"]["pong"]["syscalls"] = count(None)
        path.write_text(json.dumps(log))
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    tokio = rows[(rows["framework"] == "tokio") & (rows["end"] == "pong")]
    assert tokio["syscalls_per_msg"].isna().all() and tokio["cpu_us_per_msg"].notna().all()
    assert main(["costs", "-d", counted_dir]) == 0
    text = capsys.readouterr().out
    assert "syscalls /msg" in text and " – " in text


def in_ticks(folder: Path, user: int, kernel: int, only=lambda log: True) -> None:
    """Each run's user and kernel time (both ends) set to these counts of /proc's 10 ms ticks."""
    for path in folder.glob("*.json"):
        log = json.loads(path.read_text())
        if only(log):
            for end in ("ping", "pong"):
                log["counters"][end] |= {"user_ns": count(user * costs.TICK_NS), "kernel_ns": count(kernel * costs.TICK_NS)}
            path.write_text(json.dumps(log))


def test_a_user_kernel_split_the_ticks_cannot_carry_is_refused_with_its_reason(counted_dir, capsys):
    in_ticks(counted_dir, 13, 20)  # 3 runs of 33 ticks: 99, one short of a split
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    assert (rows["split_refused"] == "99 ticks: too few for user/kernel").all()
    assert rows["user_us_per_msg"].isna().all() and rows["kernel_us_per_msg"].isna().all()
    assert rows["delta_kernel_us_per_msg"].isna().all() and rows["cpu_us_per_msg"].notna().all()
    assert main(["costs", "-d", counted_dir]) == 0
    assert "99 ticks: too few" in capsys.readouterr().out
    # One tick more a run carries it, except where std's ticks stay few: there the Δ is refused too.
    in_ticks(counted_dir, 14, 20, only=lambda log: log["framework"] == "tokio" or log["interval_s"] > 0)
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out).set_index(["framework", "interval_s", "end"])
    paced, back_to_back = rows.loc[("tokio", 0.001, "pong")], rows.loc[("tokio", 0.0, "pong")]
    assert pd.isna(paced["split_refused"]) and paced["kernel_us_per_msg"] == pytest.approx(20 * 1e4 / N)
    assert paced["delta_kernel_us_per_msg"] == pytest.approx(0.0)
    assert back_to_back["user_us_per_msg"] == pytest.approx(14 * 1e4 / N)
    assert math.isnan(back_to_back["delta_user_us_per_msg"])
    assert rows.loc[("std", 0.0, "pong"), "split_refused"] == "99 ticks: too few for user/kernel"


def test_logs_from_before_counting_load_as_before_and_are_left_out(counted_dir, tmp_path, capsys):
    for repeat in (4, 5):  # older runs of the same points: no counters
        write_run(counted_dir, "std", "tcp", 0.001, samples(99 + repeat, N), repeat=repeat)
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    assert set(rows["runs"]) == {3}
    assert main(["table", "-d", counted_dir, "--format", "csv"]) == 0  # the table reads them all
    old = tmp_path / "old"
    write_run(old, "std", "tcp", 0.001, samples(1, N), repeat=1)
    assert main(["costs", "-d", old]) == 1
    assert "has counters" in capsys.readouterr().err


def test_costs_reads_rtt_logs_only_and_every_cost_has_its_interval_columns():
    assert set(costs.COSTS) >= {"cpu_us_per_msg", "user_us_per_msg", "kernel_us_per_msg", "syscalls_per_msg",
                                "switches_per_msg", "wakeups_per_msg"}


def test_a_round_trip_in_parts_is_the_mean_as_each_end_s_cpu_and_the_rest_with_the_delta_s_parts(counted_dir):
    from analysis.rtt import Rtt
    from analysis.sweep import Filters

    found = Rtt().collect(counted_dir, Filters(), False, lambda *a: None, 0.02)
    parts = costs.breakdown(found.points, found.runs).set_index(["framework", "interval_s"])
    std, tokio = parts.loc[("std", 0.0)], parts.loc[("tokio", 0.001)]
    assert (std["ping_cpu"], std["pong_cpu"]) == pytest.approx((31_000, 30_000))  # ns, the means of 3 runs
    # The samples' mean is about 30 µs: the two ends' 61 µs pass it, by 31 µs off the round trip's path.
    assert std["rest"] == 0 and std["over"] == pytest.approx(std["ping_cpu"] + std["pong_cpu"] - std["mean"])
    assert tokio["delta_pong_cpu"] == pytest.approx(1000 * np.mean([50 - 40, 55 - 44, 54 - 42]))
    assert tokio["delta_ping_cpu_low"] < tokio["delta_ping_cpu"] < tokio["delta_ping_cpu_high"]
    assert tokio["delta_p50"] == found.points.set_index(["framework", "interval_s"]).loc[("tokio", 0.001), "delta_p50"]
    assert math.isnan(std["delta_pong_cpu"])


def test_the_costs_figure_draws_a_page_per_setting_and_says_why_where_no_run_counted(counted_dir, tmp_path, capsys):
    from pypdf import PdfReader

    pdf = tmp_path / "costs.pdf"
    assert main(["figures", "-d", counted_dir, "-t", "costs", "-o", pdf]) == 0
    (page,) = PdfReader(pdf).pages  # one transport, payload and decoy count: both rates on one page
    text = page.extract_text()
    for said in ("Where a round trip goes", "1 k msg/s asked for: the mean RTT in parts", "back-to-back: Δ vs std in "
                 "parts", "pong CPU / msg", "Δp50, measured", "tokio", "std"):
        assert said in text, text
    old = tmp_path / "old"
    write_run(old, "std", "tcp", 0.001, samples(1, N), repeat=1)
    capsys.readouterr()
    assert main(["figures", "-d", old, "-t", "costs", "-o", tmp_path / "none.pdf"]) == 1
    assert "has counters" in capsys.readouterr().err and not (tmp_path / "none.pdf").exists()


def test_system_calls_and_wake_ups_the_measured_runs_did_not_count_come_from_the_probed_runs(counted_dir, capsys):
    """COUNTERS=1 counts CPU and switches in every run; PROBED=N counts system calls and wake-ups in N runs of
    their own after the rounds (sweep.json's `probed`), paired with std's by probed round."""
    for path in counted_dir.glob("*-r*.json"):
        log = json.loads(path.read_text())
        for end in ("ping", "pong"):
            log["counters"][end]["syscalls"] = log["counters"][end]["wakeups_made"] = count(None)
            if log["framework"] == "std":  # its connection threads end inside the window: /proc has no switches
                log["counters"][end]["switches"] = count(None)
        path.write_text(json.dumps(log))
    probed = []
    for path in sorted(counted_dir.glob("*-r1.json")):
        point, framework = path.name.removesuffix("-r1.json"), json.loads(path.read_text())["framework"]
        for k, extra in ((1, 0.0), (2, 0.2)):  # tokio's pong: 3.5 and 3.7 calls a message, std's 2.0 and 2.2
            pong = (3.5 if framework == "tokio" else 2.0) + extra
            probed.append({"point": point, "round": k, "status": "ok", "message": None, "sent": N,
                           "counters": {"ping": end_counters(90.0, 4.0),
                                        "pong": end_counters(90.0, pong, switches=1.5 if framework == "tokio" else 1.0,
                                                             wakeups=2.0)}})
    probed.append(dict(probed[0], round=3, status="failed", counters=None))  # a failed one counts nothing
    (counted_dir / "sweep.json").write_text(json.dumps({"probed": probed}))
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out).set_index(["framework", "interval_s", "end"])
    tokio, std = rows.loc[("tokio", 0.001, "pong")], rows.loc[("std", 0.001, "pong")]
    assert (tokio["syscalls_per_msg"], std["syscalls_per_msg"]) == pytest.approx((3.6, 2.1))
    assert tokio["wakeups_per_msg"] == pytest.approx(2.0) and tokio["probed"] == 2
    assert tokio["delta_syscalls_per_msg"] == pytest.approx(1.5)  # paired by probed round: 1.5 and 1.5
    # tokio's switches are its measured runs' (1.0 a message); std's measured runs have none, so the Δ pairs the
    # probed runs (1.5 against 1.0), and std's own figure is its probed runs'.
    assert tokio["switches_per_msg"] == pytest.approx(1.0) and tokio["delta_switches_per_msg"] == pytest.approx(0.5)
    assert std["switches_per_msg"] == pytest.approx(1.0)
    # CPU is the measured runs' alone: the probed runs' probes cost CPU too.
    assert tokio["cpu_us_per_msg"] == pytest.approx(np.mean([50, 55, 54])) and tokio["runs"] == 3
    assert main(["costs", "-d", counted_dir]) == 0
    assert "probed" in capsys.readouterr().out
    (counted_dir / "sweep.json").unlink()
    assert main(["costs", "-d", counted_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    assert rows["syscalls_per_msg"].isna().all() and set(rows["probed"]) == {0}
