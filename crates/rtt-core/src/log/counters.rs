//! What each end of an RTT run did over its measured window, as the log records it: each
//! counter's value and how it was obtained, or why the machine would not give it. The counting
//! itself is `rtt-counters`'; this is only the shape of its result.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a counter has no value when the run did not ask for it (the ping's `--all-counters`).
pub const NOT_ASKED: &str = "not asked: --all-counters counts it through perf_event_open, at a cost in every system call and switch";

/// The counters of both ends of a run (`counters` of an RTT log).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunCounters {
    pub ping: EndCounters,
    pub pong: EndCounters,
}

/// What one process did over the measured window, every thread of it together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EndCounters {
    /// The process counted; `null` when this end was not (then every count says why).
    pub pid: Option<u32>,
    /// Seconds between the two reads that bound the counts: the measured window, as the counting
    /// thread woke for its start and its end.
    pub window_s: f64,
    /// Time on a CPU, user and kernel together, in ns (the process's CPU-time clock: every
    /// thread, those that ended included).
    pub cpu_ns: Count,
    /// The user share of the CPU time, in ns: the kernel's split, apportioned by clock ticks
    /// (`/proc/PID/stat`), so coarse (10 ms) on short runs.
    pub user_ns: Count,
    /// The kernel share of the CPU time, in ns, split as `user_ns` is.
    pub kernel_ns: Count,
    /// Context switches: every time a thread left its CPU.
    pub switches: Count,
    /// Switches where a thread waited (blocked in a call), read per thread (`/proc`): unknown
    /// when a thread ended inside the window, as std's do at its end.
    pub voluntary_switches: Count,
    /// Switches where a thread was preempted, read as `voluntary_switches` is.
    pub involuntary_switches: Count,
    /// Times a thread moved to another CPU, read as `voluntary_switches` is.
    pub migrations: Count,
    /// Page faults, minor and major.
    pub page_faults: Count,
    /// System calls entered (`raw_syscalls:sys_enter`).
    pub syscalls: Count,
    /// System calls entered, for the few that tell how an end waits and moves its bytes
    /// (`syscalls:sys_enter_<name>`), by name.
    pub syscalls_by_name: BTreeMap<String, Count>,
    /// Wake-ups this process made (`sched:sched_waking`, which fires in the waker's context, where
    /// `sched_wakeup` may fire on the woken task's CPU): the sleeping tasks its threads woke (the
    /// other end, by a write; a thread of its own) and those an interrupt woke while one of its
    /// threads ran. Not the times it was woken: its voluntary switches are those.
    pub wakeups_made: Count,
}

/// One counter over the window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Count {
    /// The count over the window; `null` when it could not be counted.
    pub value: Option<u64>,
    /// How it was obtained, or would have been.
    pub source: String,
    /// Why there is no value (`null` when there is one).
    pub unavailable: Option<String>,
}

impl RunCounters {
    /// What was not counted though asked, in one line: each end's missing counters, and why the
    /// first was not; `None` when all were. The switches' split and the migrations are left aside: read per
    /// thread, they go missing whenever a thread ends inside the window (std's at every rate).
    pub fn missing(&self) -> Option<String> {
        let mut names = Vec::new();
        let mut why = None;
        for (end, counters) in [("ping", &self.ping), ("pong", &self.pong)] {
            let missing: Vec<&str> = counters
                .named()
                .into_iter()
                .filter(|(_, count)| count.value.is_none())
                .filter(|(_, count)| count.unavailable.as_deref() != Some(NOT_ASKED))
                .map(|(name, count)| {
                    why = why.take().or(count.unavailable.clone());
                    name
                })
                .collect();
            if !missing.is_empty() {
                names.push(format!("{end}'s {}", missing.join(", ")));
            }
        }
        let why = why.unwrap_or_default();
        (!names.is_empty()).then(|| format!("not counted: {} (first: {why})", names.join("; ")))
    }
}

impl EndCounters {
    /// Each counter of the whole process by its field's name (the by-name system calls, the
    /// switches' split and the migrations aside).
    pub fn named(&self) -> [(&'static str, &Count); 7] {
        [
            ("cpu_ns", &self.cpu_ns),
            ("user_ns", &self.user_ns),
            ("kernel_ns", &self.kernel_ns),
            ("switches", &self.switches),
            ("page_faults", &self.page_faults),
            ("syscalls", &self.syscalls),
            ("wakeups_made", &self.wakeups_made),
        ]
    }
}

impl Count {
    pub fn counted(value: u64, source: impl Into<String>) -> Self {
        Self {
            value: Some(value),
            source: source.into(),
            unavailable: None,
        }
    }

    pub fn missing(source: impl Into<String>, why: impl Into<String>) -> Self {
        Self {
            value: None,
            source: source.into(),
            unavailable: Some(why.into()),
        }
    }
}
