//! Runtime knobs: each runtime declares its own and the parser refuses the others', and every log
//! records every knob of its runtime in `runtime_config`, defaults written out. No list of knobs
//! here: each runtime names its own when refusing another's. Where io_uring is refused, the
//! runtimes that need it say so in one line and exit 1.

use crate::common;

use std::{process::Command, time::Duration};

use common::{IO_URING_RUNTIMES, Pong, RUNTIMES, binary, output_within, ping};
use serde_json::Value;

fn short_run(runtime: &str, pong: &Pong, extra: &[&str]) -> common::PingRun {
    let args = format!(
        "--address {} --duration 0.2 --warmup 0 --interval 0.001 {}",
        pong.address,
        extra.join(" ")
    );
    ping(runtime, &args, Duration::from_secs(20))
}

/// What `{runtime}-ping` says when given `flag`, a knob it does not have: exit 2, and the
/// runtime's own knobs, as the message names them (`its options are --a, --b` or `it has none`).
fn refusal(runtime: &str, label: &str, flag: &str) -> Vec<String> {
    let output = Command::new(binary(&format!("{runtime}-ping")))
        .args(["--address", "127.0.0.1:9", "--check-options", flag])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{runtime} {flag}: {stderr}");
    let expected = format!("error: {flag} does not apply to {label}: drop it (");
    let line = stderr
        .lines()
        .find_map(|line| line.strip_prefix(&expected))
        .unwrap_or_else(|| panic!("{runtime} {flag}: {stderr}"));
    match line.trim_end_matches(')') {
        "it has none" => Vec::new(),
        own => own
            .strip_prefix("its options are ")
            .unwrap_or_else(|| panic!("{runtime} {flag}: {stderr}"))
            .split(", ")
            .map(str::to_owned)
            .collect(),
    }
}

/// A runtime's own knobs, as it names them when refusing one it does not have.
fn knobs_of(runtime: &str, label: &str) -> Vec<String> {
    refusal(runtime, label, "--no-runtime-has-this-knob")
}

/// Each runtime records every knob of its own in `runtime_config` (its key: the flag in snake
/// case), defaults written out, and runs with a knob given the value it records; every other
/// runtime's knob is refused by the parser (exit 2) with a message naming the runtime's own.
fn knobs_are_recorded_and_foreign_ones_refused(runtime: &str) {
    let label = RUNTIMES
        .iter()
        .find(|(_, prefix)| *prefix == runtime)
        .map(|(label, _)| *label)
        .expect("in runtimes.json");
    let own = knobs_of(runtime, label);
    let pong = Pong::start(runtime, "tcp");
    let run = short_run(runtime, &pong, &[]);
    assert_eq!(run.code(), Some(0), "{runtime}: {}", run.stderr);
    let defaults = run.json()["runtime_config"].clone();
    let defaults = defaults.as_object().expect("runtime_config is an object");
    assert!(defaults.contains_key("flavor") && defaults.contains_key("threads"));
    for flag in &own {
        let key = flag.trim_start_matches("--").replace('-', "_");
        let default = defaults
            .get(&key)
            .unwrap_or_else(|| panic!("{runtime}: {flag} is not recorded as {key}"));
        // A flag that takes no value records `true`; a number or a name is given as recorded.
        let (args, expected) = match default {
            Value::Bool(_) => (vec![flag.clone()], Value::Bool(true)),
            Value::Number(n) => (vec![flag.clone(), n.to_string()], default.clone()),
            Value::String(name) => (vec![flag.clone(), name.clone()], default.clone()),
            other => panic!("{runtime}: {key} recorded as {other}"),
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = short_run(runtime, &pong, &args);
        if run.code() == Some(2) && run.stderr.contains("invalid value") {
            continue; // a default that is no value of the option (tokio's "tuned")
        }
        assert_eq!(run.code(), Some(0), "{runtime} {args:?}: {}", run.stderr);
        assert_eq!(
            run.json()["runtime_config"][&key],
            expected,
            "{runtime} {args:?}"
        );
    }
    for (other_label, other) in RUNTIMES.iter().filter(|(_, prefix)| *prefix != runtime) {
        for flag in knobs_of(other, other_label) {
            if !own.contains(&flag) {
                assert_eq!(refusal(runtime, label, &flag), own, "{runtime} {flag}");
            }
        }
    }
}

/// A runtime that needs io_uring, run where it is refused (a seccomp filter: see
/// tests/without_io_uring.py), says so in one line and exits 1; any other runs as usual.
fn a_refused_io_uring_is_one_clear_line(runtime: &str) {
    let filter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/without_io_uring.py"
    );
    for (end, args) in [
        ("pong", "--address 127.0.0.1:0"),
        ("ping", "--address 127.0.0.1:9 --duration 0.2 --warmup 0"),
    ] {
        let mut command = Command::new("python3");
        command
            .arg(filter)
            .arg(binary(&format!("{runtime}-{end}")))
            .args(args.split(' '));
        let (output, still_running) = output_within(command, Duration::from_secs(5));
        let stderr = String::from_utf8_lossy(&output.stderr);
        if IO_URING_RUNTIMES.contains(&runtime) {
            assert!(!still_running, "{runtime}-{end} went on without io_uring");
            assert_eq!(output.status.code(), Some(1), "{runtime}-{end}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{runtime}-{end}: {stderr}");
            assert!(
                stderr.starts_with(&format!(
                    "{runtime}-{end}: error: io_uring is unavailable: "
                )),
                "{runtime}-{end}: {stderr}"
            );
        } else {
            assert!(!stderr.contains("io_uring"), "{runtime}-{end}: {stderr}");
        }
    }
}

