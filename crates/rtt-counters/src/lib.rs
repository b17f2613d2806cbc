//! What a process did over a window: CPU time (user and kernel), context switches, migrations,
//! system calls (in all and by name), wake-ups made and page faults, for every thread of it.
//! Through `perf_event_open` where the machine allows it, `/proc` where it needs no permission;
//! a counter refused says why. Runtime-agnostic: the ping counts itself and its pong with it.

mod perf;
mod procfs;
mod window;

pub use self::{perf::SYSCALLS_BY_NAME, window::Counting};

/// Opens every kernel event `kernel_events` counts, on the calling thread, and keeps them open
/// while the value lives. A tracepoint stays registered while any perf event of it is open, so
/// with one of these held the counters of the runs that close theirs are never the last: the
/// last close unregisters the tracepoint and waits for an RCU grace period (36 ms each here, 0.6 s
/// for the 16 a run counts). Nothing is counted that anyone reads.
pub fn hold_kernel_events() -> impl Sized {
    perf::PerfSet::open(&[perf::Thread::Calling])
}

/// What a run counts (off: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountingSpec {
    /// The pong's process, when it runs on this host.
    pub pong_pid: Option<u32>,
    /// Also system calls, wake-ups and every switch, through `perf_event_open`: their tracepoints
    /// and events run at every system call and switch, inside the measured loop, so they slow the
    /// round trip they count (docs/sweeps.md, "Counters"); without, only what the kernel keeps anyway.
    pub kernel_events: bool,
}
