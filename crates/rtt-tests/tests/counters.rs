//! The counters of a run's two ends checked against what is known of them: std's TCP pong makes
//! one read and one write per message and sleeps once between two at 1 k msg/s; a spin planted
//! in the pong shows in its CPU time per message; `perf stat -p` on the same pong counts the
//! same; and a ping refused the kernel's counters still completes and names what it missed.

use crate::common;

use std::{
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use common::{Pong, binary, output_within, ping_on, two_cpus, uint};
use serde_json::Value;

const DEADLINE: Duration = Duration::from_secs(20);

/// Whether these tests run as root: the kernel's counters of another process need it (or
/// CAP_PERFMON) at the usual `kernel.perf_event_paranoid` of 2.
fn root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
    })
}

/// A std pong pinned as the sweeps pin it (when two CPUs are there), a ping against it counting
/// both ends, and the ping's log.
fn counted(pong_args: &[&str], ping_args: &str) -> Value {
    let cpus = two_cpus();
    let (pong_cpu, ping_cpu) = cpus
        .as_ref()
        .map_or((None, None), |(a, b)| (Some(a.as_str()), Some(b.as_str())));
    let pong = Pong::start_on(pong_cpu, "std", pong_args);
    let args = format!(
        "--address {} --pong-pid {} --all-counters {ping_args}",
        pong.address,
        pong.pid()
    );
    let run = ping_on(ping_cpu, "std", &args, DEADLINE, |_| {});
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    run.json().clone()
}

/// `end`'s `counter` per message sent in the window; `None` where the machine refused it, which
/// only an unprivileged run may see (its reason must say so).
fn per_message(log: &Value, end: &str, counter: &str) -> Option<f64> {
    let count = &log["counters"][end][counter];
    match count["value"].as_u64() {
        Some(value) => Some(value as f64 / uint(log, "sent") as f64),
        None => {
            let why = count["unavailable"].as_str().unwrap_or_default();
            assert!(!root(), "{end}'s {counter} was not counted, as root: {why}");
            assert!(
                why.contains("perf_event_paranoid")
                    || why.contains("tracefs")
                    || why.contains("/sys/kernel"),
                "{why}"
            );
            None
        }
    }
}

#[test]
fn std_tcp_pong_makes_two_system_calls_a_message_and_sleeps_once_between_two_at_1k() {
    for (rate, switches) in [("--rate 1000", true), ("--interval 0", false)] {
        let log = counted(
            &["--protocol", "tcp"],
            &format!("{rate} --duration 0.3 --warmup 0.1"),
        );
        let Some(syscalls) = per_message(&log, "pong", "syscalls") else {
            return;
        };
        // One read, one write: the window's edges cut a message at most.
        assert!(
            (syscalls - 2.0).abs() <= 0.05,
            "{rate}: {syscalls} system calls a message"
        );
        if switches {
            // Asleep in its read between two messages: one switch each, a few more if preempted.
            let switched =
                per_message(&log, "pong", "switches").expect("counted as the syscalls were");
            assert!(
                (0.95..=1.25).contains(&switched),
                "{rate}: {switched} switches a message"
            );
        }
    }
}

#[test]
fn a_spin_planted_in_the_pong_shows_in_its_cpu_time_per_message() {
    const SPIN_US: f64 = 300.0;
    let args = "--rate 1000 --duration 0.3 --warmup 0.1";
    let spin_ns = format!("{}", SPIN_US as u64 * 1000);
    let cpu = |log: &Value| per_message(log, "pong", "cpu_ns").map(|ns| ns / 1000.0);
    let switches = |log: &Value| per_message(log, "pong", "switches").unwrap_or(f64::NAN);
    // The spin waits on the clock: a pong preempted inside it spins less CPU than its length. So an
    // attempt that shows the spin within 15 % passes; one that does not fails, unless its pong was
    // preempted more than its control (a switch a message), and then it tries again: three in all.
    let mut seen = Vec::new();
    for _ in 0..3 {
        let control = counted(&["--protocol", "tcp"], args);
        let spun = counted(&["--protocol", "tcp", "--delay-ns", &spin_ns], args);
        let (Some(before), Some(after)) = (cpu(&control), cpu(&spun)) else {
            return;
        };
        let added = after - before;
        seen.push(format!(
            "{added:.1} µs ({before:.1} → {after:.1}), {:.2} switches a message",
            switches(&spun)
        ));
        if (added - SPIN_US).abs() <= 0.15 * SPIN_US {
            return;
        }
        // Off by more: only a pong preempted more than its control (a spin cut short) may try again.
        assert!(
            switches(&spun) > switches(&control) + 0.05,
            "the spin of {SPIN_US} µs added {}",
            seen.join("; ")
        );
    }
    panic!(
        "the pong was preempted in every attempt: {}",
        seen.join("; ")
    );
}

