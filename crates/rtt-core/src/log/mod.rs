//! The JSON log of a run, typed: one struct per kind (`rtt`, `throughput`, `micro`); the two
//! socket kinds share a run context. The one definition behind the JSON a ping writes, its human summary, the CSV
//! headers and the JSON Schema committed as `schema/rtt-log.schema.json`. No I/O here.

use schemars::{JsonSchema, generate::SchemaSettings};
use serde::{Deserialize, Serialize};

use crate::stats::RttStats;

mod counters;
mod header;
mod micro;

pub use self::{
    counters::{Count, EndCounters, NOT_ASKED, RunCounters},
    header::{RunHeader, SCHEMA},
    micro::{MedianInterval, MicroLog, MicroParams},
};

/// The header of an RTT run's CSV log: a row per reply received after the warm-up, by connection
/// (`conn`, from 0; `seq` counts on each connection); `latency_ns` is empty in closed load.
pub const RTT_CSV_HEADER: &str = "seq,t_ns,rtt_ns,conn,latency_ns";

/// The header of a throughput run's CSV log: a row per measured window.
pub const THROUGHPUT_CSV_HEADER: &str = "window,t_ns,messages,bytes";

/// Where the JSON Schema of [`Log`] is committed, from the repository's root.
pub const SCHEMA_FILE: &str = "schema/rtt-log.schema.json";

/// The JSON log of one run (`STEM.json`), of either kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[schemars(
    title = "rtt-suite log",
    description = "STEM.json, written by every *-ping of rtt-suite; `kind` says which fields follow. Each kind's `x-csv-header` is the header line of its STEM.csv."
)]
pub enum Log {
    /// Round-trip times of paced messages (`--mode rtt`).
    #[schemars(extend("x-csv-header" = RTT_CSV_HEADER))]
    Rtt(Box<RttLog>),
    /// One-way throughput, counted by the pong in windows (`--mode throughput`).
    #[schemars(extend("x-csv-header" = THROUGHPUT_CSV_HEADER))]
    Throughput(ThroughputLog),
    /// An in-process micro-benchmark (`*-micro`): its repeats' times, no CSV.
    Micro(MicroLog),
}

impl Log {
    /// What a socket run's log says about it; `None` for a micro-benchmark, which has no pong,
    /// payload or decoys.
    pub fn context(&self) -> Option<&RunContext> {
        match self {
            Log::Rtt(log) => Some(&log.context),
            Log::Throughput(log) => Some(&log.context),
            Log::Micro(_) => None,
        }
    }

    /// What every log says first, whatever its kind.
    pub fn header(&self) -> &RunHeader {
        match self {
            Log::Rtt(log) => &log.context.header,
            Log::Throughput(log) => &log.context.header,
            Log::Micro(log) => &log.header,
        }
    }

    /// Why the run did not end as planned, whatever its kind; `None` when it did.
    pub fn error(&self) -> Option<&str> {
        self.header().error.as_deref()
    }

    /// What each end did over an RTT run's window; `None` for other kinds, or not counted.
    pub fn counters(&self) -> Option<&RunCounters> {
        match self {
            Log::Rtt(log) => log.counters.as_ref(),
            Log::Throughput(_) | Log::Micro(_) => None,
        }
    }

    /// Messages sent (for throughput: in the whole run; a micro-benchmark sends none).
    pub fn sent(&self) -> u64 {
        match self {
            Log::Rtt(log) => log.sent,
            Log::Throughput(log) => log.sent,
            Log::Micro(_) => 0,
        }
    }

