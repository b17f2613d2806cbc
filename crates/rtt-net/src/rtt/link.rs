//! One message out, its echo back: the part of the RTT exchange that differs between TCP (the
//! echo must carry the sequence sent) and UDP (a reply has a deadline; stale ones are set aside).

use std::{future::Future, io, mem::take, net::SocketAddr, time::Instant};

use anyhow::{anyhow, bail};

use rtt_core::runtime::{STALL_LIMIT, TcpIo, TcpRead, UdpIo, timed_out};

use super::timeline::{Connection, of_warmup};
use crate::{
    http::client::{EchoRequest, ResponseReader, Tally},
    wire::{self, MAX_UDP_PAYLOAD, Protocol},
};

/// What came back for one message.
pub(super) struct Echo {
    /// When the reply was read (or when the wait for it ended).
    pub at: Instant,
    pub answer: Answer,
    /// Replies that belonged to earlier messages (or to none) and were set aside.
    pub stale: u64,
}

/// How a message was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Answer {
    /// Its own echo, in time: a sample.
    Echoed,
    /// Nothing in time (UDP): lost.
    Lost,
    /// An HTTP response that is not a success: tallied by its status, not a sample.
    Refused,
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
        written.map_err(|error| tcp_write_error(error, address, Protocol::Tcp))?;
        let read;
        (read, self.echo) = self.stream.read_exact(take(&mut self.echo)).await;
        read.map_err(|error| tcp_read_error(error, address, Protocol::Tcp))?;
        let at = Instant::now();
        check_tcp_echo(&self.echo, seq, address, Protocol::Tcp)?;
        Ok(Echo {
            at,
            answer: Answer::Echoed,
            stale: 0,
        })
    }
}

/// HTTP/1.1: each message a `POST /echo` on a kept-alive connection, its echo the response body.
pub(super) struct HttpLink<S> {
    stream: S,
    address: SocketAddr,
    request: EchoRequest,
    responses: ResponseReader,
}

impl<S: TcpIo> HttpLink<S> {
    pub fn new(stream: S, address: SocketAddr, size: usize) -> Self {
        Self {
            stream,
            address,
            request: EchoRequest::new(address, &wire::message(size)),
            responses: ResponseReader::default(),
        }
    }

    /// The responses' statuses and sizes, for the recorder.
    pub fn tally(&self) -> &Tally {
        &self.responses.tally
    }
}

impl<S: TcpIo> Link for HttpLink<S> {
    fn message(&mut self) -> &mut [u8] {
        self.request.body_mut()
    }

    async fn exchange(&mut self, seq: u64, _sent_at: Instant) -> anyhow::Result<Echo> {
        let address = self.address;
        let bytes = take(&mut self.request.bytes);
        let len = bytes.len();
        let written;
        (written, self.request.bytes) = self.stream.write_all(bytes, len).await;
        written.map_err(|error| tcp_write_error(error, address, Protocol::Http))?;
        let (answer, at) =
            read_http_echo(&mut self.responses, &mut self.stream, seq, address).await?;
        Ok(Echo {
            at,
            answer,
            stale: 0,
        })
    }
}

/// Reads the response to message `seq`: its echo, or a refusal tallied by status; and when it
/// came in, before it was parsed, as a TCP echo's time is taken before it is checked.
pub(super) async fn read_http_echo<Rd: TcpRead>(
    responses: &mut ResponseReader,
    reader: &mut Rd,
    seq: u64,
    address: SocketAddr,
) -> anyhow::Result<(Answer, Instant)> {
    let response = responses
        .read(reader)
        .await
        .map_err(|error| tcp_read_error(error, address, Protocol::Http))?;
    if !response.is_success() {
        return Ok((Answer::Refused, response.at));
    }
    check_tcp_echo(responses.body(&response), seq, address, Protocol::Http)?;
    Ok((Answer::Echoed, response.at))
}

/// What a failed TCP write of a message means.
pub(super) fn tcp_write_error(
    error: io::Error,
    address: SocketAddr,
    over: Protocol,
) -> anyhow::Error {
    let over = over.as_str();
    match timed_out(&error) {
        true => anyhow!(
            "the pong at {address} ({over}) took no data for {} s: is it stopped or overloaded?",
            STALL_LIMIT.as_secs()
        ),
        false => anyhow!(error).context(format!("sending to the pong at {address} ({over})")),
    }
}

/// What a failed TCP read of an echo means.
pub(super) fn tcp_read_error(
    error: io::Error,
    address: SocketAddr,
    over: Protocol,
) -> anyhow::Error {
    let over = over.as_str();
    match error.kind() {
        io::ErrorKind::UnexpectedEof => {
            anyhow!("the pong at {address} ({over}) closed the connection")
        }
        _ if timed_out(&error) => anyhow!(
            "no echo from the pong at {address} ({over}) for {} s: is it stopped or overloaded?",
            STALL_LIMIT.as_secs()
        ),
        _ => anyhow!(error).context(format!(
            "reading the echo from the pong at {address} ({over})"
        )),
    }
}

/// What the run's guard stopping a TCP connection means.
pub(super) fn stalled_past_end(address: SocketAddr, over: Protocol) -> anyhow::Error {
    anyhow!(
        "no echo from the pong at {address} ({}) for {} s past the run's end: is it stopped or overloaded?",
        over.as_str(),
        STALL_LIMIT.as_secs()
    )
}

/// A TCP echo must carry the sequence of the message it answers: the stream keeps their order.
pub(super) fn check_tcp_echo(
    echo: &[u8],
    seq: u64,
    address: SocketAddr,
    over: Protocol,
) -> anyhow::Result<()> {
    match wire::read_seq(echo) {
        Some(echoed) if echoed == seq => Ok(()),
        echoed => bail!(
            "the pong at {address} ({}) echoed sequence {echoed:?} for message {seq}: is it a pong of this suite?",
            over.as_str()
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
    /// Its target, timeout and timeline.
    part: Connection,
    /// The first sequence sent in the window: a late reply to one before it is the warm-up's.
    first_measured: Option<u64>,
    message: Vec<u8>,
    echo: Vec<u8>,
}

impl<U: UdpIo> UdpLink<U> {
    pub fn new(socket: U, part: &Connection) -> Self {
        Self {
            socket,
            part: *part,
            first_measured: None,
            message: wire::message(part.payload),
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
        let (address, timeline) = (self.part.target, self.part.timeline);
        let size = self.message.len();
        let sent;
        (sent, self.message) = self.socket.send(take(&mut self.message), size).await;
        sent.map_err(|e| udp_error(e, address, "sending to"))?;
        let deadline = timeline.reply_deadline(sent_at, self.part.udp_timeout);
        if sent_at >= timeline.measure_start {
            self.first_measured.get_or_insert(seq);
        }
        let mut stale = 0;
        loop {
            let received;
            (received, self.echo) = self.socket.recv_until(take(&mut self.echo), deadline).await;
            let at = Instant::now();
            let answer = match received {
                Ok(Some(len)) if udp_echo_seq(&self.echo[..len], size) == Some(seq) => {
                    Answer::Echoed
                }
                // A late reply to an earlier, already-lost message (or a stray datagram): never
                // credited to this one.
                Ok(Some(len)) => {
                    let echoed = udp_echo_seq(&self.echo[..len], size);
                    stale += u64::from(!of_warmup(echoed, self.first_measured));
                    continue;
                }
                Ok(None) => Answer::Lost,
                Err(e) => return Err(udp_error(e, address, "receiving from")),
            };
            return Ok(Echo { at, answer, stale });
        }
    }
}
