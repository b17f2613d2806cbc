//! The real `*-micro` binaries of every runtime, and `go-micro` when Go is installed: every
//! benchmark completes at small sizes and its log says what the contract says (docs/micro.md);
//! bad input exits 2 naming the option; a timeout keeps the finished repeats; std's thread cap
//! gives a log that says why nothing ran.

use crate::common;

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use common::{TempDir, float, uint};
use rtt_core::{log::Log, stats};
use serde_json::Value;

/// Timed repeats of the small runs: six, the fewest that give a 95 % interval of the median.
const REPEAT: u64 = 6;

/// What a finished micro run left behind.
struct MicroRun {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    json: Option<Value>,
}

impl MicroRun {
    fn json(&self, what: &str) -> &Value {
        self.json
            .as_ref()
            .unwrap_or_else(|| panic!("{what}: no JSON log; stderr: {}", self.stderr))
    }
}

/// Runs `program` with `args` (split at spaces) plus `--out STEM`, killed if it outlives
/// `deadline`; reads back STEM.json.
fn run_program(program: &Path, args: &str, deadline: Duration) -> MicroRun {
    let run = common::run_with_out(Command::new(program), args, deadline, |_| {});
    MicroRun {
        code: run.status.code(),
        stdout: run.stdout,
        stderr: run.stderr,
        elapsed: run.elapsed,
        json: run.json,
    }
}

fn micro(runtime: &str, args: &str) -> MicroRun {
    let binary = common::binary(&format!("{runtime}-micro"));
    run_program(&binary, args, Duration::from_secs(30))
}

/// The framework label of the runtime whose binaries start with `prefix` (runtimes.json).
fn label(prefix: &str) -> &'static str {
    common::MICRO_RUNTIMES
        .iter()
        .find(|(_, p)| *p == prefix)
        .map(|(label, _)| *label)
        .unwrap_or_else(|| panic!("{prefix} is not in runtimes.json"))
}

/// Each benchmark at small sizes, and the operations one repeat must count.
fn small_runs() -> Vec<(String, u64)> {
    let mut runs = vec![
        ("--bench spawn_many --tasks 200".to_owned(), 200),
        ("--bench yield_many --tasks 20 --yields 25".to_owned(), 500),
        ("--bench ping_pong --tasks 50".to_owned(), 50),
        ("--bench chained_spawn --tasks 50".to_owned(), 50),
        ("--bench notify --instances 50 --hold-ms 5".to_owned(), 50),
        ("--bench oneshot --instances 50 --hold-ms 5".to_owned(), 50),
    ];
    for event_type in ["int", "string", "string_copy", "shared", "shared_arc"] {
        let args =
            format!("--bench channel --workers 4 --events 500 --queue 8 --event-type {event_type}");
        runs.push((args, 2_000));
    }
    let sized = "--bench channel --workers 4 --events 500 --queue 8 --event-type string_copy";
    runs.push((format!("{sized} --event-size 1000"), 2_000));
    runs
}

/// The event type and size a channel run's `args` ask for, as its log must record them:
/// `--event-size` (16 when not given) for the string types, null for `int`.
fn channel_params(args: &str) -> (Value, Value) {
    let words: Vec<&str> = args.split_whitespace().collect();
    let after = |flag: &str| {
        let at = words.iter().position(|w| *w == flag)?;
        words.get(at + 1).copied()
    };
    let event_type = after("--event-type").unwrap_or("int");
    let size = match event_type {
        "int" => Value::Null,
        _ => after("--event-size")
            .unwrap_or("16")
            .parse::<u64>()
            .expect("a size")
            .into(),
    };
    (event_type.into(), size)
}

