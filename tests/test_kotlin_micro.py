"""The real kotlin-micro (the Kotlin reference, built by `make` where java and mvn are installed): every
benchmark and event type completes at tiny sizes and logs what docs/micro.md says, the JVM's warm-up and
versions included; bad input exits 2 naming the option; a timeout keeps the finished repeats."""

import json
import subprocess

import pytest

from sweep_helpers import BIN_DIR

from suite import logschema  # noqa: E402
from analysis import uncertainty as u  # noqa: E402

KOTLIN = BIN_DIR / "kotlin-micro"
REPEAT = 6  # the fewest that give a 95 % interval of the median
RUNS = [  # (arguments, operations of one repeat, primitive)
    ("--bench spawn_many --tasks 200", 200, "kotlinx.coroutines.launch"),
    ("--bench yield_many --tasks 20 --yields 25", 500, "kotlinx.coroutines.launch + kotlinx.coroutines.yield"),
    ("--bench ping_pong --tasks 50", 50, "kotlinx.coroutines.launch + kotlinx.coroutines.channels.Channel(1)"),
    ("--bench chained_spawn --tasks 50", 50, "kotlinx.coroutines.launch"),
    ("--bench notify --instances 50 --hold-ms 5", 50, "kotlinx.coroutines.CompletableDeferred"),
    ("--bench oneshot --instances 50 --hold-ms 5", 50, "kotlinx.coroutines.channels.Channel(1)"),
    *[(f"--bench channel --workers 4 --events 500 --queue 8 --event-type {t}", 2000,
       "kotlinx.coroutines.channels.Channel") for t in ("int", "string", "string_copy", "shared")],
]


@pytest.fixture(scope="module", autouse=True)
def built():
    """Fails (never skips) without the binary: `make` builds it (it needs java and mvn)."""
    if not KOTLIN.is_file():
        pytest.fail(f"missing {KOTLIN}: run `make` first (it needs java and mvn)")


def kotlin(args: str, tmp_path=None, timeout=60):
    """Runs kotlin-micro with `args` (split at spaces), plus --out when tmp_path is given; returns the
    finished process and the log it wrote (or None)."""
    out = [] if tmp_path is None else ["--out", str(tmp_path / "log")]
    run = subprocess.run([str(KOTLIN), *args.split(), *out], capture_output=True, text=True, timeout=timeout)
    log = tmp_path / "log.json" if tmp_path is not None else None
    return run, json.loads(log.read_text()) if log is not None and log.exists() and log.stat().st_size else None


