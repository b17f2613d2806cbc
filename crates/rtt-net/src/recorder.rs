//! Keeps the samples of one connection in memory while it is measured: 16 bytes a sample (24 in
//! open load, with the latency from the due time), in chunks that start small and grow to 1 MiB,
//! so that a thousand connections cost little and growing never copies what is stored. No I/O.

use std::time::{Duration, Instant};

use crate::http::client::Tally;

/// One reply: when its message was sent (since the measurement started) and its round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Send time of the message since the measurement started, in ns.
    pub t_ns: u64,
    /// Round-trip time in ns. Stored in 32 bits: an RTT above 4.29 s (possible only over TCP with
    /// a stalled peer) is kept as `u32::MAX`.
    pub rtt_ns: u32,
    /// The message's sequence number on its connection. A connection would need 2³² messages to
    /// wrap it: about 12 hours back-to-back at 100 000 msg/s.
    pub seq: u32,
}

/// The first chunk's length; each next one doubles, up to [`MAX_CHUNK`].
const FIRST_CHUNK: usize = 1 << 10;
const MAX_CHUNK: usize = 1 << 16;

/// Values in chunks that are never reallocated: a full chunk is followed by a new one.
#[derive(Debug)]
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Self { chunks: Vec::new() }
    }
}

impl<T> Chunked<T> {
    fn push(&mut self, value: T) {
        let capacity = match self.chunks.last() {
            None => FIRST_CHUNK,
            Some(last) if last.len() == last.capacity() => (last.capacity() * 2).min(MAX_CHUNK),
            Some(_) => 0,
        };
        if capacity > 0 {
            self.chunks.push(Vec::with_capacity(capacity));
        }
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.push(value);
        }
    }

    fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

/// The samples and counters of one connection's measured window (warm-up excluded).
#[derive(Debug, Default)]
pub struct Recorder {
    samples: Chunked<Sample>,
    /// Open load: each sample's latency from when its message was due, in ns.
    latencies: Chunked<u64>,
    /// Messages sent in the measured window.
    pub sent: u64,
    /// UDP messages whose reply did not come within the timeout.
    pub lost: u64,
    /// Scheduled messages sent after their due time: already due when the previous reply came
    /// in (closed load), or held back by the window (open load).
    pub late: u64,
    /// UDP replies that did not match the outstanding message (late, duplicated or garbled).
    pub out_of_order: u64,
    /// Start and planned end of the measured window, once the exchange has begun.
    pub window: Option<(Instant, Instant)>,
    /// Over http: the responses by status, warm-up included.
    pub http: Tally,
}

impl Recorder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores one reply.
    pub fn record(&mut self, seq: u64, sent_after: Duration, rtt: Duration) {
        self.samples.push(Sample {
            t_ns: u64::try_from(sent_after.as_nanos()).unwrap_or(u64::MAX),
            rtt_ns: u32::try_from(rtt.as_nanos()).unwrap_or(u32::MAX),
            seq: seq as u32,
        });
    }

    /// Stores one reply of open load, with its latency from when it was due.
    pub fn record_with_latency(
        &mut self,
        seq: u64,
        sent_after: Duration,
        rtt: Duration,
        latency: Duration,
    ) {
        self.record(seq, sent_after, rtt);
        self.latencies
            .push(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Replies received in the measured window.
    pub fn received(&self) -> u64 {
        self.samples.len() as u64
    }

    /// Every sample, in the order received, with its latency in open load.
    pub fn samples(&self) -> impl Iterator<Item = (&Sample, Option<u64>)> {
        let mut latencies = self.latencies.iter();
        self.samples
            .iter()
            .map(move |sample| (sample, latencies.next().copied()))
    }

    /// The RTTs in ns, for statistics.
    pub fn rtts_ns(&self) -> impl Iterator<Item = u64> {
        self.samples.iter().map(|s| u64::from(s.rtt_ns))
    }

    /// The latencies from the due time in ns (open load; none in closed load).
    pub fn latencies_ns(&self) -> impl Iterator<Item = u64> {
        self.latencies.iter().copied()
    }

    /// Adds another recorder's counters to this one's (a connection's sender to its receiver).
    pub fn add_counts(&mut self, other: &Recorder) {
        self.sent += other.sent;
        self.lost += other.lost;
        self.late += other.late;
        self.out_of_order += other.out_of_order;
        self.http.add(&other.http);
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
    fn samples_survive_growing_past_many_chunks() {
        let mut recorder = Recorder::new();
        let n = MAX_CHUNK as u64 * 2 + 5;
        for seq in 0..n {
            recorder.record(
                seq,
                Duration::from_nanos(seq * 10),
                Duration::from_nanos(seq + 1),
            );
        }
        assert_eq!(recorder.received(), n);
        let capacities: Vec<_> = recorder.samples.chunks.iter().map(Vec::capacity).collect();
        assert_eq!(capacities[0], FIRST_CHUNK);
        assert!(
            capacities
                .windows(2)
                .all(|w| w[1] == (w[0] * 2).min(MAX_CHUNK))
        );
        let last = recorder.samples().last().map(|(s, _)| *s);
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
                .all(|((s, latency), seq)| u64::from(s.seq) == seq && latency.is_none())
        );
    }

    #[test]
    fn open_load_keeps_a_latency_beside_each_sample() {
        let mut recorder = Recorder::new();
        for seq in 0..3 {
            let ms = Duration::from_millis(seq);
            recorder.record_with_latency(seq, ms, ms, 2 * ms);
        }
        let latencies: Vec<_> = recorder.samples().map(|(_, l)| l).collect();
        assert_eq!(latencies, [Some(0), Some(2_000_000), Some(4_000_000)]);
    }

    #[test]
    fn an_rtt_beyond_32_bits_saturates() {
        let mut recorder = Recorder::new();
        recorder.record(0, Duration::ZERO, Duration::from_secs(5));
        assert_eq!(
            recorder.rtts_ns().collect::<Vec<_>>(),
            vec![u64::from(u32::MAX)]
        );
    }
}
