//! How a benchmark knows that all its tasks finished: a shared count down to zero, and the task
//! that reaches zero sends on a oneshot the benchmark awaits (as tokio's own benches do it).
//! Completion is then checked, not assumed: the count really reached zero.

use std::sync::{
    Arc, Mutex, PoisonError,
    atomic::{AtomicU64, Ordering},
};

use crate::primitives::Primitives;

/// `n` tasks still to finish; the last one sends on the oneshot.
pub struct Countdown<R: Primitives> {
    left: AtomicU64,
    done: Mutex<Option<R::OnceTx<()>>>,
}

impl<R: Primitives> Countdown<R> {
    /// A count of `n` ≥ 1, and the receiver that gets `()` when it reaches zero.
    pub fn new(n: u64) -> (Arc<Self>, R::OnceRx<()>) {
        let (tx, rx) = R::oneshot();
        let countdown = Self {
            left: AtomicU64::new(n),
            done: Mutex::new(Some(tx)),
        };
        (Arc::new(countdown), rx)
    }

    /// One task finished.
    pub fn tick(&self) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            let done = self
                .done
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(done) = done {
                R::send_once(done, ());
            }
        }
    }

    /// Tasks that have not finished.
    pub fn left(&self) -> u64 {
        self.left.load(Ordering::Acquire)
    }
}

/// Waits for `countdown` to reach zero through `done`; an error names what did not finish.
pub async fn finished<R: Primitives>(
    countdown: &Countdown<R>,
    done: R::OnceRx<()>,
    what: &str,
) -> Result<(), String> {
    let signalled = R::recv_once(done).await.is_some();
    match countdown.left() {
        0 if signalled => Ok(()),
        left => Err(format!("{left} {what} did not finish")),
    }
}