    /// The JSON Schema of the log, pretty-printed, as committed in [`SCHEMA_FILE`]. It describes
    /// what a ping writes: a nullable field is always there, `null` when it has no value.
    pub fn json_schema() -> String {
        let schema = SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<Log>();
        let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// How and where a socket run took place, whatever it measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunContext {
    #[serde(flatten)]
    pub header: RunHeader,
    /// Every knob of the runtime and the value it ran with, defaults written out: `flavor`,
    /// `threads` and the runtime's own (tokio's `event_interval`, monoio's `ring_entries`, …)
    /// (runtime only).
    pub runtime_config: Option<serde_json::Map<String, serde_json::Value>>,
    /// The sweep's label for this line when it is a variant of `framework` run with other
    /// options (`--variant`, e.g. `tokio-ei8`); `null` for the runtime as it comes.
    pub variant: Option<String>,
    /// `tcp`, `udp` or `http`.
    pub transport: String,
    /// Payload bytes per message.
    pub payload: usize,
    /// CPU-bound decoy tasks on the same runtime (std: threads).
    pub tasks: u32,
    /// What a decoy does between yields: `spin` or `sleep` (runtime only).
    pub decoy: Option<String>,
    /// Busy work per decoy iteration, in µs (runtime only).
    pub decoy_work_us: Option<u64>,
    /// Iterations all decoys did together: proof that they ran (runtime only).
    pub decoy_iterations: Option<u64>,
    /// Measured seconds, after the warm-up.
    pub duration_s: f64,
    /// Seconds exchanged first and left out of the statistics.
    pub warmup_s: f64,
    /// The pong, `HOST:PORT`.
    pub address: String,
}

/// The log of an RTT run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RttLog {
    #[serde(flatten)]
    pub context: RunContext,
    /// Seconds between sends asked for; 0 is back-to-back.
    pub interval_s: f64,
    /// Messages per second asked for; `null` back-to-back.
    pub target_rate: Option<f64>,
    /// `schedule` or `sleep` (runtime only).
    pub pacing: Option<String>,
    /// A datagram unanswered this long is lost (runtime only).
    pub udp_timeout_ms: Option<u64>,
    /// Messages sent in the measured window.
    pub sent: u64,
    /// Replies received to them.
    pub received: u64,
    /// UDP messages unanswered within the timeout.
    pub lost: u64,
    /// Scheduled messages already due when the previous reply came in (runtime only).
    pub late: Option<u64>,
    /// UDP replies that matched no outstanding message (runtime only).
    pub out_of_order: Option<u64>,
    /// Messages sent in the measured window per second.
    pub achieved_rate: f64,
    /// The RTT distribution of the replies (actual send → echo), across all connections.
    pub rtt_ns: RttSummary,
    /// TCP connections or UDP sockets, each with its own task and sequence numbers (runtime
    /// only; logs written before it existed had 1).
    pub connections: Option<u32>,
    /// `closed` (a connection's next message waits for its echo) or `open` (each sends on
    /// schedule) (runtime only; logs written before it existed were `closed`).
    pub load: Option<String>,
    /// Open load: the most messages in flight per connection; `null` in closed load.
    pub window: Option<u32>,
    /// Open load: the latency of the replies from when each message was due (scheduled send →
    /// echo), which counts the time a message waited to be sent (coordinated omission
    /// corrected); `null` in closed load.
    pub latency_ns: Option<RttSummary>,
    /// How evenly the connections fared (runtime only).
    pub per_connection: Option<Fairness>,
    /// Over `http`: what was asked and how it was answered; `null` over tcp and udp (and in logs
    /// written before http existed).
    #[serde(default)]
    pub http: Option<HttpFacts>,
    /// What each end did over the measured window (system calls, switches, CPU time, …);
    /// `null` when counting was off (`--no-counters`) or the run never reached its window, and
    /// in logs written before counting existed.
    #[serde(default)]
    pub counters: Option<RunCounters>,
}

/// What an HTTP run's requests and responses were.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HttpFacts {
    /// The method of every request (`POST`).
    pub method: String,
    /// The path of every request (`/echo`).
    pub path: String,
    /// Bytes of each request's body (the message), and of each echo's.
    pub body_bytes: usize,
    /// Bytes of each request's head on the wire, blank line included.
    pub request_head_bytes: usize,
    /// Bytes of the largest response head on the wire, blank line included.
    pub response_head_bytes: u64,
    /// Responses by status code, warm-up included. A non-2xx response is counted here and is
    /// not a sample.
    pub statuses: std::collections::BTreeMap<String, u64>,
}

/// Per-connection counts, summarised across the connections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fairness {
    pub sent: Range,
    pub received: Range,
    pub lost: Range,
    /// Connections that received fewer than half the median received: starved by the others.
    pub starved: u32,
}

/// The least, median (nearest rank) and most of a count across connections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Range {
    pub min: u64,
    pub median: u64,
    pub max: u64,
}

