"""A sweep whose OUT_DIR runs out of room: refused before the first run when the estimate does not fit, and
stopped in one line when a write fails mid-sweep, its finished runs kept. On a real, small tmpfs (root)."""

import errno
import json
import os
import subprocess

import pytest

from sweep_helpers import REPO, Run, load_json, require_binaries, script_env, sweep_dir

from sweepkit import knobs, modes, plan, space, state  # noqa: E402
from sweepkit.modes import base  # noqa: E402

SCRIPT = "run-localhost.sh"


@pytest.fixture
def small_disk(tmp_path):
    """A 512 KiB tmpfs, unmounted whatever happens."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(folder):
    """Writes zeros into folder/filler until the file system is full."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as error:
        assert error.errno == errno.ENOSPC
    finally:
        os.close(fd)


def planned_runs(env, flags="S"):
    result = knobs.check(env, flags)
    spec = result.spec()
    return plan.runs(plan.build(spec, result.selection), spec.repeats, 1), spec


def test_the_estimate_counts_samples_times_a_csv_row_and_each_runs_json():
    runs, k = planned_runs({"INTERVALS": "0.001 0", "PROTOCOLS": "tcp", "DURATION": "4", "WARMUP": "1",
                            "REPEATS": "2"})
    by_interval = {r.point.interval: r.point for r in runs}
    rtt = modes.of("rtt")
    paced, back_to_back = rtt.run_bytes(by_interval["0.001"], k), rtt.run_bytes(by_interval["0"], k)
    assert back_to_back == 5 * modes.rtt.BACK_TO_BACK_PER_S * base.CSV_ROW_BYTES + base.JSON_BYTES
    assert paced == 5 * 1000 * base.CSV_ROW_BYTES + base.JSON_BYTES
    assert space.estimate_bytes(runs, k) > 2 * (paced + back_to_back)
    throughput, tk = planned_runs({"MODE": "throughput", "SIZES": "64", "PROTOCOLS": "tcp", "REPEATS": "1"})
    assert modes.of("throughput").run_bytes(throughput[0].point, tk) < 10_000  # a row per counting window


def test_a_binary_s_write_error_is_read_with_the_file_it_names(tmp_path):
    (tmp_path / "ping.err").write_text("warming up\nstd-ping: error: writing /out/x-r1.csv: No space left on "
                                       "device (os error 28)\n")
    (tmp_path / "other.err").write_text("std-ping: error: connecting to 127.0.0.1:9: refused\n")
    fault = space.said([tmp_path / "none.err", tmp_path / "other.err", tmp_path / "ping.err"])
    assert (str(fault.path), fault.reason) == ("/out/x-r1.csv", "No space left on device (os error 28)")
    (tmp_path / "micro.err").write_text("tokio-micro: error: creating /out/y.json (check --out): Read-only file "
                                        "system (os error 30)\n")
    assert str(space.said([tmp_path / "micro.err"]).path) == "/out/y.json"
    assert space.said([tmp_path / "other.err"]) is None


def test_a_full_disk_leaves_the_last_whole_sweep_json_and_no_temporary_file(small_disk):
    state.save(small_disk / "sweep.json", {"status": "running", "runs": [], "points": []})
    fill(small_disk)
    with pytest.raises(OSError) as raised:
        state.save(small_disk / "sweep.json", {"status": "failed", "runs": [], "points": [], "pad": "x" * 100_000})
    assert raised.value.errno == errno.ENOSPC
    assert json.loads((small_disk / "sweep.json").read_text())["status"] == "running"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "sweep.json"]


def test_a_sweep_that_cannot_fit_is_refused_in_one_line_before_anything_runs(small_disk):
    out = small_disk / "logs"
    run = Run([str(REPO / SCRIPT), "-S"], script_env(out, INTERVALS="0", PROTOCOLS="tcp", DURATION="2")).start()
    run.finish(timeout=30)
    assert run.rc == 1, run.output
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"{SCRIPT}: OUT_DIR={out} has ") and "this sweep writes about" in line, line
    assert "Logs:" not in run.output and not out.exists()


def test_a_full_disk_mid_sweep_stops_it_in_one_line_keeping_the_finished_runs(small_disk):
    require_binaries("std")
    out = small_disk / "logs"
    run = Run([str(REPO / SCRIPT), "-S"], script_env(out, INTERVALS="0.1 0.05", PROTOCOLS="tcp udp",
                                                     DURATION="1", WARMUP="0", SEED="1")).start()
    run.expect_line("[1/4 r1]", timeout=30)
    fill(out)  # while the second run's ping measures: its logs cannot be written
    run.finish(timeout=60)
    assert run.rc == 1, run.output
    folder = sweep_dir(out)
    # One line stops it; the warnings before the first run (the system check's, on a busy machine) are not it.
    (line,) = [line for line in run.stderr.splitlines() if line.startswith(f"{SCRIPT}:") and ": warning: " not in line]
    sweep = load_json(folder / "sweep.json")  # whole: the last one written, or the closing one if it fitted
    first, second, *rest = sweep["runs"]
    # The ping writes aside, in .running/ (sweepkit/staged.py): the path it could not write is said as it is.
    assert line == (f"{SCRIPT}: cannot write {folder / '.running' / second['stem']}.csv: No space left on device (os error 28): "
                    f"stopping; finished runs stay in {folder}")
    assert first["status"] == "ok" and sweep["status"] in ("running", "failed")
    assert [r["status"] for r in rest] == ["planned", "planned"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{first['stem']}.json", f"{first['stem']}.csv", "sweep.json"])
    assert "[2/4 r1]" not in run.output
