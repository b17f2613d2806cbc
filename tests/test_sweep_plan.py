"""sweepkit: the knob checks and their messages, the plan and each end's command line, the ETA and
the progress line, on knobs and points made up here (no process is started)."""

import hashlib
import itertools
import re

import pytest


from suite import runtimes  # noqa: E402
from sweepkit import cli, commands, entry, knobs, modes, network, plan, prepare, progress, state  # noqa: E402
from suite import fmt  # noqa: E402


@pytest.fixture(autouse=True)
def runtimes_and_icmp(monkeypatch):
    """The list as these tests' expectations know it: runtimes.json's first four runtimes and the ICMP
    reference, whatever else it lists; a test that adds an entry adds it to these."""
    listed = tuple(e for e in runtimes.entries() if e.label in ("std", "tokio", "async-std", "smol")
                   or e.transport == "icmp")
    monkeypatch.setattr(runtimes, "entries", lambda: listed)


def checked(flags="St", context="localhost", **env):
    return knobs.check(env, flags, context)


def planned(flags="St", context="localhost", icmp_unusable=None, **env):
    result = checked(flags, context, **env)
    assert not result.errors and not result.usage, result
    return plan.build(result.spec(), result.selection, icmp_unusable)


def test_defaults_fill_unset_and_empty_knobs_but_an_empty_cpu_list_stays():
    values, given = knobs.read({"DURATION": "", "PING_CPUS": "", "MODE": "rtt"})
    assert values["DURATION"] == "0.1" and values["PING_CPUS"] == "" and values["PONG_CPUS"] == "0"
    assert values["REPEATS"] == "80" and values["SEED"] == ""
    # MODE=throughput keeps the run length it was measured with; MODE=micro one repeat of many timed ones.
    throughput = knobs.read({"MODE": "throughput"})[0]
    assert (throughput["REPEATS"], throughput["DURATION"], throughput["WARMUP"]) == ("14", "1", "0.25")
    # run-network.sh too: there each run pays an ssh handshake.
    network = knobs.read({}, network=True)[0]
    assert (network["REPEATS"], network["DURATION"], network["WARMUP"]) == ("14", "1", "0.25")
    assert given == ["MODE", "DURATION", "PING_CPUS"]
    assert "BASE_PORT" not in values and knobs.read({}, network=True)[0]["BASE_PORT"] == "9009"


def test_every_bad_knob_is_named_at_once():
    result = checked(DURATION="abc", WARMUP="-1", SIZE="3", INTERVALS="0.1 fast", TASKS="many",
                     PROTOCOLS="tcp sctp", PING_CPUS="one", NICE="-40", PING_GRACE="0", READY_TIMEOUT="soon",
                     REPEATS="0", SEED="-1")
    assert result.errors == [
        "REPEATS='0': expected a number of runs per point from 1 to 1000 (3 or more for an interval across runs)",
        "SEED='-1': expected a whole number of up to 20 digits, e.g. 42",
        "DURATION='abc': expected seconds > 0, e.g. 10 or 0.5",
        "WARMUP='-1': expected seconds >= 0, e.g. 1",
        "SIZE='3': expected bytes >= 8 (the sequence number)",
        "INTERVALS: 'fast' is not a number of seconds >= 0",
        "TASKS: 'many' is not a decoy task count (0..100000)",
        "PROTOCOLS: 'sctp' is not tcp, udp or http",
        "PING_CPUS='one': expected a CPU list like 1 or 4,6",
        "NICE='-40': expected a niceness from -20 to 19",
        "READY_TIMEOUT='soon': expected seconds > 0",
        "PING_GRACE='0': expected seconds > 0",
    ]


@pytest.mark.parametrize("env, message", [
    ({"MODE": "latency"}, "MODE='latency': expected rtt (round-trip times), throughput (msg/s and Gb/s), micro "
                          "(in-process benchmarks) or wrk (the HTTP figures cross-checked with wrk)"),
    ({"SIZE": "70000"}, "SIZE=70000 is too large for UDP (at most 65507 bytes)"),
    ({"INTERVALS": " "}, 'INTERVALS is empty: expected seconds, e.g. "0.001 0"'),
    ({"MODE": "throughput", "SIZES": "64 7"},
     "SIZES: '7' is not a payload size from 8 bytes (the sequence number) to 67108864"),
    ({"MODE": "throughput", "DURATION": "400", "PROTOCOLS": "udp"},
     "WARMUP + DURATION is over 400 s: a UDP throughput point lasts at most that (its counts come back in "
     "one datagram)"),
    ({"MODE": "throughput", "PING_EXTRA": "--pacing=sleep"},
     "PING_EXTRA: --pacing does not apply to MODE=throughput (the ping sends as fast as it can)"),
])
def test_a_bad_knob_gets_its_message(env, message):
    assert checked(**env).errors == [message]


