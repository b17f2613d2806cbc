//! What goes wrong on a real network and at the command line: lost and late datagrams, a pong
//! that dies or stalls mid-run, a pong that is not there, invalid options. The ping ends on time,
//! says what happened, exits with the documented code and keeps what it measured.

use crate::common;

use std::{process::Command, time::Duration};

use common::{LossyEcho, Pong, binary, float, ping, ping_with, uint};
use rtt_core::log::Log;

/// Sends `kill -SIGNAL pid`; whether it was delivered.
fn signal(pid: u32, name: &str) -> bool {
    Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .is_ok_and(|status| status.success())
}

/// A pong stalled with SIGSTOP: its sockets stay open but nothing is read or answered. Resumed
/// with SIGCONT when dropped, before the pong itself is.
struct Stall {
    pid: u32,
    stopped: bool,
}

impl Stall {
    fn of(pong: &Pong) -> Self {
        Stall {
            pid: pong.pid(),
            stopped: false,
        }
    }

    fn stop(&mut self) {
        if !self.stopped {
            assert!(signal(self.pid, "STOP"), "kill -STOP {} failed", self.pid);
            self.stopped = true;
        }
    }
}

impl Drop for Stall {
    fn drop(&mut self) {
        if self.stopped {
            signal(self.pid, "CONT");
        }
    }
}

/// Warm-up and duration of the stalled runs, and how long after them a ping may take at most to
/// notice the stall: the suite's 5 s limit, with room for a loaded machine.
const STALLED_RUN: (f64, f64, f64) = (0.2, 1.0, 15.0);

/// Runs a `mode` ping against a pong of `runtime` that is stopped 0.5 s in; `both` are extra
/// arguments of both ends (e.g. `--busy-poll`).
fn run_against_a_stalled_pong(
    runtime: &str,
    mode: &str,
    pace: &str,
    both: &str,
) -> (String, common::PingRun) {
    let mut pong_args = vec!["--mode", mode];
    pong_args.extend(both.split_whitespace());
    let pong = Pong::start_with(runtime, &pong_args);
    let address = pong.address.to_string();
    let (warmup, duration, grace) = STALLED_RUN;
    let args = format!(
        "--address {address} --mode {mode} {pace} --duration {duration} --warmup {warmup} {both}"
    );
    let mut stall = Stall::of(&pong);
    let deadline = Duration::from_secs_f64(warmup + duration + grace + 10.0);
    let run = ping_with(runtime, &args, deadline, |elapsed| {
        if elapsed > Duration::from_millis(500) {
            stall.stop();
        }
    });
    drop(stall);
    let what = format!("{runtime} {mode}");
    assert_eq!(run.code(), Some(1), "{what}: {}", run.stderr);
    assert!(
        run.elapsed.as_secs_f64() < warmup + duration + grace,
        "{what}: ended only after {:?}",
        run.elapsed
    );
    assert!(
        run.stderr.contains(&address) && run.stderr.contains("is it stopped"),
        "{what}: the error does not say which pong stalled: {}",
        run.stderr
    );
    // The log of a failed run is a whole log all the same: it reads back as the typed struct
    // and writes back to the very same JSON (nullable fields as `null`).
    let json = run.json();
    let log: Log = serde_json::from_value(json.clone()).expect("a typed log");
    assert_eq!(
        &serde_json::to_value(&log).expect("serialises"),
        json,
        "{what}"
    );
    let context = log.context().expect("a socket run's log");
    assert!(
        !context.header.complete && context.header.error.is_some(),
        "{what}"
    );
    (what, run)
}

fn a_stopped_pong_ends_an_rtt_run_by_itself(runtime: &str) {
    let (what, run) = run_against_a_stalled_pong(runtime, "rtt", "--interval 0.005", "");
    let n = uint(&run.json()["rtt_ns"], "n");
    assert!(n > 0, "{what}: the samples before the stall were not kept");
    assert_eq!(run.rows.len() as u64, n, "{what}");
}

fn a_stopped_pong_ends_a_throughput_run_by_itself(runtime: &str) {
    let (what, run) = run_against_a_stalled_pong(runtime, "throughput", "", "");
    let json = run.json();
    assert!(
        uint(json, "sent") > 0,
        "{what}: the sent count was not kept"
    );
    assert!(
        json["lost"].is_null(),
        "{what}: counts from a stopped pong?"
    );
}

