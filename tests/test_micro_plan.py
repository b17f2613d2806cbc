"""MODE=micro in sweepkit: its knobs and their messages, the Go reference's flag, the plan and its
command lines, how a run's end is judged, the progress line and the estimate (no process started)."""

import json

import pytest

from sweep_helpers import REPO

from suite import runtimes  # noqa: E402
from sweepkit import cli, commands, knobs, micro, modes, plan, progress, selection, state  # noqa: E402

EVERY_BENCH = "spawn_many, yield_many, ping_pong, chained_spawn, notify, oneshot, channel"


def checked(flags="St", context="localhost", **env):
    return knobs.check({"MODE": "micro"} | env, flags, context)


def planned(flags="St", **env):
    result = checked(flags, **env)
    assert not result.errors and not result.usage, result
    return plan.build(result.spec(), result.selection)


def test_the_go_reference_is_in_the_list_for_micro_only():
    go = runtimes.by_flag("G")
    assert (go.label, go.binary_prefix, go.modes, go.reference) == ("go", "go", ("micro",), True)
    assert go.takes_part("micro") and not go.takes_part("rtt") and not go.takes_part("throughput")
    assert all(e.takes_part(m) for e in runtimes.runtimes() if not e.modes for m in ("rtt", "throughput", "micro"))
    assert not runtimes.by_flag("P").takes_part("micro") and runtimes.by_flag("B").takes_part("rtt")
    assert not selection.has_pong(go) and "go" not in [e.label for e in selection.pong_entries()]
    # crates/rtt-tests/build.rs reads "runtimes" only: go is not one.
    listed = json.loads((REPO / "runtimes.json").read_text())
    assert "go" not in [e["label"] for e in listed["runtimes"]]


@pytest.mark.parametrize("mode", ["rtt", "throughput"])
def test_the_go_flag_is_refused_outside_micro_with_what_it_is_for(mode):
    result = knobs.check({"MODE": mode}, "tG", "localhost")
    assert result.usage == ("-G (go) runs only with MODE=micro, not MODE=" + mode + ": Go goroutines, channels and "
                            "runtime.Gosched (go-micro): the in-process benchmarks' reference, MODE=micro only")
    assert knobs.check({"MODE": mode}, "G", "peer").usage.startswith("-G (go) runs only with MODE=micro")


def test_micro_defaults_one_repeat_and_its_own_knobs_only_in_a_micro_sweep():
    k = checked().knobs
    assert k["REPEATS"] == "1" and k["BENCHES"].split() == list(micro.BENCHES)
    assert (k["MICRO_INSTANCES"], k["MICRO_WORKERS"], k["MICRO_EVENT_TYPES"], k["MICRO_EVENT_SIZES"]) == (
        "10000 100000", "100 1000", "int string string_copy shared", "16")
    assert (k["MICRO_REPEAT"], k["MICRO_TIMEOUT"], k["MICRO_CPUS"]) == ("6", "120", "")
    assert checked(REPEATS="3").knobs["REPEATS"] == "3"
    assert "BENCHES" not in knobs.check({}, "St").knobs  # an RTT sweep records none of them


def test_every_bad_micro_knob_is_named_at_once_and_a_bad_bench_names_the_valid_ones():
    result = checked(BENCHES="spawn_many spawn_lots", MICRO_INSTANCES="0 10k", MICRO_WORKERS=" ",
                     MICRO_EVENT_TYPES="int bytes", MICRO_EVENT_SIZES="16 0", MICRO_REPEAT="0", MICRO_TIMEOUT="soon", MICRO_CPUS="all")
    assert result.errors == [
        f"BENCHES: 'spawn_lots' is not a benchmark: choose from {EVERY_BENCH}",
        "MICRO_INSTANCES: '0' is not a number of holder/waiter pairs from 1 to 999999999",
        "MICRO_INSTANCES: '10k' is not a number of holder/waiter pairs from 1 to 999999999",
        'MICRO_WORKERS is empty: expected channel workers, e.g. "100 1000"',
        "MICRO_EVENT_TYPES: 'bytes' is not an event type: choose from int, string, string_copy, shared, shared_arc",
        "MICRO_EVENT_SIZES: '0' is not a number of bytes of a string event from 1 to 999999999",
        "MICRO_REPEAT='0': expected timed repeats per run from 1 to 1000",
        "MICRO_TIMEOUT='soon': expected whole seconds > 0 for a whole run, e.g. 120",
        "MICRO_CPUS='all': expected a CPU list like 0 or 0-1 (empty: every CPU)",
    ]
    assert checked(BENCHES=" ").errors == [f"BENCHES is empty: choose from {EVERY_BENCH}"]


