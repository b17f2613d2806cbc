//! The pong's planted delay (`--delay-ns`): a busy wait on the clock before each echo, a known
//! difference a sweep should call.

use std::time::{Duration, Instant};

/// Busy-waits `delay` on the monotonic clock, holding the thread as work would (a sleep would
/// add the timer's slack and a wake-up, and be no known difference at all).
pub fn spin(delay: Duration) {
    if delay.is_zero() {
        return;
    }
    let start = Instant::now();
    while start.elapsed() < delay {
        std::hint::spin_loop();
    }
}
