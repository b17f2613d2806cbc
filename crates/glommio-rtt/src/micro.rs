//! glommio's primitives for the micro-benchmarks: `glommio::channels::local_channel` for the
//! bounded channel and the oneshot (a channel of one slot, closed when its sender is dropped:
//! glommio has no oneshot), `glommio::sync::Semaphore` of no permits for the notification. They
//! are `!Send`, as glommio's executor thread needs: [`ThreadBound`] meets the seam's bounds, at
//! the price of a thread-id check per use and per poll.

use std::future::Future;

use glommio::{
    channels::local_channel::{self, LocalReceiver, LocalSender},
    sync::Semaphore,
};
use rtt_core::runtime::ThreadBound;
use rtt_micro::Primitives;

use crate::Glommio;

impl Primitives for Glommio {
    const SPAWN: &'static str = "glommio::spawn_local";
    const YIELD: &'static str = "glommio::executor().yield_now";
    const ONESHOT: &'static str = "glommio::channels::local_channel::new_bounded(1)";
    const NOTIFY: &'static str = "glommio::sync::Semaphore";
    const CHANNEL: &'static str = "glommio::channels::local_channel::new_bounded";

    type OnceTx<T: Send + 'static> = ThreadBound<LocalSender<T>>;
    type OnceRx<T: Send + 'static> = ThreadBound<LocalReceiver<T>>;

    fn oneshot<T: Send + 'static>() -> (Self::OnceTx<T>, Self::OnceRx<T>) {
        Self::channel(1)
    }

    /// The one slot is free: the send never waits.
    fn send_once<T: Send + 'static>(tx: Self::OnceTx<T>, value: T) -> bool {
        tx.try_send(value).is_ok()
    }

    fn recv_once<T: Send + 'static>(rx: Self::OnceRx<T>) -> impl Future<Output = Option<T>> + Send {
        ThreadBound::new(async move { rx.recv().await })
    }

    type Notify = ThreadBound<Semaphore>;

    fn new_notify() -> Self::Notify {
        ThreadBound::new(Semaphore::new(0))
    }

    /// A unit signalled before the waiter waits is kept: no wake-up is lost.
    fn notify(notify: &Self::Notify) {
        notify.signal(1);
    }

    fn notified(notify: &Self::Notify) -> impl Future<Output = ()> + Send + '_ {
        ThreadBound::new(async move {
            // Closed only by `close()`, which nothing calls: the result is always Ok.
            let _ = notify.acquire(1).await;
        })
    }

    type Tx<T: Send + 'static> = ThreadBound<LocalSender<T>>;
    type Rx<T: Send + 'static> = ThreadBound<LocalReceiver<T>>;

    fn channel<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>) {
        let (tx, rx) = local_channel::new_bounded(capacity);
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
