"""A run whose window holds no sample: measured again at once and named; a point whose windows stay empty is marked in
the table, the CSV and sweep.json, and no estimate is made of nothing."""

import io
import json
import subprocess
import sys

import pandas as pd

from sweepkit import empty, modes
from sweep_helpers import BIN_DIR, REPO, load_json, require_binaries, run_script, shim, sweep_dir

# A pong that holds each echo for longer than warm-up + window: the warm-up's message is answered after the window
# closed, and the closed loop sends nothing in it (a TCP run then logs `complete` with no round trip).
HOLD_NS = 600_000_000


def pong_that_holds_its_first(bins, starts: int, calls) -> None:
    """std-pong that holds its echoes in its first `starts` starts as a pong (counted in `calls`; not --version),
    and is the real one after."""
    held = f'echo x >>"{calls}"; [ "$(wc -l <"{calls}")" -le {starts} ] && set -- "$@" --delay-ns {HOLD_NS}'
    shim(bins, "std-pong", f'case "$*" in *--address*) {held};; esac\nexec "{BIN_DIR / "std-pong"}" "$@"')


def sweep_with(tmp_path, starts: int, repeats: int):
    require_binaries("std")
    bins = tmp_path / "bin"
    bins.mkdir()
    (bins / "std-ping").symlink_to(BIN_DIR / "std-ping")
    pong_that_holds_its_first(bins, starts, tmp_path / "pong-starts")
    run = run_script("run-localhost.sh", ["-S"], tmp_path / "out", timeout=180, BIN_DIR=bins, PROTOCOLS="tcp",
                     INTERVALS="0.001", DURATION="0.2", WARMUP="0.1", REPEATS=str(repeats), STOP="fixed")
    return run, sweep_dir(tmp_path / "out")


def parse(*args) -> str:
    done = subprocess.run([sys.executable, str(REPO / "parse.py"), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_empty_window_is_measured_again_at_once_and_named(tmp_path):
    run, folder = sweep_with(tmp_path, starts=1, repeats=2)
    assert run.rc == 0, run.output
    stem = "std-tcp-64B-0.001s-0t-r1"
    said = [line for line in run.stdout if "measured again" in line]
    assert len(said) == 1 and said[0].strip().startswith(f"{stem}: empty: no round trip in its window"), run.output
    doc = load_json(folder / "sweep.json")
    assert [(r["run"], r["why"].split(";")[0]) for r in doc["retries"]] == [(stem, "empty: no round trip in its window")]
    # Both ends' counters said (which cause they show depends on the machine's load: the unit test below holds each).
    assert "; ping " in doc["retries"][0]["why"] and "; pong " in doc["retries"][0]["why"]
    assert [(r["status"], r["samples"] > 0) for r in doc["runs"]] == [("ok", True), ("ok", True)]
    assert (doc["points"][0]["status"], doc["points"][0]["empty"]) == ("ok", 0)
    assert json.loads((folder / f"{stem}.json").read_text())["rtt_ns"]["n"] > 0  # the retry's log, not the first


def test_a_run_whose_retries_stay_empty_is_marked_and_its_point_pools_the_others(tmp_path):
    # Three starts held: the first run and its two retries; the second run measures.
    run, folder = sweep_with(tmp_path, starts=3, repeats=2)
    assert run.rc == 0, run.output
    doc = load_json(folder / "sweep.json")
    first, second = doc["runs"]
    assert first["status"] == "empty" and first["message"].startswith("no round trip in its window; sent 0")
    assert first["message"].endswith("(and in its 2 retries)") and first["p50_ns"] is None
    assert second["status"] == "ok" and len(doc["retries"]) == 2
    point = doc["points"][0]
    assert (point["status"], point["repeats_ok"], point["empty"]) == ("partial", 1, 1)
    assert point["message"] == "1 of 2 repeats (1 held no sample)"
    assert doc["counts"]["empty"] == 1
    assert not (folder / f"{first['stem']}.json").exists(), "an empty run leaves no log to pool"
    assert "Held no sample, measured again and still empty (1):" in "".join(run.stdout)
    table = parse("table", "-d", str(folder))
    assert "std ∅" in table and "∅ a run's window held no sample" in table
    csv = pd.read_csv(io.StringIO(parse("table", "-d", str(folder), "--format", "csv")))
    assert csv["empty"].tolist() == [1] and csv["repeats"].tolist() == [1]


def test_a_point_whose_every_window_stays_empty_has_no_estimate_and_says_why(tmp_path):
    run, folder = sweep_with(tmp_path, starts=99, repeats=1)
    assert run.rc == 0, run.output
    doc = load_json(folder / "sweep.json")
    point = doc["points"][0]
    assert (point["status"], point["repeats_ok"], point["empty"]) == ("empty", 0, 1)
    assert point["message"].startswith("all 1 runs held no sample; the first: no round trip in its window")
    assert not list(folder.glob("std-*.json")), "nothing measured, nothing logged"
    done = subprocess.run([sys.executable, str(REPO / "parse.py"), "table", "-d", str(folder)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and not done.stdout  # no row of figures made of nothing, and why
    assert "its sweep measured none of its points; std-tcp-64B-0.001s-0t: all 1 runs held no sample" in done.stderr


def test_each_mode_names_a_log_without_a_sample_and_only_such_a_log():
    rtt, throughput = modes.of("rtt"), modes.of("throughput")
    counters = {"ping": {"window_s": 0.204, "cpu_ns": {"value": 137_000_000}, "involuntary_switches": {"value": 1564},
                         "voluntary_switches": {"value": 0}}, "pong": {"window_s": 0.204, "cpu_ns": {"value": 2_000_000}}}
    starved = {"rtt_ns": {"n": 0}, "sent": 0, "received": 0, "tasks": 2, "counters": counters}
    assert rtt.empty(starved) == ("no round trip in its window; sent 0, received 0; ping 137 ms of CPU in its 204 ms "
                                  "window (1564 involuntary, 0 voluntary switches); pong 2 ms of CPU in its 204 ms "
                                  "window: nothing was sent in the window: each connection still awaited the echo of "
                                  "a warm-up message (a closed loop sends after each echo), or never ran; the pong "
                                  "hardly ran: idle, or waiting for a CPU others held (counters cannot tell which)")
    assert rtt.empty({"rtt_ns": {"n": 1}}) is None
    assert rtt.empty({"rtt_ns": {"n": 0}}).endswith("the pong was not counted")
    idle = counters | {"ping": counters["ping"] | {"cpu_ns": {"value": 1_000_000}}}
    assert empty.cause({"counters": idle}, 3).startswith("none of the 3 messages sent in the window was answered")
    assert ", nor the ping:" in empty.cause({"counters": idle}, 3)
    held = counters | {"pong": counters["pong"] | {"cpu_ns": {"value": 150_000_000}}}
    assert empty.cause({"counters": held}, 0).endswith("; the pong was on a CPU: it held the echo")
    assert throughput.empty({"windows": 0, "msg_per_s": {}}).startswith("no message counted in its window")
    assert throughput.empty({"windows": 4, "msg_per_s": {"p50": 1.0}}) is None
    assert modes.of("micro").empty({}) is None
    assert modes.of("icmp").empty({"rtt_ns": {"n": 0}}) == "no echo reply in its window, only outside it"