/// `perf stat -p PID -x,`'s counts by event, once it is stopped by SIGINT.
fn perf_counts(stderr: &str) -> Vec<(String, f64)> {
    stderr
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            Some((fields.get(2)?.to_string(), fields.first()?.parse().ok()?))
        })
        .collect()
}

#[test]
fn the_pongs_counts_agree_with_perf_stat_on_the_same_process() {
    if !root() || Command::new("perf").arg("--version").output().is_err() {
        // perf stat -p needs the permission the counters need; without perf there is nothing to compare.
        return;
    }
    let cpus = two_cpus();
    let pong = Pong::start_on(
        cpus.as_ref().map(|c| c.0.as_str()),
        "std",
        &["--protocol", "tcp"],
    );
    // The events the ping counts through perf too. Its CPU time is the process's CPU-time clock
    // instead, which agrees with /proc/PID/stat's ticks and reads up to 40 % above perf's
    // task-clock back-to-back here (docs/sweeps.md, "Counters").
    let events = "raw_syscalls:sys_enter,context-switches,sched:sched_waking";
    let mut perf = Command::new("perf")
        .args(["stat", "-x,", "-e", events, "-p", &pong.pid().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("perf starts");
    // perf stat says nothing once it counts: give it time to open its counters.
    thread::sleep(Duration::from_millis(500));
    // Back-to-back with no warm-up: what the pong does outside the ping's window (its thread's
    // start and end) is a few dozen calls beside thousands.
    let args = format!(
        "--address {} --pong-pid {} --all-counters --interval 0 --duration 0.3 --warmup 0",
        pong.address,
        pong.pid()
    );
    let run = ping_on(
        cpus.as_ref().map(|c| c.1.as_str()),
        "std",
        &args,
        DEADLINE,
        |_| {},
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    thread::sleep(Duration::from_millis(100)); // the pong's thread ends after the ping
    Command::new("kill")
        .args(["-INT", &perf.id().to_string()])
        .status()
        .expect("kill runs");
    let started = Instant::now();
    while perf.try_wait().expect("waits").is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "perf stat did not stop on SIGINT"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let output = perf.wait_with_output().expect("perf's output");
    let theirs = perf_counts(&String::from_utf8_lossy(&output.stderr));
    let ours = &run.json()["counters"]["pong"];
    for (event, field, scale) in [
        ("raw_syscalls:sys_enter", "syscalls", 1.0),
        ("context-switches", "switches", 1.0),
        ("sched:sched_waking", "wakeups_made", 1.0),
    ] {
        let (_, perf_value) = theirs
            .iter()
            .find(|(e, _)| e == event)
            .unwrap_or_else(|| panic!("{event} in {theirs:?}"));
        let value = ours[field]["value"]
            .as_u64()
            .unwrap_or_else(|| panic!("{field}: {}", ours[field])) as f64
            * scale;
        assert!(
            (value - perf_value).abs() <= 0.02 * perf_value,
            "{field}: {value} here, perf stat {perf_value} ({event})"
        );
    }
}

#[test]
fn a_ping_refused_the_kernels_counters_completes_and_names_what_it_missed() {
    let pong = Pong::start("std", "tcp");
    let ping = binary("std-ping");
    let args = [
        "--address",
        &pong.address.to_string(),
        "--pong-pid",
        &pong.pid().to_string(),
        "--all-counters",
        "--interval",
        "0",
        "--duration",
        "0.3",
        "--warmup",
        "0.1",
        "--json",
    ];
    // As root, the ping runs as nobody: no CAP_PERFMON, another user's pong, tracefs unreadable.
    let mut command = match root() {
        true => {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
                .arg(&ping);
            c
        }
        false => Command::new(&ping),
    };
    command.args(args);
    let (output, killed) = output_within(command, DEADLINE);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!killed && output.status.success(), "{stderr}");
    let log: Value = serde_json::from_slice(&output.stdout).expect("the JSON log");
    assert!(uint(&log, "sent") > 0);
    for end in ["ping", "pong"] {
        let syscalls = &log["counters"][end]["syscalls"];
        assert!(syscalls["value"].is_null(), "{end}: {syscalls}");
        assert!(
            !syscalls["unavailable"]
                .as_str()
                .unwrap_or_default()
                .is_empty(),
            "{end}: {syscalls}"
        );
    }
    // Without permission, /proc still gives each end's CPU time, split user and kernel.
    assert!(
        log["counters"]["ping"]["kernel_ns"]["value"].is_u64(),
        "{}",
        log["counters"]["ping"]
    );
    assert!(
        stderr.contains("note: not counted: ping's") && stderr.contains("syscalls"),
        "{stderr}"
    );
}