def test_knobs_are_normalised_as_recorded():
    result = checked(NICE="-08", SIZE="064", REPEATS="05", SEED="0042")
    assert not result.errors and result.knobs["NICE"] == "-8" and result.knobs["SIZE"] == "64"
    assert (result.knobs["REPEATS"], result.knobs["SEED"]) == ("5", "42")


def test_a_seed_is_drawn_when_none_is_given_and_kept_as_a_knob():
    seeds = {checked().knobs["SEED"] for _ in range(5)}
    assert all(seed.isdigit() for seed in seeds) and len(seeds) > 1
    assert "SEED" not in checked().given and checked(SEED="").knobs["SEED"].isdigit()


def test_base_port_leaves_room_for_every_runtime():
    assert checked(context="peer", BASE_PORT="65533").errors == ["BASE_PORT='65533': expected a port from 1 to 65532"]
    assert not checked(context="remote", BASE_PORT="09009").errors


@pytest.mark.parametrize("flags, context, usage", [
    ("Sx", "localhost", "unknown flag -x"),
    ("", "localhost", "choose what to measure: at least one of -S -t -a -s -P"),
    ("SP", "serve", "-P needs no pong: leave it out of --serve"),
])
def test_flag_problems_are_usage_errors(flags, context, usage):
    assert checked(flags, context).usage == usage


def test_the_icmp_baseline_is_dropped_from_throughput_with_a_warning_or_refused_alone():
    result = checked("tP", MODE="throughput", INTERVALS="0")
    assert [e.label for e in result.selection] == ["tokio"]
    assert result.warnings == ["INTERVALS applies to MODE=rtt: a throughput point sends as fast as it can",
                               "-P: the ICMP baseline measures no throughput; skipped with MODE=throughput"]
    alone = checked("P", MODE="throughput")
    assert alone.usage == ("-P: the ICMP baseline measures no throughput; with MODE=throughput choose "
                           "-S, -t, -a or -s")


def test_a_runtime_added_to_the_list_is_swept_with_no_script_edit(monkeypatch, capsys):
    listed = runtimes.entries()
    added = runtimes.Entry(label="glommio", flag="g", colour="#56B4E9", about="glommio, a thread per core",
                           binary_prefix="glommio")
    monkeypatch.setattr(runtimes, "entries", lambda: (*listed[:4], added, *listed[4:]))
    points = planned("gP", context="peer", INTERVALS="0", PROTOCOLS="tcp")
    assert [(p.stem, p.binary, p.port) for p in points] == [("glommio-tcp-64B-0s-0t", "glommio", 9013),
                                                            ("ping-icmp-64B-0s-0t", None, None)]
    assert checked("g", "peer", BASE_PORT="65532").errors == ["BASE_PORT='65532': expected a port from 1 to 65531"]
    assert checked("", "localhost").usage.endswith("-S -t -a -s -g -P")
    cli.main(["help"])
    assert "  -g  glommio: glommio, a thread per core\n" in capsys.readouterr().out


def with_reference(monkeypatch, **fields):
    """A reference run by the suite's own binaries with arguments of their own, like busy-poll."""
    listed = runtimes.entries()
    fake = runtimes.Entry(**{"label": "busy-poll", "flag": "B", "colour": "#777777", "about": "busy-polling std",
                             "binary_prefix": "std", "ping_args": ("--pacing", "schedule"), "pong_args": (),
                             "reference": True} | fields)
    monkeypatch.setattr(runtimes, "entries", lambda: (*listed, fake))


