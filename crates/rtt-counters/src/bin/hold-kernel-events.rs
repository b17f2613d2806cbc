//! Keeps the tracepoints that `--all-counters` runs count registered until its standard input
//! closes (an hour at most): a sweep holds them across its probed runs (sweepkit/probed.py), so
//! that no run's counters are the last to close and wait for the kernel to unregister them.

use std::{
    io::{self, Read},
    sync::mpsc,
    thread,
    time::Duration,
};

/// The longest a forgotten holder lives: no sweep's probed runs last longer.
const LIMIT: Duration = Duration::from_secs(3600);

fn main() {
    let _held = rtt_counters::hold_kernel_events();
    let (closed, stdin_closed) = mpsc::channel();
    thread::spawn(move || {
        let _ = io::stdin().read_to_end(&mut Vec::new());
        let _ = closed.send(());
    });
    println!("held");
    let _ = stdin_closed.recv_timeout(LIMIT);
}
