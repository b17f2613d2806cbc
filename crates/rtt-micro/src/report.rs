//! What a micro run leaves behind: its [`MicroLog`], built from the finished repeats, written to
//! `STEM.json` (`--out`), printed as JSON (`--json`), or else as one human line. The statistics come from `stats`.

use std::{path::Path, process::ExitCode, time::SystemTime};

use rtt_core::{
    build_info,
    log::{Log, MedianInterval, MicroLog, RunHeader, SCHEMA},
    machine::{self, Machine},
    output::JsonFile,
    stats,
};

use crate::spec::MicroSpec;

/// Everything needed to report a run, filled in as its repeats finish.
pub struct Report {
    name: &'static str,
    file: Option<JsonFile>,
    json: bool,
    log: MicroLog,
}

impl Report {
    /// Opens `--out STEM.json` (before the run: an unwritable path fails at once) and describes
    /// the run; `primitive` is what the benchmark measures.
    pub fn begin(
        name: &'static str,
        out: Option<&Path>,
        json: bool,
        spec: &MicroSpec,
        framework: (&str, String),
        primitive: &str,
    ) -> anyhow::Result<Self> {
        let file = out.map(JsonFile::create).transpose()?;
        let header = RunHeader {
            schema: SCHEMA.to_owned(),
            framework: framework.0.to_owned(),
            framework_version: framework.1,
            flavor: Some(String::new()),
            threads: Some(0),
            machine: Machine::read(),
            rustc: Some(build_info::RUSTC.to_owned()),
            suite_version: build_info::suite_version().to_owned(),
            started_at: machine::rfc3339(SystemTime::now()),
            complete: false,
            error: None,
        };
        let log = MicroLog {
            header,
            bench: spec.bench.as_str().to_owned(),
            primitive: primitive.to_owned(),
            params: spec.params.clone(),
            ops: spec.ops,
            repeat: spec.repeat,
            warmup: 1,
            times_ns: Vec::new(),
            ns_per_op: MedianInterval::default(),
            ops_per_s: MedianInterval::default(),
            peak_rss_bytes: None,
            not_run: spec.not_run.clone(),
        };
        Ok(Self {
            name,
            file,
            json,
            log,
        })
    }

    /// How the runtime really ran.
    pub fn runtime(&mut self, flavor: &str, threads: usize) {
        self.log.header.flavor = Some(flavor.to_owned());
        self.log.header.threads = Some(threads);
    }

    /// A timed repeat finished in `ns`.
    pub fn repeat(&mut self, ns: u64) {
        self.log.times_ns.push(ns);
    }

    /// The run stopped early; the repeats finished so far are kept.
    pub fn fail(&mut self, error: String) {
        self.log.header.error.get_or_insert(error);
    }

    pub fn finished_repeats(&self) -> usize {
        self.log.times_ns.len()
    }

    /// Computes the figures, writes and prints the log; the exit code says whether the run
    /// completed.
    pub fn finish(mut self) -> anyhow::Result<ExitCode> {
        let log = &mut self.log;
        let (per_op, rate) = figures(&log.times_ns, log.ops);
        (log.ns_per_op, log.ops_per_s) = (per_op, rate);
        log.peak_rss_bytes = machine::peak_rss_bytes();
        let all_ran = log.times_ns.len() == log.repeat as usize || log.not_run.is_some();
        let header = &mut log.header;
        if header.error.is_none() && !all_ran {
            header.error = Some("the run ended before its repeats".to_owned());
        }
        header.complete = header.error.is_none();
        let log = Log::Micro(self.log);
        let quiet = self.file.is_some();
        if let Some(file) = self.file {
            file.write(&log)?;
        }
        if self.json {
            println!("{}", serde_json::to_string_pretty(&log)?);
        } else if !quiet {
            print!("{}", log.human());
        }
        Ok(match log.error() {
            Some(error) => {
                eprintln!(
                    "{}: error: {error} (the finished repeats are kept)",
                    self.name
                );
                ExitCode::FAILURE
            }
            None => ExitCode::SUCCESS,
        })
    }
}

/// ns per operation and operations per second: the median of the repeats and its 95 % interval
/// (`stats::median_interval`). Both are monotone in the time, so their order statistics are the
/// times' own: the slowest repeat gives the lowest rate.
pub fn figures(times_ns: &[u64], ops: u64) -> (MedianInterval, MedianInterval) {
    let mut sorted = times_ns.to_vec();
    sorted.sort_unstable();
    if sorted.is_empty() || ops == 0 {
        return (MedianInterval::default(), MedianInterval::default());
    }
    let (median, interval) = stats::median_interval(&sorted);
    let ops = ops as f64;
    let per_op = |ns: u64| ns as f64 / ops;
    let rate = |ns: u64| ops * 1e9 / ns as f64;
    (
        MedianInterval {
            median: Some(per_op(median)),
            low: interval.map(|(low, _)| per_op(low)),
            high: interval.map(|(_, high)| per_op(high)),
        },
        MedianInterval {
            median: Some(rate(median)),
            low: interval.map(|(_, high)| rate(high)),
            high: interval.map(|(low, _)| rate(low)),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_the_inverse_of_times_with_the_interval_swapped() {
        let times: Vec<u64> = (1..=10).rev().map(|x| x * 1_000).collect();
        let (per_op, rate) = figures(&times, 10);
        assert_eq!(per_op.median, Some(500.0));
        assert_eq!((per_op.low, per_op.high), (Some(200.0), Some(900.0)));
        assert_eq!(rate.median, Some(2e6));
        assert_eq!(rate.low, Some(10.0 * 1e9 / 9_000.0));
        assert_eq!(rate.high, Some(10.0 * 1e9 / 2_000.0));
        let (few, _) = figures(&[3, 1, 2], 1);
        assert_eq!((few.median, few.low, few.high), (Some(2.0), None, None));
        assert_eq!(figures(&[], 1).0, MedianInterval::default());
    }
}
