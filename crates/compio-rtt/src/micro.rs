//! compio's primitives for the micro-benchmarks: its spawn and yield. compio ships no channel,
//! oneshot or notification; its applications take runtime-agnostic ones, as async-std's and
//! smol's do (`async-channel`, `event-listener`, `futures::channel::oneshot`), shared in
//! `rtt_micro::primitives::FuturesEcosystem`. Here they run on compio's one thread.

use rtt_micro::primitives::FuturesEcosystem;

use crate::Compio;

impl FuturesEcosystem for Compio {
    const SPAWN: &'static str = "compio::runtime::spawn";
    /// The suite's stand-in (see `Compio::yield_now`): wake itself and return Pending once.
    const YIELD: &'static str = "self-wake + Pending (compio has no yield)";
}
