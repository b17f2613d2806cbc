//! What an RTT run reports: its typed log (counts, achieved rate, RTT statistics, how the
//! connections fared) and its CSV, a row per reply received in the measured window.

use std::{
    io::{self, Write},
    time::{Duration, Instant},
};

use rtt_core::{
    log::{
        Fairness, HttpFacts, Log, RTT_CSV_HEADER, Range, RttLog, RttSummary, RunContext,
        RunCounters,
    },
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
        counters: Option<RunCounters>,
    ) -> Self {
        let mut total = Recorder::new();
        recorders.iter().for_each(|r| total.add_counts(r));
        let measured_for = recorders
            .iter()
            .find_map(|r| r.window)
            .map(|window| measured_for(window, Instant::now(), context.header.complete))
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
            counters,
        }));
        Self { log, recorders }
    }
}

/// The time a run's sends are counted over, its measured `window` (start, end): the whole window
/// when the run completed it, since a paced ping has sent its last message a while before the
/// window ends (at 10 msg/s in a 0.1 s window, one message, at its start), and reports then;
/// until `now` for a run that ended early, on an error, so it keeps the rate it really held.
fn measured_for((start, end): (Instant, Instant), now: Instant, completed: bool) -> Duration {
    match completed {
        true => end - start,
        false => now.clamp(start, end) - start,
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
    let at = |p| match counts.is_empty() {
        true => 0,
        false => nearest_rank(&counts, p),
    };
    Range {
        min: at(0.0),
        median: at(50.0),
        max: at(100.0),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completed_run_is_measured_over_its_whole_window() {
        let start = Instant::now();
        let window = (start, start + Duration::from_millis(100));
        // A ping at 10 msg/s sends its one message at the window's start and reports at once.
        let reported = start + Duration::from_micros(500);
        assert_eq!(
            measured_for(window, reported, true),
            Duration::from_millis(100)
        );
        let late = start + Duration::from_millis(130);
        assert_eq!(measured_for(window, late, true), Duration::from_millis(100));
    }

    #[test]
    fn a_run_ended_early_keeps_the_time_it_measured() {
        let start = Instant::now();
        let window = (start, start + Duration::from_secs(5));
        let failed = start + Duration::from_millis(700);
        assert_eq!(
            measured_for(window, failed, false),
            Duration::from_millis(700)
        );
        assert_eq!(measured_for(window, start, false), Duration::ZERO);
        let past = start + Duration::from_secs(9);
        assert_eq!(measured_for(window, past, false), Duration::from_secs(5));
    }
}
