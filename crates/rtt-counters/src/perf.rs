//! The kernel's own counts of a set of threads, through `perf_event_open`: context switches and
//! tracepoints, one counter per thread with `inherit`, so the threads they start later count too.
//! Only what nothing cheaper counts: a per-task `task-clock` added some 15 µs to std's
//! back-to-back p50 here, where the process's CPU clock (`procfs`) costs nothing.
//! Opening is where a machine refuses (paranoid level, no tracefs, another user's process); each
//! refusal is kept with its reason. Reading is a `read` per counter and thread.

use std::{fs, io, path::Path};

use nix::mount::MsFlags;
use perf_event::{
    Builder, Counter,
    events::{Event, Software, Tracepoint},
};

/// The system calls counted by name: how an end moves its bytes, how it waits for them, how its
/// threads hand work over, and its timers. A name the kernel has no tracepoint for (an
/// architecture without `epoll_wait`, say) is reported as such.
pub const SYSCALLS_BY_NAME: [&str; 14] = [
    "read",
    "write",
    "recvfrom",
    "sendto",
    "recvmsg",
    "sendmsg",
    "epoll_wait",
    "epoll_pwait",
    "io_uring_enter",
    "futex",
    "sched_yield",
    "nanosleep",
    "clock_nanosleep",
    "timerfd_settime",
];

/// Where tracefs is mounted on current kernels, and where it was before (under debugfs).
const TRACEFS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// What is counted through perf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Switches,
    Syscalls,
    Wakeups,
    Syscall(&'static str),
}

impl Key {
    pub fn all() -> impl Iterator<Item = Key> {
        let fixed = [Key::Switches, Key::Syscalls, Key::Wakeups];
        fixed
            .into_iter()
            .chain(SYSCALLS_BY_NAME.into_iter().map(Key::Syscall))
    }

    /// The event's name as `perf stat -e` takes it: how the log says it was obtained.
    pub fn event_name(self) -> String {
        match self {
            Key::Switches => "context-switches".into(),
            Key::Syscalls => "raw_syscalls:sys_enter".into(),
            Key::Wakeups => "sched:sched_waking".into(),
            Key::Syscall(name) => format!("syscalls:sys_enter_{name}"),
        }
    }
}

/// Whom a set of counters observes: the calling thread, or another process's thread by its id.
#[derive(Clone, Copy, Debug)]
pub enum Thread {
    Calling,
    Id(u32),
}

/// One event's counters, one per thread observed, or why it could not be opened.
pub struct PerfSet {
    counters: Vec<(Key, Result<Vec<Counter>, String>)>,
}

impl PerfSet {
    /// Opens every event of [`Key::all`] on each of `threads`, counting from now; a thread that
    /// ended since it was listed is left out.
    pub fn open(threads: &[Thread]) -> Self {
        let counters = Key::all()
            .map(|key| (key, open_key(key, threads)))
            .collect();
        Self { counters }
    }

    /// Each event's count so far, summed over the threads (and the threads they started).
    pub fn read(&mut self) -> Vec<(Key, Result<u64, String>)> {
        self.counters
            .iter_mut()
            .map(|(key, counters)| {
                let total = match counters {
                    Ok(counters) => counters
                        .iter_mut()
                        .map(|c| c.read())
                        .sum::<io::Result<u64>>()
                        .map_err(|e| format!("reading the {} counter: {e}", key.event_name())),
                    Err(why) => Err(why.clone()),
                };
                (*key, total)
            })
            .collect()
    }
}

fn open_key(key: Key, threads: &[Thread]) -> Result<Vec<Counter>, String> {
    let mut opened = Vec::with_capacity(threads.len());
    for thread in threads {
        let built = match key {
            Key::Switches => build(Software::CONTEXT_SWITCHES, *thread),
            _ => build(Tracepoint::with_id(tracepoint_id(key)?), *thread),
        };
        match built {
            Ok(counter) => opened.push(counter),
            // The thread ended since it was listed: it has nothing more to count.
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::SRCH.raw_os_error()) => {}
            Err(e) => return Err(refused(key, &e)),
        }
    }
    Ok(opened)
}

fn build(event: impl Event, thread: Thread) -> io::Result<Counter> {
    let mut builder = Builder::new(event);
    match thread {
        Thread::Calling => builder.observe_self(),
        Thread::Id(tid) => builder.observe_pid(tid as i32),
    };
    // Kernel work is most of what a blocked end does: it must count.
    let mut counter = builder.any_cpu().include_kernel().inherit(true).build()?;
    counter.enable()?;
    Ok(counter)
}

/// Why the kernel refused `key`'s counter, and what would allow it.
fn refused(key: Key, error: &io::Error) -> String {
    let event = key.event_name();
    match error.kind() {
        io::ErrorKind::PermissionDenied => {
            let paranoid = fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .map(|t| t.trim().to_owned())
                .unwrap_or_else(|_| "unknown".into());
            format!(
                "perf_event_open refused {event} ({error}): kernel.perf_event_paranoid is {paranoid}; counting another process's or the kernel's work needs root or CAP_PERFMON, or kernel.perf_event_paranoid at 1 or less (and the same user as the process counted)"
            )
        }
        _ => format!("perf_event_open failed for {event}: {error}"),
    }
}

/// Where tracefs holds its events: a mount found, or, as root where none is, the one this mounts (as the sweep's
/// traced runs do: a machine fresh from boot has tracefs unmounted).
fn tracefs_root() -> Option<&'static Path> {
    let found = || {
        TRACEFS
            .iter()
            .map(Path::new)
            .find(|root| root.join("events").exists())
    };
    if let Some(root) = found() {
        return Some(root);
    }
    let mounted = rustix::process::geteuid().is_root()
        && nix::mount::mount(
            Some("nodev"),
            TRACEFS[0],
            Some("tracefs"),
            MsFlags::empty(),
            None::<&str>,
        )
        .is_ok();
    if mounted { found() } else { None }
}

/// A tracepoint's id, from tracefs; why it cannot be had otherwise.
fn tracepoint_id(key: Key) -> Result<u64, String> {
    let event = key.event_name();
    let (group, name) = event.split_once(':').unwrap_or(("", &event));
    let Some(root) = tracefs_root() else {
        let readable = fs::read_dir(TRACEFS[0]).is_ok();
        return Err(match readable {
            true => format!(
                "tracefs is not mounted at {} (as root: mount -t tracefs nodev {}), so {event} has no id",
                TRACEFS[0], TRACEFS[0]
            ),
            false => format!(
                "{} cannot be read by this user, so {event} has no id (root can read it)",
                TRACEFS[0]
            ),
        });
    };
    let path = root.join("events").join(group).join(name).join("id");
    match fs::read_to_string(&path) {
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|e| format!("{}: not an id ({e})", path.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(format!(
            "this kernel has no tracepoint {event} ({} is missing)",
            path.display()
        )),
        Err(e) => Err(format!("reading {}: {e}", path.display())),
    }
}
