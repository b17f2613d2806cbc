//! Decoy tasks really run on the measured runtime, of both kinds, stop with the run, and do what
//! they are for: delay the measured task on an async runtime's worker.

use crate::common;

use std::{sync::Mutex, time::Duration};

use common::{Pong, RUNTIMES, ping, ping_on, two_cpus, uint};

/// Decoys load every CPU: the tests of this file run one at a time, so they measure their own
/// decoys only.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn a_hundred_decoys_of_each_kind_run_and_stop(runtime: &str) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pong = Pong::start("std", "tcp");
    let address = pong.address.to_string();
    for kind in ["spin", "sleep"] {
        let args = format!(
            "--address {address} --interval 0.001 --duration 0.5 --warmup 0.1 --tasks 100 --decoy {kind}"
        );
        let run = ping(runtime, &args, Duration::from_secs(30));
        assert_eq!(run.code(), Some(0), "{runtime} {kind}: {}", run.stderr);
        let json = run.json();
        assert_eq!(json["complete"], true);
        assert_eq!(
            (uint(json, "tasks"), json["decoy"].as_str()),
            (100, Some(kind))
        );
        let iterations = uint(json, "decoy_iterations");
        assert!(
            iterations >= 100,
            "{runtime} {kind}: only {iterations} decoy iterations"
        );
        assert!(uint(&json["rtt_ns"], "n") > 0);
    }
}

/// Median RTT (ns) of a back-to-back TCP run with `tasks` spin decoys of 10 µs.
fn p50_with_decoys(cpu: &str, runtime: &str, address: &str, tasks: u32) -> u64 {
    // Pinned to one CPU, every runtime runs one worker (their defaults follow the CPUs allowed;
    // the io_uring ones have one thread anyway), so the ping's task and its decoys share it.
    let args = format!(
        "--address {address} --duration 0.5 --warmup 0.1 --tasks {tasks} --decoy-work-us 10"
    );
    let run = ping_on(Some(cpu), runtime, &args, Duration::from_secs(30), |_| {});
    assert_eq!(
        run.code(),
        Some(0),
        "{runtime} {tasks} decoys: {}",
        run.stderr
    );
    uint(&run.json()["rtt_ns"], "p50")
}

/// The suite's central claim: on one worker, an async runtime polls the ping's socket only
/// between decoy iterations, so a reply waits for part or all of a round of 100 × 10 µs
/// (≈ 0.6 ms on tokio, 1.1 ms on async-std and smol here, against 30–60 µs without decoys).
/// std is left out: its decoys are OS threads, so their effect is the kernel scheduler's (on
/// Linux 6.18 they starve the ping thread far worse; README, Limits). Runs alternate, so drift
/// hits both. The ends are pinned apart as in a sweep: unpinned, an echo sometimes arrives
/// before the ping even waits for it, and a run shows no delay at all.
#[test]
fn spin_decoys_delay_every_async_runtime_on_one_worker() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some((pong_cpu, ping_cpu)) = two_cpus() else {
        eprintln!("skipped: pinning needs taskset and CPUs 0 and 1");
        return;
    };
    let pong = Pong::start_on(Some(&pong_cpu), "std", &["--protocol", "tcp"]);
    let address = pong.address.to_string();
    for &(label, runtime) in RUNTIMES.iter().filter(|(label, _)| *label != "std") {
        let (mut without, mut with) = (Vec::new(), Vec::new());
        for _ in 0..2 {
            without.push(p50_with_decoys(&ping_cpu, runtime, &address, 0));
            with.push(p50_with_decoys(&ping_cpu, runtime, &address, 100));
        }
        // Each side's least disturbed run: on a loaded machine a run without decoys may share
        // its CPU with another process for a while (a p50 of 49 ms was seen under stress-ng).
        let quiet = without.iter().min().copied().unwrap_or_default();
        let loaded = with.iter().min().copied().unwrap_or_default();
        eprintln!("{label}: p50 without decoys {without:?} ns, with 100 decoys {with:?} ns");
        assert!(
            loaded > quiet * 4 && loaded > 300_000,
            "{label}: 100 spin decoys on one worker left p50 at {with:?} ns (without: {without:?} ns)"
        );
    }
}

for_each_runtime!(a_hundred_decoys_of_each_kind_run_and_stop);
