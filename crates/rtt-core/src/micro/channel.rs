//! Channel throughput, as the Go/Rust "bench-of-chan": `workers` tasks, each receiving from its
//! own bounded queue of `queue` events, fed by its own producer task that sends `events` events.
//! The time is from before the first spawn until every worker has drained its queue; every
//! event is counted and checksummed on arrival, so a lost or mangled event fails the run.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use super::{
    countdown::{Countdown, finished},
    primitives::Primitives,
};

/// The text of a string event (16 bytes, as small strings in messages are).
pub const EVENT_TEXT: &str = "event-0123456789";

/// What a channel carries.
pub trait Event: Send + 'static {
    /// Event `i`; `shared` is the one string shared by all `shared` events.
    fn make(i: u64, shared: &Arc<str>) -> Self;
    /// What the receiver adds to its checksum.
    fn check(&self) -> u64;
    /// The checksum of events 0 to n − 1 (wrapping).
    fn expected(n: u64) -> u64;
}

impl Event for u64 {
    fn make(i: u64, _: &Arc<str>) -> Self {
        i
    }
    fn check(&self) -> u64 {
        *self
    }
    fn expected(n: u64) -> u64 {
        let (a, b) = if n % 2 == 0 {
            (n / 2, n.wrapping_sub(1))
        } else {
            (n, (n - 1) / 2)
        };
        a.wrapping_mul(b)
    }
}

/// A freshly allocated string per event: the allocator is part of what is measured.
impl Event for String {
    fn make(_: u64, _: &Arc<str>) -> Self {
        EVENT_TEXT.to_owned()
    }
    fn check(&self) -> u64 {
        self.len() as u64
    }
    fn expected(n: u64) -> u64 {
        n.wrapping_mul(EVENT_TEXT.len() as u64)
    }
}

/// One string shared by every event: a reference-count increment per event.
impl Event for Arc<str> {
    fn make(_: u64, shared: &Arc<str>) -> Self {
        Arc::clone(shared)
    }
    fn check(&self) -> u64 {
        self.len() as u64
    }
    fn expected(n: u64) -> u64 {
        n.wrapping_mul(EVENT_TEXT.len() as u64)
    }
}

/// One run of `workers` queues of `queue` events, `events` events each.
pub async fn channel<R: Primitives, E: Event>(
    workers: u64,
    events: u64,
    queue: usize,
) -> Result<Duration, String> {
    let (countdown, done) = Countdown::<R>::new(workers);
    let received = Arc::new(AtomicU64::new(0));
    let checksum = Arc::new(AtomicU64::new(0));
    let shared: Arc<str> = Arc::from(EVENT_TEXT);
    let start = Instant::now();
    for _ in 0..workers {
        let (mut tx, mut rx) = R::channel::<E>(queue);
        let (countdown, received, checksum) = (
            Arc::clone(&countdown),
            Arc::clone(&received),
            Arc::clone(&checksum),
        );
        R::detach(R::spawn(async move {
            let (mut n, mut sum) = (0u64, 0u64);
            while let Some(event) = R::recv(&mut rx).await {
                n += 1;
                sum = sum.wrapping_add(event.check());
            }
            received.fetch_add(n, Ordering::Relaxed);
            checksum.fetch_add(sum, Ordering::Relaxed);
            countdown.tick();
        }));
        let shared = Arc::clone(&shared);
        R::detach(R::spawn(async move {
            for i in 0..events {
                if !R::send(&mut tx, E::make(i, &shared)).await {
                    break;
                }
            }
        }));
    }
    finished(&countdown, done, "workers").await?;
    let elapsed = start.elapsed();
    let (got, sum) = (
        received.load(Ordering::Relaxed),
        checksum.load(Ordering::Relaxed),
    );
    let want = workers * events;
    if got != want {
        return Err(format!("{got} of {want} events received"));
    }
    if sum != E::expected(events).wrapping_mul(workers) {
        return Err("the events received are not the events sent (checksum)".to_owned());
    }
    Ok(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_are_the_sums_of_the_events() {
        let shared: Arc<str> = Arc::from(EVENT_TEXT);
        for n in [0u64, 1, 2, 7, 10, 1001] {
            let sum = |f: &dyn Fn(u64) -> u64| (0..n).fold(0u64, |s, i| s.wrapping_add(f(i)));
            assert_eq!(sum(&|i| u64::make(i, &shared).check()), u64::expected(n));
            assert_eq!(
                sum(&|i| String::make(i, &shared).check()),
                String::expected(n)
            );
            assert_eq!(
                sum(&|i| <Arc<str>>::make(i, &shared).check()),
                <Arc<str>>::expected(n)
            );
        }
        // Near the top of u64, the closed form wraps as the running sum does.
        let n = 1u64 << 33;
        let (a, b) = (n / 2, n - 1);
        assert_eq!(u64::expected(n), a.wrapping_mul(b));
    }
}
