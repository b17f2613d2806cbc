//! When each message is sent. `schedule` fixes message k at `t0 + k·interval` so the x-axis rate
//! is the rate asked for; `sleep` is the 2022 method (sleep after each reply), kept for
//! comparison. Back-to-back (`schedule` at interval 0) never touches a timer; `sleep` at interval
//! 0 sleeps zero on the runtime's timer after each reply, as the 2022 ping did: std's and
//! async-std's return at once, tokio's waits for its next 1 ms tick (docs/findings.md).

use std::time::{Duration, Instant};

/// How a run paces its messages (`--pacing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PacingMode {
    /// Message k is due at t0 + k·interval (the rate on the x-axis is the rate asked for).
    Schedule,
    /// Sleep the interval after each reply (the 2022 method; the real rate is lower).
    Sleep,
}

impl PacingMode {
    pub fn as_str(self) -> &'static str {
        match self {
            PacingMode::Schedule => "schedule",
            PacingMode::Sleep => "sleep",
        }
    }
}

/// A run's schedule: how it paces, and the time between sends of all its connections together
/// (zero: back-to-back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub mode: PacingMode,
    pub interval: Duration,
}

/// How the ping paces its messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacer {
    /// Send the next message as soon as the previous reply is in.
    BackToBack,
    /// Message `seq` is due at `start + seq·interval`, whatever the previous RTT was.
    Schedule { start: Instant, interval: Duration },
    /// Sleep `interval` after each reply: the real rate is `1/(interval + RTT + overshoot)`.
    Sleep { interval: Duration },
}

/// What to do before sending message `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Send now, nothing was due.
    None,
    /// Wait until this instant, then send.
    Until(Instant),
    /// The message was already due: send now and count it late.
    Late,
}

impl Pacer {
    /// The pacer of connection `conn` (0-based) of `connections` that share `schedule` from
    /// `start`: each sends every `connections × interval`, connection `conn` offset by
    /// `conn × interval`, so that together they send evenly at the aggregate rate rather than in
    /// bursts. Zero `interval` is back-to-back on each connection, but under `sleep` pacing, which
    /// still sleeps zero after each reply.
    pub fn for_connection(schedule: Schedule, start: Instant, conn: u32, connections: u32) -> Self {
        let Schedule { mode, interval } = schedule;
        match mode {
            PacingMode::Schedule if interval.is_zero() => Pacer::BackToBack,
            PacingMode::Schedule => Pacer::Schedule {
                start: start + scaled(interval, conn.into()),
                interval: scaled(interval, connections.into()),
            },
            PacingMode::Sleep => Pacer::Sleep { interval },
        }
    }

    /// When message `seq` is due; `None` unless paced by a schedule.
    pub fn due(&self, seq: u64) -> Option<Instant> {
        match *self {
            Pacer::Schedule { start, interval } => Some(start + scaled(interval, seq)),
            Pacer::BackToBack | Pacer::Sleep { .. } => None,
        }
    }

    /// The wait before message `seq`, given that the previous reply came in at `now`.
    pub fn wait(&self, seq: u64, now: Instant) -> Wait {
        match *self {
            Pacer::BackToBack => Wait::None,
            Pacer::Sleep { .. } if seq == 0 => Wait::None,
            Pacer::Sleep { interval } => Wait::Until(now + interval),
            Pacer::Schedule { .. } => match self.due(seq) {
                Some(due) if due > now => Wait::Until(due),
                _ => Wait::Late,
            },
        }
    }
}

