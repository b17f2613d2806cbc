//! The network measurement of the RTT suite, written once for every runtime: the entry points of
//! every `*-ping` ([`ping::main`]) and `*-pong` ([`pong::main`]), the RTT and throughput clients
//! they run, and the building blocks those share (wire format, pacing, recorder, decoys, the run's
//! lifecycle). A runtime crate implements `rtt_core::runtime::Runtime` and calls the two mains.
//!
//! Only the entry points read the command line (`options`): they resolve it once into a
//! `lifecycle::RunSpec` and the measurement's own spec, which the clients take.

pub mod decoy;
pub mod delay;
pub mod descriptors;
pub mod http;
pub mod lifecycle;
pub mod options;
pub mod pacing;
pub mod ping;
pub mod pong;
pub mod recorder;
pub mod rtt;
pub mod throughput;
pub mod wire;