def test_a_reference_with_binaries_is_planned_like_a_runtime_with_its_own_arguments(monkeypatch, capsys):
    with_reference(monkeypatch, pong_args=("--mode", "rtt"))
    points = planned("BSP", context="peer", INTERVALS="0", PROTOCOLS="tcp udp")
    assert [(p.stem, p.binary, p.port, p.ping_args, p.pong_args) for p in points] == [
        ("std-tcp-64B-0s-0t", "std", 9009, (), ()), ("std-udp-64B-0s-0t", "std", 9009, (), ()),
        ("busy-poll-tcp-64B-0s-0t", "std", 9013, ("--pacing", "schedule"), ("--mode", "rtt")),
        ("busy-poll-udp-64B-0s-0t", "std", 9013, ("--pacing", "schedule"), ("--mode", "rtt")),
        ("ping-icmp-64B-0s-0t", None, None, (), ())]
    (run,) = plan.runs(planned("B", INTERVALS="0", PROTOCOLS="tcp"), 1, seed=1)
    assert (run.point.port, run.round) == (None, 1)
    assert run.point.end_args("ping") == ("--pacing", "schedule", "--tasks", "0", "--connections", "1", "--load", "closed")
    assert run.point.end_args("pong") == ("--mode", "rtt", "--connections", "1")
    assert checked("B", "peer", BASE_PORT="65532").errors == ["BASE_PORT='65532': expected a port from 1 to 65531"]
    # Its binaries are std's, listed once; it measures throughput too, where ICMP is dropped.
    result = checked("SBP", MODE="throughput")
    assert [e.label for e in result.selection] == ["std", "busy-poll"]
    assert entry.missing_binaries(result.spec(), result.selection, ["ping"]) == []
    nowhere = result.spec().with_knobs(BIN_DIR="/nowhere")
    assert [p.name for p in entry.missing_binaries(nowhere, result.selection, ["ping"])] == [
        "std-ping"]
    assert checked("SB", "serve").warnings == [
        "-B: its pong (--mode rtt) stays up beside the others for the whole sweep; to be sure it takes no CPU "
        "time from them, serve it on its own (--serve -B)"]
    serve = checked("SB", "serve", INTERVALS="0", PROTOCOLS="tcp").spec()
    assert network.serve_pongs({"frameworks": ["std", "busy-poll"]}, serve) == [("std", "std", "tcp", 9009, ("--connections", "1")),
                                    ("busy-poll", "std", "tcp", 9013, ("--mode", "rtt", "--connections", "1"))]
    cli.main(["help", "--network"])
    assert "BASE_PORT=9009         first port of --serve/--peer: std on BASE_PORT, tokio +1, async-std +2, " \
           "smol +3, busy-poll +4" in capsys.readouterr().out


def test_a_reference_argument_with_a_space_is_refused(monkeypatch):
    with_reference(monkeypatch, ping_args=("--pacing schedule",))
    assert checked("B").usage == "-B: runtimes.json gives it an empty argument or one with a space"


def test_the_plan_runs_runtimes_in_the_list_order_then_the_references():
    points = planned("PtS", INTERVALS="0.01 0", PROTOCOLS="tcp udp", TASKS="0 010")
    stems = [p.stem for p in points]
    assert stems[:4] == ["std-tcp-64B-0.01s-0t", "std-tcp-64B-0.01s-10t", "std-tcp-64B-0s-0t",
                         "std-tcp-64B-0s-10t"]
    assert stems[8].startswith("tokio-") and stems[-2:] == ["ping-icmp-64B-0.01s-0t", "ping-icmp-64B-0s-0t"]
    assert len(points) == 2 * 2 * 2 * 2 + 2 and not any(p.skipped for p in points)


def test_the_plan_skips_what_cannot_run_and_says_why():
    points = planned("SP", MODE="rtt", INTERVALS="0.0001", PROTOCOLS="udp")
    assert points[-1].skipped == "iputils ping paces in whole milliseconds, so it cannot send every 0.0001 s"
    small = planned("P", SIZE="8", INTERVALS="0.001")
    assert small[0].skipped.startswith("SIZE=8: ping reports an RTT only for payloads of 16 bytes")
    assert planned("P", icmp_unusable="no system ping")[0].skipped == "no system ping"
    sizes = planned("S", MODE="throughput", SIZES="64 100000", PROTOCOLS="tcp udp")
    assert [(p.stem, p.skipped) for p in sizes] == [
        ("std-tcp-64B-throughput-0t", None), ("std-tcp-100000B-throughput-0t", None),
        ("std-udp-64B-throughput-0t", None),
        ("std-udp-100000B-throughput-0t", "a UDP datagram carries at most 65507 bytes")]


