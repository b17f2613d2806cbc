//! smol's primitives for the micro-benchmarks: its spawn and yield; the rest is its
//! ecosystem's (`async-channel`, `event-listener`, `futures::channel::oneshot`), shared in
//! `rtt_micro::primitives::FuturesEcosystem`.

use rtt_micro::primitives::FuturesEcosystem;

use crate::Smol;

impl FuturesEcosystem for Smol {
    const SPAWN: &'static str = "smol::spawn";
    const YIELD: &'static str = "smol::future::yield_now";
}
