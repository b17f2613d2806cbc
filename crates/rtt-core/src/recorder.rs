//! Keeps the samples of a run in memory while it is measured: 16 bytes a sample, in chunks of
//! 1 MiB so that growing never copies what is already stored. No I/O happens here.

use std::time::{Duration, Instant};

/// One reply: when its message was sent (since the measurement started) and its round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Send time of the message since the measurement started, in ns.
    pub t_ns: u64,
    /// Round-trip time in ns. Stored in 32 bits: an RTT above 4.29 s (possible only over TCP with
    /// a stalled peer) is kept as `u32::MAX`.
    pub rtt_ns: u32,
    /// The message's sequence number. A run would need 2³² messages to wrap it: about 12 hours
    /// back-to-back at 100 000 msg/s.
    pub seq: u32,
}

const SAMPLES_PER_CHUNK: usize = 1 << 16;

/// The samples and counters of one run's measured window (warm-up excluded).
#[derive(Debug, Default)]
pub struct Recorder {
    chunks: Vec<Vec<Sample>>,
    /// Messages sent in the measured window.
    pub sent: u64,
    /// UDP messages whose reply did not come within the timeout.
    pub lost: u64,
    /// Scheduled messages that were already due when the previous reply came in.
    pub late: u64,
    /// UDP replies that did not match the outstanding message (late, duplicated or garbled).
    pub out_of_order: u64,
    /// Start and planned end of the measured window, once the exchange has begun.
    pub window: Option<(Instant, Instant)>,
}

impl Recorder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores one reply. Allocates a new chunk every 65 536 samples, never copies old ones.
    pub fn record(&mut self, seq: u64, sent_after: Duration, rtt: Duration) {
        if self.chunks.last().is_none_or(|c| c.len() == c.capacity()) {
            self.chunks.push(Vec::with_capacity(SAMPLES_PER_CHUNK));
        }
        let sample = Sample {
            t_ns: u64::try_from(sent_after.as_nanos()).unwrap_or(u64::MAX),
            rtt_ns: u32::try_from(rtt.as_nanos()).unwrap_or(u32::MAX),
            seq: seq as u32,
        };
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.push(sample);
        }
    }

    /// Replies received in the measured window.
    pub fn received(&self) -> u64 {
        self.chunks.iter().map(|c| c.len() as u64).sum()
    }

    /// Every sample, in the order received.
    pub fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.chunks.iter().flatten()
    }

    /// The RTTs in ns, for statistics.
    pub fn rtts_ns(&self) -> Vec<u64> {
        self.samples().map(|s| u64::from(s.rtt_ns)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_takes_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Sample>(), 16);
    }

    #[test]
    fn samples_survive_growing_past_a_chunk() {
        let mut recorder = Recorder::new();
        let n = SAMPLES_PER_CHUNK as u64 * 2 + 5;
        for seq in 0..n {
            recorder.record(
                seq,
                Duration::from_nanos(seq * 10),
                Duration::from_nanos(seq + 1),
            );
        }
        assert_eq!(recorder.received(), n);
        assert_eq!(recorder.chunks.len(), 3);
        let last = recorder.samples().last().copied();
        assert_eq!(
            last,
            Some(Sample {
                t_ns: (n - 1) * 10,
                rtt_ns: n as u32,
                seq: (n - 1) as u32
            })
        );
        assert!(
            recorder
                .samples()
                .zip(0..)
                .all(|(s, seq)| u64::from(s.seq) == seq)
        );
    }

    #[test]
    fn an_rtt_beyond_32_bits_saturates() {
        let mut recorder = Recorder::new();
        recorder.record(0, Duration::ZERO, Duration::from_secs(5));
        assert_eq!(recorder.rtts_ns(), vec![u64::from(u32::MAX)]);
    }
}
