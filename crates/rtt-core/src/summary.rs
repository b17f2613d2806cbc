//! The few lines a person reads after a run, in the spirit of `ping`'s summary, and the warning
//! of a run off its rate, either way: built from the typed log alone, so they say what the log
//! says.

use crate::log::{Log, MicroLog, Range, RttLog, RttSummary, RunContext, ThroughputLog};

/// The achieved rate may miss the target by this fraction before the ping warns.
const RATE_TOLERANCE: f64 = 0.05;

impl Log {
    /// The human summary of the run.
    pub fn human(&self) -> String {
        match self {
            Log::Rtt(log) => log.human(),
            Log::Throughput(log) => log.human(),
            Log::Micro(log) => log.human(),
        }
    }

    /// Something the user should know although the run completed.
    pub fn warning(&self) -> Option<String> {
        match self {
            Log::Rtt(log) => log.warning(),
            Log::Throughput(_) | Log::Micro(_) => None,
        }
    }
}

impl RunContext {
    /// The first line of a human summary: what was measured against whom.
    pub fn headline(&self, what: &str) -> String {
        let decoys = match self.tasks {
            0 => String::new(),
            n => format!(
                ", {n} {} decoys ({} iterations)",
                shown(&self.decoy),
                shown(&self.decoy_iterations)
            ),
        };
        format!(
            "{} {} {} B to {}: {what}{decoys}\n",
            self.header.framework, self.transport, self.payload, self.address
        )
    }
}

impl RttLog {
    fn human(&self) -> String {
        let mut pace = match self.target_rate {
            Some(rate) => format!("target {rate:.0} msg/s ({} pacing)", shown(&self.pacing)),
            None => "back-to-back".to_owned(),
        };
        if let Some(n @ 2..) = self.connections {
            pace += &format!(" over {n} connections");
        }
        if let Some(window) = self.window {
            pace += &format!(", open load (window {window})");
        }
        let mut text = self.context.headline(&pace);
        text += &format!(
            "  sent {}, received {}, lost {}, late {}, out of order {}\n",
            self.sent,
            self.received,
            self.lost,
            shown(&self.late),
            shown(&self.out_of_order),
        );
        text += &distribution("rtt", &self.rtt_ns);
        if let Some(latency) = &self.latency_ns {
            text += &distribution("latency from due time", latency);
        }
        if let (Some(n @ 2..), Some(f)) = (self.connections, &self.per_connection) {
            let range = |r: &Range| format!("{}/{}/{}", r.min, r.median, r.max);
            text += &format!(
                "  per connection (min/median/max of {n}): sent {}, received {}, lost {}\n",
                range(&f.sent),
                range(&f.received),
                range(&f.lost)
            );
            if f.starved > 0 {
                text += &format!(
                    "  {} of {n} connections starved (received under half the median)\n",
                    f.starved
                );
            }
        }
        text += &format!(
            "  achieved {:.1} msg/s over {} s\n",
            self.achieved_rate, self.context.duration_s
        );
        text
    }

    fn warning(&self) -> Option<String> {
        let target = self.target_rate?;
        self.context
            .header
            .complete
            .then(|| rate_warning(self.achieved_rate, target, &self.late, self.sent))
            .flatten()
    }
}

/// A run's achieved rate more than [`RATE_TOLERANCE`] off its `target`, either way, and which:
/// below, the pong or the ping could not keep up (how many sends were late says which); above,
/// the window held more sends than its length at the target (a window of a few intervals can
/// catch one more at its edge).
fn rate_warning(achieved: f64, target: f64, late: &Option<u64>, sent: u64) -> Option<String> {
    let off = (achieved - target) / target;
    if off.abs() <= RATE_TOLERANCE {
        return None;
    }
    let side = if off > 0.0 { "above" } else { "below" };
    let mut text = format!(
        "achieved {achieved:.1} msg/s, {:.1} % {side} the target {target:.1} msg/s",
        off.abs() * 100.0
    );
    if off < 0.0 {
        text += &format!(" ({} of {sent} messages late)", shown(late));
    }
    Some(text)
}

