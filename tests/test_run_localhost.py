"""run-localhost.sh, run for real on loopback with short points."""

import csv
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from sweep_helpers import (shim, BIN_DIR, REPO, Run, check_log_pair, load_json, process_name, progress_lines,
                           require_binaries, run_script, script_env, session_pids, sweep_dir,
                           wait_until)

from sweepkit import knobs, plan  # noqa: E402

SCRIPT = "run-localhost.sh"


def test_a_short_sweep_writes_every_log_pair_and_its_sweep_json(tmp_path):
    require_binaries("std", "tokio")
    run = run_script(SCRIPT, ["-tS", "-P"], tmp_path, INTERVALS="0.01 0", PROTOCOLS="tcp udp", DURATION="0.5",
                     WARMUP="0.1")
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    stems = [(fw, proto, f"{fw}-{proto}-64B-{iv}s-0t")
             for fw in ("std", "tokio") for proto in ("tcp", "udp") for iv in ("0.01", "0")]
    stems += [("ping", "icmp", f"ping-icmp-64B-{iv}s-0t") for iv in ("0.01", "0")]
    for fw, proto, stem in stems:
        log = check_log_pair(folder, f"{stem}-r1", fw, proto)
        assert log["payload"] == 64
        if fw != "ping":  # each ping counted itself and its pong, whose PID the sweep handed it
            counted = log["counters"]
            assert counted["ping"]["pid"] and counted["pong"]["pid"] and counted["ping"]["pid"] != counted["pong"]["pid"]
            assert counted["pong"]["cpu_ns"]["value"] or counted["pong"]["cpu_ns"]["unavailable"], counted["pong"]
    icmp = load_json(folder / "ping-icmp-64B-0.01s-0t-r1.json")
    assert icmp["interval_s"] == 0.01 and icmp["target_rate"] == 100
    assert icmp["decoy"] is None and icmp["rustc"] is None

    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "complete"
    assert sweep["knobs"]["INTERVALS"] == "0.01 0" and sweep["knobs"]["DURATION"] == "0.5"
    assert "INTERVALS" in sweep["knobs_given"] and "SIZE" not in sweep["knobs_given"]
    (facts,) = sweep["hosts"].values()
    assert facts["kernel"] and facts["cpus_online"] >= 1 and facts["suite_commit"]
    assert facts["cpuidle_driver"] and "idle_states" in facts  # how idle CPUs wait: much of an RTT
    assert sweep["cpu_dma_latency"] == ("held at 0 us" if os.geteuid() == 0 else "not permitted")
    assert [p["stem"] for p in sweep["points"]] == [s for _, _, s in stems]
    assert all(p["status"] == "ok" and p["repeats_ok"] == 1 for p in sweep["points"])
    assert sorted(r["stem"] for r in sweep["runs"]) == sorted(f"{s}-r1" for _, _, s in stems)
    assert all(r["status"] == "ok" and r["p50_ns"] > 0 and r["round"] == 1 for r in sweep["runs"])
    assert sweep["wall_s"] > 0 and sweep["measured_s"] == 5
    # The plan first, a progress line per run, the folder last.
    assert "Plan: 10 points × 1 repeat = 10 runs" in run.output
    assert len(progress_lines(run.stdout)) == 10
    assert str(folder) in run.stdout[-1]
    # Nothing but the logs and sweep.json in the folder.
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{s}-r1.{ext}" for _, _, s in stems for ext in ("csv", "json")] + ["sweep.json"])


@pytest.fixture
def shim_bins(tmp_path):
    """A BIN_DIR of the real binaries, in which a test can replace one with a shim."""
    require_binaries("std", "tokio")
    directory = tmp_path / "bin"
    directory.mkdir()
    for name in ("std-ping", "std-pong", "tokio-ping", "tokio-pong"):
        (directory / name).symlink_to(BIN_DIR / name)
    return directory


