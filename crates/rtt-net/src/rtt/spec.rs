//! What an RTT run is besides what every run is: its pace, its connections and their load, and
//! how long a datagram is waited for.

use std::time::Duration;

use crate::pacing::Schedule;

/// Whether a connection waits for an echo before its next message (`--load`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Load {
    /// Each connection sends its next message once the previous echo is in
    Closed,
    /// Each connection sends on its schedule, echoes or not (up to --window in flight)
    Open,
}

impl Load {
    pub fn as_str(self) -> &'static str {
        match self {
            Load::Closed => "closed",
            Load::Open => "open",
        }
    }
}

/// What an RTT run does besides what every run does (`RunSpec`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttSpec {
    /// The pace of all the connections together.
    pub schedule: Schedule,
    pub connections: u32,
    /// Open load's most messages in flight per connection; `None` in closed load.
    pub window: Option<u32>,
    /// A datagram unanswered this long is lost.
    pub udp_timeout: Duration,
}

impl RttSpec {
    pub fn load(&self) -> Load {
        match self.window {
            Some(_) => Load::Open,
            None => Load::Closed,
        }
    }
}