/// The RTTs of a run in ns; all but `n` are `null` when nothing was received. Percentiles by
/// nearest rank on the sorted samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RttSummary {
    pub n: usize,
    pub min: Option<u64>,
    pub mean: Option<f64>,
    /// Sample standard deviation (divides by n − 1).
    pub stdev: Option<f64>,
    pub p50: Option<u64>,
    pub p90: Option<u64>,
    pub p99: Option<u64>,
    pub p999: Option<u64>,
    pub p9999: Option<u64>,
    pub max: Option<u64>,
}

impl From<Option<&RttStats>> for RttSummary {
    fn from(stats: Option<&RttStats>) -> Self {
        Self {
            n: stats.map_or(0, |s| s.n),
            min: stats.map(|s| s.min),
            mean: stats.map(|s| s.mean),
            stdev: stats.map(|s| s.stdev),
            p50: stats.map(|s| s.p50),
            p90: stats.map(|s| s.p90),
            p99: stats.map(|s| s.p99),
            p999: stats.map(|s| s.p999),
            p9999: stats.map(|s| s.p9999),
            max: stats.map(|s| s.max),
        }
    }
}

/// The log of a throughput run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThroughputLog {
    #[serde(flatten)]
    pub context: RunContext,
    /// The pong's counting window, in seconds.
    pub window_s: f64,
    /// TCP: the most bytes of whole messages per write (`--batch`); `null` for UDP.
    pub batch_bytes: Option<u64>,
    /// Measured windows: the duration's whole windows after the warm-up.
    pub windows: usize,
    /// Messages sent in the whole run.
    pub sent: u64,
    /// Bytes sent in the whole run.
    pub sent_bytes: u64,
    /// Messages received in the measured windows.
    pub received: u64,
    /// Bytes received in the measured windows.
    pub received_bytes: u64,
    /// Messages sent that never arrived; `null` when the pong's counts never came.
    pub lost: Option<u64>,
    /// UDP messages that arrived after a later one; `null` when the counts never came.
    pub out_of_order: Option<u64>,
    /// Messages per second across the measured windows.
    pub msg_per_s: Spread,
    /// Gigabits per second across the measured windows.
    pub gbit_per_s: Spread,
}

/// Mean and nearest-rank percentiles of a rate across windows; all `null` without windows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spread {
    pub mean: Option<f64>,
    pub p5: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{fs, path::Path};

    #[test]
    fn the_committed_schema_is_what_the_log_structs_generate() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(SCHEMA_FILE);
        let generated = Log::json_schema();
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            fs::write(&path, &generated).expect("writes the schema");
        }
        let committed = fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{SCHEMA_FILE} is not what the log structs in crates/rtt-core/src/log/ generate: \
             regenerate it with `UPDATE_SCHEMA=1 cargo test -p rtt-core schema` and commit it"
        );
    }

    #[test]
    fn the_schema_gives_each_kind_its_csv_header_and_nullable_fields() {
        let schema: serde_json::Value =
            serde_json::from_str(&Log::json_schema()).expect("valid JSON");
        let kinds = schema["oneOf"].as_array().expect("one schema per kind");
        let header_of = |kind: &str| {
            kinds
                .iter()
                .find(|k| k["properties"]["kind"]["const"] == kind)
                .map(|k| k["x-csv-header"].clone())
        };
        assert_eq!(header_of("rtt"), Some(RTT_CSV_HEADER.into()));
        assert_eq!(header_of("throughput"), Some(THROUGHPUT_CSV_HEADER.into()));
        // Nullable fields are always written: required, and `null` among their types.
        for (def, field) in [
            ("RttLog", "target_rate"),
            ("RttLog", "error"),
            ("RttSummary", "p50"),
            ("ThroughputLog", "lost"),
            ("ThroughputLog", "batch_bytes"),
            ("Spread", "p5"),
            ("MicroLog", "not_run"),
            ("MicroLog", "peak_rss_bytes"),
            ("MicroParams", "event_type"),
            ("MedianInterval", "low"),
        ] {
            let def = &schema["$defs"][def];
            let types = def["properties"][field]["type"].as_array();
            assert!(
                types.is_some_and(|t| t.contains(&"null".into())),
                "{field}: {def}"
            );
            let required = def["required"].as_array();
            assert!(
                required.is_some_and(|r| r.contains(&field.into())),
                "{field}: {def}"
            );
        }
    }
}