def test_knobs_of_other_modes_get_one_warning_and_counts_are_normalised():
    result = checked(DURATION="5", PROTOCOLS="udp", MICRO_INSTANCES="010 20", MICRO_REPEAT="03")
    assert result.warnings == ["DURATION, PROTOCOLS do not apply to MODE=micro (in-process benchmarks: see BENCHES "
                               "and the MICRO_* knobs)"]
    assert (result.knobs["MICRO_INSTANCES"], result.knobs["MICRO_REPEAT"]) == ("10 20", "3")


def test_references_without_a_micro_program_are_skipped_or_refused_alone():
    result = checked("tPB")
    assert [e.label for e in result.selection] == ["tokio"]
    assert result.warnings == ["-P: the ping reference measures no in-process benchmark; skipped with MODE=micro",
                               "-B: the busy-poll reference measures no in-process benchmark; skipped with MODE=micro"]
    assert checked("P").usage == ("-P: the ping reference measures no in-process benchmark; with MODE=micro choose "
                                  "-S, -t, -a, -s, -m, -c, -g, -G or -K")
    go_notify = checked("G", BENCHES="notify")  # go runs every benchmark
    assert not go_notify.usage and [e.label for e in go_notify.selection] == ["go"]


def test_the_io_uring_runtimes_take_part_in_micro_and_in_the_other_modes():
    for label in ("monoio", "compio", "glommio"):
        entry = runtimes.by_label(label)
        assert entry.takes_part("micro") and entry.takes_part("rtt") and entry.takes_part("throughput")
    result = checked("tmcg")
    assert [e.label for e in result.selection] == ["tokio", "monoio", "compio", "glommio"] and not result.warnings
    assert {p.binary for p in plan.build(result.spec(), result.selection)} == {"tokio", "monoio", "compio", "glommio"}
    monoio = runtimes.by_label("monoio")
    for mode in ("rtt", "throughput"):
        swept = knobs.check({"MODE": mode}, "m", "localhost")
        assert not swept.usage and not swept.errors and selection.has_pong(monoio)
        assert [p.binary for p in plan.build(swept.spec(), swept.selection)][:1] == ["monoio"]


def test_micro_is_refused_across_hosts():
    for context in ("remote", "peer", "serve"):
        assert checked("t", context).usage == ("MODE=micro runs in-process on one host, with no peer: use "
                                               "./run-localhost.sh")


def test_the_default_plan_runs_every_bench_at_its_sizes_on_every_entry_go_included():
    points = planned("asStG")
    per_entry = 4 + 2 * 2 + 4 * 2  # the scheduler four, notify and oneshot at 2 N, channel at 4 types × 2 W
    assert len(points) == 5 * per_entry and not any(p.skipped for p in points)
    tokio = [p.stem for p in points if p.framework == "tokio"]
    assert tokio == ["tokio-spawn_many", "tokio-yield_many", "tokio-ping_pong", "tokio-chained_spawn",
                     "tokio-notify-i10000", "tokio-notify-i100000", "tokio-oneshot-i10000", "tokio-oneshot-i100000",
                     *[f"tokio-channel-{t}-w{w}" for t in ("int", "string", "string_copy", "shared")
                       for w in (100, 1000)]]
    go = [p for p in points if p.framework == "go"]
    assert [p.stem.replace("go-", "tokio-", 1) for p in go] == tokio and {p.binary for p in go} == {"go"}
    assert [p.framework for p in points][::per_entry] == ["std", "tokio", "async-std", "smol", "go"]
    # The whole grid: N up to 1 000 000, W up to 10 000.
    full = planned("asStG", MICRO_INSTANCES="10000 100000 1000000", MICRO_WORKERS="100 1000 10000")
    assert len(full) == 5 * (4 + 2 * 3 + 4 * 3)