impl ThroughputLog {
    fn human(&self) -> String {
        let mut text = self.context.headline("throughput");
        text += &format!(
            "  sent {} messages ({:.1} MB), lost {}\n",
            self.sent,
            self.sent_bytes as f64 / 1e6,
            self.lost.map_or("unknown".to_owned(), |l| l.to_string())
        );
        let windows = self.windows;
        let window_ms = (self.window_s * 1e3).round();
        for (spread, unit, scale) in [
            (&self.msg_per_s, "M msg/s", 1e6),
            (&self.gbit_per_s, "Gb/s", 1.0),
        ] {
            if let (Some(p50), Some(p5), Some(p95)) = (spread.p50, spread.p5, spread.p95) {
                let (p50, p5, p95) = (p50 / scale, p5 / scale, p95 / scale);
                text += &format!(
                    "  p50 {p50:.3} {unit}  (p5 {p5:.3}, p95 {p95:.3}; {windows} windows of {window_ms} ms)\n"
                );
            }
        }
        text
    }
}

impl MicroLog {
    /// One line: what ran, and the median time per operation with its interval and rate.
    fn human(&self) -> String {
        let what = format!(
            "{} {} ({}; {}, {} threads): {} ops",
            self.header.framework,
            self.bench,
            self.primitive,
            shown(&self.header.flavor),
            shown(&self.header.threads),
            self.ops
        );
        if let Some(reason) = &self.not_run {
            return format!("{what}, not run: {reason}\n");
        }
        let (m, r) = (&self.ns_per_op, &self.ops_per_s);
        let Some(per_op) = m.median else {
            return format!("{what}, no repeat finished\n");
        };
        let interval = match (m.low, m.high) {
            (Some(low), Some(high)) => format!(" (95 % CI {low:.1} to {high:.1})"),
            _ => String::new(),
        };
        let rate = r
            .median
            .map_or(String::new(), |rate| format!(", {:.3} M ops/s", rate / 1e6));
        let rss = self.peak_rss_bytes.map_or(String::new(), |b| {
            format!(", peak RSS {:.1} MB", b as f64 / 1e6)
        });
        format!(
            "{what}, median of {} repeats {per_op:.1} ns/op{interval}{rate}{rss}\n",
            self.times_ns.len()
        )
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

/// One line of a latency distribution, e.g. `  rtt min 50.1 µs  p50 …  (n = 9999)`.
fn distribution(what: &str, s: &RttSummary) -> String {
    match (s.min, s.p50, s.p99, s.p999, s.max) {
        (Some(min), Some(p50), Some(p99), Some(p999), Some(max)) => format!(
            "  {what} min {}  p50 {}  p99 {}  p99.9 {}  max {}  (n = {})\n",
            human_ns(min),
            human_ns(p50),
            human_ns(p99),
            human_ns(p999),
            human_ns(max),
            s.n
        ),
        _ => String::new(),
    }
}

/// A field a reference baseline leaves `null`, as a person reads it.
fn shown<T: std::fmt::Display>(value: &Option<T>) -> String {
    value.as_ref().map_or_else(|| "–".to_owned(), T::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_off_its_target_either_way_is_flagged_saying_which_way() {
        let above = rate_warning(1968.0, 10.0, &Some(0), 1).expect("flagged");
        assert_eq!(
            above,
            "achieved 1968.0 msg/s, 19580.0 % above the target 10.0 msg/s"
        );
        let below = rate_warning(90.0, 100.0, &Some(7), 90).expect("flagged");
        assert_eq!(
            below,
            "achieved 90.0 msg/s, 10.0 % below the target 100.0 msg/s (7 of 90 messages late)"
        );
    }

    #[test]
    fn a_rate_within_five_percent_either_way_is_not_flagged() {
        for achieved in [95.5, 100.0, 104.5] {
            assert_eq!(
                rate_warning(achieved, 100.0, &Some(0), 100),
                None,
                "{achieved}"
            );
        }
        assert!(rate_warning(105.5, 100.0, &None, 105).is_some());
        assert!(rate_warning(94.5, 100.0, &None, 94).is_some());
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(human_ns(850), "850 ns");
        assert_eq!(human_ns(23_456), "23.5 µs");
        assert_eq!(human_ns(1_200_000), "1.20 ms");
        assert_eq!(human_ns(2_500_000_000), "2.50 s");
    }
}
