//! Everything in the RTT suite that does not depend on the runtime under test: options, wire
//! format, pacing, recorder, statistics, logs, decoys, and the ping and pong built on them.
//! A runtime crate implements [`runtime::Runtime`] and calls [`ping::main`] / [`pong::main`].
//!
//! Modules depend only downwards, never in a cycle: the seam and the building blocks (`runtime`
//! with the `knobs` and the `thread_per_core` helpers it re-exports, `wire`, `pacing`, `recorder`,
//! `stats`, `machine`, `build_info`, `decoy`) depend on no other module but `runtime`; the command line (`options`) on those; the typed log (`log`, with
//! `summary` and `output`) on `stats` and `machine`; the run lifecycle (`frame`) on all of these;
//! the RTT client (`rtt`) and the throughput client and sinks (`throughput`) on `frame`; and the
//! entry points (`ping`, `pong`) on the clients. The micro-benchmarks (`micro`, the entry point of
//! every `*-micro`) stand beside them on the seam, `options`, `log` and `stats`.

pub mod build_info;
pub mod decoy;
pub mod descriptors;
pub mod frame;
pub mod knobs;
pub mod log;
pub mod machine;
pub mod micro;
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
pub mod thread_per_core;
pub mod throughput;
pub mod wire;
