//! What the closed and the open loop share: the run's times ([`Timeline`]), each connection's
//! share of the run ([`Connection`], handed to its task by value), and what a connection returns.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use rtt_core::runtime::STALL_LIMIT;

use crate::{lifecycle::RunSpec, pacing::Pacer, recorder::Recorder};

/// What one connection kept, and how it ended.
pub(super) type Outcome = (Recorder, anyhow::Result<()>);

/// The times every connection of a run shares.
#[derive(Clone, Copy, Debug)]
pub(super) struct Timeline {
    /// When the first message is due, once every connection is open.
    pub start: Instant,
    pub measure_start: Instant,
    pub end: Instant,
    /// A TCP read or write has no deadline of its own: one guard for the whole run (UDP needs
    /// none, each datagram has its own), so a stalled pong cannot hold the ping forever.
    pub deadline: Instant,
}

impl Timeline {
    pub fn starting_now(run: &RunSpec) -> Self {
        let start = Instant::now();
        let measure_start = start + run.warmup();
        let end = measure_start + run.duration();
        Self {
            start,
            measure_start,
            end,
            deadline: end + STALL_LIMIT,
        }
    }

    /// Until when the reply to a datagram sent at `sent_at` is waited for: the timeout, but never
    /// into the window for one sent in the warm-up (a loss there must not eat the window). By the
    /// send, not the due time: capped, late sends catching up would all go at once and overflow.
    pub fn reply_deadline(&self, sent_at: Instant, timeout: Duration) -> Instant {
        let deadline = sent_at + timeout;
        if sent_at < self.measure_start {
            deadline.min(self.measure_start)
        } else {
            deadline
        }
    }

    /// A connection's recorder, for this run's measured window.
    pub fn recorder(&self) -> Recorder {
        let mut recorder = Recorder::new();
        recorder.window = Some((self.measure_start, self.end));
        recorder
    }
}

/// Whether a reply's sequence is the warm-up's: below the first sent in the window (`first_measured`,
/// none until then). Such a late reply counts for nothing, not as out of order.
pub(super) fn of_warmup(seq: Option<u64>, first_measured: Option<u64>) -> bool {
    matches!((seq, first_measured), (Some(seq), Some(first)) if seq < first)
}

/// One connection's share of the run: all its task needs, and nothing of the others'.
#[derive(Clone, Copy, Debug)]
pub(super) struct Connection {
    pub target: SocketAddr,
    /// Bytes of each message.
    pub payload: usize,
    /// This connection's share of the schedule.
    pub pacer: Pacer,
    pub timeline: Timeline,
    /// Open load: the most messages in flight; `None` in closed load.
    pub window: Option<u32>,
    /// UDP: how long a datagram's reply is waited for before it counts as lost.
    pub udp_timeout: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warm_up_datagram_is_waited_for_until_the_window_opens_at_most() {
        let (start, ms) = (Instant::now(), Duration::from_millis);
        let timeline = Timeline {
            start,
            measure_start: start + ms(100),
            end: start + ms(300),
            deadline: start + ms(400),
        };
        let deadline =
            |sent: u64, timeout: u64| timeline.reply_deadline(start + ms(sent), ms(timeout));
        assert_eq!(
            deadline(10, 1000),
            start + ms(100),
            "sent in the warm-up: capped"
        );
        assert_eq!(
            deadline(95, 2),
            start + ms(97),
            "its own timeout comes first"
        );
        assert_eq!(
            deadline(100, 1000),
            start + ms(1100),
            "sent in the window: the whole timeout"
        );
    }

    #[test]
    fn a_late_reply_is_the_warm_ups_only_below_the_first_sequence_sent_in_the_window() {
        assert!(of_warmup(Some(2), Some(3)));
        assert!(!of_warmup(Some(3), Some(3)), "the first measured one");
        assert!(!of_warmup(Some(2), None), "no measured one sent yet");
        assert!(!of_warmup(None, Some(3)), "a stray datagram");
    }
}
