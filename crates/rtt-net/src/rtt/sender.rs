//! Open load's sender: puts message after message on the wire at its due time, or as soon as the
//! window of messages in flight has room, whatever the echoes do; the receivers are in `open`.

use std::{mem::take, net::SocketAddr, sync::Arc, time::Instant};

use rtt_core::runtime::{Runtime, TcpWrite, UdpIo};

use super::{
    in_flight::{Flight, InFlight},
    link::{tcp_write_error, udp_error},
    timeline::{Outcome, Timeline},
};
use crate::{
    pacing::{Pacer, Wait},
    recorder::Recorder,
    wire::{self, Protocol},
};

/// How the sender puts a message on the wire.
pub(super) trait Transmit: Send {
    fn transmit(
        &mut self,
        message: Vec<u8>,
    ) -> impl Future<Output = (anyhow::Result<()>, Vec<u8>)> + Send;
}

pub(super) struct TcpTransmit<W> {
    pub writer: W,
    pub address: SocketAddr,
    pub over: Protocol,
}

impl<W: TcpWrite> Transmit for TcpTransmit<W> {
    async fn transmit(&mut self, message: Vec<u8>) -> (anyhow::Result<()>, Vec<u8>) {
        let len = message.len();
        let (written, message) = self.writer.write_all(message, len).await;
        (
            written.map_err(|e| tcp_write_error(e, self.address, self.over)),
            message,
        )
    }
}

pub(super) struct UdpTransmit<U> {
    pub socket: Arc<U>,
    pub address: SocketAddr,
}

impl<U: UdpIo> Transmit for UdpTransmit<U> {
    async fn transmit(&mut self, message: Vec<u8>) -> (anyhow::Result<()>, Vec<u8>) {
        let len = message.len();
        let (sent, message) = self.socket.send(message, len).await;
        let sent = sent
            .map(drop)
            .map_err(|e| udp_error(e, self.address, "sending to"));
        (sent, message)
    }
}

/// What the sender puts on the wire: the bytes, with the sequence number at `seq_at`.
pub(super) struct Message {
    pub bytes: Vec<u8>,
    pub seq_at: usize,
}

impl Message {
    /// A bare message of `size` bytes (TCP, UDP).
    pub fn raw(size: usize) -> Self {
        Self {
            bytes: wire::message(size),
            seq_at: 0,
        }
    }
}

/// Sends message after message at its due time, or as soon as the window has room, until the
/// measured window ends; counts those due in it, and those sent late.
pub(super) async fn send_on_schedule<R: Runtime, T: Transmit>(
    transmit: &mut T,
    in_flight: Arc<InFlight>,
    pacer: Pacer,
    timeline: Timeline,
    message: Message,
) -> Outcome {
    let mut counts = Recorder::new();
    let Message {
        bytes: mut message,
        seq_at,
    } = message;
    for seq in 0.. {
        let Some(due) = pacer.due(seq).filter(|&due| due < timeline.end) else {
            break;
        };
        let mut late = match pacer.wait(seq, Instant::now()) {
            Wait::Until(due) => {
                R::sleep_until(due).await;
                false
            }
            Wait::None | Wait::Late => true,
        };
        match in_flight.room().await {
            Some(waited) => late |= waited,
            None => break,
        }
        wire::write_seq(&mut message[seq_at..], seq);
        let flight = Flight {
            seq,
            due,
            sent_at: Instant::now(),
            measured: due >= timeline.measure_start,
        };
        // In flight before it is on the wire: its echo cannot come before the receiver knows it.
        in_flight.push(flight);
        if flight.measured {
            counts.sent += 1;
            counts.late += u64::from(late);
        }
        let sent;
        (sent, message) = transmit.transmit(take(&mut message)).await;
        if let Err(error) = sent {
            in_flight.close();
            return (counts, Err(error));
        }
    }
    in_flight.close();
    (counts, Ok(()))
}