def test_each_end_of_a_run_has_its_whole_command_line_and_its_time_limit():
    k = checked("aP", context="peer", BASE_PORT="9301", INTERVALS="0", PROTOCOLS="tcp", PING_EXTRA="--decoy sleep",
                PONG_EXTRA="--threads 1", DURATION="4", WARMUP="1", BIN_DIR="/b").spec()
    points = planned("aP", context="peer", BASE_PORT="9301", INTERVALS="0", PROTOCOLS="tcp")
    runs = sorted(plan.runs(points, 2, seed=1), key=lambda r: r.stem)
    assert [(r.stem, r.point.kind, r.point.port, r.round) for r in runs] == [
        ("async-std-tcp-64B-0s-0t-r1", "rtt", 9303, 1), ("async-std-tcp-64B-0s-0t-r2", "rtt", 9303, 2),
        ("ping-icmp-64B-0s-0t-r1", "icmp", None, 1), ("ping-icmp-64B-0s-0t-r2", "icmp", None, 2)]
    rtt, icmp = runs[0], runs[2]
    assert commands.ping(k, rtt.point, "10.0.0.2:9303", "/o/x", ["taskset", "-c", "1"]) == [
        "taskset", "-c", "1", "/b/asyncstd-ping", "--interval", "0", "--address", "10.0.0.2:9303", "--protocol",
        "tcp", "--size", "64", "--duration", "4", "--warmup", "1", "--tasks", "0", "--connections", "1", "--load",
        "closed", "--decoy", "sleep", "--out", "/o/x"]
    # A pong on this host is counted with the ping (its PID); COUNTERS=0 counts neither.
    assert commands.ping(k, rtt.point, "127.0.0.1:9", "/o/x", pong_pid=42)[3:5] == ["--pong-pid", "42"]
    every = checked("aP", context="peer", BASE_PORT="9301", COUNTERS="all", BIN_DIR="/b").spec()
    assert commands.ping(every, rtt.point, "127.0.0.1:9", "/o/x", pong_pid=42)[3:6] == [
        "--all-counters", "--pong-pid", "42"]
    off = checked("aP", context="peer", BASE_PORT="9301", COUNTERS="0", BIN_DIR="/b").spec()
    assert commands.ping(off, rtt.point, "127.0.0.1:9", "/o/x", pong_pid=42)[3:4] == ["--no-counters"]
    assert "COUNTERS='yes'" in " ".join(checked("aP", context="peer", BASE_PORT="9301", COUNTERS="yes").errors)
    assert commands.pong("/b", "asyncstd", "tcp", "10.0.0.2:0", rtt.point.end_args("pong"), k) == [
        "/b/asyncstd-pong", "--address", "10.0.0.2:0", "--protocol", "tcp", "--connections", "1", "--threads", "1"]
    assert commands.system_ping(icmp.point.interval, str(k.size), "10.0.0.2") == [
        "ping", "-D", "-n", "-i", "0", "-W", "1", "-s", "64", "10.0.0.2"]
    assert (modes.of("rtt").limit_s(k), modes.of("icmp").limit_s(k)) == (25, 5.1)
    throughput = checked("a", MODE="throughput", SIZES="1024", PROTOCOLS="udp", DURATION="4", WARMUP="1",
                         BIN_DIR="/b").spec()
    (point,) = planned("a", MODE="throughput", SIZES="1024", PROTOCOLS="udp")
    assert commands.ping(throughput, point, "h:1", "/o/y")[1:4] == ["--mode", "throughput", "--address"]
    assert commands.pong("/b", "asyncstd", "udp", "h:0", point.end_args("pong"), throughput)[-2:] == [
        "--mode", "throughput"]
    assert modes.of("throughput").limit_s(throughput) == 30


DEFAULT_SWEEP = "asStP"  # 4 runtimes × tcp, udp × 5 intervals, and ICMP at the 4 intervals iputils can pace


def test_every_round_runs_every_point_once():
    points = planned(DEFAULT_SWEEP)
    measured = [p.stem for p in points if not p.skipped]
    assert len(points) == 45 and len(measured) == 44
    runs = plan.runs(points, 3, seed=7)
    assert len(runs) == 132 and [r.round for r in runs] == [1] * 44 + [2] * 44 + [3] * 44
    for k in (1, 2, 3):
        in_round = runs[(k - 1) * 44:k * 44]
        assert sorted(r.point.stem for r in in_round) == sorted(measured)
        assert all(r.stem == f"{r.point.stem}-r{k}" for r in in_round)
    assert [r.point.stem for r in runs[:44]] != [r.point.stem for r in runs[44:88]]  # shuffled anew


def test_the_same_seed_gives_the_same_order_and_another_seed_another():
    points = planned(DEFAULT_SWEEP)

    def order(seed, repeats=3):
        return [r.stem for r in plan.runs(points, repeats, seed)]

    assert order(42) == order(42) == [r.stem for r in plan.runs(planned(DEFAULT_SWEEP), 3, 42)]
    assert order(42) != order(43)
    assert order(42, repeats=5)[:132] == order(42)  # round k does not depend on how many follow
    assert [p.stem for p in points if not p.skipped] not in ([r.point.stem for r in plan.runs(points, 1, s)]
                                                             for s in range(20))


