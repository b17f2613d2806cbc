//! Decoy tasks really run on the measured runtime, of both kinds, and stop with the run.

mod common;

use std::time::Duration;

use common::{Pong, ping, uint};

fn a_hundred_decoys_of_each_kind_run_and_stop(runtime: &str) {
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

for_each_runtime!(a_hundred_decoys_of_each_kind_run_and_stop);
