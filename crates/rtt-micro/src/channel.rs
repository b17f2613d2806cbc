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

use crate::{
    countdown::{Countdown, finished},
    primitives::Primitives,
};

/// The strings the events of a run are made from, built once per process.
pub struct Source {
    /// The original of `string_copy` and what `shared` points to: leaked once, so that a
    /// `&'static str` needs no count, as a Go string needs none (the GC owns it).
    pub text: &'static str,
    /// The one `Arc<str>` that `shared_arc` clones for every event.
    pub arc: Arc<str>,
}

impl Source {
    /// Strings of `size` bytes.
    pub fn new(size: usize) -> Self {
        let text: &'static str = Box::leak(FILL.repeat(size).into_boxed_str());
        Self {
            text,
            arc: Arc::from(text),
        }
    }
}

/// The byte a string event is made of (Go's `strings.Repeat` of the same byte).
const FILL: &str = "e";

/// What a channel carries.
pub trait Event: Send + 'static {
    /// Event `i`, made from `source`.
    fn make(i: u64, source: &Source) -> Self;
    /// What the receiver adds to its checksum.
    fn check(&self) -> u64;
    /// The checksum of events 0 to n − 1 (wrapping), strings of `size` bytes.
    fn expected(n: u64, size: u64) -> u64 {
        n.wrapping_mul(size)
    }
}

impl Event for u64 {
    fn make(i: u64, _: &Source) -> Self {
        i
    }
    fn check(&self) -> u64 {
        *self
    }
    fn expected(n: u64, _: u64) -> u64 {
        let (a, b) = if n % 2 == 0 {
            (n / 2, n.wrapping_sub(1))
        } else {
            (n, (n - 1) / 2)
        };
        a.wrapping_mul(b)
    }
}

/// `string`: a string built afresh for each event, read from nothing (Go `strings.Repeat`).
pub struct Fresh(pub String);

impl Event for Fresh {
    fn make(_: u64, source: &Source) -> Self {
        Fresh(FILL.repeat(source.text.len()))
    }
    fn check(&self) -> u64 {
        self.0.len() as u64
    }
}

/// `string_copy`: a copy of the shared original for each event (Go `strings.Clone`).
pub struct Copied(pub String);

impl Event for Copied {
    fn make(_: u64, source: &Source) -> Self {
        Copied(source.text.to_owned())
    }
    fn check(&self) -> u64 {
        self.0.len() as u64
    }
}

/// `shared`: a pointer to the one string, no count (Go: the same string header).
impl Event for &'static str {
    fn make(_: u64, source: &Source) -> Self {
        source.text
    }
    fn check(&self) -> u64 {
        self.len() as u64
    }
}

/// `shared_arc`: one `Arc<str>` for every event of every producer, so every send and every drop
/// is an atomic on the one count that all cores contend for.
impl Event for Arc<str> {
    fn make(_: u64, source: &Source) -> Self {
        Arc::clone(&source.arc)
    }
    fn check(&self) -> u64 {
        self.len() as u64
    }
}

/// One run of `workers` queues of `queue` events, `events` events each.
pub async fn channel<R: Primitives, E: Event>(
    workers: u64,
    events: u64,
    queue: usize,
    source: &Source,
) -> Result<Duration, String> {
    let (countdown, done) = Countdown::<R>::new(workers);
    let received = Arc::new(AtomicU64::new(0));
    let checksum = Arc::new(AtomicU64::new(0));
    let (text, arc) = (source.text, &source.arc);
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
        // Each producer its own handle on the strings; `shared_arc`'s still count the one Arc.
        let source = Source {
            text,
            arc: Arc::clone(arc),
        };
        R::detach(R::spawn(async move {
            for i in 0..events {
                if !R::send(&mut tx, E::make(i, &source)).await {
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
    if sum != E::expected(events, text.len() as u64).wrapping_mul(workers) {
        return Err("the events received are not the events sent (checksum)".to_owned());
    }
    Ok(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum<E: Event>(n: u64, source: &Source) -> u64 {
        (0..n).fold(0u64, |s, i| s.wrapping_add(E::make(i, source).check()))
    }

    #[test]
    fn checksums_are_the_sums_of_the_events() {
        for size in [1, 16, 1000] {
            let source = Source::new(size);
            assert_eq!(source.text.len(), size);
            let size = size as u64;
            for n in [0u64, 1, 2, 7, 10, 1001] {
                assert_eq!(sum::<u64>(n, &source), u64::expected(n, size));
                assert_eq!(sum::<Fresh>(n, &source), Fresh::expected(n, size));
                assert_eq!(sum::<Copied>(n, &source), Copied::expected(n, size));
                assert_eq!(sum::<&str>(n, &source), <&str>::expected(n, size));
                assert_eq!(sum::<Arc<str>>(n, &source), <Arc<str>>::expected(n, size));
            }
        }
        // Near the top of u64, the closed form wraps as the running sum does.
        let n = 1u64 << 33;
        let (a, b) = (n / 2, n - 1);
        assert_eq!(u64::expected(n, 16), a.wrapping_mul(b));
    }

    #[test]
    fn only_shared_arc_counts_references() {
        let source = Source::new(16);
        let events: Vec<&str> = (0..3).map(|i| <&str>::make(i, &source)).collect();
        assert!(events.iter().all(|e| std::ptr::eq(*e, source.text)));
        let copy = Copied::make(0, &source);
        assert!(
            !std::ptr::eq(copy.0.as_str(), source.text),
            "a copy is its own string"
        );
        let arcs: Vec<Arc<str>> = (0..3).map(|i| <Arc<str>>::make(i, &source)).collect();
        assert_eq!(Arc::strong_count(&source.arc), 1 + arcs.len());
    }
}
