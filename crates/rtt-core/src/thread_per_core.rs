//! What the thread-per-core io_uring runtimes (monoio, compio, glommio) need to meet the seam:
//! `Send` for values that never leave their thread, a panic re-raised where its task is awaited,
//! and the one error when io_uring is refused.

use std::{
    future::Future,
    panic::AssertUnwindSafe,
    pin::Pin,
    task::{Context, Poll},
};

use anyhow::anyhow;
use futures::{FutureExt, future::CatchUnwind};

/// A value of a thread-per-core runtime (a socket, a task handle, an operation in flight) that
/// is not `Send`, made `Send` for the seam's bounds: using or dropping it on another thread
/// panics instead of being undefined. Sound here because such a runtime runs each task, and
/// everything the task holds, on the thread that spawned it.
pub type ThreadBound<T> = send_wrapper::SendWrapper<T>;

/// The error of a completion-based runtime that could not set up io_uring (disabled by
/// `kernel.io_uring_disabled`, refused by a seccomp profile, an old kernel): one line naming
/// the cause, which the sweeps report as a skipped point.
pub fn io_uring_unavailable(cause: impl std::fmt::Display) -> anyhow::Error {
    let setting = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .ok()
        .and_then(|text| text.trim().parse::<u8>().ok())
        .filter(|disabled| *disabled > 0)
        .map(|disabled| format!(" (kernel.io_uring_disabled = {disabled})"))
        .unwrap_or_default();
    anyhow!("io_uring is unavailable: {cause}{setting}")
}

/// `future` with its panic caught where it runs, for a runtime that lets a task's panic unwind
/// out of its executor: spawn this, and await its handle through [`Rethrow`].
pub fn catching<F: Future>(future: F) -> CatchUnwind<AssertUnwindSafe<F>> {
    AssertUnwindSafe(future).catch_unwind()
}

/// The handle of a task spawned with [`catching`]: awaiting it gives the task's output, or
/// re-raises its panic there, as tokio's handle does.
pub struct Rethrow<H>(pub H);

impl<H, T> Future for Rethrow<H>
where
    H: Future<Output = std::thread::Result<T>> + Unpin,
{
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0)
            .poll(cx)
            .map(|output| output.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    }
}
