//! Real pongs and pings of every runtime over TCP and UDP: the logs say what the contract says,
//! paced runs achieve their rate, back-to-back runs are not slowed by a timer.

mod common;

use std::time::Duration;

use common::{Pong, float, ping, uint};

const FIELDS: [&str; 35] = [
    "schema",
    "kind",
    "framework",
    "framework_version",
    "flavor",
    "threads",
    "transport",
    "payload",
    "interval_s",
    "target_rate",
    "pacing",
    "tasks",
    "decoy",
    "decoy_work_us",
    "decoy_iterations",
    "duration_s",
    "warmup_s",
    "address",
    "host",
    "kernel",
    "cpu_model",
    "cpus_allowed",
    "rustc",
    "suite_version",
    "started_at",
    "sent",
    "received",
    "lost",
    "late",
    "out_of_order",
    "achieved_rate",
    "complete",
    "rtt_ns",
    "udp_timeout_ms",
    "error",
];

fn label(runtime: &str) -> &str {
    if runtime == "asyncstd" {
        "async-std"
    } else {
        runtime
    }
}

fn paced_runs_log_everything_and_hit_their_rate(runtime: &str) {
    for protocol in ["tcp", "udp"] {
        let pong = Pong::start(runtime, protocol);
        let address = pong.address.to_string();
        let args = format!(
            "--address {address} --protocol {protocol} --interval 0.01 --duration 1 --warmup 0.2"
        );
        let run = ping(runtime, &args, Duration::from_secs(20));
        assert_eq!(run.code(), Some(0), "{runtime} {protocol}: {}", run.stderr);
        let json = run.json();
        for field in FIELDS {
            assert!(
                json.get(field).is_some(),
                "{runtime} {protocol}: field {field} missing"
            );
        }
        assert_eq!(json["framework"], label(runtime));
        assert_eq!(json["transport"], protocol);
        assert_eq!(json["complete"], true);
        assert_eq!(uint(json, "payload"), 64);
        assert_eq!(float(json, "target_rate"), 100.0);
        assert!(
            json["framework_version"]
                .as_str()
                .is_some_and(|v| v.chars().next().is_some_and(|c| c.is_ascii_digit()))
        );
        assert!(
            json["started_at"]
                .as_str()
                .is_some_and(|t| t.ends_with('Z') && t.len() == 24)
        );

        let rtt = &json["rtt_ns"];
        assert_eq!(
            uint(rtt, "n") as usize,
            run.rows.len(),
            "{runtime} {protocol}: CSV rows vs n"
        );
        assert_eq!(uint(json, "received"), uint(rtt, "n"));
        let order = ["min", "p50", "p90", "p99", "p999", "p9999", "max"].map(|k| uint(rtt, k));
        assert!(
            order.windows(2).all(|w| w[0] <= w[1]),
            "{runtime} {protocol}: percentiles out of order {order:?}"
        );
        let max_in_csv = run.rows.iter().map(|r| r.2).max().unwrap_or(0);
        assert_eq!(max_in_csv, uint(rtt, "max"));

        // 100 msg/s for 1 s: the schedule fixes the count, whatever the RTTs were.
        let rate = float(json, "achieved_rate");
        assert!(
            (rate - 100.0).abs() <= 5.0,
            "{runtime} {protocol}: achieved {rate} msg/s"
        );
        assert!(
            run.rows.windows(2).all(|w| w[1].0 == w[0].0 + 1),
            "{runtime} {protocol}: sequence gaps"
        );
        // Warm-up excluded: 0.2 s at 100 msg/s is messages 0–19.
        let first = run.rows.first().map(|r| r.0);
        assert!(
            first.is_some_and(|seq| (19..=21).contains(&seq)),
            "{runtime} {protocol}: first measured seq {first:?}"
        );
    }
}

fn back_to_back_runs_are_not_slowed_by_a_timer(runtime: &str) {
    for protocol in ["tcp", "udp"] {
        let pong = Pong::start(runtime, protocol);
        let address = pong.address.to_string();
        let args = format!("--address {address} --protocol {protocol} --duration 0.5 --warmup 0.1");
        let run = ping(runtime, &args, Duration::from_secs(20));
        assert_eq!(run.code(), Some(0), "{runtime} {protocol}: {}", run.stderr);
        let json = run.json();
        assert!(json["target_rate"].is_null());
        assert_eq!(float(json, "interval_s"), 0.0);
        // A 1 ms timer tick in the loop would cap this near 1000 msg/s.
        let rate = float(json, "achieved_rate");
        assert!(
            rate > 3000.0,
            "{runtime} {protocol}: only {rate} msg/s back-to-back"
        );
        assert_eq!(uint(json, "late"), 0);
    }
}

fn sleep_pacing_records_the_lower_rate_it_really_achieves(runtime: &str) {
    let pong = Pong::start(runtime, "tcp");
    let address = pong.address.to_string();
    let args =
        format!("--address {address} --interval 0.005 --pacing sleep --duration 0.5 --warmup 0");
    let run = ping(runtime, &args, Duration::from_secs(20));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["pacing"], "sleep");
    // Sleeping 5 ms after each reply cannot reach 200 msg/s: RTT and timer overshoot add up.
    let rate = float(json, "achieved_rate");
    assert!(rate < 200.0 && rate > 50.0, "{runtime}: {rate} msg/s");
}

for_each_runtime!(
    paced_runs_log_everything_and_hit_their_rate,
    back_to_back_runs_are_not_slowed_by_a_timer,
    sleep_pacing_records_the_lower_rate_it_really_achieves,
);

#[test]
fn the_human_summary_is_printed_without_out() {
    let pong = Pong::start("tokio", "tcp");
    let args = format!("--address {} --duration 0.2 --warmup 0", pong.address);
    let output = std::process::Command::new(common::binary("tokio-ping"))
        .args(args.split_whitespace())
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(
        stdout.contains("p50") && stdout.contains("p99.9") && stdout.contains("msg/s"),
        "{stdout}"
    );
}

#[test]
fn pinned_to_one_cpu_tokio_and_async_std_start_one_worker() {
    if std::process::Command::new("taskset")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("skipped: taskset is not installed");
        return;
    }
    let pong = Pong::start("std", "tcp");
    let args = format!(
        "--address {} --duration 0.2 --warmup 0 --json",
        pong.address
    );
    for runtime in ["tokio", "asyncstd"] {
        let output = std::process::Command::new("taskset")
            .args(["-c", "0"])
            .arg(common::binary(&format!("{runtime}-ping")))
            .args(args.split_whitespace())
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let json: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("JSON on stdout");
        assert_eq!(uint(&json, "threads"), 1, "{runtime}");
        assert_eq!(json["cpus_allowed"], "0");
    }
}
