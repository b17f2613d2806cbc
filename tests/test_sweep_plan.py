"""scripts/sweepkit: the knob checks and their messages, the plan and its lines for the shell, the ETA and
the progress line, on knobs and points made up here (no process is started)."""

import re
import sys

import pytest

from sweep_helpers import REPO

sys.path[:0] = [str(REPO), str(REPO / "scripts")]
from analysis import runtimes  # noqa: E402
from sweepkit import cli, knobs, plan, progress, timefmt  # noqa: E402


def checked(flags="St", context="localhost", **env):
    return knobs.check(env, flags, context)


def planned(flags="St", context="localhost", icmp_unusable=None, **env):
    result = checked(flags, context, **env)
    assert not result.errors and not result.usage, result
    return plan.build(result.knobs, result.selection, icmp_unusable)


def test_defaults_fill_unset_and_empty_knobs_but_an_empty_cpu_list_stays():
    values, given = knobs.read({"DURATION": "", "PING_CPUS": "", "MODE": "rtt"})
    assert values["DURATION"] == "10" and values["PING_CPUS"] == "" and values["PONG_CPUS"] == "0"
    assert given == ["MODE", "DURATION", "PING_CPUS"]
    assert "BASE_PORT" not in values and knobs.read({}, network=True)[0]["BASE_PORT"] == "9009"


def test_every_bad_knob_is_named_at_once():
    result = checked(DURATION="abc", WARMUP="-1", SIZE="3", INTERVALS="0.1 fast", TASKS="many",
                     PROTOCOLS="tcp sctp", PING_CPUS="one", NICE="-40", PING_GRACE="0", READY_TIMEOUT="soon")
    assert result.errors == [
        "DURATION='abc': expected seconds > 0, e.g. 10 or 0.5",
        "WARMUP='-1': expected seconds >= 0, e.g. 1",
        "SIZE='3': expected bytes >= 8 (the sequence number)",
        "INTERVALS: 'fast' is not a number of seconds >= 0",
        "TASKS: 'many' is not a decoy task count (0..100000)",
        "PROTOCOLS: 'sctp' is not tcp or udp",
        "PING_CPUS='one': expected a CPU list like 1 or 4,6",
        "NICE='-40': expected a niceness from -20 to 19",
        "READY_TIMEOUT='soon': expected seconds > 0",
        "PING_GRACE='0': expected seconds > 0",
    ]