/// `--check-options` runs nothing: 0 for options a run would start with (even where io_uring is
/// refused, since nothing is opened), 2 naming the problem otherwise, as a run would.
fn check_options_answers_without_running(runtime: &str) {
    let foreign = if runtime == "tokio" {
        "--ring-entries 512"
    } else {
        "--event-interval 8"
    };
    for (end, args) in [
        ("ping", "--address 127.0.0.1:9 --duration 60"),
        ("pong", "--address 127.0.0.1:0 --protocol udp"),
    ] {
        let name = format!("{runtime}-{end}");
        for (extra, code) in [("", 0), (foreign, 2)] {
            let mut command = Command::new(binary(&name));
            command
                .arg("--check-options")
                .args(args.split(' '))
                .args(extra.split_whitespace());
            let (output, killed) = output_within(command, Duration::from_secs(5));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!killed, "{name} {extra}: ran instead of checking");
            assert_eq!(output.status.code(), Some(code), "{name} {extra}: {stderr}");
            assert!(
                output.stdout.is_empty(),
                "{name} {extra}: printed on stdout"
            );
            let flag = extra.split(' ').next().unwrap_or_default();
            assert_eq!(stderr.is_empty(), code == 0, "{name} {extra}: {stderr}");
            assert!(
                code == 0 || stderr.contains(flag),
                "{name} {extra}: {stderr}"
            );
        }
    }
}

for_each_runtime!(
    knobs_are_recorded_and_foreign_ones_refused,
    a_refused_io_uring_is_one_clear_line,
    check_options_answers_without_running,
);

#[test]
fn tokio_applies_its_scheduler_knobs() {
    let pong = Pong::start("tokio", "tcp");
    let run = short_run(
        "tokio",
        &pong,
        &[
            "--flavor",
            "current_thread",
            "--event-interval",
            "1",
            "--variant",
            "tokio-ct1",
        ],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert_eq!(run.json()["framework"], "tokio");
    assert_eq!(run.json()["variant"], "tokio-ct1");
    let config = &run.json()["runtime_config"];
    assert_eq!(config["flavor"], "current_thread");
    assert_eq!(config["threads"], 1);
    assert_eq!(config["event_interval"], 1);
    assert_eq!(config["global_queue_interval"], 31);
    assert_eq!(config["max_io_events_per_tick"], 1024);
}
