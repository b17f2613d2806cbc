//! Everything in the RTT suite that does not depend on the runtime under test: options, wire
//! format, pacing, recorder, statistics, logs, decoys, and the ping and pong built on them.
//! A runtime crate implements [`runtime::Runtime`] and calls [`ping::main`] / [`pong::main`].

pub mod build_info;
pub mod decoy;
pub mod frame;
pub mod log;
pub mod machine;
pub mod options;
pub mod output;
pub mod pacing;
pub mod ping;
pub mod pong;
pub mod recorder;
pub mod rtt;
pub mod runtime;
pub mod stats;
pub mod summary;
pub mod throughput;
pub mod wire;
