//! Real pongs and pings of every runtime over TCP and UDP: the logs say what the contract says,
//! paced runs achieve their rate, back-to-back runs are not slowed by a timer.

use crate::common;

use std::time::Duration;

use common::{PingRun, Pong, ping};
use rtt_core::log::{Log, RttLog};

/// The run's JSON log as the typed struct. Written back, it must give the very same JSON: every
/// field the struct defines is in the file (nullable ones as `null`), and no other.
fn rtt_log(run: &PingRun, what: &str) -> RttLog {
    let json = run.json();
    let log: Log = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{what}: the log does not parse as a Log: {e}\n{json}"));
    let rewritten = serde_json::to_value(&log).expect("serialises");
    assert_eq!(&rewritten, json, "{what}: fields missing, extra or changed");
    match log {
        Log::Rtt(log) => *log,
        other => panic!("{what}: not an RTT log: {other:?}"),
    }
}

/// The framework label logs give the runtime whose binaries start with `prefix`, as listed in
/// runtimes.json.
fn label(prefix: &str) -> String {
    common::RUNTIMES
        .iter()
        .find(|(_, p)| *p == prefix)
        .map(|(label, _)| (*label).to_owned())
        .unwrap_or_else(|| panic!("{prefix} is not in runtimes.json"))
}

fn paced_runs_log_everything_and_hit_their_rate(runtime: &str) {
    for protocol in ["tcp", "udp"] {
        let pong = Pong::start(runtime, protocol);
        let address = pong.address.to_string();
        let args = format!(
            "--address {address} --protocol {protocol} --interval 0.01 --duration 1 --warmup 0.2"
        );
        let run = ping(runtime, &args, Duration::from_secs(20));
        let what = format!("{runtime} {protocol}");
        assert_eq!(run.code(), Some(0), "{what}: {}", run.stderr);
        let log = rtt_log(&run, &what);
        let context = &log.context;
        assert_eq!(context.header.schema, "rtt-log/1");
        assert_eq!(context.header.framework, label(runtime));
        assert_eq!(context.transport, protocol);
        assert!(
            context.header.complete && context.header.error.is_none(),
            "{what}"
        );
        assert_eq!(context.payload, 64);
        assert_eq!(log.target_rate, Some(100.0));
        assert!(
            context
                .header
                .framework_version
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit()),
            "{what}: {}",
            context.header.framework_version
        );
        assert!(
            context.header.started_at.ends_with('Z') && context.header.started_at.len() == 24,
            "{what}: {}",
            context.header.started_at
        );

        let rtt = &log.rtt_ns;
        assert_eq!(rtt.n, run.rows.len(), "{what}: CSV rows vs n");
        assert_eq!(log.received, rtt.n as u64);
        let order = [
            rtt.min, rtt.p50, rtt.p90, rtt.p99, rtt.p999, rtt.p9999, rtt.max,
        ];
        assert!(
            order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] <= w[1]),
            "{what}: percentiles out of order {order:?}"
        );
        let max_in_csv = run.rows.iter().map(|r| r.2).max();
        assert_eq!(max_in_csv, rtt.max);

        // 100 msg/s for 1 s: the schedule fixes the count, whatever the RTTs were.
        let rate = log.achieved_rate;
        assert!((rate - 100.0).abs() <= 5.0, "{what}: achieved {rate} msg/s");
        assert!(
            run.rows.windows(2).all(|w| w[1].0 == w[0].0 + 1),
            "{what}: sequence gaps"
        );
        // Warm-up excluded: 0.2 s at 100 msg/s is messages 0–19.
        let first = run.rows.first().map(|r| r.0);
        assert!(
            first.is_some_and(|seq| (19..=21).contains(&seq)),
            "{what}: first measured seq {first:?}"
        );
    }
}

/// A default sweep's run at 10 msg/s: a 0.1 s warm-up, then a 0.1 s window that holds one send,
/// made at its start. The ping has nothing left to send and reports at once; its rate is still
/// that one send over the whole window, the target, and no warning is printed.
fn a_slow_paced_run_reports_its_rate_over_the_whole_window(runtime: &str) {
    const TARGET: f64 = 10.0;
    for protocol in ["tcp", "udp", "http"] {
        let what = format!("{runtime} {protocol}");
        let pong = Pong::start(runtime, protocol);
        let args = format!(
            "--address {} --protocol {protocol} --rate {TARGET} --duration 0.1 --warmup 0.1",
            pong.address
        );
        let run = ping(runtime, &args, Duration::from_secs(20));
        assert_eq!(run.code(), Some(0), "{what}: {}", run.stderr);
        let log = rtt_log(&run, &what);
        assert_eq!(log.target_rate, Some(TARGET), "{what}");
        let rate = log.achieved_rate;
        // Its sends over the whole 0.1 s window, whatever a loaded machine let it send (a ping
        // that reported at its last reply gave thousands); the control is its own count.
        assert!(
            (rate - log.sent as f64 / 0.1).abs() < 1e-6,
            "{what}: achieved {rate} msg/s for {} sent in 0.1 s",
            log.sent
        );
        if log.sent == 1 {
            // The schedule held (one message due in the window): the target, and no warning.
            assert!(
                (rate - TARGET).abs() <= 0.05 * TARGET,
                "{what}: achieved {rate} msg/s"
            );
            assert!(!run.stderr.contains("warning"), "{what}: {}", run.stderr);
        }
    }
}

