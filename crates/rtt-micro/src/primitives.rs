//! The seam of the micro-benchmarks: what each ecosystem provides besides spawn, sleep and yield
//! (which come from [`Runtime`]): a oneshot channel, a notification, a bounded channel, and
//! their names in the logs. The benchmarks are written once against this trait. async-std,
//! smol and compio share their ecosystem's implementation, here ([`FuturesEcosystem`]).

use std::future::Future;

use rtt_core::runtime::Runtime;

/// A runtime and its ecosystem's synchronisation primitives, as an application on it uses them.
pub trait Primitives: Runtime {
    /// The spawn measured by the scheduler benchmarks, e.g. `tokio::spawn`.
    const SPAWN: &'static str;
    /// The yield of `yield_many`, e.g. `tokio::task::yield_now`.
    const YIELD: &'static str;
    /// The oneshot channel, e.g. `tokio::sync::oneshot`.
    const ONESHOT: &'static str;
    /// The notification, e.g. `tokio::sync::Notify`.
    const NOTIFY: &'static str;
    /// The bounded channel, e.g. `tokio::sync::mpsc`.
    const CHANNEL: &'static str;
    /// Bytes one spawned task (with its small future) is expected to hold: the memory check
    /// before a run multiplies it by the tasks alive at once. By default an async task's header
    /// and state with a small future, its waker and queue entry, rounded up (std: a thread).
    const TASK_BYTES: u64 = 1024;
    /// The most tasks that may be alive at once (std: OS threads); above it a benchmark is not
    /// run. `None`: no cap.
    const TASK_CAP: Option<u64> = None;
    /// Whether each task is an OS thread (std): the log's `threads` is then the most tasks
    /// alive at once, not a worker count.
    const THREAD_PER_TASK: bool = false;

    type OnceTx<T: Send + 'static>: Send + 'static;
    type OnceRx<T: Send + 'static>: Send + 'static;
    fn oneshot<T: Send + 'static>() -> (Self::OnceTx<T>, Self::OnceRx<T>);
    /// Sends without waiting; `false` if the receiver is gone.
    fn send_once<T: Send + 'static>(tx: Self::OnceTx<T>, value: T) -> bool;
    /// The value, or `None` once the sender is dropped without sending.
    fn recv_once<T: Send + 'static>(rx: Self::OnceRx<T>) -> impl Future<Output = Option<T>> + Send;

    /// A notification for one waiter: a wake-up given before the waiter waits is kept.
    type Notify: Send + Sync + 'static;
    fn new_notify() -> Self::Notify;
    fn notify(notify: &Self::Notify);
    fn notified(notify: &Self::Notify) -> impl Future<Output = ()> + Send + '_;

    type Tx<T: Send + 'static>: Send + 'static;
    type Rx<T: Send + 'static>: Send + 'static;
    /// A bounded channel: a send waits while `capacity` values are queued.
    fn channel<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>);
    /// `false` if the receiver is gone.
    fn send<T: Send + 'static>(
        tx: &mut Self::Tx<T>,
        value: T,
    ) -> impl Future<Output = bool> + Send + '_;
    /// The next value, or `None` once every sender is dropped and the queue is empty.
    fn recv<T: Send + 'static>(rx: &mut Self::Rx<T>)
    -> impl Future<Output = Option<T>> + Send + '_;
}

/// A runtime whose applications use the `futures` ecosystem's primitives (async-std, smol,
/// compio): it names only its spawn and yield, and gets [`Primitives`] from [`futures_ecosystem`].
pub trait FuturesEcosystem: Runtime {
    /// The spawn measured by the scheduler benchmarks, e.g. `smol::spawn`.
    const SPAWN: &'static str;
    /// The yield of `yield_many`, e.g. `smol::future::yield_now`.
    const YIELD: &'static str;
}

impl<R: FuturesEcosystem> Primitives for R {
    const SPAWN: &'static str = <R as FuturesEcosystem>::SPAWN;
    const YIELD: &'static str = <R as FuturesEcosystem>::YIELD;
    const ONESHOT: &'static str = "futures::channel::oneshot";
    const NOTIFY: &'static str = "event-listener";
    const CHANNEL: &'static str = "async-channel";

    type OnceTx<T: Send + 'static> = futures_ecosystem::OnceTx<T>;
    type OnceRx<T: Send + 'static> = futures_ecosystem::OnceRx<T>;

    fn oneshot<T: Send + 'static>() -> (Self::OnceTx<T>, Self::OnceRx<T>) {
        futures_ecosystem::oneshot()
    }

    fn send_once<T: Send + 'static>(tx: Self::OnceTx<T>, value: T) -> bool {
        tx.send(value).is_ok()
    }

    async fn recv_once<T: Send + 'static>(rx: Self::OnceRx<T>) -> Option<T> {
        rx.await.ok()
    }

    type Notify = futures_ecosystem::Notify;

    fn new_notify() -> Self::Notify {
        futures_ecosystem::Notify::default()
    }

    fn notify(notify: &Self::Notify) {
        notify.notify();
    }

    async fn notified(notify: &Self::Notify) {
        notify.notified().await;
    }

    type Tx<T: Send + 'static> = futures_ecosystem::Sender<T>;
    type Rx<T: Send + 'static> = futures_ecosystem::Receiver<T>;

    fn channel<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>) {
        futures_ecosystem::channel(capacity)
    }

    async fn send<T: Send + 'static>(tx: &mut Self::Tx<T>, value: T) -> bool {
        tx.send(value).await.is_ok()
    }

    async fn recv<T: Send + 'static>(rx: &mut Self::Rx<T>) -> Option<T> {
        rx.recv().await.ok()
    }
}

/// The `futures` ecosystem's types behind [`FuturesEcosystem`]: `futures::channel::oneshot`,
/// `event-listener` (with the flag it announces) and `async-channel`.
pub mod futures_ecosystem {
    use std::sync::atomic::{AtomicBool, Ordering};

    pub use async_channel::{Receiver, Sender, bounded as channel};
    pub use futures::channel::oneshot::{Receiver as OnceRx, Sender as OnceTx, channel as oneshot};

    /// An `event_listener::Event` and the flag it announces: the listener is registered before
    /// the flag is checked again, so no wake-up is lost (the crate's documented pattern).
    #[derive(Default)]
    pub struct Notify {
        set: AtomicBool,
        event: event_listener::Event,
    }

    impl Notify {
        pub fn notify(&self) {
            self.set.store(true, Ordering::Release);
            self.event.notify(1);
        }

        pub async fn notified(&self) {
            loop {
                if self.set.load(Ordering::Acquire) {
                    return;
                }
                let listener = self.event.listen();
                if self.set.load(Ordering::Acquire) {
                    return;
                }
                listener.await;
            }
        }
    }
}