def test_event_sizes_multiply_the_string_points_only_and_go_has_no_shared_arc():
    points = planned("tG", BENCHES="channel", MICRO_WORKERS="100", MICRO_EVENT_TYPES="int string_copy shared_arc",
                     MICRO_EVENT_SIZES="16 256")
    assert [p.stem for p in points] == [
        "tokio-channel-int-w100", "tokio-channel-string_copy-w100", "tokio-channel-string_copy-s256-w100",
        "tokio-channel-shared_arc-w100", "tokio-channel-shared_arc-s256-w100",
        "go-channel-int-w100", "go-channel-string_copy-w100", "go-channel-string_copy-s256-w100"]
    sized = next(p for p in points if p.stem == "go-channel-string_copy-s256-w100")
    assert sized.args(checked("G").spec())[:7] == ["--bench", "channel", "--event-type", "string_copy",
                                                   "--event-size", "256", "--workers"]
    assert sized.record()["sizes"] == {"event_type": "string_copy", "event_size": 256, "workers": 100}


def test_the_kotlin_reference_runs_every_bench_and_its_estimate_counts_the_jvm():
    kotlin = runtimes.by_flag("K")
    assert (kotlin.label, kotlin.binary_prefix, kotlin.modes, kotlin.reference) == ("kotlin", "kotlin", ("micro",), True)
    assert (kotlin.benches, kotlin.toolchain) == ((), "java and mvn") and not selection.has_pong(kotlin)
    assert runtimes.by_flag("G").benches == ()  # go too runs every benchmark
    points = planned("tK", MICRO_WORKERS="100", MICRO_EVENT_TYPES="int")
    stems = [p.stem for p in points if p.framework == "kotlin"]
    assert stems == ["kotlin-spawn_many", "kotlin-yield_many", "kotlin-ping_pong", "kotlin-chained_spawn",
                     "kotlin-notify-i10000", "kotlin-notify-i100000", "kotlin-oneshot-i10000",
                     "kotlin-oneshot-i100000", "kotlin-channel-int-w100"]
    tokio, kotlin_ = (next(p for p in points if p.framework == f and p.bench == "spawn_many") for f in ("tokio",
                                                                                                          "kotlin"))
    # Five warm-up iterations instead of one, and the JVM's start.
    reps = int(knobs.MICRO_DEFAULTS["MICRO_REPEAT"])
    per_iteration = (tokio.estimated_s - micro.GUESS_OVERHEAD_S) / (reps + 1)
    assert kotlin_.estimated_s == pytest.approx(
        per_iteration * (reps + micro.JVM_WARMUP) + micro.GUESS_OVERHEAD_S + micro.JVM_START_S, abs=0.002)
    assert checked("K", context="serve").usage == "MODE=micro runs in-process on one host, with no peer: use " \
                                                   "./run-localhost.sh"


def test_std_above_its_thread_cap_is_guessed_to_take_no_time():
    capped, fits = planned("S", BENCHES="notify", MICRO_INSTANCES="100000 5000")
    assert capped.estimated_s == micro.GUESS_OVERHEAD_S < fits.estimated_s


