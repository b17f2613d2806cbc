//! The log of an in-process micro-benchmark (`"kind": "micro"`): one of the kinds of [`Log`](super::Log).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::header::RunHeader;

/// The log of an in-process micro-benchmark: the wall time of each timed repeat, and the median
/// and its 95 % interval across them (`stats::median_interval`). Written by `*-micro`, and under
/// framework `go` by `go-micro`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MicroLog {
    #[serde(flatten)]
    pub header: RunHeader,
    /// `spawn_many`, `yield_many`, `ping_pong`, `chained_spawn`, `notify`, `oneshot`, `channel`.
    pub bench: String,
    /// What was measured: the synchronisation primitive, or for the scheduler benchmarks the
    /// spawn (and yield) used, e.g. `tokio::sync::Notify`, `async-channel`, `tokio::spawn`.
    pub primitive: String,
    /// The sizes of the benchmark; those that do not apply to it are `null`.
    pub params: MicroParams,
    /// Operations in one repeat: tasks spawned, yields, round trips, chain depth, waiters woken,
    /// events received.
    pub ops: u64,
    /// Timed repeats asked for (`--repeat`).
    pub repeat: u32,
    /// Untimed iterations run before them.
    pub warmup: u32,
    /// Wall time of each finished timed repeat, in ns, in order; for `notify` and `oneshot`
    /// less the holders' sleep.
    pub times_ns: Vec<u64>,
    /// The time of a repeat divided by `ops`, in ns.
    pub ns_per_op: MedianInterval,
    /// `ops` divided by the time of a repeat.
    pub ops_per_s: MedianInterval,
    /// The process's peak resident set size, in bytes (VmHWM: getrusage's ru_maxrss).
    pub peak_rss_bytes: Option<u64>,
    /// Why the benchmark was not run at these sizes (std above its thread cap); `null` when it
    /// ran.
    pub not_run: Option<String>,
}

/// The sizes of a micro-benchmark, by option; `null` where they do not apply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MicroParams {
    /// `--tasks`: tasks spawned, yielding tasks, round trips or chain depth.
    pub tasks: Option<u64>,
    /// `--yields`: yields per task.
    pub yields: Option<u64>,
    /// `--instances`: holder and waiter pairs.
    pub instances: Option<u64>,
    /// `--hold-ms`: how long each holder sleeps before waking its waiter.
    pub hold_ms: Option<u64>,
    /// `--workers`: receiving tasks, each with its own queue and producer.
    pub workers: Option<u64>,
    /// `--events`: events each producer sends.
    pub events: Option<u64>,
    /// `--queue`: the bound of each queue.
    pub queue: Option<u64>,
    /// `--event-type`: `int`, `string` (built afresh for each event), `string_copy` (copied for
    /// each event from one shared string), `shared` (a pointer to one string nobody counts) or
    /// `shared_arc` (one `Arc<str>` cloned for every event). Logs written before `string_copy`
    /// existed named the `Arc<str>` kind `shared`.
    pub event_type: Option<String>,
    /// `--event-size`: the bytes of each string event; `null` for `int` (and in older logs).
    #[serde(default)]
    pub event_size: Option<u64>,
}

/// The median across repeats and its distribution-free 95 % interval; `low` and `high` are
/// `null` with fewer than 6 repeats, all three without any.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MedianInterval {
    pub median: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
}
