//! CPU-bound decoy tasks that compete with the measured exchange for the runtime's workers: each
//! iteration busy-spins on `Instant` (work the optimiser cannot remove), then yields to the
//! scheduler (`spin`) or sleeps 1 ms on its timer (`sleep`). Not a model of any real workload.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use rtt_core::runtime::Runtime;

/// What a decoy does between yields (`--decoy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DecoyKind {
    /// Busy work, then the runtime's own yield: CPU-bound tasks competing for the workers.
    Spin,
    /// Busy work, then a 1 ms sleep on the runtime's timer (close to the 2022 suite's decoys).
    Sleep,
}

impl DecoyKind {
    /// The name in logs and summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            DecoyKind::Spin => "spin",
            DecoyKind::Sleep => "sleep",
        }
    }
}

/// The decoys of a run: how many, what each does, and its busy work per iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoySpec {
    pub count: u32,
    pub kind: DecoyKind,
    pub work_us: u64,
}

/// Busy-waits for `work`: each `Instant::now()` reads the clock, so the loop cannot be elided.
pub fn stall(work: Duration) {
    let start = Instant::now();
    while start.elapsed() < work {
        std::hint::spin_loop();
    }
}

/// The decoys of one run: spawned on the measured runtime, stopped together by one flag.
pub struct Decoys<R: Runtime> {
    stop: Arc<AtomicBool>,
    tasks: Vec<R::Task<u64>>,
}

impl<R: Runtime> Decoys<R> {
    /// Spawns the decoys `spec` describes.
    pub fn spawn(spec: DecoySpec) -> Self {
        let DecoySpec {
            count,
            kind,
            work_us,
        } = spec;
        let work = Duration::from_micros(work_us);
        let stop = Arc::new(AtomicBool::new(false));
        let tasks = (0..count)
            .map(|_| R::spawn(decoy::<R>(kind, work, Arc::clone(&stop))))
            .collect();
        Self { stop, tasks }
    }

    /// Stops every decoy and returns the iterations they did in all: proof that they ran.
    pub async fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        let mut iterations = 0;
        for task in self.tasks {
            iterations += task.await;
        }
        iterations
    }
}

async fn decoy<R: Runtime>(kind: DecoyKind, work: Duration, stop: Arc<AtomicBool>) -> u64 {
    let mut iterations = 0;
    while !stop.load(Ordering::Relaxed) {
        stall(work);
        iterations += 1;
        match kind {
            DecoyKind::Spin => R::yield_now().await,
            DecoyKind::Sleep => R::sleep_until(Instant::now() + Duration::from_millis(1)).await,
        }
    }
    iterations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_takes_at_least_its_work() {
        let start = Instant::now();
        stall(Duration::from_micros(200));
        assert!(start.elapsed() >= Duration::from_micros(200));
    }
}
