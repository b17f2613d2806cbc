//! The wire: the transport (`--protocol`; `http` wraps each message in a request, see `http`)
//! and the format of a payload, whose first 8 bytes are
//! its sequence number (little-endian u64), the rest filler. Pongs never parse it; pings use it
//! to match echoes to messages.

/// The transport a ping and its pong exchange over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    Tcp,
    Udp,
    /// HTTP/1.1 over TCP: each message a `POST /echo`, each echo its response (`http`)
    Http,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Tcp => "tcp",
            Protocol::Udp => "udp",
            Protocol::Http => "http",
        }
    }
}

/// The smallest payload that carries a sequence number.
pub const SEQ_LEN: usize = 8;

/// The largest UDP payload over IPv4: 65 535 − 8 (UDP header) − 20 (IP header).
pub const MAX_UDP_PAYLOAD: usize = 65_507;

/// The largest TCP payload the ping accepts; larger messages measure the copy, not the runtime.
pub const MAX_TCP_PAYLOAD: usize = 64 << 20;

/// A payload of `size` bytes (at least [`SEQ_LEN`]) with a recognisable filler.
pub fn message(size: usize) -> Vec<u8> {
    debug_assert!(size >= SEQ_LEN);
    (0..size).map(|i| (i % 251) as u8).collect()
}

/// Stamps `seq` into the first 8 bytes of `payload`.
pub fn write_seq(payload: &mut [u8], seq: u64) {
    payload[..SEQ_LEN].copy_from_slice(&seq.to_le_bytes());
}

/// The sequence number a payload carries, or `None` when it is too short to carry one.
pub fn read_seq(payload: &[u8]) -> Option<u64> {
    let head: [u8; SEQ_LEN] = payload.get(..SEQ_LEN)?.try_into().ok()?;
    Some(u64::from_le_bytes(head))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_round_trip_little_endian() {
        let mut payload = message(64);
        write_seq(&mut payload, 0x0102_0304_0506_0708);
        assert_eq!(&payload[..8], &[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(read_seq(&payload), Some(0x0102_0304_0506_0708));
        assert_eq!(payload.len(), 64);
    }

    #[test]
    fn a_short_payload_carries_no_sequence() {
        assert_eq!(read_seq(&[1, 2, 3]), None);
        assert_eq!(read_seq(&[0; 8]), Some(0));
    }
}
