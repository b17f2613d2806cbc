//! smol's primitives for the micro-benchmarks: those of its ecosystem, `async-channel`,
//! `event-listener` and `futures::channel::oneshot` (shared with the other runtime that uses
//! them, in `rtt_core::micro::primitives::futures_ecosystem`).

use rtt_core::micro::{Primitives, primitives::futures_ecosystem as eco};

use crate::Smol;

impl Primitives for Smol {
    const SPAWN: &'static str = "smol::spawn";
    const YIELD: &'static str = "smol::future::yield_now";
    const ONESHOT: &'static str = eco::ONESHOT;
    const NOTIFY: &'static str = eco::NOTIFY;
    const CHANNEL: &'static str = eco::CHANNEL;
    /// A task's header and state with a small future, its waker and queue entry, rounded up.
    const TASK_BYTES: u64 = 1024;

    type OnceTx<T: Send + 'static> = eco::OnceTx<T>;
    type OnceRx<T: Send + 'static> = eco::OnceRx<T>;

    fn oneshot<T: Send + 'static>() -> (eco::OnceTx<T>, eco::OnceRx<T>) {
        eco::oneshot()
    }

    fn send_once<T: Send + 'static>(tx: eco::OnceTx<T>, value: T) -> bool {
        eco::send_once(tx, value)
    }

    async fn recv_once<T: Send + 'static>(rx: eco::OnceRx<T>) -> Option<T> {
        eco::recv_once(rx).await
    }

    type Notify = eco::Notify;

    fn new_notify() -> eco::Notify {
        eco::Notify::default()
    }

    fn notify(notify: &eco::Notify) {
        notify.notify();
    }

    async fn notified(notify: &eco::Notify) {
        notify.notified().await;
    }

    type Tx<T: Send + 'static> = eco::Sender<T>;
    type Rx<T: Send + 'static> = eco::Receiver<T>;

    fn channel<T: Send + 'static>(capacity: usize) -> (eco::Sender<T>, eco::Receiver<T>) {
        eco::channel(capacity)
    }

    async fn send<T: Send + 'static>(tx: &mut eco::Sender<T>, value: T) -> bool {
        eco::send(tx, value).await
    }

    async fn recv<T: Send + 'static>(rx: &mut eco::Receiver<T>) -> Option<T> {
        eco::recv(rx).await
    }
}
