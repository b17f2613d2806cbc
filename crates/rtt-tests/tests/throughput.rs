//! Throughput mode end to end: every runtime sends one way over TCP and UDP, the pong counts
//! per window and reports back; counts are consistent, failures are clear and keep what was sent.

use crate::common;

use std::time::Duration;

use common::{PingRun, Pong, float, ping, ping_with, uint};
use rtt_core::log::{Log, ThroughputLog};

/// The run's JSON log as the typed struct; written back, it must give the very same JSON.
fn throughput_log(run: &PingRun, what: &str) -> ThroughputLog {
    let json = run.json();
    let log: Log = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{what}: the log does not parse as a Log: {e}\n{json}"));
    assert_eq!(
        &serde_json::to_value(&log).expect("serialises"),
        json,
        "{what}: fields missing, extra or changed"
    );
    match log {
        Log::Throughput(log) => log,
        other => panic!("{what}: not a throughput log: {other:?}"),
    }
}

fn throughput_runs_count_every_byte(runtime: &str) {
    for (protocol, sizes) in [("tcp", [8, 16384]), ("udp", [64, 8192])] {
        let pong = Pong::start_with(runtime, &["--protocol", protocol, "--mode", "throughput"]);
        let address = pong.address.to_string();
        for size in sizes {
            let size_arg = size.to_string();
            let args = format!(
                "--address {address} --protocol {protocol} --mode throughput --size {size_arg} --duration 1 --warmup 0.2"
            );
            let run = ping(runtime, &args, Duration::from_secs(30));
            let what = format!("{runtime} {protocol} {size} B");
            assert_eq!(run.code(), Some(0), "{what}: {}", run.stderr);
            let log = throughput_log(&run, &what);
            assert!(log.context.header.complete, "{what}");
            let (received, bytes) = (log.received, log.received_bytes);
            assert!(received > 0, "{what}: nothing received");
            assert_eq!(
                bytes,
                received * size,
                "{what}: bytes are not messages × size"
            );
            assert!(log.sent >= received, "{what}");
            assert_eq!(log.sent_bytes, log.sent * size, "{what}");
            if protocol == "tcp" {
                assert_eq!(log.lost, Some(0), "{what}: TCP lost messages");
            }
            // Ten windows of 100 ms in 1 s, and they add up to the totals.
            assert_eq!(run.rows.len(), 10, "{what}");
            assert_eq!(log.windows, 10, "{what}");
            assert_eq!(
                run.rows.iter().map(|r| r.1).sum::<u64>(),
                received,
                "{what}: windows vs received"
            );
            assert_eq!(
                run.rows.iter().map(|r| r.2).sum::<u64>(),
                bytes,
                "{what}: window bytes"
            );
            let rates = &log.msg_per_s;
            assert!(
                rates.p50.is_some_and(|p50| p50 > 0.0) && rates.p5 <= rates.p95,
                "{what}: {rates:?}"
            );
            let gbit = log.gbit_per_s.mean.expect("a mean over windows");
            let expected = rates.mean.expect("a mean over windows") * size as f64 * 8.0 / 1e9;
            assert!(
                (gbit - expected).abs() <= expected * 1e-9,
                "{what}: {gbit} Gb/s vs {expected}"
            );
        }
    }
}

fn a_receiver_killed_mid_run_fails_clearly_and_keeps_what_was_sent(runtime: &str) {
    for protocol in ["tcp", "udp"] {
        let mut pong = Pong::start_with(runtime, &["--protocol", protocol, "--mode", "throughput"]);
        let address = pong.address.to_string();
        let args = format!(
            "--address {address} --protocol {protocol} --mode throughput --duration 3 --warmup 0"
        );
        let run = ping_with(runtime, &args, Duration::from_secs(30), |elapsed| {
            if elapsed > Duration::from_millis(500) && pong.is_running() {
                pong.kill();
            }
        });
        assert_eq!(run.code(), Some(1), "{runtime} {protocol}: {}", run.stderr);
        assert!(
            run.stderr.contains(&address),
            "{runtime} {protocol}: {}",
            run.stderr
        );
        let json = run.json();
        assert_eq!(json["complete"], false);
        assert!(
            uint(json, "sent") > 0,
            "{runtime} {protocol}: the sent count was not kept"
        );
    }
}

for_each_runtime!(
    throughput_runs_count_every_byte,
    a_receiver_killed_mid_run_fails_clearly_and_keeps_what_was_sent
);

#[test]
fn unbatched_tcp_writes_one_message_at_a_time_and_is_slower() {
    let pong = Pong::start_with("tokio", &["--mode", "throughput"]);
    let address = pong.address;
    let rate = |batch: &str| {
        let args = format!(
            "--address {address} --mode throughput --size 8 --duration 0.5 --warmup 0.1 --batch {batch}"
        );
        let run = ping("tokio", &args, Duration::from_secs(20));
        assert_eq!(run.code(), Some(0), "{}", run.stderr);
        let json = run.json();
        assert_eq!(uint(json, "received_bytes"), uint(json, "received") * 8);
        (float(&json["msg_per_s"], "p50"), uint(json, "batch_bytes"))
    };
    let ((batched, batch_bytes), (single, single_bytes)) = (rate("65536"), rate("0"));
    assert_eq!((batch_bytes, single_bytes), (65_536, 8));
    assert!(
        batched > 5.0 * single,
        "batched {batched} msg/s vs unbatched {single} msg/s"
    );
}

#[test]
fn mixing_up_the_modes_is_a_clear_error() {
    for protocol in ["tcp", "udp"] {
        let rtt_pong = Pong::start("tokio", protocol);
        let address = rtt_pong.address.to_string();
        let args =
            format!("--address {address} --protocol {protocol} --mode throughput --duration 0.3");
        let run = ping("tokio", &args, Duration::from_secs(20));
        assert_eq!(run.code(), Some(1), "{protocol}: {}", run.stderr);
        assert!(
            run.stderr.contains("--mode throughput"),
            "{protocol}: {}",
            run.stderr
        );
    }
    let counting_pong = Pong::start_with("tokio", &["--mode", "throughput"]);
    let address = counting_pong.address.to_string();
    let run = ping(
        "tokio",
        &format!("--address {address} --duration 0.3 --warmup 0"),
        Duration::from_secs(20),
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
}

#[test]
fn bad_throughput_options_exit_2() {
    for args in [
        &["--mode", "throughput", "--interval", "0.01"][..],
        &["--mode", "throughput", "--size", "0"],
        &[
            "--mode",
            "throughput",
            "--protocol",
            "udp",
            "--size",
            "70000",
        ],
    ] {
        let output = std::process::Command::new(common::binary("smol-ping"))
            .args(["--address", "127.0.0.1:9"])
            .args(args)
            .output()
            .expect("runs");
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