@pytest.mark.parametrize("flags, env", [(DEFAULT_SWEEP, {}), ("tS", {"INTERVALS": "0.001 0", "PROTOCOLS": "tcp"}),
                                        ("SP", {"INTERVALS": "0.01 0.001 0", "PROTOCOLS": "udp"})],
                         ids=["default", "two-by-two", "one-runtime-and-icmp"])
def test_no_framework_runs_its_points_as_one_block(flags, env):
    points = planned(flags, **env)
    for seed in range(50):
        for k, runs in itertools.groupby(plan.runs(points, 2, seed), key=lambda r: r.round):
            assert not plan.blocks([r.point for r in runs]), (seed, k)
    assert plan.blocks([p for p in points if not p.skipped])  # the list's own order would


def test_a_single_framework_of_one_point_still_runs():
    points = planned("S", INTERVALS="0", PROTOCOLS="tcp")
    assert [r.stem for r in plan.runs(points, 3, seed=1)] == [f"std-tcp-64B-0s-0t-r{k}" for k in (1, 2, 3)]


def test_a_throughput_ping_has_time_for_its_handshake():
    k = checked(MODE="throughput", WARMUP="0.2", DURATION="1", PING_GRACE="2").spec()
    assert modes.of("throughput").limit_s(k) == pytest.approx(8.2)
    assert progress.seconds(modes.of("rtt").limit_s(k)) == "3.2"  # as the message of a ping timed out says it


def test_point_and_run_records_have_the_fields_of_their_kind():
    rtt, tput = planned("S", INTERVALS="0.001", PROTOCOLS="tcp")[0], planned("S", MODE="throughput",
                                                                              SIZES="8", PROTOCOLS="tcp")[0]
    assert list(rtt.record()) == ["stem", "framework", "transport", "payload", "interval_s", "tasks", "connections",
                                  "load", "status", "repeats_ok", "empty", "message"]
    assert rtt.record()["interval_s"] == 0.001
    assert list(tput.record()) == ["stem", "framework", "transport", "payload", "tasks", "status", "repeats_ok",
                                   "empty", "message"]
    assert plan.Run(rtt, 2).record() == {"stem": "std-tcp-64B-0.001s-0t-r2", "point": "std-tcp-64B-0.001s-0t",
                                         "round": 2, "status": "planned", "start_s": None, "wall_s": None,
                                         "p50_ns": None, "achieved_rate": None, "p99_ns": None, "samples": None,
                                         "starved": None,
                                         "message": None}
    assert list(plan.Run(tput, 1).record())[-3:] == ["msg_per_s_p50", "gbit_per_s_p50", "message"]


def runs_of(*statuses, wall=1.5, repeats=1):
    """Run records of made-up points, one per status; round k of a point runs as run k × points."""
    n = len(statuses) // repeats
    return [{"stem": f"std-tcp-64B-0s-{i % n}t-r{i // n + 1}", "point": f"std-tcp-64B-0s-{i % n}t",
             "round": i // n + 1, "status": s, "start_s": None, "wall_s": wall if s != "planned" else None,
             "p50_ns": 21350 if s == "ok" else None, "achieved_rate": 999.5 if s == "ok" else None,
             "message": None if s == "ok" else "why"} for i, s in enumerate(statuses)]


SPEC = knobs.check({"WARMUP": "0.5", "DURATION": "1"}, "S").spec()


def doc_of(runs, repeats=1, **extra):
    return {"knobs": SPEC.record(), "repeats": repeats, "runs": runs, **extra}


def test_the_eta_counts_what_is_left_at_the_overhead_seen_so_far():
    runs = runs_of("ok", "ok", "planned", "skipped", "planned")
    # Two measured runs took 4 s for 2 × 1.5 s of warm-up and duration: 0.5 s overhead each.
    assert modes.of("rtt").eta_s(doc_of(runs), 1, 4.0, SPEC) == pytest.approx(2 * (1.5 + 0.5))
    # A failed run's wall time is not overhead.
    failed = runs_of("failed", "ok", "planned", wall=3.0)
    assert modes.of("rtt").eta_s(doc_of(failed), 1, 3.0 + 2.0, SPEC) == pytest.approx(1.5 + 0.5)
    assert modes.of("rtt").eta_s(doc_of(runs), 4, 99.0, SPEC) == 0


def test_the_estimate_counts_each_kind_of_run_at_its_overhead():
    k = checked("SP", INTERVALS="0.001", PROTOCOLS="tcp", DURATION="4", WARMUP="1").spec()
    points = planned("SP", INTERVALS="0.001", PROTOCOLS="tcp")
    assert progress.estimate_s(plan.runs(points, 3, seed=1), k) == pytest.approx(3 * (5 + 0.03) + 3 * (5 + 0.15))


