//! One message out, its echo back: the part of the RTT exchange that differs between TCP (the
//! echo must carry the sequence sent) and UDP (a reply has a deadline; stale ones are set aside).

use std::{
    future::Future,
    io,
    mem::take,
    net::SocketAddr,
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail};

use rtt_core::runtime::{STALL_LIMIT, TcpIo, UdpIo, timed_out};

use crate::wire::{self, MAX_UDP_PAYLOAD};

/// What came back for one message.
pub(super) struct Echo {
    /// When the reply was read (or when the wait for it ended).
    pub at: Instant,
    /// Whether the message's own reply arrived in time.
    pub received: bool,
    /// Replies that belonged to earlier messages (or to none) and were set aside.
    pub stale: u64,
}

/// A transport's exchange of one message: it keeps the message and the echo's buffer, lent to
/// the runtime for each send and receive.
pub(super) trait Link: Send {
    /// The message to send next, to be numbered.
    fn message(&mut self) -> &mut [u8];

    fn exchange(
        &mut self,
        seq: u64,
        sent_at: Instant,
    ) -> impl Future<Output = anyhow::Result<Echo>> + Send;
}

pub(super) struct TcpLink<S> {
    stream: S,
    address: SocketAddr,
    message: Vec<u8>,
    echo: Vec<u8>,
}

impl<S: TcpIo> TcpLink<S> {
    pub fn new(stream: S, address: SocketAddr, size: usize) -> Self {
        Self {
            stream,
            address,
            message: wire::message(size),
            echo: vec![0; size],
        }
    }
}

impl<S: TcpIo> Link for TcpLink<S> {
    fn message(&mut self) -> &mut [u8] {
        &mut self.message
    }

    async fn exchange(&mut self, seq: u64, _sent_at: Instant) -> anyhow::Result<Echo> {
        let address = self.address;
        let len = self.message.len();
        let written;
        (written, self.message) = self.stream.write_all(take(&mut self.message), len).await;
        written.map_err(|error| tcp_write_error(error, address))?;
        let read;
        (read, self.echo) = self.stream.read_exact(take(&mut self.echo)).await;
        read.map_err(|error| tcp_read_error(error, address))?;
        let at = Instant::now();
        check_tcp_echo(&self.echo, seq, address)?;
        Ok(Echo {
            at,
            received: true,
            stale: 0,
        })
    }
}

/// What a failed TCP write of a message means.
pub(super) fn tcp_write_error(error: io::Error, address: SocketAddr) -> anyhow::Error {
    match timed_out(&error) {
        true => anyhow!(
            "the pong at {address} (tcp) took no data for {} s: is it stopped or overloaded?",
            STALL_LIMIT.as_secs()
        ),
        false => anyhow!(error).context(format!("sending to the pong at {address} (tcp)")),
    }
}

/// What a failed TCP read of an echo means.
pub(super) fn tcp_read_error(error: io::Error, address: SocketAddr) -> anyhow::Error {
    match error.kind() {
        io::ErrorKind::UnexpectedEof => {
            anyhow!("the pong at {address} (tcp) closed the connection")
        }
        _ if timed_out(&error) => anyhow!(
            "no echo from the pong at {address} (tcp) for {} s: is it stopped or overloaded?",
            STALL_LIMIT.as_secs()
        ),
        _ => anyhow!(error).context(format!("reading the echo from the pong at {address} (tcp)")),
    }
}

/// A TCP echo must carry the sequence of the message it answers: the stream keeps their order.
pub(super) fn check_tcp_echo(echo: &[u8], seq: u64, address: SocketAddr) -> anyhow::Result<()> {
    match wire::read_seq(echo) {
        Some(echoed) if echoed == seq => Ok(()),
        echoed => bail!(
            "the pong at {address} (tcp) echoed sequence {echoed:?} for message {seq}: is it a pong of this suite?"
        ),
    }
}

/// What a failed UDP send or receive means (`doing`: e.g. "sending to").
pub(super) fn udp_error(error: io::Error, address: SocketAddr, doing: &str) -> anyhow::Error {
    match error.kind() {
        io::ErrorKind::ConnectionRefused => {
            anyhow!("the pong at {address} (udp) refused the datagram: is it running?")
        }
        _ => anyhow!(error).context(format!("{doing} the pong at {address} (udp)")),
    }
}

/// The sequence a UDP reply carries if it can answer a message of `size` bytes.
pub(super) fn udp_echo_seq(echo: &[u8], size: usize) -> Option<u64> {
    (echo.len() == size).then(|| wire::read_seq(echo)).flatten()
}

pub(super) struct UdpLink<U> {
    socket: U,
    address: SocketAddr,
    timeout: Duration,
    message: Vec<u8>,
    echo: Vec<u8>,
}

impl<U: UdpIo> UdpLink<U> {
    pub fn new(socket: U, address: SocketAddr, size: usize, timeout: Duration) -> Self {
        Self {
            socket,
            address,
            timeout,
            message: wire::message(size),
            // Any datagram fits, so a reply of the wrong size is seen as such.
            echo: vec![0; MAX_UDP_PAYLOAD + 1],
        }
    }
}

impl<U: UdpIo> Link for UdpLink<U> {
    fn message(&mut self) -> &mut [u8] {
        &mut self.message
    }

    async fn exchange(&mut self, seq: u64, sent_at: Instant) -> anyhow::Result<Echo> {
        let address = self.address;
        let size = self.message.len();
        let sent;
        (sent, self.message) = self.socket.send(take(&mut self.message), size).await;
        sent.map_err(|e| udp_error(e, address, "sending to"))?;
        let deadline = sent_at + self.timeout;
        let mut stale = 0;
        loop {
            let received;
            (received, self.echo) = self.socket.recv_until(take(&mut self.echo), deadline).await;
            match received {
                Ok(Some(len)) => {
                    let at = Instant::now();
                    if udp_echo_seq(&self.echo[..len], size) == Some(seq) {
                        return Ok(Echo {
                            at,
                            received: true,
                            stale,
                        });
                    }
                    // A late reply to an earlier, already-lost message (or a stray datagram):
                    // never credited to this one.
                    stale += 1;
                }
                Ok(None) => {
                    return Ok(Echo {
                        at: Instant::now(),
                        received: false,
                        stale,
                    });
                }
                Err(e) => return Err(udp_error(e, address, "receiving from")),
            }
        }
    }
}
