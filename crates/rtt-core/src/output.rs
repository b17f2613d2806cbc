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

/// Everything a run's JSON log says besides its samples.
#[derive(Clone, Debug)]
pub struct Report {
    pub framework: &'static str,
    pub framework_version: String,
    pub flavor: String,
    pub threads: usize,
    pub transport: &'static str,
    pub payload: usize,
    pub interval_s: f64,
    pub pacing: &'static str,
    pub tasks: u32,
    pub decoy: &'static str,
    pub decoy_work_us: u64,
    pub decoy_iterations: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub udp_timeout_ms: u64,
    pub address: String,
    pub machine: Machine,
    pub started_at: String,
    pub sent: u64,
    pub received: u64,
    pub lost: u64,
    pub late: u64,
    pub out_of_order: u64,
    pub achieved_rate: f64,
    pub error: Option<String>,
    pub stats: Option<RttStats>,
}

impl Report {
    /// Messages per second asked for; `None` when back-to-back.
    pub fn target_rate(&self) -> Option<f64> {
        (self.interval_s > 0.0).then(|| 1.0 / self.interval_s)
    }

    pub fn complete(&self) -> bool {
        self.error.is_none()
    }

    /// How far the achieved rate fell short of the target, as a fraction (0.08 = 8 % short).
    pub fn rate_shortfall(&self) -> Option<f64> {
        self.target_rate()
            .map(|target| (target - self.achieved_rate) / target)
    }

    pub fn to_json(&self) -> Value {
        json!({
            "schema": SCHEMA,
            "kind": "rtt",
            "framework": self.framework,
            "framework_version": self.framework_version,
            "flavor": self.flavor,
            "threads": self.threads,
            "transport": self.transport,
            "payload": self.payload,
            "interval_s": self.interval_s,
            "target_rate": self.target_rate(),
            "pacing": self.pacing,
            "tasks": self.tasks,
            "decoy": self.decoy,
            "decoy_work_us": self.decoy_work_us,
            "decoy_iterations": self.decoy_iterations,
            "duration_s": self.duration_s,
            "warmup_s": self.warmup_s,
            "udp_timeout_ms": self.udp_timeout_ms,
            "address": self.address,
            "host": self.machine.host,
            "kernel": self.machine.kernel,
            "cpu_model": self.machine.cpu_model,
            "cpus_allowed": self.machine.cpus_allowed,
            "rustc": crate::build_info::RUSTC,
            "suite_version": crate::build_info::SUITE_VERSION,
            "started_at": self.started_at,
            "sent": self.sent,
            "received": self.received,
            "lost": self.lost,
            "late": self.late,
            "out_of_order": self.out_of_order,
            "achieved_rate": self.achieved_rate,
            "complete": self.complete(),
            "error": self.error,
            "rtt_ns": RttStats::to_json(self.stats.as_ref()),
        })
    }

    /// A few lines for a person, in the spirit of `ping`'s summary.
    pub fn human(&self) -> String {
        let pace = match self.target_rate() {
            Some(rate) => format!("target {rate:.0} msg/s ({} pacing)", self.pacing),
            None => "back-to-back".to_owned(),
        };
        let decoys = match self.tasks {
            0 => String::new(),
            n => format!(
                ", {n} {} decoys ({} iterations)",
                self.decoy, self.decoy_iterations
            ),
        };
        let mut text = format!(
            "{} {} {} B to {}: {pace}{decoys}\n  sent {}, received {}, lost {}, late {}, out of order {}\n",
            self.framework,
            self.transport,
            self.payload,
            self.address,
            self.sent,
            self.received,
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
            self.achieved_rate, self.duration_s
        );
        text
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

    /// Writes the samples and the report.
    pub fn write(self, report: &Report, recorder: &Recorder) -> anyhow::Result<()> {
        let (csv_path, csv_file) = self.csv;
        write_csv(BufWriter::with_capacity(1 << 20, csv_file), recorder)
            .with_context(|| format!("writing {}", csv_path.display()))?;
        let (json_path, json_file) = self.json;
        let mut json_out = BufWriter::new(json_file);
        serde_json::to_writer_pretty(&mut json_out, &report.to_json())
            .map_err(io::Error::from)
            .and_then(|()| writeln!(json_out))
            .and_then(|()| json_out.flush())
            .with_context(|| format!("writing {}", json_path.display()))
    }
}

fn write_csv(mut out: impl Write, recorder: &Recorder) -> io::Result<()> {
    writeln!(out, "seq,t_ns,rtt_ns")?;
    for s in recorder.samples() {
        writeln!(out, "{},{},{}", s.seq, s.t_ns, s.rtt_ns)?;
    }
    out.flush()
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
    use std::time::Duration;

    #[test]
    fn stems_with_dots_keep_them() {
        let path = with_extension(Path::new("logs/tokio-udp-64B-0.001s-0t"), "json");
        assert_eq!(path, PathBuf::from("logs/tokio-udp-64B-0.001s-0t.json"));
    }

    #[test]
    fn csv_has_a_header_and_a_row_per_sample() {
        let mut recorder = Recorder::new();
        recorder.record(7, Duration::from_nanos(100), Duration::from_nanos(25_000));
        recorder.record(8, Duration::from_nanos(1100), Duration::from_nanos(26_000));
        let mut out = Vec::new();
        write_csv(&mut out, &recorder).expect("writes to memory");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "seq,t_ns,rtt_ns\n7,100,25000\n8,1100,26000\n"
        );
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(human_ns(850), "850 ns");
        assert_eq!(human_ns(23_456), "23.5 µs");
        assert_eq!(human_ns(1_200_000), "1.20 ms");
        assert_eq!(human_ns(2_500_000_000), "2.50 s");
    }
}