def test_the_progress_line_keeps_its_layout_and_shows_the_round():
    doc = doc_of(runs_of("ok", "failed", "skipped", "planned"))
    lines = [progress.progress_line(doc, i, 5.0, SPEC, "rtt") for i in range(3)]
    assert lines[0] == ("[1/4 r1] std-tcp-64B-0s-0t                  p50 21.35 µs          1 k msg/s   (1.5 s)   "
                        "ETA 5s")
    assert lines[1].startswith("[2/4 r1] std-tcp-64B-0s-1t                  FAILED: why   (1.5 s)   ETA ")
    assert lines[2].startswith("[3/4 r1] std-tcp-64B-0s-2t                  skipped: why   (1.5 s)")
    tput = [{"stem": "tokio-tcp-1024B-throughput-0t-r1", "point": "tokio-tcp-1024B-throughput-0t", "round": 1,
             "status": "ok", "wall_s": 11.31, "msg_per_s_p50": 1.46e6, "gbit_per_s_p50": 11.98, "message": None}]
    assert progress.progress_line(doc_of(tput), 0, 11.4, SPEC, "throughput") == (
        "[1/1 r1] tokio-tcp-1024B-throughput-0t      p50     1.46 M msg/s         12 Gb/s   (11.3 s)   ETA 0s")
    many = doc_of(runs_of(*["ok"] * 12, repeats=3), repeats=3)
    assert re.match(r"\[ 3/12 r1\] ", progress.progress_line(many, 2, 5.0, SPEC, "rtt"))
    assert re.match(r"\[11/12 r3\] std-tcp-64B-0s-2t ", progress.progress_line(many, 10, 5.0, SPEC, "rtt"))
    ten = doc_of(runs_of("ok", repeats=1), repeats=10)
    assert progress.progress_line(ten, 0, 5.0, SPEC, "rtt").startswith("[1/1 r1 ] ")


def test_the_plan_printout_says_what_is_skipped_the_runs_the_seed_and_the_estimate():
    k = checked("S", MODE="throughput", SIZES="64 100000", PROTOCOLS="udp", DURATION="10", WARMUP="1").spec()
    points = planned("S", MODE="throughput", SIZES="64 100000", PROTOCOLS="udp")
    runs = plan.runs(points, 3, 42)
    doc = {"repeats": 3, "seed": 42, "points": [p.record() for p in points], "runs": [r.record() for r in runs]}
    lines = progress.plan_lines(doc, runs, k)
    assert lines[:2] == ["Plan: 2 points, 1 skipped, × 3 repeats = 3 runs of 1 s warm-up + 10 s measured "
                         "(throughput), about 33s in all",
                         "  3 rounds, each point once per round, in blocks of one setting's frameworks back to back, "
                         "shuffled with SEED=42 (ORDER=blocks)"]
    assert lines[3] == ("    2  std-udp-100000B-throughput-0t          skipped: a UDP datagram carries at most "
                        "65507 bytes")


def test_closing_figures_leave_failed_and_skipped_runs_out_of_the_overhead():
    runs = runs_of("ok", "ok", "failed", "skipped", wall=2.0)
    totals = progress.totals(runs, 10.0, SPEC)
    assert totals == {"wall_s": 10.0, "measured_s": 2, "warmup_total_s": 1, "overhead_per_run_s": 1.5}
    points = [{"stem": f"std-tcp-64B-0s-{i}t", "status": s, "message": None if s == "ok" else "why"}
              for i, s in enumerate(("ok", "ok", "failed", "skipped"))]
    lines = progress.closing_lines({"points": points, "runs": runs, "repeats": 1, **totals}, "/tmp/x")
    assert lines[0] == ("2 of 4 runs measured in 10s (wall 10 s; measured 2 s + warm-up 1 s; overhead 1.5 s "
                        "per measured run)")
    assert lines[1:] == ["Skipped (1):", "  std-tcp-64B-0s-3t: why", "FAILED (1):", "  std-tcp-64B-0s-2t-r1: why",
                         "Sweep folder: /tmp/x"]


def test_closing_lines_say_which_points_lack_repeats():
    runs = runs_of("ok", "ok", "ok", "failed", "ok", "skipped", repeats=3)
    doc = {"points": [p.record() for p in planned("S", INTERVALS="0", TASKS="0 1", PROTOCOLS="tcp")],
           "runs": runs, "repeats": 3}
    state.tally(doc)
    assert [(p["status"], p["repeats_ok"], p["message"]) for p in doc["points"]] == [
        ("ok", 3, None), ("partial", 1, "1 of 3 repeats")]
    lines = progress.closing_lines(doc | progress.totals(runs, 9.0, SPEC), "/tmp/x")
    assert lines[1:] == ["1 of 2 points have all 3 repeats", "Incomplete (1):", "  std-tcp-64B-0s-1t: 1 of 3 repeats",
                         "FAILED (1):", "  std-tcp-64B-0s-1t-r2: why", "Sweep folder: /tmp/x"]


