//! Runtime knobs: each runtime honours its own and refuses the others, and every log records
//! every knob of its runtime in `runtime_config`, defaults written out. Where io_uring is
//! refused, the runtimes that need it say so in one line and exit 1.

mod common;

use std::{process::Command, time::Duration};

use common::{IO_URING_RUNTIMES, Pong, binary, output_within, ping};
use rtt_core::runtime::Knob;
use serde_json::Value;

/// A value each knob accepts, unlike its default where it has one.
fn value(knob: Knob) -> Option<&'static str> {
    match knob {
        Knob::BusyPoll => None,
        Knob::Threads => Some("1"),
        Knob::Flavor => Some("current_thread"),
        Knob::EventInterval => Some("7"),
        Knob::GlobalQueueInterval => Some("5"),
        Knob::MaxIoEventsPerTick => Some("64"),
        Knob::RingEntries => Some("512"), // monoio raises fewer than 256 to 256
        Knob::SpinBeforePark => Some("5"),
        Knob::PreemptTimer => Some("500"),
    }
}

/// The knob's key in `runtime_config`: its option's name in snake case.
fn key(knob: Knob) -> String {
    knob.flag().trim_start_matches("--").replace('-', "_")
}

fn short_run(runtime: &str, pong: &Pong, extra: &[&str]) -> common::PingRun {
    let args = format!(
        "--address {} --duration 0.2 --warmup 0 --interval 0.001 {}",
        pong.address,
        extra.join(" ")
    );
    ping(runtime, &args, Duration::from_secs(20))
}

fn knobs_are_honoured_or_refused_and_always_recorded(runtime: &str) {
    let pong = Pong::start(runtime, "tcp");
    let run = short_run(runtime, &pong, &[]);
    assert_eq!(run.code(), Some(0), "{runtime}: {}", run.stderr);
    let defaults = run.json()["runtime_config"].clone();
    let defaults = defaults.as_object().expect("runtime_config is an object");
    assert!(defaults.contains_key("flavor") && defaults.contains_key("threads"));
    for knob in Knob::ALL {
        let mut args = vec![knob.flag()];
        args.extend(value(knob));
        let run = short_run(runtime, &pong, &args);
        if run.code() == Some(2) {
            assert!(
                run.stderr
                    .contains(&format!("{} does not apply to", knob.flag())),
                "{runtime} {args:?}: {}",
                run.stderr
            );
            // flavor and threads are in every log; any other key is a knob the runtime has.
            let always = matches!(knob, Knob::Flavor | Knob::Threads);
            assert!(
                always || !defaults.contains_key(&key(knob)),
                "{runtime} {args:?}"
            );
            continue;
        }
        assert_eq!(run.code(), Some(0), "{runtime} {args:?}: {}", run.stderr);
        let recorded = &run.json()["runtime_config"][key(knob)];
        assert!(
            defaults.contains_key(&key(knob)),
            "{runtime}: no default of {args:?}"
        );
        // A number or `true` as JSON, a name (current_thread) as a string.
        let given = value(knob).unwrap_or("true");
        let expected = serde_json::from_str(given).unwrap_or_else(|_| Value::from(given));
        assert_eq!(*recorded, expected, "{runtime} {args:?}");
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
    knobs_are_honoured_or_refused_and_always_recorded,
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
