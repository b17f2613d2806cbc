//! Throughput mode: the ping sends messages of `--size` one way, as fast as the runtime lets it;
//! the pong counts messages and bytes per 100 ms window, checks every sequence number, and sends
//! its counts back at the end, so that the logs stay on the host that runs the sweep.

mod control;
mod counting;
mod report;
mod sender;
mod sink;

pub use counting::{Counts, WINDOW};
pub use report::ThroughputReport;
pub use sender::{ThroughputSpec, session};
pub use sink::{sink_tcp, sink_udp};
