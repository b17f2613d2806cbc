//! The end-to-end tests, one test executable: each file below is a module, so `cargo test` links
//! this crate once instead of once per file (each link is an LTO of the whole test).

#[macro_use] // `for_each_runtime!` and `for_each_micro_runtime!`, for the modules below
mod common;

mod busy_poll;
mod connections;
mod counters;
mod decoys;
mod failures;
mod http;
mod knobs;
mod layers;
mod measurement;
mod micro;
mod pong;
mod throughput;
