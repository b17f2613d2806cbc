//! What an RTT run reports: its typed log (counts, achieved rate, RTT statistics) and its CSV,
//! a row per reply received in the measured window.

use std::{
    io::{self, Write},
    time::Instant,
};

use crate::{
    log::{Log, RTT_CSV_HEADER, RttLog, RttSummary, RunContext},
    options::PingOptions,
    output::Outcome,
    recorder::Recorder,
    stats::RttStats,
};

/// The result of an RTT run.
#[derive(Debug)]
pub struct RttReport {
    log: Log,
    recorder: Recorder,
}

impl RttReport {
    /// Summarises what `recorder` kept of a run described by `context`.
    pub fn new(context: RunContext, options: &PingOptions, recorder: Recorder) -> Self {
        let measured_for = recorder
            .window
            .map(|(start, end)| Instant::now().clamp(start, end) - start)
            .unwrap_or_default();
        let achieved_rate = if measured_for.is_zero() {
            0.0
        } else {
            recorder.sent as f64 / measured_for.as_secs_f64()
        };
        let interval_s = options.interval().as_secs_f64();
        let stats = RttStats::from_samples(&mut recorder.rtts_ns());
        let log = Log::Rtt(RttLog {
            context,
            interval_s,
            target_rate: (interval_s > 0.0).then(|| 1.0 / interval_s),
            pacing: Some(options.pacing.as_str().to_owned()),
            udp_timeout_ms: Some(options.udp_timeout_ms),
            sent: recorder.sent,
            received: stats.as_ref().map_or(0, |s| s.n as u64),
            lost: recorder.lost,
            late: Some(recorder.late),
            out_of_order: Some(recorder.out_of_order),
            achieved_rate,
            rtt_ns: RttSummary::from(stats.as_ref()),
        });
        Self { log, recorder }
    }
}

impl Outcome for RttReport {
    fn log(&self) -> &Log {
        &self.log
    }

    fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{RTT_CSV_HEADER}")?;
        for s in self.recorder.samples() {
            writeln!(out, "{},{},{}", s.seq, s.t_ns, s.rtt_ns)?;
        }
        Ok(())
    }
}
