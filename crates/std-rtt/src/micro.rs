//! std's primitives for the micro-benchmarks: each task an OS thread, `std::sync::mpsc::
//! sync_channel` for the oneshot and the bounded channel, a `Condvar` for the notification.
//! Every call blocks its thread, as plain std code does. Threads are capped ([`THREAD_CAP`]).

use std::sync::{
    Condvar, Mutex, PoisonError,
    mpsc::{Receiver, SyncSender, sync_channel},
};

use rtt_micro::Primitives;

use crate::Std;

/// The most threads a std benchmark may keep alive at once: a million threads is no way to
/// write a std program, and the kernel's limits (`threads-max`, `vm.max_map_count`: two maps
/// per thread stack) stop well before. Above it the benchmark is logged as not run.
pub const THREAD_CAP: u64 = 20_000;

impl Primitives for Std {
    const SPAWN: &'static str = "std::thread::spawn";
    const YIELD: &'static str = "std::thread::yield_now";
    const ONESHOT: &'static str = "std::sync::mpsc::sync_channel";
    const NOTIFY: &'static str = "Condvar";
    const CHANNEL: &'static str = "std::sync::mpsc::sync_channel";
    /// A thread's kernel stack and task struct, the touched pages of its stack, its TLS.
    const TASK_BYTES: u64 = 64 * 1024;
    const TASK_CAP: Option<u64> = Some(THREAD_CAP);
    const THREAD_PER_TASK: bool = true;

    type OnceTx<T: Send + 'static> = SyncSender<T>;
    type OnceRx<T: Send + 'static> = Receiver<T>;

    /// Room for the one value: sending never blocks.
    fn oneshot<T: Send + 'static>() -> (SyncSender<T>, Receiver<T>) {
        sync_channel(1)
    }

    fn send_once<T: Send + 'static>(tx: SyncSender<T>, value: T) -> bool {
        tx.send(value).is_ok()
    }

    async fn recv_once<T: Send + 'static>(rx: Receiver<T>) -> Option<T> {
        rx.recv().ok()
    }

    type Notify = Flag;

    fn new_notify() -> Flag {
        Flag::default()
    }

    fn notify(notify: &Flag) {
        *notify.set.lock().unwrap_or_else(PoisonError::into_inner) = true;
        notify.changed.notify_one();
    }

    async fn notified(notify: &Flag) {
        let set = notify.set.lock().unwrap_or_else(PoisonError::into_inner);
        let _set = notify
            .changed
            .wait_while(set, |set| !*set)
            .unwrap_or_else(PoisonError::into_inner);
    }

    type Tx<T: Send + 'static> = SyncSender<T>;
    type Rx<T: Send + 'static> = Receiver<T>;

    fn channel<T: Send + 'static>(capacity: usize) -> (SyncSender<T>, Receiver<T>) {
        sync_channel(capacity)
    }

    async fn send<T: Send + 'static>(tx: &mut SyncSender<T>, value: T) -> bool {
        tx.send(value).is_ok()
    }

    async fn recv<T: Send + 'static>(rx: &mut Receiver<T>) -> Option<T> {
        rx.recv().ok()
    }
}

/// A flag and the condition variable that announces it.
#[derive(Default)]
pub struct Flag {
    set: Mutex<bool>,
    changed: Condvar,
}
