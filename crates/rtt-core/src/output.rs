//! What a run leaves behind: `STEM.csv` (one row per reply), `STEM.json` (summary and context)
//! and the short human summary. Files are opened before measuring, so an unwritable `--out`
//! fails at once instead of after the run, and written only once the run is over.

use std::{
    fs::{self, File},
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
};

use anyhow::Context;
use serde_json::{Value, json};

use crate::{machine::Machine, recorder::Recorder, stats::RttStats};

/// The schema of the JSON log; bumped when a field changes meaning.
pub const SCHEMA: &str = "rtt-log/1";

/// What every log says about how and where a run took place, whatever its kind.
#[derive(Clone, Debug)]
pub struct RunContext {
    pub framework: &'static str,
    pub framework_version: String,
    pub flavor: String,
    pub threads: usize,
    pub transport: &'static str,
    pub payload: usize,
    pub tasks: u32,
    pub decoy: &'static str,
    pub decoy_work_us: u64,
    pub decoy_iterations: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub address: String,
    pub machine: Machine,
    pub started_at: String,
    /// Why the run did not end as planned; `None` when it did.
    pub error: Option<String>,
}

impl RunContext {
    pub fn complete(&self) -> bool {
        self.error.is_none()
    }

    /// The log's leading fields, `kind` and `extra` (the kind's own fields) in between.
    pub fn to_json(&self, kind: &str, extra: Value) -> Value {
        let mut object = json!({
            "schema": SCHEMA,
            "kind": kind,
            "framework": self.framework,
            "framework_version": self.framework_version,
            "flavor": self.flavor,
            "threads": self.threads,
            "transport": self.transport,
            "payload": self.payload,
        });
        let rest = json!({
            "tasks": self.tasks,
            "decoy": self.decoy,
            "decoy_work_us": self.decoy_work_us,
            "decoy_iterations": self.decoy_iterations,
            "duration_s": self.duration_s,
            "warmup_s": self.warmup_s,
            "address": self.address,
            "host": self.machine.host,
            "kernel": self.machine.kernel,
            "cpu_model": self.machine.cpu_model,
            "cpus_allowed": self.machine.cpus_allowed,
            "rustc": crate::build_info::RUSTC,
            "suite_version": crate::build_info::SUITE_VERSION,
            "started_at": self.started_at,
            "complete": self.complete(),
            "error": self.error,
        });
        if let (Some(map), Value::Object(extra), Value::Object(rest)) =
            (object.as_object_mut(), extra, rest)
        {
            map.extend(extra);
            map.extend(rest);
        }
        object
    }

    /// The first line of a human summary: what was measured against whom.
    pub fn headline(&self, what: &str) -> String {
        let decoys = match self.tasks {
            0 => String::new(),
            n => format!(
                ", {n} {} decoys ({} iterations)",
                self.decoy, self.decoy_iterations
            ),
        };
        format!(
            "{} {} {} B to {}: {what}{decoys}\n",
            self.framework, self.transport, self.payload, self.address
        )
    }
}

/// What a finished run has to show, whatever its kind: the ping prints and writes it.
pub trait Outcome: Send + 'static {
    fn context(&self) -> &RunContext;
    /// Messages sent: nothing to summarise for a person when none were.
    fn sent(&self) -> u64;
    fn to_json(&self) -> Value;
    /// The CSV log, header first.
    fn write_csv(&self, out: &mut dyn Write) -> io::Result<()>;
    /// A few lines for a person, in the spirit of `ping`'s summary.
    fn human(&self) -> String;
    /// Something the user should know although the run completed.
    fn warning(&self) -> Option<String> {
        None
    }
}

/// The result of an RTT run.
#[derive(Debug)]
pub struct RttReport {
    pub context: RunContext,
    pub interval_s: f64,
    pub pacing: &'static str,
    pub udp_timeout_ms: u64,
    pub sent: u64,
    pub lost: u64,
    pub late: u64,
    pub out_of_order: u64,
    pub achieved_rate: f64,
    pub stats: Option<RttStats>,
    pub recorder: Recorder,
}

/// The achieved rate may miss the target by this fraction before the ping warns.
const RATE_TOLERANCE: f64 = 0.05;

impl RttReport {
    /// Messages per second asked for; `None` when back-to-back.
    pub fn target_rate(&self) -> Option<f64> {
        (self.interval_s > 0.0).then(|| 1.0 / self.interval_s)
    }

    pub fn received(&self) -> u64 {
        self.stats.as_ref().map_or(0, |s| s.n as u64)
    }
}

impl Outcome for RttReport {
    fn context(&self) -> &RunContext {
        &self.context
    }

    fn sent(&self) -> u64 {
        self.sent
    }