@pytest.mark.parametrize("tune", ["1", "0"])
def test_tune_holds_the_cpus_out_of_deep_idle_while_the_runs_run(tmp_path, shim_bins, tune):
    """TUNE=1 keeps /dev/cpu_dma_latency open for the whole sweep (every run's processes see it); the
    kernel lets go of the request as the sweep's processes end, however they end."""
    if os.geteuid() != 0:
        pytest.skip("writing /dev/cpu_dma_latency needs root")
    seen = tmp_path / "seen"
    (shim_bins / "std-ping").unlink()
    shim(shim_bins, "std-ping", f'ls -l /proc/$$/fd | grep -c cpu_dma_latency >>"{seen}"\n'
                                f'exec "{BIN_DIR}/std-ping" "$@"')
    run = run_script(SCRIPT, ["-S"], tmp_path / "out", BIN_DIR=shim_bins, INTERVALS="0", PROTOCOLS="tcp", TUNE=tune,
                     DURATION="0.3", WARMUP="0.1")
    assert run.rc == 0, run.output
    assert set(seen.read_text().split()) == {tune}  # every start of the ping: --version, and the run
    assert load_json(sweep_dir(tmp_path / "out") / "sweep.json")["cpu_dma_latency"] == (
        "held at 0 us" if tune == "1" else "not asked (TUNE=0)")


def test_a_dry_run_prints_the_plan_its_seed_and_time_and_starts_nothing(tmp_path, shim_bins):
    started = tmp_path / "started"
    for name in ("std-ping", "std-pong", "tokio-ping", "tokio-pong"):
        (shim_bins / name).unlink()
        shim(shim_bins, name, f'echo "$0 $*" >>"{started}"; exit 1')
    run = run_script(SCRIPT, ["-StP"], tmp_path / "out", BIN_DIR=shim_bins, DRY_RUN="1", REPEATS="3", SEED="42",
                     DURATION="4", WARMUP="1", timeout=30)
    assert run.rc == 0, run.output
    assert run.stdout[0].startswith("Plan: 25 points, 1 skipped, × 3 repeats = 72 runs of 1 s warm-up + 4 s measured, "
                                    "about "), run.output
    assert "shuffled with SEED=42" in run.stdout[1]
    assert run.stdout[-1].startswith("DRY_RUN=1: nothing was started and nothing written")
    assert not started.exists() and not (tmp_path / "out").exists()


def test_a_budget_plans_the_rounds_that_fit_before_anything_runs(tmp_path, shim_bins):
    knobs = {"BIN_DIR": shim_bins, "DRY_RUN": "1", "SEED": "5", "DURATION": "4", "WARMUP": "1", "INTERVALS": "0.001 0",
             "PROTOCOLS": "tcp", "REPEATS": ""}
    run = run_script(SCRIPT, ["-St"], tmp_path / "out", BUDGET="2m", timeout=30, **knobs)
    assert run.rc == 0, run.output
    # 4 points of 5 s and the guessed overhead each: 20.24 s a round, so 5 rounds fit in 2 minutes.
    assert run.stdout[0].rstrip() == "Budget: BUDGET=2m holds 5 rounds of about 20s", run.output
    assert run.stdout[1].startswith("Plan: 4 points × 5 repeats = 20 runs")
    too_small = run_script(SCRIPT, ["-St"], tmp_path / "out", BUDGET="30s", timeout=30, **knobs)
    assert too_small.rc == 2 and too_small.stderr.splitlines() == [
        "run-localhost.sh: BUDGET=30s: a round of this plan takes about 20s, and two rounds (the fewest that measure "
        "a spread) about 40s: raise BUDGET or plan fewer points", "Nothing was started."]
    both = run_script(SCRIPT, ["-St"], tmp_path / "out", BUDGET="2m", timeout=30, **(knobs | {"REPEATS": "3"}))
    assert both.rc == 2 and "REPEATS and BUDGET both given" in both.stderr


