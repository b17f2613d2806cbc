//! What an RTT run reports: its typed log (counts, achieved rate, RTT statistics, how the
//! connections fared) and its CSV, a row per reply received in the measured window.

use std::{
    io::{self, Write},
    time::Instant,
};

use rtt_core::{
    log::{Fairness, HttpFacts, Log, RTT_CSV_HEADER, Range, RttLog, RttSummary, RunContext},
    output::Outcome,
    stats::{RttStats, nearest_rank},
};

use super::spec::RttSpec;
use crate::recorder::Recorder;

/// The result of an RTT run.
#[derive(Debug)]
pub struct RttReport {
    log: Log,
    /// One per connection, in order.
    recorders: Vec<Recorder>,
}

impl RttReport {
    /// Summarises what the connections' `recorders` kept of a run described by `context`: the
    /// totals are their sums, the percentiles those of all their samples together (exact).
    pub fn new(
        context: RunContext,
        spec: &RttSpec,
        recorders: Vec<Recorder>,
        http: Option<HttpFacts>,
    ) -> Self {
        let mut total = Recorder::new();
        recorders.iter().for_each(|r| total.add_counts(r));
        let measured_for = recorders
            .iter()
            .find_map(|r| r.window)
            .map(|(start, end)| Instant::now().clamp(start, end) - start)
            .unwrap_or_default();
        let achieved_rate = if measured_for.is_zero() {
            0.0
        } else {
            total.sent as f64 / measured_for.as_secs_f64()
        };
        let interval_s = spec.schedule.interval.as_secs_f64();
        let mut rtts: Vec<u64> = recorders.iter().flat_map(Recorder::rtts_ns).collect();
        let stats = RttStats::from_samples(&mut rtts);
        let latency = spec.window.map(|_| {
            let mut latencies: Vec<u64> =
                recorders.iter().flat_map(Recorder::latencies_ns).collect();
            RttStats::from_samples(&mut latencies)
        });
        let log = Log::Rtt(Box::new(RttLog {
            context,
            interval_s,
            target_rate: (interval_s > 0.0).then(|| 1.0 / interval_s),
            pacing: Some(spec.schedule.mode.as_str().to_owned()),
            udp_timeout_ms: Some(spec.udp_timeout.as_millis() as u64),
            sent: total.sent,
            received: stats.as_ref().map_or(0, |s| s.n as u64),
            lost: total.lost,
            late: Some(total.late),
            out_of_order: Some(total.out_of_order),
            achieved_rate,
            rtt_ns: RttSummary::from(stats.as_ref()),
            connections: Some(spec.connections),
            load: Some(spec.load().as_str().to_owned()),
            window: spec.window,
            latency_ns: latency.map(|stats| RttSummary::from(stats.as_ref())),
            per_connection: Some(fairness(&recorders)),
            http,
        }));
        Self { log, recorders }
    }
}

/// The spread of the connections' counts, and how many starved.
fn fairness(recorders: &[Recorder]) -> Fairness {
    let received: Vec<u64> = recorders.iter().map(Recorder::received).collect();
    let received = range_of(received);
    let starved = recorders
        .iter()
        .filter(|r| r.received() * 2 < received.median)
        .count();
    Fairness {
        sent: range_of(recorders.iter().map(|r| r.sent).collect()),
        received,
        lost: range_of(recorders.iter().map(|r| r.lost).collect()),
        starved: starved as u32,
    }
}

/// The range of counts, one per connection (all 0 without any).
fn range_of(mut counts: Vec<u64>) -> Range {
    counts.sort_unstable();
    match (counts.first(), counts.last()) {
        (Some(&min), Some(&max)) => Range {
            min,
            median: nearest_rank(&counts, 50.0),
            max,
        },
        _ => Range {
            min: 0,
            median: 0,
            max: 0,
        },
    }
}

impl Outcome for RttReport {
    fn log(&self) -> &Log {
        &self.log
    }

    fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{RTT_CSV_HEADER}")?;
        for (conn, recorder) in self.recorders.iter().enumerate() {
            for (s, latency) in recorder.samples() {
                write!(out, "{},{},{},{conn},", s.seq, s.t_ns, s.rtt_ns)?;
                match latency {
                    Some(latency) => writeln!(out, "{latency}")?,
                    None => writeln!(out)?,
                }
            }
        }
        Ok(())
    }
}