@pytest.mark.parametrize("args, ops, primitive", RUNS, ids=[r[0].replace("--bench ", "") for r in RUNS])
def test_every_benchmark_completes_and_logs_like_the_runtimes(tmp_path, args, ops, primitive):
    run, log = kotlin(f"{args} --repeat {REPEAT} --warmup 2", tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "" and log is not None
    logschema.schema().validate(log)  # rtt-core's schema; `jvm` and params' `event_size` are extra fields it allows
    assert (log["kind"], log["schema"], log["framework"], log["flavor"]) == (
        "micro", "rtt-log/1", "kotlin", "Dispatchers.Default")
    assert log["complete"] is True and log["error"] is None and log["not_run"] is None
    assert log["bench"] == args.split()[1] and log["primitive"] == primitive and log["ops"] == ops
    assert log["rustc"] is None and log["threads"] >= 2 and log["peak_rss_bytes"] > 0
    assert log["suite_version"].startswith("0.") and "(git " in log["suite_version"]
    assert (log["repeat"], len(log["times_ns"])) == (REPEAT, REPEAT)
    # The figures are the times' nearest-rank median and exact interval (ranks 1 and 6 of six), over ops.
    est = u.median_interval(sorted(log["times_ns"]))
    assert [log["ns_per_op"][k] for k in ("median", "low", "high")] == pytest.approx(
        [est.value / ops, est.low / ops, est.high / ops])
    assert log["ops_per_s"]["median"] == pytest.approx(ops * 1e9 / est.value)
    jvm = log["jvm"]
    assert jvm["java_version"] and "VM" in jvm["vm"] and jvm["kotlin_version"] == jvm["kotlin_build_version"]
    assert jvm["coroutines_version"] == log["framework_version"] and jvm["gc"] and jvm["heap_max_bytes"] > 0
    assert "-XX:+UseG1GC" in jvm["jvm_args"] and any("G1" in name for name in jvm["gc"])  # the launcher's default
    # At least --warmup iterations, then more until the JIT was quiet in two in a row (or 20 s passed).
    warmup, shares = jvm["warmup_times_ns"], jvm["warmup_jit_shares"]
    assert (jvm["warmup_min"], jvm["warmup_max_s"]) == (2, 20) and log["warmup"] == len(warmup) == len(shares) >= 2
    assert all(t > 0 for t in warmup) and all(s >= 0 for s in shares)
    assert all(s <= 0.05 for s in shares[-2:]) or sum(warmup) > 20e9
    assert jvm["first_over_median"] == pytest.approx(log["times_ns"][0] / est.value)
    assert jvm["spread"] == pytest.approx((max(log["times_ns"]) - min(log["times_ns"])) / est.value)
    assert jvm["jit_ms_timed"] >= 0 and jvm["gc_count_timed"] >= 0
    params = log["params"]
    if log["bench"] == "channel":
        assert (params["workers"], params["events"], params["queue"]) == (4, 500, 8)
        assert params["event_size"] == (None if params["event_type"] == "int" else 16)
    else:
        assert params["workers"] is None and params["event_type"] is None


def test_the_human_line_threads_and_event_size(tmp_path):
    run, _ = kotlin("--bench channel --workers 2 --events 100 --event-type string_copy --event-size 1000 "
                    "--threads 1 --repeat 2 --warmup 0")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("kotlin channel (kotlinx.coroutines.channels.Channel; Dispatchers.Default, "
                                 "1 threads): 200 ops, median of 2 repeats "), run.stdout
    assert "first timed repeat" in run.stdout
    run, log = kotlin("--bench channel --workers 2 --events 100 --event-type string --event-size 1000 --threads 1 "
                      "--repeat 1 --warmup 0 --warmup-s 0 --json", tmp_path)
    assert run.returncode == 0 and json.loads(run.stdout) == log
    assert log["threads"] == 1 and log["params"]["event_size"] == 1000
    assert log["warmup"] == 0 and log["jvm"]["warmup_times_ns"] == []  # --warmup-s 0: exactly --warmup


def test_version_names_the_suite():
    run, _ = kotlin("--version")
    assert run.returncode == 0 and run.stdout.startswith("kotlin-micro 0."), run.stdout


@pytest.mark.parametrize("args, option", [
    ("--bench spawn_lots", "--bench"), ("--workers 3", "--bench"), ("--bench channel --workers 0", "--workers"),
    ("--bench channel --event-type float", "--event-type"), ("--bench spawn_many --workers 3", "--workers"),
    ("--bench channel --flavor current_thread", "--flavor"), ("--bench channel --threads 0", "--threads"),
    ("--bench notify --warmup -1", "--warmup"), ("--bench notify --warmup-s x", "--warmup-s"),
    ("--bench notify --timeout 0", "--timeout"),
    ("--bench channel --event-size 0", "--event-size"), ("--bench channel --workers 1000000000", "--workers"),
])
def test_bad_input_exits_2_naming_the_option(args, option):
    run, _ = kotlin(args)
    assert run.returncode == 2, run.stdout + run.stderr
    (line,) = run.stderr.splitlines()
    assert line.startswith("kotlin-micro: error: ") and option in line, line


def test_a_timeout_keeps_the_finished_repeats_and_exits_1(tmp_path):
    run, log = kotlin("--bench notify --instances 10 --hold-ms 60000 --warmup 0 --warmup-s 0 --repeat 3 --timeout 1",
                      tmp_path)
    assert run.returncode == 1, run.stderr
    assert log["complete"] is False and log["error"].startswith("timeout: --timeout 1 s passed with 0 of 3 repeats")
    assert log["times_ns"] == [] and log["ns_per_op"] == {"median": None, "low": None, "high": None}
    assert "kotlin-micro: error: timeout" in run.stderr