@pytest.mark.parametrize("value, text", [(0, "0s"), (59.4, "59s"), (425.3, "7m05s"), (3720, "1h02m")])
def test_durations_read_as_hours_minutes_seconds(value, text):
    assert fmt.duration(value) == text


@pytest.mark.parametrize("value, text", [(3.2, "3.2"), (11.314, "11.3"), (0.354, "0.354"), (1025.4, "1025"),
                                         (0.0001, "0"), (None, "–")])
def test_seconds_have_three_digits_and_no_exponent(value, text):
    assert fmt.seconds(value) == text


def rounds_of(runs):
    return [list(group) for _, group in itertools.groupby(runs, key=lambda r: r.round)]


def stretches(round_runs):
    """The settings of a round's runs in the order they come, one entry per stretch of equal settings."""
    return [(setting, [r.point.framework for r in group])
            for setting, group in itertools.groupby(round_runs, key=lambda r: r.point.setting)]


@pytest.mark.parametrize("flags, env", [(DEFAULT_SWEEP, {}),
                                        ("tSs", {"INTERVALS": "0.001 0", "TASKS": "0 10", "CONNECTIONS": "1 4"}),
                                        ("tS", {"MODE": "throughput", "SIZES": "64 1024 100000"})],
                         ids=["default", "dimensions", "throughput"])
def test_by_default_each_round_runs_every_setting_as_one_block_of_each_of_its_frameworks_once(flags, env):
    points = planned(flags, **env)
    measured = [p for p in points if not p.skipped]
    frameworks_at = {}
    for p in measured:
        frameworks_at.setdefault(p.setting, []).append(p.framework)
    assert checked(flags, **env).knobs["ORDER"] == "blocks"
    for seed in range(10):
        for round_runs in rounds_of(plan.runs(points, 3, seed)):
            found = stretches(round_runs)
            assert len(found) == len(frameworks_at)  # each setting is one contiguous block
            assert all(sorted(fws) == sorted(frameworks_at[s]) for s, fws in found)
            assert not plan.blocks([r.point for r in round_runs])  # and no framework runs as one stretch
    icmp = [s for s in frameworks_at if s[0] == "icmp"]
    assert all(frameworks_at[s] == ["ping"] for s in icmp)  # the ICMP reference: blocks of its own


def test_blocks_and_their_runs_are_shuffled_anew_each_round_and_replayed_by_the_seed():
    points = planned(DEFAULT_SWEEP)

    def order(seed, repeats=3, **kw):
        return [r.stem for r in plan.runs(points, repeats, seed, **kw)]

    runs = plan.runs(points, 20, 1)
    settings = [tuple(s for s, _ in stretches(round_runs)) for round_runs in rounds_of(runs)]
    insides = [tuple(fws) for round_runs in rounds_of(runs) for _, fws in stretches(round_runs) if len(fws) == 4]
    assert len(set(settings)) == 20  # the blocks' order is drawn anew each round
    assert len(set(insides)) > 12  # as is the order inside a block: 24 are possible
    assert order(42) == order(42) == order(42, order="blocks") != order(43)
    assert order(42, repeats=5)[:132] == order(42)  # round k does not depend on how many follow
    assert order(42) != order(42, order="rounds")


def test_order_rounds_is_the_order_of_the_sweeps_before_blocks():
    points = planned(DEFAULT_SWEEP)
    runs = plan.runs(points, 3, 42, order="rounds")
    # Recorded from sweepkit/plan.py before ORDER existed: the same SEED replays an older sweep's order.
    assert [r.stem for r in runs[:6]] == ["std-udp-64B-0s-0t-r1", "std-tcp-64B-0.0001s-0t-r1",
                                          "tokio-tcp-64B-0.1s-0t-r1", "smol-tcp-64B-0.0001s-0t-r1",
                                          "smol-udp-64B-0s-0t-r1", "tokio-udp-64B-0.0001s-0t-r1"]
    digest = hashlib.sha256(" ".join(r.stem for r in runs).encode()).hexdigest()
    assert digest == "0dcaf3bad9a254356c314ac5778f59645f8f849c00020e5b8f7afdd19ff1732d"
    small = planned("St", INTERVALS="0.001 0", PROTOCOLS="tcp")
    assert [r.stem for r in plan.runs(small, 2, 5, order="rounds")] == [
        "std-tcp-64B-0s-0t-r1", "tokio-tcp-64B-0.001s-0t-r1", "std-tcp-64B-0.001s-0t-r1", "tokio-tcp-64B-0s-0t-r1",
        "std-tcp-64B-0s-0t-r2", "tokio-tcp-64B-0.001s-0t-r2", "std-tcp-64B-0.001s-0t-r2", "tokio-tcp-64B-0s-0t-r2"]