/// The busy-poll reference spins instead of blocking: its waits have the same limit.
#[test]
fn a_stopped_pong_ends_a_busy_poll_run_by_itself() {
    let (what, run) = run_against_a_stalled_pong("std", "rtt", "", "--busy-poll");
    assert_eq!(run.json()["framework"], "busy-poll", "{what}");
    assert!(uint(&run.json()["rtt_ns"], "n") > 0, "{what}");
}

fn udp_ping_survives_lost_datagrams(runtime: &str) {
    let against = |echo: LossyEcho| {
        let args = format!(
            "--address {} --protocol udp --interval 0.01 --duration 1 --warmup 0 --udp-timeout-ms 50",
            echo.address
        );
        ping(runtime, &args, Duration::from_secs(20))
    };
    let (control, run) = (
        against(LossyEcho::holding(|_| false)),
        against(LossyEcho::start()),
    );
    assert_eq!(run.code(), Some(0), "{runtime}: {}", run.stderr);
    // The losses cost the run one timeout past its end at most (50 ms; 500 ms for the noise),
    // against the same ping with nothing lost.
    assert!(
        run.elapsed < control.elapsed + Duration::from_millis(500),
        "{runtime}: took {:?}, {:?} with nothing lost",
        run.elapsed,
        control.elapsed
    );
    let json = run.json();
    let (sent, received, lost) = (
        uint(json, "sent"),
        uint(json, "received"),
        uint(json, "lost"),
    );
    assert_eq!(sent, received + lost);
    assert!(
        lost.abs_diff(sent / 4) <= 2,
        "{runtime}: lost {lost} of {sent}"
    );
    // Each held-back reply arrives later and must be counted, never credited.
    assert!(
        uint(json, "out_of_order").abs_diff(lost) <= 1,
        "{runtime}: {json}"
    );
    assert!(
        run.rows.iter().all(|&(seq, _, _)| (seq + 1) % 4 != 0),
        "{runtime}: a lost message was credited"
    );
    let max = uint(&json["rtt_ns"], "max");
    assert!(
        max < 50_000_000,
        "{runtime}: an RTT of {max} ns exceeds the 50 ms timeout"
    );
}

fn a_pong_killed_mid_run_fails_the_run_but_keeps_its_samples(runtime: &str) {
    for protocol in ["tcp", "udp"] {
        let mut pong = Pong::start(runtime, protocol);
        let address = pong.address.to_string();
        let args = format!(
            "--address {address} --protocol {protocol} --interval 0.005 --duration 5 --warmup 0"
        );
        let run = ping_with(runtime, &args, Duration::from_secs(20), |elapsed| {
            if elapsed > Duration::from_millis(700) && pong.is_running() {
                pong.kill();
            }
        });
        assert_eq!(run.code(), Some(1), "{runtime} {protocol}: {}", run.stderr);
        assert!(
            run.elapsed < Duration::from_secs(3),
            "{runtime} {protocol}: noticed only after {:?}",
            run.elapsed
        );
        assert!(
            run.stderr.contains(&address),
            "{runtime} {protocol}: error does not name the pong: {}",
            run.stderr
        );
        let json = run.json();
        assert_eq!(json["complete"], false);
        assert!(json["error"].as_str().is_some_and(|e| !e.is_empty()));
        let n = uint(&json["rtt_ns"], "n");
        assert!(n >= 50, "{runtime} {protocol}: only {n} samples kept");
        assert_eq!(run.rows.len() as u64, n);
    }
}

