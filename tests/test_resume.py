"""--continue DIR: a sweep killed at any moment reads, continues to the same runs in the same order, and keeps the
runs it had byte for byte; knobs that contradict the folder's are refused, and a finished sweep is left as it is."""

import hashlib
import json
import os
import random
import signal
import subprocess
import time

import pytest

from sweep_helpers import REPO, Run, load_json, require_binaries, run_script, script_env, session_pids, sweep_dir

SCRIPT = str(REPO / "run-localhost.sh")
TINY = {"INTERVALS": "0", "PROTOCOLS": "tcp", "DURATION": "0.05", "WARMUP": "0.02", "TUNE": "0", "SEED": "7"}
KILLS = 20


def digests(folder, doc) -> dict[str, str]:
    """The ok runs' logs, each run's JSON and CSV hashed together, by stem."""
    found = {}
    for run in doc["runs"]:
        if run["status"] == "ok":
            data = b"".join((folder / f"{run['stem']}{suffix}").read_bytes() for suffix in (".json", ".csv"))
            found[run["stem"]] = hashlib.sha256(data).hexdigest()
    return found


def reads(folder) -> dict:
    """The folder as a reader finds it after a kill: sweep.json whole, every log in it whole JSON or CSV, and
    every run recorded ok with both its logs; its sweep.json."""
    doc = json.loads((folder / "sweep.json").read_text())
    for log in folder.glob("*.json"):
        json.loads(log.read_text())
    for log in folder.glob("*.csv"):
        lines = log.read_text().splitlines()
        assert lines and all(line.count(",") == lines[0].count(",") for line in lines), log
    assert all((folder / f"{r['stem']}.csv").is_file() for r in doc["runs"] if r["status"] == "ok")
    return doc