def test_a_micro_run_has_the_binary_s_arguments_and_its_time_limit():
    result = checked("tG", BENCHES="notify channel", MICRO_INSTANCES="500", MICRO_WORKERS="8",
                     MICRO_EVENT_TYPES="string", MICRO_REPEAT="4", MICRO_TIMEOUT="30", PING_GRACE="5", BIN_DIR="/b")
    points = plan.build(result.spec(), result.selection)
    argv = sorted(commands.micro(result.spec(), r.point, f"/o/{r.stem}") for r in plan.runs(points, 1, 3))
    assert argv == [
        ["/b/go-micro", "--bench", "channel", "--event-type", "string", "--workers", "8", "--repeat", "4", "--timeout",
         "30", "--out", "/o/go-channel-string-w8-r1"],
        ["/b/go-micro", "--bench", "notify", "--instances", "500", "--repeat", "4", "--timeout", "30", "--out",
         "/o/go-notify-i500-r1"],
        ["/b/tokio-micro", "--bench", "channel", "--event-type", "string", "--workers", "8", "--repeat", "4",
         "--timeout", "30", "--out", "/o/tokio-channel-string-w8-r1"],
        ["/b/tokio-micro", "--bench", "notify", "--instances", "500", "--repeat", "4", "--timeout", "30", "--out",
         "/o/tokio-notify-i500-r1"]]
    assert modes.of("micro").limit_s(result.spec()) == 35


def test_point_and_run_records_say_the_bench_its_sizes_and_a_time_guess():
    (point,) = planned("S", BENCHES="channel", MICRO_WORKERS="100", MICRO_EVENT_TYPES="int")
    record = point.record()
    assert list(record) == ["stem", "framework", "bench", "sizes", "estimated_s", "status", "repeats_ok", "empty",
                            "message"]
    assert record["sizes"] == {"event_type": "int", "workers": 100} and record["estimated_s"] > 0.3
    assert plan.Run(point, 1).record() == {"stem": "std-channel-int-w100-r1", "point": "std-channel-int-w100",
                                           "round": 1, "status": "planned", "start_s": None, "wall_s": None,
                                           "ns_per_op_median": None, "ops_per_s_median": None, "message": None}
    # The guess grows with the sizes and the repeats.
    small, big = planned("t", BENCHES="notify", MICRO_INSTANCES="1000 1000000")
    assert big.estimated_s > 10 * small.estimated_s
    assert planned("t", BENCHES="notify", MICRO_INSTANCES="1000", MICRO_REPEAT="20")[0].estimated_s > small.estimated_s


def log_of(tmp_path, **fields):
    stem = tmp_path / "tokio-notify-i100-r1"
    stem.with_suffix(".json").write_text(json.dumps({"kind": "micro", "not_run": None, **fields}))
    return stem


def test_a_runs_end_is_judged_by_its_exit_status_and_its_log(tmp_path):
    stem = tmp_path / "tokio-notify-i100-r1"
    assert state.micro_outcome(0, "140", stem) == ("failed", f"wrote no {stem}.json")
    stem.with_suffix(".json").write_text("")
    assert state.micro_outcome(124, "140", stem) == ("failed", "timed out after 140 s")
    assert not stem.with_suffix(".json").exists()  # an empty log goes
    assert state.micro_outcome(1, "140", log_of(tmp_path, complete=False)) == ("failed", "exited with status 1")
    assert stem.with_suffix(".json").exists()  # what it wrote stays
    assert state.micro_outcome(0, "140", log_of(tmp_path)) == ("ok", None)
    assert state.micro_outcome(0, "140", log_of(tmp_path, not_run="more than 20000 threads")) == (
        "skipped", "not run: more than 20000 threads")


SPEC = knobs.check({"MODE": "micro", "BENCHES": "spawn_many"}, "t").spec()


def doc_of(**run):
    points = plan.build(SPEC, checked("t", BENCHES="spawn_many").selection)
    doc = {"repeats": 1, "seed": 7, "points": [p.record() for p in points],
           "runs": [r.record() for r in plan.runs(points, 1, 7)]}
    doc["runs"][0] |= run
    return doc