/// Checks a complete run's log against the contract; `framework` as logged.
fn check_log(json: &Value, what: &str, framework: &str, bench: &str, ops: u64) {
    // The log reads back as the typed struct and writes back to the very same JSON.
    let log: Log = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{what}: not a Log: {e}\n{json}"));
    assert!(matches!(log, Log::Micro(_)), "{what}: {json}");
    assert_eq!(
        &serde_json::to_value(&log).expect("serialises"),
        json,
        "{what}"
    );

    assert_eq!(json["kind"], "micro", "{what}");
    assert_eq!(json["schema"], "rtt-log/1", "{what}");
    assert_eq!(json["framework"], framework, "{what}");
    assert_eq!(json["bench"], bench, "{what}");
    assert_eq!(json["complete"], true, "{what}: {json}");
    assert!(
        json["error"].is_null() && json["not_run"].is_null(),
        "{what}"
    );
    for key in [
        "framework_version",
        "flavor",
        "primitive",
        "suite_version",
        "started_at",
    ] {
        assert!(
            json[key].as_str().is_some_and(|s| !s.is_empty()),
            "{what}: {key} in {json}"
        );
    }
    for key in ["host", "kernel", "cpu_model", "cpus_allowed", "rustc"] {
        assert!(json.get(key).is_some(), "{what}: no {key}");
    }
    for key in [
        "tasks",
        "yields",
        "instances",
        "hold_ms",
        "workers",
        "events",
        "queue",
        "event_type",
        "event_size",
    ] {
        assert!(json["params"].get(key).is_some(), "{what}: no params.{key}");
    }
    assert!(uint(json, "threads") >= 1, "{what}");
    assert!(uint(json, "peak_rss_bytes") > 0, "{what}");
    assert_eq!(uint(json, "ops"), ops, "{what}");
    assert_eq!(uint(json, "warmup"), 1, "{what}");
    let repeat = uint(json, "repeat");
    let times: Vec<u64> = json["times_ns"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no times_ns"))
        .iter()
        .map(|t| t.as_u64().expect("times are whole ns"))
        .collect();
    assert_eq!(times.len() as u64, repeat, "{what}");
    assert!(times.iter().all(|&t| t > 0), "{what}: {times:?}");

    // The figures are those of the times: the median within them, the interval around it, and
    // both equal to what the one definition in rtt-core gives.
    let mut sorted = times.clone();
    sorted.sort_unstable();
    let (min, max) = (sorted[0] as f64, sorted[sorted.len() - 1] as f64);
    let per_op = &json["ns_per_op"];
    let median = float(per_op, "median");
    let ops = ops as f64;
    assert!(
        min / ops <= median && median <= max / ops,
        "{what}: {per_op}"
    );
    let (expected, interval) = stats::median_interval(&sorted);
    assert!(
        (median - expected as f64 / ops).abs() <= 1e-9 * median,
        "{what}"
    );
    let (low, high) = interval.expect("6 repeats give an interval");
    assert!(
        (float(per_op, "low") - low as f64 / ops).abs() <= 1e-9 * median,
        "{what}"
    );
    assert!(
        (float(per_op, "high") - high as f64 / ops).abs() <= 1e-9 * median,
        "{what}"
    );
    let rate = &json["ops_per_s"];
    let rate_median = float(rate, "median");
    assert!(
        (rate_median - ops * 1e9 / expected as f64).abs() <= 1e-9 * rate_median,
        "{what}: {rate}"
    );
    assert!(
        float(rate, "low") <= rate_median && rate_median <= float(rate, "high"),
        "{what}: {rate}"
    );
}

fn every_benchmark_completes_and_logs_its_repeats(runtime: &str) {
    for (args, ops) in small_runs() {
        let what = format!("{runtime}-micro {args}");
        let run = micro(runtime, &format!("{args} --repeat {REPEAT}"));
        assert_eq!(run.code, Some(0), "{what}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{what}: --out prints nothing");
        let bench = args.split_whitespace().nth(1).expect("--bench NAME");
        let json = run.json(&what);
        check_log(json, &what, label(runtime), bench, ops);
        if bench == "channel" {
            let (event_type, size) = channel_params(&args);
            assert_eq!(json["params"]["event_type"], event_type, "{what}");
            assert_eq!(json["params"]["event_size"], size, "{what}");
        }
    }
}

fn bad_input_exits_2_naming_the_option(runtime: &str) {
    for (args, option) in [
        ("--bench spawn_many --tasks 0", "--tasks"),
        ("--bench nope", "--bench"),
        ("--bench yield_many --yields 0", "--yields"),
        ("--bench channel --queue 0", "--queue"),
        ("--bench channel --event-type float", "--event-type"),
        (
            "--bench channel --event-type string --event-size 0",
            "--event-size",
        ),
        (
            "--bench channel --event-type int --event-size 64",
            "--event-size",
        ),
        ("--bench channel --event-size 64", "--event-size"),
        ("--bench spawn_many --event-size 64", "--event-size"),
        ("--bench notify --instances 1000000000000", "--instances"),
        (
            "--bench channel --workers 1000000000 --queue 16777216",
            "--workers",
        ),
        ("--bench spawn_many --workers 3", "--workers"),
        ("--bench notify --repeat 0", "--repeat"),
        ("--bench notify --timeout 0", "--timeout"),
    ] {
        let too_big = args.contains("000000000");
        if too_big && runtime == "std" {
            continue; // std is above its thread cap first: not run (see the std test below)
        }
        let run = micro(runtime, args);
        assert_eq!(run.code, Some(2), "{runtime}-micro {args}: {}", run.stderr);
        assert!(
            run.stderr
                .lines()
                .any(|l| l.contains("error") && l.contains(option)),
            "{runtime}-micro {args}: {}",
            run.stderr
        );
        assert!(
            run.elapsed < Duration::from_secs(5),
            "{args}: checked before running"
        );
    }
}

fn a_timeout_keeps_the_finished_repeats(runtime: &str) {
    let args = "--bench notify --instances 10 --hold-ms 300 --repeat 20 --timeout 2";
    let what = format!("{runtime}-micro {args}");
    let run = micro(runtime, args);
    assert_eq!(run.code, Some(1), "{what}: {}", run.stderr);
    assert!(
        run.elapsed < Duration::from_secs(5),
        "{what}: {:?}",
        run.elapsed
    );
    let json = run.json(&what);
    assert_eq!(json["complete"], false, "{what}");
    let error = json["error"].as_str().unwrap_or_default();
    assert!(error.contains("timeout"), "{what}: {error}");
    let times = json["times_ns"].as_array().expect("times_ns").len();
    assert!((1..20).contains(&times), "{what}: {times} repeats kept");
    assert!(json["ns_per_op"]["median"].is_f64(), "{what}");
}

fn without_out_or_json_one_human_line(runtime: &str) {
    let output = Command::new(common::binary(&format!("{runtime}-micro")))
        .args(["--bench", "spawn_many", "--tasks", "100", "--repeat", "2"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.contains("spawn_many") && stdout.contains("ns/op"),
        "{stdout}"
    );
}

/// Where io_uring is refused (a seccomp filter here), an io_uring runtime's micro binary says so
/// in one line and exits 1, as its pings do; the other runtimes run as usual.
fn without_io_uring_only_the_io_uring_runtimes_refuse(runtime: &str) {
    let filter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/without_io_uring.py"
    );
    let mut command = Command::new("python3");
    command
        .arg(filter)
        .arg(common::binary(&format!("{runtime}-micro")))
        .args(["--bench", "spawn_many", "--tasks", "10", "--repeat", "1"]);
    let (output, still_running) = common::output_within(command, Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!still_running, "{runtime}-micro went on: {stderr}");
    if common::IO_URING_RUNTIMES.contains(&runtime) {
        assert_eq!(output.status.code(), Some(1), "{runtime}-micro: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{runtime}-micro: {stderr}");
        let expected = format!("{runtime}-micro: error: io_uring is unavailable: ");
        assert!(stderr.starts_with(&expected), "{runtime}-micro: {stderr}");
    } else {
        assert!(output.status.success(), "{runtime}-micro: {stderr}");
        assert!(!stderr.contains("io_uring"), "{runtime}-micro: {stderr}");
    }
}

/// `--describe` prints one JSON object: every benchmark with the sizes a run takes when none is
/// given (as its log records them), the event types and a string event's default size.
fn describe_gives_the_benchmarks_and_their_default_sizes(runtime: &str) {
    let output = Command::new(common::binary(&format!("{runtime}-micro")))
        .arg("--describe")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{runtime}-micro --describe");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let described: Value = serde_json::from_str(&stdout).expect("one JSON object");
    let benches = described["benches"].as_object().expect("benches");
    let names: Vec<&str> = benches.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "spawn_many",
            "yield_many",
            "ping_pong",
            "chained_spawn",
            "notify",
            "oneshot",
            "channel"
        ]
    );
    assert_eq!(described["benches"]["spawn_many"]["tasks"], 10_000);
    assert_eq!(described["benches"]["channel"]["event_type"], "int");
    let event_types = described["event_types"].as_array().expect("event_types");
    assert_eq!(event_types.len(), 5, "{described}");
    assert_eq!(described["event_size"], 16);
    // What a run with no size given logs is what --describe says.
    let run = micro(runtime, "--bench yield_many --repeat 1");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let params = run.json("yield_many")["params"]
        .as_object()
        .expect("params");
    let given: serde_json::Map<String, Value> = params
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    assert_eq!(Value::from(given), described["benches"]["yield_many"]);
    let misplaced = Command::new(common::binary(&format!("{runtime}-micro")))
        .args(["--describe", "--bench", "notify"])
        .output()
        .expect("runs");
    assert_eq!(misplaced.status.code(), Some(2), "--describe stands alone");
}