    fn to_json(&self) -> Value {
        self.context.to_json(
            "rtt",
            json!({
                "interval_s": self.interval_s,
                "target_rate": self.target_rate(),
                "pacing": self.pacing,
                "udp_timeout_ms": self.udp_timeout_ms,
                "sent": self.sent,
                "received": self.received(),
                "lost": self.lost,
                "late": self.late,
                "out_of_order": self.out_of_order,
                "achieved_rate": self.achieved_rate,
                "rtt_ns": RttStats::to_json(self.stats.as_ref()),
            }),
        )
    }

    fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "seq,t_ns,rtt_ns")?;
        for s in self.recorder.samples() {
            writeln!(out, "{},{},{}", s.seq, s.t_ns, s.rtt_ns)?;
        }
        Ok(())
    }

    fn human(&self) -> String {
        let pace = match self.target_rate() {
            Some(rate) => format!("target {rate:.0} msg/s ({} pacing)", self.pacing),
            None => "back-to-back".to_owned(),
        };
        let mut text = self.context.headline(&pace);
        text += &format!(
            "  sent {}, received {}, lost {}, late {}, out of order {}\n",
            self.sent,
            self.received(),
            self.lost,
            self.late,
            self.out_of_order,
        );
        if let Some(s) = &self.stats {
            text += &format!(
                "  rtt min {}  p50 {}  p99 {}  p99.9 {}  max {}  (n = {})\n",
                human_ns(s.min),
                human_ns(s.p50),
                human_ns(s.p99),
                human_ns(s.p999),
                human_ns(s.max),
                s.n
            );
        }
        text += &format!(
            "  achieved {:.1} msg/s over {} s\n",
            self.achieved_rate, self.context.duration_s
        );
        text
    }

    fn warning(&self) -> Option<String> {
        let target = self.target_rate()?;
        let shortfall = (target - self.achieved_rate) / target;
        (shortfall.abs() > RATE_TOLERANCE && self.context.complete()).then(|| {
            format!(
                "achieved {:.1} msg/s, {:+.1} % off the target {target:.1} msg/s ({} of {} messages late)",
                self.achieved_rate, -shortfall * 100.0, self.late, self.sent
            )
        })
    }
}

/// A duration in ns with a unit a person reads at a glance: `850 ns`, `23.4 µs`, `1.20 ms`.
pub fn human_ns(ns: u64) -> String {
    match ns {
        0..1_000 => format!("{ns} ns"),
        1_000..1_000_000 => format!("{:.1} µs", ns as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.2} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", ns as f64 / 1e9),
    }
}

/// The two log files of a run, opened before it starts.
pub struct LogFiles {
    csv: (PathBuf, File),
    json: (PathBuf, File),
}

impl LogFiles {
    /// Creates `STEM.csv` and `STEM.json` (and their folder).
    pub fn create(stem: &Path) -> anyhow::Result<Self> {
        if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)
                .with_context(|| format!("creating the log folder {}", dir.display()))?;
        }
        let open = |extension: &str| -> anyhow::Result<(PathBuf, File)> {
            let path = with_extension(stem, extension);
            let file = File::create(&path)
                .with_context(|| format!("creating {} (check --out)", path.display()))?;
            Ok((path, file))
        };
        Ok(Self {
            csv: open("csv")?,
            json: open("json")?,
        })
    }

    /// Writes the run's CSV and JSON logs.
    pub fn write(self, outcome: &dyn Outcome) -> anyhow::Result<()> {
        let (csv_path, csv_file) = self.csv;
        let mut csv_out = BufWriter::with_capacity(1 << 20, csv_file);
        outcome
            .write_csv(&mut csv_out)
            .and_then(|()| csv_out.flush())
            .with_context(|| format!("writing {}", csv_path.display()))?;
        let (json_path, json_file) = self.json;
        let mut json_out = BufWriter::new(json_file);
        serde_json::to_writer_pretty(&mut json_out, &outcome.to_json())
            .map_err(io::Error::from)
            .and_then(|()| writeln!(json_out))
            .and_then(|()| json_out.flush())
            .with_context(|| format!("writing {}", json_path.display()))
    }
}

/// `stem` + `.extension`, keeping any dots already in the stem (`tokio-tcp-64B-0.001s-0t`).
fn with_extension(stem: &Path, extension: &str) -> PathBuf {
    let mut path = stem.as_os_str().to_owned();
    path.push(".");
    path.push(extension);
    PathBuf::from(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_with_dots_keep_them() {
        let path = with_extension(Path::new("logs/tokio-udp-64B-0.001s-0t"), "json");
        assert_eq!(path, PathBuf::from("logs/tokio-udp-64B-0.001s-0t.json"));
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(human_ns(850), "850 ns");
        assert_eq!(human_ns(23_456), "23.5 µs");
        assert_eq!(human_ns(1_200_000), "1.20 ms");
        assert_eq!(human_ns(2_500_000_000), "2.50 s");
    }
}