def test_the_progress_line_shows_the_median_per_operation_and_the_rate():
    doc = doc_of(status="ok", wall_s=0.41, ns_per_op_median=301.5, ops_per_s_median=3.317e6)
    assert progress.progress_line(doc, 0, 0.5, SPEC, "micro") == (
        "[1/1 r1] tokio-spawn_many                   median  302 ns/op     3.32 M op/s   (0.41 s)   ETA 0s")
    skipped = doc_of(status="skipped", wall_s=0.02, message="not run: more than 20000 threads")
    assert "skipped: not run: more than 20000 threads   (0.02 s)" in progress.progress_line(skipped, 0, 0.1, SPEC, "micro")


def test_the_plan_printout_and_the_estimate_use_each_run_s_guess():
    doc = doc_of()
    guess = doc["points"][0]["estimated_s"]
    runs = plan.runs(plan.build(SPEC, checked("t", BENCHES="spawn_many").selection), 1, 7)
    assert progress.estimate_s(runs, SPEC) == pytest.approx(guess)
    assert progress.plan_lines(doc, runs, SPEC)[0].startswith("Plan: 1 points × 1 repeat = 1 runs of 1 warm-up + 6 timed "
                                                  "repeats (micro), about ")
    # The ETA scales the guesses still to come by what the runs so far took against theirs.
    two = {"points": doc["points"] * 2, "runs": [dict(doc["runs"][0]), dict(doc["runs"][0])]}
    two["points"][1] = dict(two["points"][1], stem="other", estimated_s=2 * guess)
    two["runs"][1] |= {"point": "other"}
    assert modes.of("micro").eta_s(two, 0, 3 * guess, SPEC) == pytest.approx(3 * 2 * guess)


def test_closing_figures_of_a_micro_sweep():
    runs = [{"status": "ok", "wall_s": 2.0}, {"status": "skipped", "wall_s": 0.1}, {"status": "ok", "wall_s": 3.0}]
    totals = progress.totals(runs, 6.0, SPEC)
    assert totals == {"wall_s": 6.0, "measured_s": 5.0, "warmup_total_s": None, "overhead_per_run_s": None}
    lines = progress.closing_lines({"points": [], "runs": runs, "repeats": 1, **totals}, "/tmp/x")
    assert lines[0] == "2 of 3 runs measured in 6s (wall 6 s; the runs measured took 5 s)"


def test_the_help_lists_the_micro_knobs_and_the_go_flag(capsys):
    cli.main(["help"])
    out = capsys.readouterr().out
    assert "  -G  go: Go goroutines, channels and runtime.Gosched (go-micro)" in out
    assert 'MICRO_EVENT_SIZES="16"' in out
    assert 'BENCHES="spawn_many yield_many ping_pong chained_spawn notify oneshot channel"' in out
    assert "MICRO_CPUS=" in out and "MICRO_REPEAT=6" in out
    cli.main(["help", "--network"])
    assert "MICRO_CPUS" not in capsys.readouterr().out  # run-network.sh refuses MODE=micro


def test_the_plain_closing_table_lists_micro_runs_and_what_was_not_run(tmp_path):
    from analysis.tests.micro_logs import write_micro
    from sweepkit import summary

    write_micro(tmp_path, "tokio", "notify", 2500, instances=1000)
    write_micro(tmp_path, "std", "notify", 0, instances=100000, not_run="above its cap of 20000")
    lines = summary.summary(tmp_path)
    assert lines[0].split() == ["framework", "bench", "sizes", "run", "repeats", "ns/op", "median", "op/s", "median",
                                "peak", "RSS"]
    tokio = next(line for line in lines if line.startswith("tokio"))
    assert "instances=1000" in tokio and " r1 " in tokio and " µs " in tokio and " k " in tokio
    assert "not run (above its cap of 20000)" in next(line for line in lines if line.startswith("std"))
    assert summary.figures(json.loads((tmp_path / "tokio-notify-i1000-r1.json").read_text()))[0] == pytest.approx(
        2500, rel=0.2)
