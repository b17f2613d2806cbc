//! Receiver accounting of a throughput session: messages and bytes per window ([`Counts`], as
//! sent back to the sender), arrivals into windows ([`Tally`]) and TCP message boundaries
//! ([`StreamSplitter`]). Pure bookkeeping, no I/O.

use std::time::{Duration, Instant};

use anyhow::bail;

use super::control::COUNTS;
use crate::wire::SEQ_LEN;

/// The receiving side's counting window.
pub const WINDOW: Duration = Duration::from_millis(100);

/// What the receiving side counted in one session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub messages: u64,
    pub bytes: u64,
    /// UDP messages whose sequence number was below one already seen (reordered or duplicated).
    pub out_of_order: u64,
    /// Messages and bytes received in each window since the session began.
    pub windows: Vec<(u64, u64)>,
}

impl Counts {
    pub(super) fn add(&mut self, window: usize, messages: u64, bytes: u64) {
        if self.windows.len() <= window {
            self.windows.resize(window + 1, (0, 0));
        }
        self.windows[window].0 += messages;
        self.windows[window].1 += bytes;
        self.messages += messages;
        self.bytes += bytes;
    }

    /// `COUNTS`, then messages, bytes, out_of_order, window count and the windows, all u64 LE.
    pub fn encode(&self) -> Vec<u8> {
        let header = [
            self.messages,
            self.bytes,
            self.out_of_order,
            self.windows.len() as u64,
        ];
        let numbers = header
            .into_iter()
            .chain(self.windows.iter().flat_map(|&(m, b)| [m, b]));
        COUNTS
            .into_iter()
            .chain(numbers.flat_map(u64::to_le_bytes))
            .collect()
    }

    pub fn decode(data: &[u8]) -> Option<Self> {
        let body = data.strip_prefix(&COUNTS)?;
        let mut numbers = body
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()));
        let (messages, bytes, out_of_order, n) = (
            numbers.next()?,
            numbers.next()?,
            numbers.next()?,
            numbers.next()?,
        );
        let flat: Vec<u64> = numbers.collect();
        if body.len() % 8 != 0 || flat.len() as u64 != 2 * n {
            return None;
        }
        let windows = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        Some(Self {
            messages,
            bytes,
            out_of_order,
            windows,
        })
    }
}

/// Counts arrivals into windows measured from the start of the session.
pub(super) struct Tally {
    began: Instant,
    pub(super) counts: Counts,
}

impl Tally {
    pub(super) fn new(began: Instant) -> Self {
        Self {
            began,
            counts: Counts::default(),
        }
    }

    pub(super) fn add(&mut self, at: Instant, messages: u64, bytes: u64) {
        let window =
            (at.saturating_duration_since(self.began).as_nanos() / WINDOW.as_nanos()) as usize;
        self.counts.add(window, messages, bytes);
    }
}

/// Finds message boundaries in a TCP byte stream and checks that sequence numbers run 0, 1, 2…
#[derive(Debug)]
pub(super) struct StreamSplitter {
    size: usize,
    /// Bytes of the current message seen so far.
    offset: usize,
    seq_bytes: [u8; SEQ_LEN],
    next_seq: u64,
}

impl StreamSplitter {
    pub(super) fn new(size: usize) -> Self {
        Self {
            size,
            offset: 0,
            seq_bytes: [0; SEQ_LEN],
            next_seq: 0,
        }
    }

    /// Consumes a chunk of the stream; returns how many messages it completed.
    pub(super) fn feed(&mut self, mut chunk: &[u8]) -> anyhow::Result<u64> {
        let mut completed = 0;
        while !chunk.is_empty() {
            let take = if self.offset < SEQ_LEN {
                let take = (SEQ_LEN - self.offset).min(chunk.len());
                self.seq_bytes[self.offset..self.offset + take].copy_from_slice(&chunk[..take]);
                if self.offset + take == SEQ_LEN {
                    let seq = u64::from_le_bytes(self.seq_bytes);
                    if seq != self.next_seq {
                        bail!(
                            "message {} arrived as sequence {seq}: message boundaries were lost",
                            self.next_seq
                        );
                    }
                    self.next_seq += 1;
                }
                take
            } else {
                (self.size - self.offset).min(chunk.len())
            };
            self.offset += take;
            chunk = &chunk[take..];
            if self.offset == self.size {
                completed += 1;
                self.offset = 0;
            }
        }
        Ok(completed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire;

    fn stream(size: usize, count: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        for seq in 0..count {
            let mut message = wire::message(size);
            wire::write_seq(&mut message, seq);
            bytes.extend(message);
        }
        bytes
    }

    #[test]
    fn framing_finds_every_message_whatever_the_chunking() {
        for size in [8, 9, 64, 1000] {
            let bytes = stream(size, 50);
            for chunk in [1, 3, 7, 8, 64, 4096] {
                let mut splitter = StreamSplitter::new(size);
                let completed: u64 = bytes
                    .chunks(chunk)
                    .map(|c| splitter.feed(c).expect("in order"))
                    .sum();
                assert_eq!(completed, 50, "size {size}, chunks of {chunk}");
                assert_eq!(splitter.offset, 0);
            }
        }
    }

    #[test]
    fn framing_rejects_a_skipped_message() {
        let mut bytes = stream(16, 3);
        bytes.drain(16..32);
        let error = StreamSplitter::new(16)
            .feed(&bytes)
            .expect_err("seq 2 after 0");
        assert!(
            error
                .to_string()
                .contains("message 1 arrived as sequence 2"),
            "{error}"
        );
    }

    #[test]
    fn counts_round_trip_and_reject_truncation() {
        let mut counts = Counts::default();
        counts.add(0, 10, 640);
        counts.add(3, 5, 320);
        counts.out_of_order = 2;
        assert_eq!(counts.windows, vec![(10, 640), (0, 0), (0, 0), (5, 320)]);
        let encoded = counts.encode();
        assert_eq!(Counts::decode(&encoded), Some(counts));
        assert_eq!(Counts::decode(&encoded[..encoded.len() - 8]), None);
        assert_eq!(Counts::decode(b"RTTcoun"), None);
    }
}
