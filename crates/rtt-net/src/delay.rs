//! The pong's planted delay (`--delay-ns`, `--delay-every`): a busy wait on the clock before
//! every N-th echo, a known difference a sweep should call (N = 1 moves every sample, a large N
//! only the tail). Not a model of any real server's slowness.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use crate::decoy::stall;

/// What the pong plants: `by` before one echo in `every`, counted over the whole pong (every
/// client and transport together), so "one in N" holds whatever the connections, and the
/// delayed echoes of a many-connection ping are spread over its connections rather than hitting
/// the same sequence number of each at once.
#[derive(Debug)]
pub struct PlantedDelay {
    by: Duration,
    every: u64,
    /// Echoes served so far (counted only while there is a delay to plant).
    echoes: AtomicU64,
}

impl PlantedDelay {
    /// `by` before the `every`-th, 2·`every`-th, … echo; `every` is at least 1 (0 is taken as 1).
    pub fn new(by: Duration, every: u64) -> Self {
        Self {
            by,
            every: every.max(1),
            echoes: AtomicU64::new(0),
        }
    }

    /// One for the lifetime of the process, shared by every connection's task without a count
    /// of references (a pong serves until killed).
    pub fn leak(self) -> &'static Self {
        Box::leak(Box::new(self))
    }

    /// Called once per echo, before it is sent: spins `by` when this echo is one of the planted,
    /// holding the thread as work would (a sleep would add the timer's slack and a wake-up, and
    /// be no known difference at all).
    pub fn before_echo(&self) {
        if self.counts_next() {
            stall(self.by);
        }
    }

    /// Counts one more echo: whether it is to be held back.
    fn counts_next(&self) -> bool {
        if self.by.is_zero() {
            return false;
        }
        let nth = self.echoes.fetch_add(1, Ordering::Relaxed) + 1;
        is_delayed(nth, self.every)
    }
}

/// Whether the `nth` echo (counting from 1) is held back when one in `every` is: the k·every-th,
/// never a random one, so a run plants exactly ⌊echoes / every⌋ delays.
pub fn is_delayed(nth: u64, every: u64) -> bool {
    nth % every.max(1) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_one_delays_each_echo() {
        assert!((1..=5).all(|nth| is_delayed(nth, 1)));
    }

    #[test]
    fn every_ten_delays_the_tenth_twentieth_and_so_on() {
        let delayed: Vec<u64> = (1..=35).filter(|&nth| is_delayed(nth, 10)).collect();
        assert_eq!(delayed, [10, 20, 30]);
    }

    #[test]
    fn echoes_are_counted_over_every_thread_of_the_pong() {
        let delay = PlantedDelay::new(Duration::from_nanos(1), 7).leak();
        let threads: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(move || (0..25).filter(|_| delay.counts_next()).count()))
            .collect();
        let delayed: usize = threads.into_iter().map(|t| t.join().expect("joins")).sum();
        // 100 echoes over four threads: the 7th, 14th, … 98th of the pong, whichever thread.
        assert_eq!(delayed, 14);
    }

    #[test]
    fn no_delay_counts_nothing() {
        let delay = PlantedDelay::new(Duration::ZERO, 1);
        assert!(!delay.counts_next());
        assert_eq!(delay.echoes.load(Ordering::Relaxed), 0);
    }
}
