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

    /// A connection's recorder, for this run's measured window.
    pub fn recorder(&self) -> Recorder {
        let mut recorder = Recorder::new();
        recorder.window = Some((self.measure_start, self.end));
        recorder
    }
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