for_each_micro_runtime!(
    describe_gives_the_benchmarks_and_their_default_sizes,
    without_io_uring_only_the_io_uring_runtimes_refuse,
    every_benchmark_completes_and_logs_its_repeats,
    bad_input_exits_2_naming_the_option,
    a_timeout_keeps_the_finished_repeats,
    without_out_or_json_one_human_line,
);

#[test]
fn std_above_its_thread_cap_is_not_run_and_says_why() {
    for args in [
        "--bench notify --instances 20000",
        "--bench channel --workers 10001",
        "--bench notify --instances 1000000000000",
    ] {
        let run = micro("std", args);
        assert_eq!(run.code, Some(0), "{args}: {}", run.stderr);
        let json = run.json(args);
        assert!(run.elapsed < Duration::from_secs(5), "{args}: nothing ran");
        assert_eq!(json["complete"], true, "{args}");
        let reason = json["not_run"].as_str().unwrap_or_default();
        assert!(reason.contains("cap"), "{args}: {json}");
        assert_eq!(json["times_ns"].as_array().map(Vec::len), Some(0), "{args}");
        assert!(json["ns_per_op"]["median"].is_null(), "{args}");
        assert!(json["ops_per_s"]["median"].is_null(), "{args}");
    }
}

/// `go-micro` built from go/chanbench into `dir`, or `None` (and why) without Go.
fn build_go_micro(dir: &Path) -> Result<PathBuf, String> {
    let go = Command::new("go").arg("version").output();
    if !go.is_ok_and(|o| o.status.success()) {
        return Err("`go` is not installed".to_owned());
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../go/chanbench");
    let binary = dir.join("go-micro");
    let status = Command::new("go")
        .arg("build")
        .arg("-o")
        .arg(&binary)
        .arg(".")
        .current_dir(&source)
        .status()
        .unwrap_or_else(|e| panic!("go build in {}: {e}", source.display()));
    assert!(status.success(), "go build in {} failed", source.display());
    Ok(binary)
}

/// What go-micro's log must name as its primitive, per benchmark: the Go construct it used.
const GO_PRIMITIVES: [(&str, &str); 7] = [
    ("spawn_many", "go statement"),
    ("yield_many", "runtime.Gosched"),
    ("ping_pong", "chan struct{} (buffer 1)"),
    ("chained_spawn", "go statement"),
    ("notify", "send"),
    ("oneshot", "close"),
    ("channel", "go chan"),
];

#[test]
fn go_reference_runs_every_benchmark_and_logs_like_the_runtimes() {
    let dir = TempDir::new();
    let binary = match build_go_micro(&dir.0) {
        Ok(binary) => binary,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
    };
    for (args, ops) in small_runs() {
        if args.contains("shared_arc") {
            continue; // no Go counterpart: refused below
        }
        let args = format!("{args} --repeat {REPEAT}");
        let what = format!("go-micro {args}");
        let run = run_program(&binary, &args, Duration::from_secs(30));
        assert_eq!(run.code, Some(0), "{what}: {}", run.stderr);
        let json = run.json(&what);
        let bench = args.split_whitespace().nth(1).expect("--bench NAME");
        check_log(json, &what, "go", bench, ops);
        assert!(json["rustc"].is_null(), "{what}");
        let (_, used) = GO_PRIMITIVES
            .iter()
            .find(|(b, _)| *b == bench)
            .expect("every benchmark");
        let primitive = json["primitive"].as_str().unwrap_or_default();
        assert!(primitive.contains(used), "{what}: {primitive}");
        if bench == "channel" {
            let (event_type, size) = channel_params(&args);
            assert_eq!(json["params"]["event_type"], event_type, "{what}");
            assert_eq!(json["params"]["event_size"], size, "{what}");
        }
    }
    let run = run_program(
        &binary,
        "--bench spawn_many --tasks 10 --threads 1",
        Duration::from_secs(10),
    );
    assert_eq!(
        run.json("go-micro --threads 1")["threads"],
        1,
        "GOMAXPROCS follows --threads"
    );
    // The sweeps record every binary's `--version`, Go's too.
    let version = run_program(&binary, "--version", Duration::from_secs(10));
    assert_eq!(
        version.code,
        Some(0),
        "go-micro --version: {}",
        version.stderr
    );
    assert!(
        version.stdout.starts_with("go-micro "),
        "go-micro --version: {}",
        version.stdout
    );
    for (args, option) in [
        ("--bench nope", "--bench"),
        ("--bench spawn_many --tasks 0", "--tasks"),
        ("--bench yield_many --yields 0", "--yields"),
        ("--bench spawn_many --workers 3", "--workers"),
        ("--bench notify --instances 1000000000000", "--instances"),
        ("--bench channel --workers 0", "--workers"),
        ("--bench channel --event-type float", "--event-type"),
        ("--bench channel --event-type shared_arc", "shared_arc"),
        (
            "--bench channel --event-type string --event-size 0",
            "--event-size",
        ),
        ("--bench channel --event-size 64", "--event-size"),
        (
            "--bench channel --threads 2 --flavor current_thread",
            "--flavor",
        ),
        ("--bench channel --threads 0", "--threads"),
        ("--bench channel --repeat 0", "--repeat"),
    ] {
        let run = run_program(&binary, args, Duration::from_secs(10));
        assert_eq!(run.code, Some(2), "go-micro {args}: {}", run.stderr);
        assert!(
            run.stderr.contains(option),
            "go-micro {args}: {}",
            run.stderr
        );
    }
    // A timeout keeps the finished repeats, as on the runtimes.
    let args = "--bench notify --instances 10 --hold-ms 300 --repeat 20 --timeout 2";
    let run = run_program(&binary, args, Duration::from_secs(10));
    assert_eq!(run.code, Some(1), "go-micro {args}: {}", run.stderr);
    let json = run.json(args);
    assert!(
        json["error"]
            .as_str()
            .unwrap_or_default()
            .contains("timeout"),
        "{json}"
    );
    let times = json["times_ns"].as_array().map_or(0, Vec::len);
    assert!(
        (1..20).contains(&times),
        "go-micro {args}: {times} repeats kept"
    );
}