def test_order_is_a_checked_knob_of_every_mode():
    assert checked(ORDER="rounds").knobs["ORDER"] == "rounds" and checked().knobs["ORDER"] == "blocks"
    message = ("ORDER='time': expected blocks (each setting's frameworks back to back in a round, the default) or "
               "rounds (each round shuffled whole)")
    assert checked(ORDER="time").errors == [message]
    assert checked("t", MODE="micro", ORDER="time").errors == [message]
    assert checked("t", MODE="micro", ORDER="rounds").warnings == []  # it applies to micro sweeps too


def test_a_micro_sweep_runs_the_frameworks_of_one_benchmark_and_size_as_a_block():
    result = checked("tS", MODE="micro", BENCHES="spawn_many notify", MICRO_INSTANCES="10 100", REPEATS="2")
    points = plan.build(result.spec(), result.selection)
    for round_runs in rounds_of(plan.runs(points, 2, 3)):
        found = stretches(round_runs)
        assert sorted(s for s, _ in found) == [("notify", (("instances", 10),)), ("notify", (("instances", 100),)),
                                               ("spawn_many", ())]
        assert len(found) == 3 and all(sorted(fws) == ["std", "tokio"] for _, fws in found)


def test_the_plan_says_its_order_and_a_dry_run_shows_round_one(tmp_path):
    env = {"INTERVALS": "0.001 0", "PROTOCOLS": "tcp", "SEED": "42", "REPEATS": "2", "DRY_RUN": "1",
           "OUT_DIR": str(tmp_path)}
    result = checked("tS", **env)
    doc = {"frameworks": [e.label for e in result.selection], "points": []}
    runs, _, lines = prepare.plan(doc, result.spec(), None, "run-localhost.sh")
    assert lines[1] == ("  2 rounds, each point once per round, in blocks of one setting's frameworks back to back, "
                        "shuffled with SEED=42 (ORDER=blocks)")
    first = [r.point for r in runs if r.round == 1]
    assert lines[-3:] == ["  Round 1 runs in this order (each round is drawn anew; sweep.json lists every run):",
                          f"  block   1  {first[0].stem} {first[1].stem}", f"  block   2  {first[2].stem} {first[3].stem}"]
    state.save(tmp_path / "sweep.json", doc)
    assert state.load(tmp_path / "sweep.json")["knobs"]["ORDER"] == "blocks"  # sweep.json records it
    rounds = checked("tS", **env, ORDER="rounds")
    doc = {"frameworks": ["std", "tokio"], "points": []}
    runs, _, lines = prepare.plan(doc, rounds.spec(), None, "run-localhost.sh")
    assert lines[1] == "  2 rounds, each point once per round, in an order shuffled with SEED=42 (ORDER=rounds)"
    assert lines[-4:] == [f"  {i:5d}  {r.point.stem}" for i, r in enumerate(runs[:4], 1)]


def test_probed_runs_are_a_number_the_plan_names_and_its_estimate_counts(tmp_path):
    assert "PROBED='some': expected how many runs of each point" in " ".join(checked("St", PROBED="some").errors)
    assert "PROBED='51'" in " ".join(checked("St", PROBED="51").errors)
    env = {"INTERVALS": "0.001 0", "PROTOCOLS": "tcp", "SEED": "42", "REPEATS": "2", "OUT_DIR": str(tmp_path)}
    plans = {}
    for probed in ("0", "2"):
        doc = {"frameworks": ["std", "tokio"], "points": []}
        runs, spec, lines = prepare.plan(doc, checked("tS", **env, PROBED=probed).spec(), None, "run-localhost.sh")
        plans[probed] = (lines, progress.total_s(runs, spec), progress.estimate_s(runs, spec))
    assert "  PROBED=2: after the rounds, 2 round(s) of each point that also count system calls and wake-ups, " \
           "outside the estimates: parse.py costs" in plans["2"][0]
    assert not any("PROBED" in line for line in plans["0"][0])
    # Two probed rounds of the 4 points cost what two more rounds would: the rounds' 2 become 4.
    assert plans["2"][1] == pytest.approx(2 * plans["0"][1]) and plans["2"][2] == plans["0"][2]
