//! What every application of the RTT suite shares, below them all: the seam a runtime crate
//! implements ([`runtime::Runtime`], with its knobs and the thread-per-core helpers), the command
//! line's parsing ([`cli`]), the role a runtime's one executable plays ([`roles`]), the typed log
//! of every kind with its schema, human summary and files (`log`, `summary`, `output`),
//! statistics, and what a log says about the build and the machine. The network measurement
//! (`rtt-net`) and the in-process benchmarks (`rtt-micro`) stand on it.

pub mod build_info;
pub mod cli;
pub mod knobs;
pub mod log;
pub mod machine;
pub mod output;
pub mod roles;
pub mod runtime;
pub mod stats;
pub mod summary;
pub mod thread_per_core;