@pytest.mark.parametrize("env, message", [
    ({"MODE": "latency"}, "MODE='latency': expected rtt (round-trip times) or throughput (msg/s and Gb/s)"),
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
    result = checked(NICE="-08", SIZE="064")
    assert not result.errors and result.knobs["NICE"] == "-8" and result.knobs["SIZE"] == "64"


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


def test_plan_lines_have_every_field_and_no_empty_one():
    k = checked("aP", context="peer", BASE_PORT="9301", INTERVALS="0", PROTOCOLS="tcp").knobs
    points = planned("aP", context="peer", BASE_PORT="9301", INTERVALS="0", PROTOCOLS="tcp")
    lines = [plan.line(i, p, k) for i, p in enumerate(points)]
    assert lines == ["0\tasync-std-tcp-64B-0s-0t\trtt\tasyncstd\ttcp\t64\t0\t0\t31\t9303\tplanned\t-",
                     "1\tping-icmp-64B-0s-0t\ticmp\t-\ticmp\t64\t0\t0\t11.5\t-\tplanned\t-"]
    assert all(len(line.split("\t")) == len(plan.LINE_FIELDS) for line in lines)


def test_a_throughput_ping_has_time_for_its_handshake():
    k = checked(MODE="throughput", WARMUP="0.2", DURATION="1", PING_GRACE="2").knobs
    assert plan.ping_limit_s("throughput", k) == pytest.approx(8.2)
    assert plan.plain(plan.ping_limit_s("rtt", k)) == "3.2"


def test_a_point_record_has_the_fields_of_its_kind():
    rtt, tput = planned("S", INTERVALS="0.001", PROTOCOLS="tcp")[0], planned("S", MODE="throughput",
                                                                              SIZES="8", PROTOCOLS="tcp")[0]
    assert list(rtt.record()) == ["stem", "framework", "transport", "payload", "interval_s", "tasks", "status",
                                  "wall_s", "p50_ns", "achieved_rate", "message"]
    assert rtt.record()["interval_s"] == 0.001
    assert list(tput.record()) == ["stem", "framework", "transport", "payload", "tasks", "status", "wall_s",
                                   "msg_per_s_p50", "gbit_per_s_p50", "message"]


def points_of(*statuses, wall=1.5):
    return [{"stem": f"std-tcp-64B-0s-{i}t", "status": s, "wall_s": wall if s != "planned" else None,
             "interval_s": 0.0, "p50_ns": 21350 if s == "ok" else None,
             "achieved_rate": 999.5 if s == "ok" else None, "message": None if s == "ok" else "why"}
            for i, s in enumerate(statuses)]


KNOBS = {"WARMUP": "0.5", "DURATION": "1", "MODE": "rtt"}


def test_the_eta_counts_what_is_left_at_the_overhead_seen_so_far():
    points = points_of("ok", "ok", "planned", "skipped", "planned")
    # Two measured points took 4 s for 2 × 1.5 s of warm-up and duration: 0.5 s overhead each.
    assert progress.eta_s(points, 1, 4.0, KNOBS) == pytest.approx(2 * (1.5 + 0.5))
    # A failed point's wall time is not overhead.
    failed = points_of("failed", "ok", "planned", wall=3.0)
    assert progress.eta_s(failed, 1, 3.0 + 2.0, KNOBS) == pytest.approx(1.5 + 0.5)
    assert progress.eta_s(points, 4, 99.0, KNOBS) == 0


def test_the_progress_line_keeps_its_layout():
    points = points_of("ok", "failed", "skipped", "planned")
    lines = [progress.progress_line(points, i, 5.0, KNOBS) for i in range(3)]
    assert lines[0] == "[1/4] std-tcp-64B-0s-0t                  p50 21.35 µs          1 k msg/s   (1.5 s)   ETA 5s"
    assert lines[1].startswith("[2/4] std-tcp-64B-0s-1t                  FAILED: why   (1.5 s)   ETA ")
    assert lines[2].startswith("[3/4] std-tcp-64B-0s-2t                  skipped: why   (1.5 s)")
    tput = [{"stem": "tokio-tcp-1024B-throughput-0t", "status": "ok", "wall_s": 11.31,
             "msg_per_s_p50": 1.46e6, "gbit_per_s_p50": 11.98, "message": None}]
    assert progress.progress_line(tput, 0, 11.4, KNOBS) == (
        "[1/1] tokio-tcp-1024B-throughput-0t      p50     1.46 M msg/s         12 Gb/s   (11.3 s)   ETA 0s")
    many = points_of(*["ok"] * 12)
    assert re.match(r"\[ 3/12\] ", progress.progress_line(many, 2, 5.0, KNOBS))


def test_the_plan_printout_says_what_is_skipped_and_the_estimate():
    points = [p.record() for p in planned("S", MODE="throughput", SIZES="64 100000", PROTOCOLS="udp",
                                          DURATION="10", WARMUP="1")]
    k = checked("S", MODE="throughput", SIZES="64 100000", DURATION="10", WARMUP="1").knobs
    lines = progress.plan_lines(points, k)
    assert lines[0] == "Plan: 2 points, 1 skipped, of 1 s warm-up + 10 s measured (throughput), about 11s in all"
    assert lines[2] == ("    2  std-udp-100000B-throughput-0t          skipped: a UDP datagram carries at most "
                        "65507 bytes")


def test_closing_figures_leave_failed_and_skipped_points_out_of_the_overhead():
    points = points_of("ok", "ok", "failed", "skipped", wall=2.0)
    totals = progress.totals(points, 10.0, KNOBS)
    assert totals == {"wall_s": 10.0, "measured_s": 2, "warmup_total_s": 1, "overhead_per_point_s": 1.5}
    lines = progress.closing_lines({"points": points, **totals}, "/tmp/x")
    assert lines[0] == ("2 of 4 points measured in 10s (wall 10 s; measured 2 s + warm-up 1 s; overhead 1.5 s "
                        "per measured point)")
    assert lines[1:] == ["Skipped (1):", "  std-tcp-64B-0s-3t: why", "FAILED (1):", "  std-tcp-64B-0s-2t: why",
                         "Sweep folder: /tmp/x"]


@pytest.mark.parametrize("value, text", [(0, "0s"), (59.4, "59s"), (425.3, "7m05s"), (3720, "1h02m")])
def test_durations_read_as_hours_minutes_seconds(value, text):
    assert timefmt.duration(value) == text


@pytest.mark.parametrize("value, text", [(3.2, "3.2"), (11.314, "11.3"), (0.354, "0.354"), (1025.4, "1025"),
                                         (0.0001, "0"), (None, "–")])
def test_seconds_have_three_digits_and_no_exponent(value, text):
    assert timefmt.seconds(value) == text
