//! The control messages of a throughput session, 8 bytes each, and the handshake's parsing.
//! Read as sequence numbers they are above 10^18, which no data message reaches.

use crate::wire::SEQ_LEN;

/// Sender → sink: a session starts; the message size (u64, little-endian) follows.
pub const HELLO: [u8; 8] = *b"RTTtput1";
/// Sink → sender: counting.
pub const READY: [u8; 8] = *b"RTTready";
/// UDP sender → sink: the run is over, send the counts.
pub const DONE: [u8; 8] = *b"RTTdone!";
/// Sink → sender: the counts follow (see `Counts::encode`).
pub const COUNTS: [u8; 8] = *b"RTTcount";

/// The `HELLO` that announces messages of `size` bytes.
pub fn hello(size: usize) -> [u8; 16] {
    let mut hello = [0u8; 16];
    hello[..8].copy_from_slice(&HELLO);
    hello[8..].copy_from_slice(&(size as u64).to_le_bytes());
    hello
}

/// The message size a `HELLO` announces, if it is one this suite sends.
pub fn announced_size(hello: &[u8], limit: usize) -> Option<usize> {
    let size = u64::from_le_bytes(hello.strip_prefix(&HELLO)?.get(..8)?.try_into().ok()?);
    usize::try_from(size)
        .ok()
        .filter(|s| (SEQ_LEN..=limit).contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{self, MAX_UDP_PAYLOAD};

    #[test]
    fn a_hello_announces_a_valid_size_only() {
        assert_eq!(announced_size(&hello(64), MAX_UDP_PAYLOAD), Some(64));
        assert_eq!(announced_size(&hello(4), MAX_UDP_PAYLOAD), None);
        assert_eq!(announced_size(&hello(70_000), MAX_UDP_PAYLOAD), None);
        assert_eq!(announced_size(&wire::message(64), MAX_UDP_PAYLOAD), None);
    }
}
