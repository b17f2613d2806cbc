//! monoio's primitives for the micro-benchmarks: `local-sync` (by monoio's authors, what its
//! applications use) for the oneshot, the notification (a semaphore of no permits) and the
//! bounded channel. They are `!Send`, as monoio's one thread needs: [`ThreadBound`] meets the
//! seam's bounds, at the price of a thread-id check per use and per poll.

use std::future::Future;

use local_sync::{mpsc::bounded, oneshot, semaphore::Semaphore};
use rtt_core::runtime::ThreadBound;
use rtt_micro::Primitives;

use crate::Monoio;

impl Primitives for Monoio {
    const SPAWN: &'static str = "monoio::spawn";
    /// monoio 0.2.4 has no yield; the suite's stand-in is a zero sleep (see `Monoio::yield_now`),
    /// so `yield_many` measures a round through monoio's timer and driver, not a bare yield.
    const YIELD: &'static str = "monoio::time::sleep(0) (monoio has no yield)";
    const ONESHOT: &'static str = "local_sync::oneshot";
    const NOTIFY: &'static str = "local_sync::semaphore::Semaphore";
    const CHANNEL: &'static str = "local_sync::mpsc::bounded";

    type OnceTx<T: Send + 'static> = ThreadBound<oneshot::Sender<T>>;
    type OnceRx<T: Send + 'static> = ThreadBound<oneshot::Receiver<T>>;

    fn oneshot<T: Send + 'static>() -> (Self::OnceTx<T>, Self::OnceRx<T>) {
        let (tx, rx) = oneshot::channel();
        (ThreadBound::new(tx), ThreadBound::new(rx))
    }

    fn send_once<T: Send + 'static>(tx: Self::OnceTx<T>, value: T) -> bool {
        tx.take().send(value).is_ok()
    }

    fn recv_once<T: Send + 'static>(rx: Self::OnceRx<T>) -> impl Future<Output = Option<T>> + Send {
        ThreadBound::new(async move { rx.take().await.ok() })
    }

    type Notify = ThreadBound<Semaphore>;

    fn new_notify() -> Self::Notify {
        ThreadBound::new(Semaphore::new(0))
    }

    /// A permit added before the waiter waits is kept: no wake-up is lost.
    fn notify(notify: &Self::Notify) {
        notify.add_permits(1);
    }

    fn notified(notify: &Self::Notify) -> impl Future<Output = ()> + Send + '_ {
        ThreadBound::new(async move {
            if let Ok(permit) = notify.acquire().await {
                permit.forget();
            }
        })
    }

    type Tx<T: Send + 'static> = ThreadBound<bounded::Tx<T>>;
    type Rx<T: Send + 'static> = ThreadBound<bounded::Rx<T>>;

    fn channel<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>) {
        let (tx, rx) = bounded::channel(capacity);
        (ThreadBound::new(tx), ThreadBound::new(rx))
    }

    fn send<T: Send + 'static>(
        tx: &mut Self::Tx<T>,
        value: T,
    ) -> impl Future<Output = bool> + Send + '_ {
        ThreadBound::new(async move { tx.send(value).await.is_ok() })
    }

    fn recv<T: Send + 'static>(
        rx: &mut Self::Rx<T>,
    ) -> impl Future<Output = Option<T>> + Send + '_ {
        ThreadBound::new(async move { rx.recv().await })
    }
}
