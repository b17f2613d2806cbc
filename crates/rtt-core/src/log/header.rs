//! The run header: what every log says first, whatever its kind (`rtt`, `throughput`, `micro`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::machine::Machine;

/// The `schema` field of every log; bumped when a field changes meaning.
pub const SCHEMA: &str = "rtt-log/1";

/// What every log says first, whatever its kind: the format, what ran, on what build and
/// machine, when, and whether it ended as planned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunHeader {
    /// The log format, `rtt-log/1`.
    #[schemars(extend("const" = SCHEMA))]
    pub schema: String,
    /// The runtime or reference, as labelled in runtimes.json (`std`, `tokio`, `monoio`,
    /// `busy-poll`, `go`, …).
    pub framework: String,
    /// The exact crate version built (from Cargo.lock); for std the rustc release; for go the Go
    /// release.
    pub framework_version: String,
    /// How the runtime really ran: `multi_thread`, `current_thread`, `global_executor`,
    /// `os_threads`, `thread_per_core`, `goroutines`, …. Fields marked "runtime only" are `null`
    /// in a reference baseline's log (ICMP ping), which has no runtime.
    pub flavor: Option<String>,
    /// Worker threads, as the runtime reports or was told (micro, std: the most threads alive at
    /// once by the benchmark's design; go: GOMAXPROCS) (runtime only).
    pub threads: Option<usize>,
    #[serde(flatten)]
    pub machine: Machine,
    /// `rustc --version` of the compiler that built the binary (runtime only; `null` for go).
    pub rustc: Option<String>,
    /// The suite's version and git commit.
    pub suite_version: String,
    /// When the run started (UTC, RFC 3339, ms).
    pub started_at: String,
    /// Whether the run ended as planned (micro: every repeat asked for ran and passed its
    /// completion check, or the benchmark was deliberately not run, `not_run`).
    pub complete: bool,
    /// Why it did not (a lost pong, a timeout, a failed check); `null` when it did.
    pub error: Option<String>,
}
