//! The busy-poll reference: std's ping and pong spinning on non-blocking sockets, logged under
//! their own label; and the option refused where it means nothing.

use crate::common;

use std::{process::Command, time::Duration};

use common::{Pong, binary, ping, uint};

#[test]
fn busy_poll_runs_are_logged_as_the_busy_poll_reference() {
    for protocol in ["tcp", "udp"] {
        let pong = Pong::start_with("std", &["--protocol", protocol, "--busy-poll"]);
        let address = pong.address.to_string();
        for pace in ["--interval 0.001", ""] {
            let args = format!(
                "--address {address} --protocol {protocol} {pace} --duration 0.5 --warmup 0.1 --busy-poll"
            );
            let run = ping("std", &args, Duration::from_secs(20));
            let what = format!("busy-poll {protocol} {pace:?}");
            assert_eq!(run.code(), Some(0), "{what}: {}", run.stderr);
            let json = run.json();
            assert_eq!(
                (json["framework"].as_str(), json["flavor"].as_str()),
                (Some("busy-poll"), Some("busy_poll")),
                "{what}"
            );
            let n = uint(&json["rtt_ns"], "n");
            assert!(n > 0 && n == uint(json, "sent"), "{what}: {json}");
            assert_eq!(run.rows.len() as u64, n, "{what}");
            if !pace.is_empty() {
                // Paced (back-to-back spins at tens of thousands): the window's 500 messages, plus
                // at most the warm-up's 100 when a stall left the schedule behind at its start (it
                // catches up; seen here at 1057 msg/s with other tests spinning). No lower bound:
                // two spinning processes on a loaded machine may fall behind.
                let rate = json["achieved_rate"].as_f64().unwrap_or_default();
                assert!(rate > 0.0 && rate < 1210.0, "{what}: {rate} msg/s");
            }
        }
    }
}

#[test]
fn busy_poll_applies_to_std_only() {
    for runtime in common::RUNTIMES.iter().map(|(_, prefix)| *prefix) {
        if runtime == "std" {
            continue;
        }
        for end in ["ping", "pong"] {
            let output = Command::new(binary(&format!("{runtime}-{end}")))
                .args(["--address", "127.0.0.1:9", "--busy-poll"])
                .output()
                .expect("runs");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{runtime}-{end}: {stderr}");
            assert!(stderr.contains("--busy-poll"), "{runtime}-{end}: {stderr}");
        }
    }
}