@pytest.mark.parametrize("binary, body, knobs, reason", [
    ("tokio-ping", "echo 'shim: ping refuses' >&2; exit 1", {}, "ping exited with status 1"),
    ("tokio-pong", "echo 'shim: pong cannot bind' >&2; exit 3", {}, "exited before listening"),
    ("tokio-pong", "exec sleep 600", {"READY_TIMEOUT": "1"}, "no 'listening on' line"),
    # Opens its logs, as a real ping does, then hangs: the empty files must not stay.
    ("tokio-ping", 'while [ $# -gt 0 ]; do [ "$1" = --out ] && : >"$2.json" && : >"$2.csv"; shift; done\n'
                   "exec sleep 600", {"PING_GRACE": "1"}, "ping timed out after 1.4 s"),
], ids=["ping-fails", "pong-dies", "pong-silent", "ping-hangs"])
def test_a_failed_point_is_reported_and_the_sweep_goes_on(tmp_path, shim_bins, binary, body,
                                                         knobs, reason):
    os.remove(shim_bins / binary)
    shim(shim_bins, binary, body)
    run = run_script(SCRIPT, ["-St"], tmp_path / "out", BIN_DIR=shim_bins, INTERVALS="0",
                     PROTOCOLS="tcp", DURATION="0.3", WARMUP="0.1", **knobs)
    assert run.rc == 1, run.output
    folder = sweep_dir(tmp_path / "out")
    check_log_pair(folder, "std-tcp-64B-0s-0t-r1", "std", "tcp")
    assert "FAILED (1):" in run.output and "  tokio-tcp-64B-0s-0t-r1: " in run.output
    assert reason in run.output
    if "shim:" in body:  # the tail of the failing binary's stderr is shown
        assert body.split("'")[1] in run.output
    assert not [p.name for p in folder.iterdir() if p.stat().st_size == 0]
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "failed"
    assert [p["status"] for p in sweep["points"]] == ["ok", "failed"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_in_round_two_stops_its_children_and_keeps_every_finished_run(tmp_path, sig, code):
    require_binaries("std")
    run = Run([str(REPO / SCRIPT), "-S"],
              script_env(tmp_path, INTERVALS="0 0.001", PROTOCOLS="tcp", REPEATS="2")).start()
    run.expect_line("[3/4 r2]", timeout=30)
    # Interrupt in the middle of the last run, once its ping runs.
    wait_until(lambda: any(process_name(p) == "std-ping" for p in session_pids(run.proc.pid)),
               10, "the last run's std-ping")
    os.kill(run.proc.pid, sig)
    run.finish(timeout=20)
    assert run.rc == code, run.output
    folder = sweep_dir(tmp_path)
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "interrupted" and sweep["repeats"] == 2
    assert [r["status"] for r in sweep["runs"]] == ["ok", "ok", "ok", "interrupted"]
    assert [r["round"] for r in sweep["runs"]] == [1, 1, 2, 2]
    *finished, (last, _) = [(r["stem"], r["point"]) for r in sweep["runs"]]
    for stem, _ in finished:  # round 1 and the first run of round 2 stay, recorded
        check_log_pair(folder, stem, "std", "tcp")
    assert not list(folder.glob(f"{last}.*")), "the unfinished run was left"
    assert {p["stem"]: (p["status"], p["repeats_ok"]) for p in sweep["points"]} == {
        finished[2][1]: ("ok", 2), last[:-3]: ("partial", 1)}
    assert sweep["counts"] == {"ok": 3, "empty": 0, "failed": 0, "skipped": 0, "interrupted": 1, "planned": 0}


BAD_KNOBS = [
    {"DURATION": "abc"}, {"DURATION": "-1"}, {"DURATION": "0"}, {"INTERVALS": "-0.5"},
    {"INTERVALS": "0.1 fast"}, {"SIZE": "3"}, {"SIZE": "70000"}, {"PROTOCOLS": "sctp"},
    {"TASKS": "-2"}, {"NICE": "-40"}, {"WARMUP": "1e3"}, {"PING_CPUS": "one"},
    {"PING_GRACE": "0"}, {"READY_TIMEOUT": "soon"}, {"CONNECTIONS": "0"}, {"LOAD": "half"}, {"TUNE": "yes"},
    {"DRY_RUN": "maybe"}, {"BUDGET": "soon"},
]


@pytest.mark.parametrize("knobs", BAD_KNOBS, ids=lambda k: " ".join(f"{a}={b}" for a, b in k.items()))
def test_a_bad_knob_exits_2_before_anything_starts(tmp_path, knobs):
    run = run_script(SCRIPT, ["-S"], tmp_path / "out", timeout=20, **knobs)
    assert run.rc == 2, run.output
    (name,) = knobs
    assert name in run.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flags", [["-x"], ["-Sq"], ["S"], []], ids=["-x", "-Sq", "S", "none"])
def test_an_unknown_or_missing_flag_exits_2(tmp_path, flags):
    run = run_script(SCRIPT, flags, tmp_path / "out", timeout=20)
    assert run.rc == 2, run.output
    assert "-h" in run.stderr
    assert not (tmp_path / "out").exists()


def test_help_lists_flags_and_knobs(tmp_path):
    run = run_script(SCRIPT, ["-h"], tmp_path, timeout=20)
    assert run.rc == 0
    for word in ("-a", "-s", "-S", "-t", "-P", "DURATION=0.1", "REPEATS=80", "WARMUP=0.1", "BUDGET=", "TUNE=1",
                 "SEED=", "INTERVALS=",
                 "PONG_CPUS=0"):
        assert word in run.stdout[0] or word in run.output


def test_missing_binaries_say_to_run_make(tmp_path):
    (tmp_path / "empty").mkdir()
    run = run_script(SCRIPT, ["-t"], tmp_path / "out", timeout=20, BIN_DIR=tmp_path / "empty")
    assert run.rc == 1
    assert "tokio-ping" in run.stderr and "make" in run.stderr
    assert not (tmp_path / "out").exists()


def test_one_cpu_puts_both_ends_on_it_with_a_warning(tmp_path):
    require_binaries("std")
    run = run_script(SCRIPT, ["-S"], tmp_path, prefix=["taskset", "-c", "0"], INTERVALS="0",
                     PROTOCOLS="udp")
    assert run.rc == 0, run.output
    assert "only one CPU" in run.stderr
    log = check_log_pair(sweep_dir(tmp_path), "std-udp-64B-0s-0t-r1", "std", "udp")
    assert log["cpus_allowed"] == "0"


def test_repeats_run_in_shuffled_rounds_of_fresh_processes(tmp_path):
    require_binaries("std", "tokio")
    run = run_script(SCRIPT, ["-tS"], tmp_path, DURATION="0.3", WARMUP="0.1", INTERVALS="0.001 0",
                     PROTOCOLS="tcp", REPEATS="2")
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    sweep = load_json(folder / "sweep.json")
    assert sweep["schema"] == "rtt-sweep/2" and sweep["repeats"] == 2
    assert sweep["knobs"]["REPEATS"] == "2" and "SEED" not in sweep["knobs_given"]
    assert sweep["knobs"]["SEED"] == str(sweep["seed"])  # a random seed, recorded
    points = [f"{fw}-tcp-64B-{iv}s-0t" for fw in ("std", "tokio") for iv in ("0.001", "0")]
    assert [p["stem"] for p in sweep["points"]] == points
    assert all(p["status"] == "ok" and p["repeats_ok"] == 2 for p in sweep["points"])
    # Every point once per round, in the order the seed gives; each repeat its own log pair.
    runs = sweep["runs"]
    assert [r["round"] for r in runs] == [1] * 4 + [2] * 4
    assert sorted(r["point"] for r in runs[:4]) == sorted(r["point"] for r in runs[4:]) == sorted(points)
    assert [r["stem"] for r in runs] == [f"{r['point']}-r{r['round']}" for r in runs]
    checked = knobs.check({"INTERVALS": "0.001 0", "PROTOCOLS": "tcp"}, "tS")
    again = plan.runs(plan.build(checked.spec(), checked.selection), 2, sweep["seed"])
    assert [r["stem"] for r in runs] == [r.stem for r in again]
    assert [r["start_s"] for r in runs] == sorted(r["start_s"] for r in runs)
    for r in runs:
        fw = r["point"].split("-")[0]
        assert r["status"] == "ok" and r["wall_s"] > 0 and r["p50_ns"] > 0
        check_log_pair(folder, r["stem"], fw, "tcp")
    # Progress lines in run order, with the round.
    progress = progress_lines(run.stdout)
    assert [line.split("]")[0] + "]" for line in progress] == [f"[{i}/8 r{1 + (i > 4)}]" for i in range(1, 9)]
    assert [line.split()[2] for line in progress] == [r["point"] for r in runs]
    assert f"shuffled with SEED={sweep['seed']}" in run.output
    assert "8 of 8 runs measured" in run.output and "4 of 4 points have all 2 repeats" in run.output


def test_a_failed_repeat_keeps_the_other_repeats_of_its_point(tmp_path, shim_bins):
    # The second measuring tokio-ping (one with --out) fails; the others are the real one.
    os.remove(shim_bins / "tokio-ping")
    count = tmp_path / "calls"
    shim(shim_bins, "tokio-ping", f'case " $* " in *" --out "*) echo x >>"{count}"\n'
                                  f'  if [ "$(wc -l <"{count}")" -eq 2 ]; then echo "shim: refuses" >&2; exit 1; fi ;;\n'
                                  f'esac\nexec "{BIN_DIR / "tokio-ping"}" "$@"')
    run = run_script(SCRIPT, ["-t"], tmp_path / "out", BIN_DIR=shim_bins, DURATION="0.3", WARMUP="0.1",
                     INTERVALS="0", PROTOCOLS="tcp", REPEATS="3")
    assert run.rc == 1, run.output
    folder = sweep_dir(tmp_path / "out")
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "failed"
    assert [(r["stem"], r["status"]) for r in sweep["runs"]] == [
        ("tokio-tcp-64B-0s-0t-r1", "ok"), ("tokio-tcp-64B-0s-0t-r2", "failed"), ("tokio-tcp-64B-0s-0t-r3", "ok")]
    (point,) = sweep["points"]
    assert (point["status"], point["repeats_ok"], point["message"]) == ("partial", 2, "2 of 3 repeats")
    for k in (1, 3):
        check_log_pair(folder, f"tokio-tcp-64B-0s-0t-r{k}", "tokio", "tcp")
    assert not list(folder.glob("tokio-tcp-64B-0s-0t-r2.*"))
    assert "Incomplete (1):\n  tokio-tcp-64B-0s-0t: 2 of 3 repeats\n" in run.output
    assert "FAILED (1):\n  tokio-tcp-64B-0s-0t-r2: ping exited with status 1\n" in run.output
    assert "shim: refuses" in run.output


# A reference like busy-poll (std-ping against std-pong, each with arguments of its own), added to the
# list in the sweep's own Python: a test does not edit runtimes.json.
FAKE_REFERENCE = '''
from suite import runtimes

_listed = runtimes.entries()
_fake = runtimes.Entry(label="sleepy", flag="Z", colour="#777777", about="std-ping pacing by sleep",
                       binary_prefix="std", ping_args=("--pacing", "sleep"), pong_args=("--mode", "rtt"),
                       reference=True)
runtimes.entries = lambda path=None: (*_listed, _fake)
'''


def test_a_reference_run_by_the_suites_binaries_is_swept_like_a_runtime(tmp_path, shim_bins):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(FAKE_REFERENCE)
    calls = tmp_path / "pong-calls"
    os.remove(shim_bins / "std-pong")
    shim(shim_bins, "std-pong", f'echo "$*" >>"{calls}"\nexec "{BIN_DIR / "std-pong"}" "$@"')
    run = run_script(SCRIPT, ["-SZ"], tmp_path / "out", BIN_DIR=shim_bins, PYTHONPATH=f"{site}:{REPO}",
                     DURATION="0.3", WARMUP="0.1", INTERVALS="0.001", PROTOCOLS="tcp")
    assert run.rc == 0, run.output
    assert "-Z  sleepy: std-ping pacing by sleep" in run_script(SCRIPT, ["-h"], tmp_path, timeout=20,
                                                               PYTHONPATH=f"{site}:{REPO}").output
    folder = sweep_dir(tmp_path / "out")
    sweep = load_json(folder / "sweep.json")
    assert sweep["frameworks"] == ["std", "sleepy"]
    assert [(p["stem"], p["framework"], p["status"]) for p in sweep["points"]] == [
        ("std-tcp-64B-0.001s-0t", "std", "ok"), ("sleepy-tcp-64B-0.001s-0t", "sleepy", "ok")]
    # Its own ping arguments, and its own pong's.
    assert check_log_pair(folder, "std-tcp-64B-0.001s-0t-r1", "std", "tcp")["pacing"] == "schedule"
    assert load_json(folder / "sleepy-tcp-64B-0.001s-0t-r1.json")["pacing"] == "sleep"
    pongs = [line.split() for line in calls.read_text().splitlines() if "--address" in line]
    assert sorted("--mode" in args for args in pongs) == [False, True]


# A pass-through dimension added as one entry of suite/dimensions.py's table, in the Python of the sweep and
# of parse.py (before either imports it): the ping's --pacing, swept by a PACING knob.
PACING_DIMENSION = f'''
import sys
sys.path[:0] = ["{REPO}"]  # this snippet runs inside the sweep and parse.py, before their own imports
from suite import dimensions

dimensions.DIMENSIONS += (dimensions.Dimension(
    "pacing", "PACING", "schedule", ("rtt",), "--pacing", None, "-{{}}", "schedule", str, "schedule or sleep",
    'schedule, sleep or "schedule sleep"', choices=("schedule", "sleep"), help=("MODE=rtt: the ping's pacing",)),)
'''


def test_a_new_dimension_is_one_entry_of_the_table(tmp_path):
    require_binaries("std")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(PACING_DIMENSION)
    shown = run_script(SCRIPT, ["-h"], tmp_path / "out", timeout=20, PYTHONPATH=str(site))
    assert shown.rc == 0 and '  PACING="schedule"      MODE=rtt: the ping\'s pacing' in shown.output, shown.output
    bad = run_script(SCRIPT, ["-S"], tmp_path / "out", timeout=20, PYTHONPATH=str(site), PACING="fast")
    assert bad.rc == 2 and "PACING: 'fast' is not schedule or sleep" in bad.stderr, bad.output
    run = run_script(SCRIPT, ["-S"], tmp_path / "out", PYTHONPATH=str(site), PACING="schedule sleep",
                     INTERVALS="0.001", PROTOCOLS="tcp", DURATION="0.3", WARMUP="0.1", REPEATS="2")
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path / "out")
    sweep = load_json(folder / "sweep.json")
    assert sweep["knobs"]["PACING"] == "schedule sleep"
    assert [(p["stem"], p["pacing"]) for p in sweep["points"]] == [
        ("std-tcp-64B-0.001s-0t", "schedule"), ("std-tcp-64B-0.001s-0t-sleep", "sleep")]
    assert check_log_pair(folder, "std-tcp-64B-0.001s-0t-r1", "std", "tcp")["pacing"] == "schedule"
    assert check_log_pair(folder, "std-tcp-64B-0.001s-0t-sleep-r1", "std", "tcp")["pacing"] == "sleep"
    # The analysis keys points by the same table: two points, each with its column, its repeats and its pages.
    env = {**os.environ, "PYTHONPATH": str(site)}
    table = subprocess.run([sys.executable, "parse.py", "table", "--format", "csv", "-d", str(folder)], cwd=REPO,
                           env=env, capture_output=True, text=True, timeout=120)
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert table.returncode == 0 and "same point" not in table.stderr, table.stderr
    assert [(r["framework"], r["pacing"], r["repeats"]) for r in rows] == [("std", "schedule", "2"), ("std", "sleep", "2")]
    text = subprocess.run([sys.executable, "parse.py", "table", "-d", str(folder)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120).stdout
    assert text.splitlines()[0].split()[:3] == ["framework", "transport", "msg/s"]  # the narrow table
    assert "pacing" in text.splitlines()[0] and "sleep" in text
    spread = subprocess.run([sys.executable, "parse.py", "variance", "--format", "csv", "-d", str(folder)], cwd=REPO,
                            env=env, capture_output=True, text=True, timeout=120)
    assert [r["pacing"] for r in csv.DictReader(io.StringIO(spread.stdout))] == ["schedule", "sleep"], spread.stderr
    pdf = tmp_path / "stat.pdf"
    drawn = subprocess.run([sys.executable, "parse.py", "figures", "-t", "stat", "-d", str(folder), "-o", str(pdf)],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert drawn.returncode == 0 and "wrote" in drawn.stderr, drawn.stderr
    pages = [page.extract_text() for page in PdfReader(pdf).pages]  # a page per point: its title says which
    assert ["0 decoy tasks, pacing sleep" in page for page in pages] == [False, True], pages


def test_a_reader_that_goes_away_ends_the_sweep_quietly(tmp_path):
    """As `./run-localhost.sh ... | head -1` may: stdout's pipe is closed before the plan is printed."""
    env = script_env(tmp_path / "out", DRY_RUN="1")
    proc = subprocess.Popen([str(REPO / SCRIPT), "-S"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    assert proc.wait(timeout=30) == 141
    assert "Traceback" not in proc.stderr.read()


def test_probed_runs_count_system_calls_and_wake_ups_outside_the_estimates(tmp_path):
    """PROBED=2: after the rounds, 2 runs of each point with every counter, kept in sweep.json's `probed` alone; and
    `parse.py costs` takes std's pong's 2 calls a message (one read, one write) from them."""
    require_binaries("std", "tokio")
    run = run_script(SCRIPT, ["-tS"], tmp_path, INTERVALS="0.001", PROTOCOLS="tcp", DURATION="0.3", WARMUP="0.1",
                     REPEATS="2", PROBED="2")
    assert run.rc == 0, run.output
    assert "PROBED=2: 2 run(s) of each of 2 points that also count system calls and wake-ups" in run.output
    folder = sweep_dir(tmp_path)
    sweep = load_json(folder / "sweep.json")
    probed = sorted((p["point"], p["round"], p["status"]) for p in sweep["probed"])
    assert probed == [(f"{fw}-tcp-64B-0.001s-0t", k, "ok") for fw in ("std", "tokio") for k in (1, 2)]
    assert all(p["counters"]["pong"]["syscalls"]["value"] and p["sent"] > 0 for p in sweep["probed"])
    # The measured runs are the rounds' alone, and count what the kernel keeps anyway.
    assert sorted(p.name for p in folder.glob("*.json")) == sorted(
        [f"{fw}-tcp-64B-0.001s-0t-r{k}.json" for fw in ("std", "tokio") for k in (1, 2)] + ["sweep.json"])
    measured = load_json(folder / "tokio-tcp-64B-0.001s-0t-r1.json")["counters"]["pong"]
    assert measured["syscalls"]["value"] is None and measured["voluntary_switches"]["value"] is not None
    out = subprocess.run([sys.executable, str(REPO / "parse.py"), "costs", "-d", str(folder), "--format", "csv"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = {(r["framework"], r["end"]): r for r in csv.DictReader(io.StringIO(out.stdout))}
    std = rows[("std", "pong")]
    assert std["probed"] == "2" and abs(float(std["syscalls_per_msg"]) - 2.0) <= 0.05, std
    # std's pong ends its connection's thread inside the window, so its switches are the probed runs' (perf's).
    assert 0.95 <= float(std["switches_per_msg"]) <= 1.25, std
    tokio = rows[("tokio", "pong")]
    assert tokio["delta_syscalls_per_msg"] != "" and tokio["delta_switches_per_msg"] != "", tokio


def test_the_probed_runs_hold_their_tracepoints_registered_and_the_measured_runs_do_not(tmp_path, shim_bins):
    """PROBED: BIN_DIR's hold-kernel-events lives through the probed runs (each run's counters closing then waits
    for no unregistering: 0.86 → 0.27 s a run here, docs/sweeps.md), not through a measured run, and is gone after;
    without it a sweep says what it costs and goes on."""
    holder_pid, seen = tmp_path / "holder.pid", tmp_path / "seen"
    shim(shim_bins, "hold-kernel-events", f'echo $$ >"{holder_pid}"\nexec "{BIN_DIR}/hold-kernel-events"')
    (shim_bins / "std-ping").unlink()
    shim(shim_bins, "std-ping", 'case "$*" in *--all-counters*) kind=probed ;; *--out*) kind=measured ;;\n'
                                '  *) kind= ;; esac\n'
                                f'[ -n "$kind" ] && {{ [ -e "/proc/$(cat "{holder_pid}" 2>/dev/null)/status" ] && '
                                f'echo "$kind held" >>"{seen}" || echo "$kind free" >>"{seen}"; }}\n'
                                f'exec "{BIN_DIR}/std-ping" "$@"')
    run = run_script(SCRIPT, ["-S"], tmp_path / "out", BIN_DIR=shim_bins, INTERVALS="0", PROTOCOLS="tcp",
                     DURATION="0.2", WARMUP="0.05", REPEATS="2", PROBED="2")
    assert run.rc == 0, run.output
    assert sorted(seen.read_text().split("\n")[:-1]) == ["measured free"] * 2 + ["probed held"] * 2, run.output
    assert not (Path("/proc") / holder_pid.read_text().strip()).exists()  # stopped with the probed runs
    (shim_bins / "hold-kernel-events").unlink()
    run = run_script(SCRIPT, ["-S"], tmp_path / "out2", BIN_DIR=shim_bins, INTERVALS="0", PROTOCOLS="tcp",
                     DURATION="0.2", WARMUP="0.05", REPEATS="1", PROBED="1")
    assert run.rc == 0 and f"hold-kernel-events is not running from {shim_bins}: each probed run waits" in run.output, \
        run.output
    assert load_json(sweep_dir(tmp_path / "out2") / "sweep.json")["probed"][0]["status"] == "ok"