/// `interval · k` in whole nanoseconds, so due times never drift with floating-point error.
fn scaled(interval: Duration, k: u64) -> Duration {
    let nanos = interval.as_nanos().saturating_mul(u128::from(k));
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// An interval in seconds as whole nanoseconds (`0.0001` is exactly 100 µs).
pub fn interval_from_secs(seconds: f64) -> Duration {
    Duration::from_nanos((seconds * 1e9).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn schedule(interval: Duration) -> Schedule {
        Schedule {
            mode: PacingMode::Schedule,
            interval,
        }
    }

    #[test]
    fn scheduled_messages_are_due_at_whole_multiples_of_the_interval() {
        let start = Instant::now();
        let pacer = Pacer::Schedule {
            start,
            interval: interval_from_secs(0.0001),
        };
        // Far into a run the due time is still exact: 1e6 · 100 µs = 100 s, no accumulated error.
        assert_eq!(
            pacer.wait(1_000_000, start),
            Wait::Until(start + Duration::from_secs(100))
        );
        assert_eq!(
            pacer.wait(3, start),
            Wait::Until(start + Duration::from_micros(300))
        );
    }

    #[test]
    fn a_message_whose_due_time_has_passed_is_late() {
        let start = Instant::now();
        let pacer = Pacer::Schedule {
            start,
            interval: MS,
        };
        assert_eq!(pacer.wait(0, start), Wait::Late, "message 0 is due at once");
        // The reply to message 1 came back 2.5 ms in: message 2 (due at 2 ms) is late,
        // message 3 (due at 3 ms) is waited for.
        let now = start + Duration::from_micros(2500);
        assert_eq!(pacer.wait(2, now), Wait::Late);
        assert_eq!(pacer.wait(3, now), Wait::Until(start + 3 * MS));
    }

    #[test]
    fn sleep_pacing_waits_the_interval_after_each_reply_and_is_never_late() {
        let now = Instant::now();
        let pacer = Pacer::Sleep { interval: MS };
        assert_eq!(pacer.wait(0, now), Wait::None);
        assert_eq!(pacer.wait(7, now), Wait::Until(now + MS));
    }

    #[test]
    fn sleep_pacing_at_interval_zero_still_sleeps_on_the_timer_and_a_schedule_does_not() {
        let now = Instant::now();
        let sleep = Schedule {
            mode: PacingMode::Sleep,
            interval: Duration::ZERO,
        };
        let pacer = Pacer::for_connection(sleep, now, 0, 1);
        assert_eq!(
            pacer,
            Pacer::Sleep {
                interval: Duration::ZERO
            }
        );
        assert_eq!(
            pacer.wait(3, now),
            Wait::Until(now),
            "a zero-length sleep after each reply"
        );
        let back_to_back = Pacer::for_connection(schedule(Duration::ZERO), now, 0, 1);
        assert_eq!(back_to_back, Pacer::BackToBack);
        assert_eq!(back_to_back.wait(3, now), Wait::None);
    }

    #[test]
    fn connections_share_the_rate_staggered_evenly() {
        let start = Instant::now();
        let dues: Vec<_> = (0..4)
            .map(|conn| Pacer::for_connection(schedule(MS), start, conn, 4))
            .flat_map(|pacer| (0..3).map(move |seq| pacer.due(seq)))
            .map(|due| due.map(|d| (d - start).as_millis()))
            .collect();
        let mut sorted: Vec<_> = dues.iter().flatten().copied().collect();
        sorted.sort_unstable();
        // Four connections at an aggregate 1 ms: one message every ms, never two at once.
        assert_eq!(sorted, (0..12).collect::<Vec<_>>());
        assert_eq!(dues[1], Some(4), "connection 0 sends every 4 ms");
        assert_eq!(
            Pacer::for_connection(schedule(Duration::ZERO), start, 1, 4),
            Pacer::BackToBack
        );
    }

    #[test]
    fn back_to_back_never_waits() {
        assert_eq!(Pacer::BackToBack.wait(42, Instant::now()), Wait::None);
    }

    #[test]
    fn intervals_convert_to_exact_nanoseconds() {
        assert_eq!(interval_from_secs(0.001), MS);
        assert_eq!(interval_from_secs(0.0001).as_nanos(), 100_000);
        assert_eq!(interval_from_secs(0.1).as_nanos(), 100_000_000);
        assert_eq!(interval_from_secs(0.0), Duration::ZERO);
    }
}