/// The achieved rate of a short back-to-back run of `runtime` over `protocol`, and its log.
fn back_to_back(runtime: &str, protocol: &str) -> RttLog {
    let pong = Pong::start(runtime, protocol);
    let address = pong.address.to_string();
    let args = format!("--address {address} --protocol {protocol} --duration 0.5 --warmup 0.1");
    let run = ping(runtime, &args, Duration::from_secs(20));
    assert_eq!(run.code(), Some(0), "{runtime} {protocol}: {}", run.stderr);
    rtt_log(&run, &format!("{runtime} {protocol}"))
}

/// Tries at a back-to-back pair before a machine that starved every one of them fails the test.
const TRIES: usize = 3;

fn back_to_back_runs_are_not_slowed_by_a_timer(runtime: &str) {
    for protocol in ["tcp", "udp"] {
        // The control: std's blocking loop, which has no timer, run beside it. A machine under
        // load can stall a process for hundreds of ms, a whole run's window: such a pair (fewer
        // than 100 replies at either end) says nothing of timers, and is run again.
        let pairs = (0..TRIES).map(|_| {
            let control = back_to_back("std", protocol);
            (back_to_back(runtime, protocol), control)
        });
        let starved = |log: &RttLog| log.received < 100;
        let mut tried = Vec::new();
        let Some((log, control)) = pairs
            .inspect(|(log, control)| tried.push((log.received, control.received)))
            .find(|(log, control)| !starved(log) && !starved(control))
        else {
            panic!("{runtime} {protocol}: every try starved (replies, std's): {tried:?}");
        };
        assert_eq!((log.target_rate, log.interval_s), (None, 0.0));
        // A 1 ms timer tick in the loop would hold each round trip near 1 ms, where std's takes
        // 10–60 µs here; the slowest runtime back to back (glommio over UDP) takes five times
        // std's. A loaded or slow-waking machine slows both alike.
        let (p50, std_p50) = (log.rtt_ns.p50.unwrap_or(0), control.rtt_ns.p50.unwrap_or(0));
        assert!(
            p50 < 20 * std_p50,
            "{runtime} {protocol}: p50 {p50} ns back-to-back, std's {std_p50} ns"
        );
        assert_eq!(log.late, Some(0));
    }
}

fn sleep_pacing_records_the_lower_rate_it_really_achieves(runtime: &str) {
    let pong = Pong::start(runtime, "tcp");
    let address = pong.address.to_string();
    let args =
        format!("--address {address} --interval 0.005 --pacing sleep --duration 0.5 --warmup 0");
    let run = ping(runtime, &args, Duration::from_secs(20));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    let log = rtt_log(&run, runtime);
    assert_eq!(log.pacing.as_deref(), Some("sleep"));
    // Sleeping 5 ms after each reply cannot reach 200 msg/s: RTT and timer overshoot add up.
    let rate = log.achieved_rate;
    assert!(rate < 200.0 && rate > 50.0, "{runtime}: {rate} msg/s");
}

/// A run of `runtime` over TCP with the 2022 pacing at interval 0: a zero-length sleep after each reply.
fn zero_sleep(runtime: &str) -> RttLog {
    let pong = Pong::start(runtime, "tcp");
    let args = format!(
        "--address {} --interval 0 --pacing sleep --duration 0.5 --warmup 0.1",
        pong.address
    );
    let run = ping(runtime, &args, Duration::from_secs(20));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    rtt_log(&run, runtime)
}

#[test]
fn sleep_pacing_at_interval_zero_sleeps_on_the_runtimes_timer() {
    // The 2022 ping slept zero after each reply: std's sleep returns at once, tokio's waits for its
    // next 1 ms tick, so tokio exchanges about 1 k msg/s where std does tens of thousands (865
    // against 67 k here). Std is measured beside it: a loaded machine slows both.
    let (tokio, std) = (zero_sleep("tokio"), zero_sleep("std"));
    assert_eq!(
        (tokio.pacing.as_deref(), tokio.interval_s),
        (Some("sleep"), 0.0)
    );
    assert!(
        tokio.achieved_rate < 1_500.0 && tokio.achieved_rate * 5.0 < std.achieved_rate,
        "tokio {} msg/s, std {} msg/s",
        tokio.achieved_rate,
        std.achieved_rate
    );
}

for_each_runtime!(
    paced_runs_log_everything_and_hit_their_rate,
    a_slow_paced_run_reports_its_rate_over_the_whole_window,
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
        let log: Log = serde_json::from_slice(&output.stdout).expect("a JSON log on stdout");
        let context = log.context().expect("a socket run's log");
        assert_eq!(context.header.threads, Some(1), "{runtime}");
        assert_eq!(context.header.machine.cpus_allowed.as_deref(), Some("0"));
    }
}
