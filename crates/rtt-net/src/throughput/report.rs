//! What a throughput run reports: its typed log (what was sent, what the pong counted in the
//! measured windows, rates across windows) and its CSV, a row per measured window.

use std::io::{self, Write};

use rtt_core::{
    log::{Log, RunContext, Spread, THROUGHPUT_CSV_HEADER, ThroughputLog},
    output::Outcome,
    stats::nearest_rank,
};

use super::counting::{Counts, WINDOW};
use crate::{lifecycle::RunSpec, wire::Protocol};

/// What the ping sent, in the whole run.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sent {
    pub messages: u64,
    pub bytes: u64,
}

/// The result of a throughput run.
#[derive(Debug)]
pub struct ThroughputReport {
    log: Log,
    /// Messages and bytes of each measured window.
    measured: Vec<(u64, u64)>,
}

impl ThroughputReport {
    /// Summarises a run described by `context`, sent in `batch`es (`--batch`): `counts` are the
    /// pong's, if they came.
    pub(super) fn new(
        context: RunContext,
        run: &RunSpec,
        batch: u64,
        sent: Sent,
        counts: Option<Counts>,
    ) -> Self {
        // The measured windows: after the warm-up, as many whole windows as the duration holds.
        let first = (run.warmup_s / WINDOW.as_secs_f64()).round() as usize;
        let count = (run.duration_s / WINDOW.as_secs_f64()).floor() as usize;
        let measured: Vec<(u64, u64)> = counts
            .as_ref()
            .map(|c| {
                (first..first + count)
                    .map(|i| c.windows.get(i).copied().unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default();
        let size = run.payload as u64;
        let per_second = 1.0 / WINDOW.as_secs_f64();
        let log = Log::Throughput(ThroughputLog {
            context,
            window_s: WINDOW.as_secs_f64(),
            batch_bytes: (run.transport == Protocol::Tcp).then(|| batch.max(size) / size * size),
            windows: measured.len(),
            sent: sent.messages,
            sent_bytes: sent.bytes,
            received: measured.iter().map(|w| w.0).sum(),
            received_bytes: measured.iter().map(|w| w.1).sum(),
            lost: counts
                .as_ref()
                .map(|c| sent.messages.saturating_sub(c.messages)),
            out_of_order: counts.as_ref().map(|c| c.out_of_order),
            msg_per_s: spread(measured.iter().map(|w| w.0), per_second),
            gbit_per_s: spread(measured.iter().map(|w| w.1), per_second * 8.0 / 1e9),
        });
        Self { log, measured }
    }
}

impl Outcome for ThroughputReport {
    fn log(&self) -> &Log {
        &self.log
    }

    fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{THROUGHPUT_CSV_HEADER}")?;
        for (i, (messages, bytes)) in self.measured.iter().enumerate() {
            writeln!(
                out,
                "{i},{},{messages},{bytes}",
                i as u128 * WINDOW.as_nanos()
            )?;
        }
        Ok(())
    }
}

/// Mean and percentiles (nearest rank) of a rate across the measured windows, each window's
/// count times `scale`.
fn spread(per_window: impl Iterator<Item = u64>, scale: f64) -> Spread {
    let mut values: Vec<u64> = per_window.collect();
    values.sort_unstable();
    let any = !values.is_empty();
    let mean = values.iter().sum::<u64>() as f64 / values.len() as f64;
    let at = |p| any.then(|| nearest_rank(&values, p) as f64 * scale);
    Spread {
        mean: any.then_some(mean * scale),
        p5: at(5.0),
        p50: at(50.0),
        p95: at(95.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_spread_over_windows() {
        let spread = spread([30u64, 10, 20, 40].into_iter(), 10.0);
        assert_eq!(spread.p50, Some(200.0));
        assert_eq!(spread.p95, Some(400.0));
        assert_eq!(spread.mean, Some(250.0));
    }

    #[test]
    fn no_windows_spread_to_nulls() {
        let spread = spread(std::iter::empty(), 10.0);
        assert_eq!(
            (spread.mean, spread.p5, spread.p50, spread.p95),
            (None, None, None, None)
        );
    }
}
