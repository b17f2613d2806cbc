"""MODE=throughput in the sweep scripts: run-localhost.sh for real on loopback with short points,
and the knobs both scripts refuse. (The two-host throughput sweep is in test_run_network.py.)"""

import re
import stat

import pytest

from sweep_helpers import (BIN_DIR, check_throughput_pair, load_json, progress_lines, require_binaries, run_script,
                           sweep_dir, throughput_stem)

SHORT = {"MODE": "throughput", "DURATION": "0.5", "WARMUP": "0.2", "REPEATS": "1"}


def test_a_throughput_sweep_logs_every_size_and_skips_what_udp_cannot_carry(tmp_path):
    require_binaries("std", "tokio")
    run = run_script("run-localhost.sh", ["-tS", "-P"], tmp_path, SIZES="64 100000",
                     PROTOCOLS="tcp udp", **SHORT)
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    plan = [(fw, proto, size) for fw in ("std", "tokio") for proto in ("tcp", "udp")
            for size in (64, 100000)]
    too_big = {(fw, "udp", 100000) for fw in ("std", "tokio")}
    for fw, proto, size in plan:
        if (fw, proto, size) not in too_big:
            check_throughput_pair(folder, fw, proto, size)
    for fw, proto, size in too_big:
        stem = throughput_stem(fw, proto, size, repeat=None)
        assert not list(folder.glob(f"{stem}*"))
        # Said in the plan and in the closing list; it has no run.
        said = [line for line in run.stdout if stem in line]
        assert len(said) == 2 and all("65507" in line for line in said), said

    # -P has no throughput: one line says it is skipped, and no ICMP point is planned.
    assert sum("-P" in line for line in run.errlines) == 1, run.stderr
    assert "throughput" in run.stderr and not list(folder.glob("ping-*"))

    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "complete"
    assert sweep["knobs"]["MODE"] == "throughput" and sweep["knobs"]["SIZES"] == "64 100000"
    assert {"MODE", "SIZES"} <= set(sweep["knobs_given"])
    assert sweep["frameworks"] == ["std", "tokio"]
    points = sweep["points"]
    assert [p["stem"] for p in points] == [throughput_stem(*point, repeat=None) for point in plan]
    for p, point in zip(points, plan):
        assert p["payload"] == point[2] and "interval_s" not in p
        if point in too_big:
            assert p["status"] == "skipped" and "65507" in p["message"]
        else:
            assert p["status"] == "ok" and p["repeats_ok"] == 1
    runs = sweep["runs"]
    assert sorted(r["stem"] for r in runs) == sorted(throughput_stem(*point) for point in plan if point not in too_big)
    # Each run's figures are its log's (a loaded machine may leave most windows of a short run empty: p50 0).
    for r in runs:
        log = load_json(folder / f"{r['stem']}.json")
        assert r["status"] == "ok", r
        assert (r["msg_per_s_p50"], r["gbit_per_s_p50"]) == (log["msg_per_s"]["p50"], log["gbit_per_s"]["p50"]), r
    assert sweep["counts"]["ok"] == 6 and sweep["point_counts"]["skipped"] == 2
    assert sweep["measured_s"] == 3

    assert "Plan: 8 points, 2 skipped, × 1 repeat = 6 runs" in run.output
    progress = progress_lines(run.stdout)
    assert len(progress) == 6
    figures = re.compile(r"p50 +[0-9.]+( [kMG])? msg/s +[0-9.]+ Gb/s")
    assert all(figures.search(line) for line in progress), progress
    assert "Skipped (2):" in run.output and "Traceback" not in run.output
    assert "awk:" not in run.stderr and "command not found" not in run.stderr, run.stderr
    assert str(folder) in run.stdout[-1]
    measured = [throughput_stem(*point) for point in plan if point not in too_big]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{s}.{ext}" for s in measured for ext in ("csv", "json")] + ["sweep.json"])


def test_a_throughput_point_against_an_echoing_pong_fails_and_the_sweep_goes_on(tmp_path):
    require_binaries("std", "tokio")
    bins = tmp_path / "bin"
    bins.mkdir()
    for name in ("std-ping", "std-pong", "tokio-ping"):
        (bins / name).symlink_to(BIN_DIR / name)
    # A pong that ignores --mode throughput: it echoes, so the throughput ping must refuse it.
    shim = bins / "tokio-pong"
    shim.write_text(f"#!/bin/sh\nexec {BIN_DIR / 'tokio-pong'} --address 127.0.0.1:0 --protocol tcp\n")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    run = run_script("run-localhost.sh", ["-St"], tmp_path / "out", BIN_DIR=bins, SIZES="1024",
                     PROTOCOLS="tcp", **SHORT)
    assert run.rc == 1, run.output
    folder = sweep_dir(tmp_path / "out")
    check_throughput_pair(folder, "std", "tcp", 1024)
    failed = throughput_stem("tokio", "tcp", 1024)
    assert "FAILED (1):" in run.output and f"  {failed}: ping exited with status 1" in run.output
    assert "--mode throughput" in run.output  # the tail of the ping's stderr says what to do
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "failed"
    assert [p["status"] for p in sweep["points"]] == ["ok", "failed"]
    assert {r["stem"]: r["status"] for r in sweep["runs"]} == {throughput_stem("std", "tcp", 1024): "ok", failed: "failed"}


def bad(named, **knobs):
    return pytest.param(knobs, named, id=" ".join(f"{k}={v!r}" for k, v in knobs.items()))


BAD_THROUGHPUT_KNOBS = [
    bad("MODE", MODE="latency"),
    bad("SIZES", MODE="throughput", SIZES="64 big"),
    bad("SIZES", MODE="throughput", SIZES="0"),
    bad("SIZES", MODE="throughput", SIZES="64 7"),
    bad("SIZES", MODE="throughput", SIZES="-64"),
    bad("SIZES", MODE="throughput", SIZES=" "),
    bad("SIZES", MODE="throughput", SIZES="99999999999"),
    bad("400 s", MODE="throughput", DURATION="400", PROTOCOLS="udp"),
    bad("--pacing", MODE="throughput", PING_EXTRA="--pacing sleep"),
]


@pytest.mark.parametrize("script, flags", [
    ("run-localhost.sh", ["-S"]), ("run-network.sh", ["--peer", "127.0.0.1", "-S"])],
    ids=["localhost", "network"])
@pytest.mark.parametrize("knobs, named", BAD_THROUGHPUT_KNOBS)
def test_a_bad_throughput_knob_exits_2_before_anything_starts(tmp_path, script, flags, knobs, named):
    run = run_script(script, flags, tmp_path / "out", timeout=20, **knobs)
    assert run.rc == 2, run.output
    assert named in run.stderr and "Nothing was started" in run.stderr
    assert not (tmp_path / "out").exists()


def test_the_icmp_baseline_alone_has_no_throughput_to_sweep(tmp_path):
    run = run_script("run-localhost.sh", ["-P"], tmp_path / "out", timeout=20, MODE="throughput")
    assert run.rc == 2, run.output
    assert "-P" in run.stderr and "throughput" in run.stderr
    assert not (tmp_path / "out").exists()


def test_sizes_are_ignored_with_a_warning_in_an_rtt_sweep(tmp_path):
    # SIZES=abc would stop a throughput sweep; an RTT sweep only says it does not use it.
    run = run_script("run-localhost.sh", ["-S"], tmp_path / "out", timeout=20, SIZES="abc",
                     BIN_DIR=tmp_path / "no-binaries")
    assert run.rc == 1 and "missing binaries" in run.stderr, run.output  # past the knob check
    assert "SIZES applies to MODE=throughput" in run.stderr
