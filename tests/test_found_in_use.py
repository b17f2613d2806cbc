"""Defects found in use: a point given up is not probed, and its probed runs' cost stays in BUDGET; a run's own
threads preempting each other are its workload, not a disturbance."""

from sweep_helpers import BIN_DIR, load_json, require_binaries, run_script, shim, sweep_dir
from sweepkit import disturbance

STD = "std-tcp-64B-0s-0t"


def bins_with_an_unfinished_std(tmp_path, after_s: float):
    """BIN_DIR's tokio, and a std-ping that says what the ping's watchdog says, `after_s` into its run."""
    bins = tmp_path / "bin"
    bins.mkdir()
    shim(bins, "std-ping", f'sleep {after_s}\necho "std-ping: error: the run did not end within 15 s: the runtime under '
                           'test never ran the measurement to its end (a task that never yields ...)" >&2\nexit 1')
    for name in ("std-pong", "tokio-ping", "tokio-pong", "hold-kernel-events"):
        (bins / name).symlink_to(BIN_DIR / name)
    return bins


def test_a_point_given_up_is_not_probed_and_the_budget_holds_with_the_probed_runs(tmp_path):
    require_binaries("tokio", "std")
    budget_s = 12
    run = run_script("run-localhost.sh", ["-St"], tmp_path / "out", timeout=120,
                     BIN_DIR=bins_with_an_unfinished_std(tmp_path, 1), BUDGET=f"{budget_s}s", REPEATS="", PROBED="3",
                     COUNTERS="1", INTERVALS="0", PROTOCOLS="tcp", DURATION="0.1", WARMUP="0.1", TUNE="0")
    assert run.rc == 0, run.output
    doc = load_json(sweep_dir(tmp_path / "out") / "sweep.json")
    assert [r["status"] for r in doc["runs"] if r["point"] == STD][:2] == ["skipped", "skipped"]
    assert {p["point"] for p in doc["probed"]} == {"tokio-tcp-64B-0s-0t"} and len(doc["probed"]) == 3
    assert f"PROBED=3: not run for {STD}: given up in the rounds" in run.output
    # The rounds, the probed runs and the closing all within the budget: each of the given-up point's probed
    # runs would have cost its second (the watchdog's 15 s in a real sweep).
    assert 0.85 * budget_s <= doc["wall_s"] <= 1.15 * budget_s, doc["wall_s"]


def ends(preempted: int, moved: int = 1) -> dict:
    return {"other_cpus": 0.0, "steal_cpus": 0.0, "ping": {"involuntary_switches": preempted, "migrations": moved},
            "pong": {"involuntary_switches": 5, "migrations": 0}}


def test_a_runs_own_decoys_preempting_each_other_are_not_a_disturbance():
    quiet = {"a": 30, "b": 40, "c": 35, "d": 30, "e": 40}
    runs = []
    for round_ in (1, 2, 3, 4):
        runs += [{"stem": f"{p}-r{round_}", "point": p, "round": round_, "disturbance": ends(n)} for p, n in quiet.items()]
        # 1 000 CPU-bound decoy threads on the ping's one CPU: thousands of preemptions in every run of the point.
        decoys = 60_000 if round_ == 4 else 15_000 + 100 * round_
        runs.append({"stem": f"decoys-r{round_}", "point": "decoys", "round": round_, "disturbance": ends(decoys)})
    runs[6]["disturbance"] = ends(900)  # a (round 2): far above its round and its own point's other runs
    flagged = disturbance.flag(runs)
    assert [r["stem"] for r in flagged] == ["a-r2", "decoys-r4"]
    assert runs[6]["disturbed"].endswith("its round's median 45")
    assert flagged[1]["disturbed"] == ("its ends were preempted 60005 times (involuntary context switches), its "
                                       "point's other runs' median 15205")
