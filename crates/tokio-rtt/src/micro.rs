//! tokio's primitives for the micro-benchmarks: `tokio::sync::{oneshot, Notify, mpsc}`.

use rtt_micro::Primitives;
use tokio::sync::{Notify, mpsc, oneshot};

use crate::Tokio;

impl Primitives for Tokio {
    const SPAWN: &'static str = "tokio::spawn";
    const YIELD: &'static str = "tokio::task::yield_now";
    const ONESHOT: &'static str = "tokio::sync::oneshot";
    const NOTIFY: &'static str = "tokio::sync::Notify";
    const CHANNEL: &'static str = "tokio::sync::mpsc";

    type OnceTx<T: Send + 'static> = oneshot::Sender<T>;
    type OnceRx<T: Send + 'static> = oneshot::Receiver<T>;

    fn oneshot<T: Send + 'static>() -> (oneshot::Sender<T>, oneshot::Receiver<T>) {
        oneshot::channel()
    }

    fn send_once<T: Send + 'static>(tx: oneshot::Sender<T>, value: T) -> bool {
        tx.send(value).is_ok()
    }

    async fn recv_once<T: Send + 'static>(rx: oneshot::Receiver<T>) -> Option<T> {
        rx.await.ok()
    }

    type Notify = Notify;

    fn new_notify() -> Notify {
        Notify::new()
    }

    /// `notify_one` keeps a permit when nobody waits yet: no wake-up is lost.
    fn notify(notify: &Notify) {
        notify.notify_one();
    }

    async fn notified(notify: &Notify) {
        notify.notified().await;
    }

    type Tx<T: Send + 'static> = mpsc::Sender<T>;
    type Rx<T: Send + 'static> = mpsc::Receiver<T>;

    fn channel<T: Send + 'static>(capacity: usize) -> (mpsc::Sender<T>, mpsc::Receiver<T>) {
        mpsc::channel(capacity)
    }

    async fn send<T: Send + 'static>(tx: &mut mpsc::Sender<T>, value: T) -> bool {
        tx.send(value).await.is_ok()
    }

    async fn recv<T: Send + 'static>(rx: &mut mpsc::Receiver<T>) -> Option<T> {
        rx.recv().await
    }
}