fn no_pong_is_a_clear_failure(runtime: &str) {
    // A port nobody listens on: bind one, note it, close it.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .to_string();
    let run = ping(
        runtime,
        &format!("--address {address} --duration 1"),
        Duration::from_secs(10),
    );
    assert_eq!(run.code(), Some(1));
    assert!(run.stderr.contains("is the pong running"), "{}", run.stderr);
    assert_eq!(run.json()["complete"], false);

    let args =
        format!("--address {address} --protocol udp --duration 0.3 --warmup 0 --interval 0.01");
    let run = ping(runtime, &args, Duration::from_secs(10));
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(run.stderr.contains(&address), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

fn invalid_options_exit_2_naming_the_option(runtime: &str) {
    let pong = "127.0.0.1:9";
    let cases: &[(&[&str], &str)] = &[
        (&["--address", pong, "--size", "3"], "--size"),
        (
            &["--address", pong, "--protocol", "udp", "--size", "65508"],
            "65507",
        ),
        (&["--address", pong, "--interval", "-0.5"], "--interval"),
        (&["--address", pong, "--duration", "0"], "--duration"),
        (&["--address", "localhost"], "--address"),
        (&["--address", pong, "--protocol", "sctp"], "--protocol"),
        (&["--address", pong, "--tasks", "many"], "--tasks"),
        (&["--duration", "1"], "--address"),
    ];
    for (args, named) in cases {
        let output = Command::new(binary(&format!("{runtime}-ping")))
            .args(*args)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{runtime} {args:?}: {stderr}"
        );
        assert!(stderr.contains(named), "{runtime} {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{runtime} {args:?}: {stderr}");
    }
    // tokio has flavors: only the others must refuse the option (a tokio pong would just run).
    if runtime != "tokio" {
        let output = Command::new(binary(&format!("{runtime}-pong")))
            .args(["--flavor", "current_thread"])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{runtime}: --flavor");
        assert!(String::from_utf8_lossy(&output.stderr).contains("--flavor"));
    }
}

/// The executable behind the links plays the role a link names; under its own name it plays
/// none, and says which links to start it through.
fn the_executable_started_under_its_own_name_names_its_links(runtime: &str) {
    let output = Command::new(binary(&format!("{runtime}-rtt")))
        .args(["--address", "127.0.0.1:9"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{runtime}: {stderr}");
    for role in ["ping", "pong", "micro"] {
        assert!(stderr.contains(&format!("{runtime}-{role}")), "{stderr}");
    }
    assert!(output.stdout.is_empty(), "{runtime}-rtt ran a role anyway");
}

/// A datagram lost in the warm-up is waited for until the measured window opens, not for the
/// whole --udp-timeout (1 s here, ten times the window), and its late reply counts for nothing:
/// in closed load, and in open load with one message in flight.
fn a_datagram_lost_in_the_warm_up_leaves_the_window_measured(runtime: &str) {
    for load in ["--interval 0", "--load open --window 1 --interval 0.0001"] {
        let echo = LossyEcho::holding(|count| count == 3);
        let args = format!(
            "--address {} --protocol udp {load} --warmup 0.1 --duration 0.1",
            echo.address
        );
        let run = ping(runtime, &args, Duration::from_secs(20));
        assert_eq!(run.code(), Some(0), "{runtime} {load}: {}", run.stderr);
        let json = run.json();
        let (sent, received) = (uint(json, "sent"), uint(json, "received"));
        assert!(received > 0 && received == sent, "{runtime} {load}: {json}");
        let (lost, stale) = (uint(json, "lost"), uint(json, "out_of_order"));
        assert_eq!((lost, stale), (0, 0), "{runtime} {load}: {json}");
    }
}

for_each_runtime!(
    the_executable_started_under_its_own_name_names_its_links,
    udp_ping_survives_lost_datagrams,
    a_datagram_lost_in_the_warm_up_leaves_the_window_measured,
    a_pong_killed_mid_run_fails_the_run_but_keeps_its_samples,
    no_pong_is_a_clear_failure,
    invalid_options_exit_2_naming_the_option,
    a_stopped_pong_ends_an_rtt_run_by_itself,
    a_stopped_pong_ends_a_throughput_run_by_itself,
);

#[test]
fn an_unwritable_out_fails_before_measuring() {
    let output = Command::new(binary("std-ping"))
        .args(["--address", "127.0.0.1:9", "--out", "/proc/no-such-dir/run"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("/proc/no-such-dir"), "{stderr}");
}

#[test]
fn std_has_no_worker_threads_to_set() {
    let output = Command::new(binary("std-ping"))
        .args(["--address", "127.0.0.1:9", "--threads", "2"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--threads"));
}

#[test]
fn rate_is_accepted_as_the_inverse_of_interval() {
    let pong = Pong::start("std", "udp");
    let args = format!(
        "--address {} --protocol udp --rate 200 --duration 0.5 --warmup 0",
        pong.address
    );
    let run = ping("std", &args, Duration::from_secs(10));
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert_eq!(float(run.json(), "interval_s"), 0.005);
}

/// tokio with `--event-interval 1` on one worker never polls the measurement again once a spin
/// decoy runs (tokio 1.54; the ping's own timers starve with it): the ping's watchdog thread
/// still ends it, by its run plus three stall limits, with one line saying why.
#[test]
fn a_starved_runtime_is_ended_by_the_watchdog() {
    let pong = Pong::start("std", "tcp");
    let args = format!(
        "--address {} --duration 0.3 --warmup 0 --tasks 1 --event-interval 1 --threads 1",
        pong.address
    );
    let run = ping("tokio", &args, Duration::from_secs(40));
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    if run.code() != Some(0) {
        assert_eq!(run.code(), Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains("the run did not end within 15 s"),
            "{}",
            run.stderr
        );
    }
}
