//! One message out, its echo back: the part of the RTT exchange that differs between TCP (the
//! echo must carry the sequence sent) and UDP (a reply has a deadline; stale ones are set aside).

use std::{
    future::Future,
    io,
    mem::take,
    net::SocketAddr,
    time::{Duration, Instant},
};

use anyhow::{Context, anyhow, bail};

use crate::{
    options::PingOptions,
    runtime::{STALL_LIMIT, TcpIo, UdpIo, timed_out},
    wire::{self, MAX_UDP_PAYLOAD},
};

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
        let stalled = |waiting_for: &str| {
            anyhow!(
                "the pong at {address} (tcp) {waiting_for} for {} s: is it stopped or overloaded?",
                STALL_LIMIT.as_secs()
            )
        };
        let len = self.message.len();
        let written;
        (written, self.message) = self.stream.write_all(take(&mut self.message), len).await;
        if let Err(error) = written {
            return Err(match timed_out(&error) {
                true => stalled("took no data"),
                false => anyhow!(error).context(format!("sending to the pong at {address} (tcp)")),
            });
        }
        let read;
        (read, self.echo) = self.stream.read_exact(take(&mut self.echo)).await;
        if let Err(error) = read {
            return Err(match error.kind() {
                io::ErrorKind::UnexpectedEof => {
                    anyhow!("the pong at {address} (tcp) closed the connection")
                }
                _ if timed_out(&error) => anyhow!(
                    "no echo from the pong at {address} (tcp) for {} s: is it stopped or overloaded?",
                    STALL_LIMIT.as_secs()
                ),
                _ => anyhow!(error)
                    .context(format!("reading the echo from the pong at {address} (tcp)")),
            });
        }
        let at = Instant::now();
        match wire::read_seq(&self.echo) {
            Some(echoed) if echoed == seq => Ok(Echo {
                at,
                received: true,
                stale: 0,
            }),
            echoed => bail!(
                "the pong at {address} (tcp) echoed sequence {echoed:?} for message {seq}: is it a pong of this suite?"
            ),
        }
    }
}

pub(super) struct UdpLink<U> {
    socket: U,
    address: SocketAddr,
    timeout: Duration,
    message: Vec<u8>,
    echo: Vec<u8>,
}

impl<U: UdpIo> UdpLink<U> {
    pub fn new(socket: U, address: SocketAddr, options: &PingOptions) -> Self {
        Self {
            socket,
            address,
            timeout: options.udp_timeout(),
            message: wire::message(options.size),
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
        let refused =
            || anyhow!("the pong at {address} (udp) refused the datagram: is it running?");
        let size = self.message.len();
        let sent;
        (sent, self.message) = self.socket.send(take(&mut self.message), size).await;
        match sent {
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return Err(refused()),
            other => other.with_context(|| format!("sending to the pong at {address} (udp)"))?,
        };
        let deadline = sent_at + self.timeout;
        let mut stale = 0;
        loop {
            let received;
            (received, self.echo) = self.socket.recv_until(take(&mut self.echo), deadline).await;
            match received {
                Ok(Some(len)) => {
                    let at = Instant::now();
                    if len == size && wire::read_seq(&self.echo[..len]) == Some(seq) {
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
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return Err(refused()),
                Err(e) => {
                    return Err(e)
                        .with_context(|| format!("receiving from the pong at {address} (udp)"));
                }
            }
        }
    }
}
