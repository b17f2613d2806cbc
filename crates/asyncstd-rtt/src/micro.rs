//! async-std's primitives for the micro-benchmarks: its spawn and yield; the rest is its
//! ecosystem's (`async-channel`, `event-listener`, `futures::channel::oneshot`), shared in
//! `rtt_micro::primitives::FuturesEcosystem`.

use rtt_micro::primitives::FuturesEcosystem;

use crate::AsyncStd;

impl FuturesEcosystem for AsyncStd {
    const SPAWN: &'static str = "async_std::task::spawn";
    const YIELD: &'static str = "async_std::task::yield_now";
}