def killed_at_random(args, env, rng) -> bool:
    """The script, kill -9 of its own PID at a random moment unless it ended first: whether it was killed. A
    quarter of the moments fall in its start-up, the others in its runs and their records (after its Logs: line).
    Its children end with it (its session is empty within 2 s)."""
    run = Run(args, env).start()
    try:
        if rng.random() >= 0.25:
            run.expect_line("Logs:", timeout=30)
        run.proc.wait(timeout=rng.uniform(0.0, 0.6))
        return False
    except subprocess.TimeoutExpired:
        os.kill(run.proc.pid, signal.SIGKILL)
        run.proc.wait(timeout=10)
    deadline = time.monotonic() + 2
    while session_pids(run.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert session_pids(run.proc.pid) == []
    return True


def test_a_sweep_killed_at_random_moments_continues_to_the_same_runs_and_keeps_each_byte_for_byte(tmp_path):
    require_binaries("std", "tokio")
    env = script_env(tmp_path, REPEATS="40", STOP="fixed", **TINY)  # 80 runs: enough for every kill
    seed = int(os.environ.get("RESUME_SEED", time.time_ns() % 1000))
    rng = random.Random(seed)
    first = Run([SCRIPT, "-tS"], env).start()
    first.expect_line("Logs:", timeout=30)
    os.kill(first.proc.pid, signal.SIGKILL)  # the first kill: as its runs start
    first.proc.wait(timeout=10)
    folder = sweep_dir(tmp_path)
    plan = [r["stem"] for r in reads(folder)["runs"]]  # the runs in their order, as the sweep's start recorded them
    kept = {}
    for kill in range(2, KILLS + 1):
        ended = not killed_at_random([SCRIPT, "--continue", str(folder)], env, rng)
        doc = reads(folder)
        assert [r["stem"] for r in doc["runs"]] == plan
        now = digests(folder, doc)
        assert {stem: now[stem] for stem in kept} == kept, f"a kept run changed (RESUME_SEED={seed})"
        kept = now
        assert not ended, f"the sweep ended after {kill - 1} kills, before {KILLS}: make it longer (RESUME_SEED={seed})"
    run = run_script("run-localhost.sh", ["--continue", str(folder)], tmp_path, REPEATS="40", STOP="fixed", **TINY)
    assert run.rc == 0, run.output
    doc = reads(folder)
    assert doc["status"] == "complete" and [r["stem"] for r in doc["runs"]] == plan
    assert all(r["status"] == "ok" for r in doc["runs"]) and doc["seed"] == 7 and doc["repeats"] == 40
    assert {stem: h for stem, h in digests(folder, doc).items() if stem in kept} == kept
    # A kill in its start-up, before it read the folder back, leaves no record: the folder did not change.
    assert 1 <= len(doc["interruptions"]) <= KILLS and not (folder / ".running").exists()


def test_after_ctrl_c_the_run_cut_off_is_measured_again_and_more_rounds_extend_it(tmp_path):
    require_binaries("std", "tokio")
    knobs = TINY | {"DURATION": "1"}
    run = Run([SCRIPT, "-tS"], script_env(tmp_path, REPEATS="3", **knobs)).start()
    run.expect_line("[2/6 r1]", timeout=30)
    time.sleep(0.5)  # into the third run
    os.kill(run.proc.pid, signal.SIGINT)
    run.finish(timeout=30)
    assert run.rc == 130, run.output
    folder = sweep_dir(tmp_path)
    before = load_json(folder / "sweep.json")
    cut = next(r["stem"] for r in before["runs"] if r["status"] == "interrupted")
    kept = digests(folder, before)
    more = run_script("run-localhost.sh", ["--continue", str(folder)], tmp_path, REPEATS="4", **knobs)
    assert more.rc == 0, more.output
    doc = load_json(folder / "sweep.json")
    assert doc["status"] == "complete" and doc["repeats"] == 4 and len(doc["runs"]) == 8
    assert [r["stem"] for r in doc["runs"][:6]] == [r["stem"] for r in before["runs"]]
    assert all(r["status"] == "ok" for r in doc["runs"])
    assert {stem: h for stem, h in digests(folder, doc).items() if stem in kept} == kept
    assert doc["interruptions"][0]["status"] == "interrupted" and doc["interruptions"][0]["dropped"] == [cut]
    assert f"{cut} was cut off" in more.stderr


def test_knobs_that_contradict_the_folder_are_refused_and_a_finished_sweep_is_left_as_it_is(tmp_path):
    require_binaries("std", "tokio")
    done = run_script("run-localhost.sh", ["-tS"], tmp_path, REPEATS="2", **TINY)
    assert done.rc == 0, done.output
    folder = sweep_dir(tmp_path)
    before = (folder / "sweep.json").read_bytes()
    again = run_script("run-localhost.sh", ["--continue", str(folder)], tmp_path, REPEATS="2", **TINY)
    assert again.rc == 0 and "the sweep finished (complete" in again.output, again.output
    (folder / "sweep.json").write_text((folder / "sweep.json").read_text().replace('"complete"', '"interrupted"', 1))
    refused = run_script("run-localhost.sh", ["--continue", str(folder), "-t"], tmp_path, REPEATS="1",
                         **TINY | {"DURATION": "0.2"})
    assert refused.rc == 2, refused.output
    assert "the flags -t are not the folder's -St" in refused.stderr
    assert "REPEATS='1', where the folder's sweep has REPEATS='2'" in refused.stderr
    assert "DURATION='0.2', where the folder's sweep has DURATION='0.05'" in refused.stderr
    (folder / "sweep.json").write_bytes(before)
    assert (folder / "sweep.json").read_bytes() == before


@pytest.mark.parametrize("argv, says", [(["--continue"], "needs the folder"),
                                        (["--continue", "/no/such/dir"], "there is no folder"),
                                        (["--continue", ".", "--check"], "does not go with --continue")])
def test_continue_without_a_sweeps_folder_is_refused(tmp_path, argv, says):
    run = run_script("run-localhost.sh", argv, tmp_path)
    assert run.rc == 2 and says in run.stderr, run.output
