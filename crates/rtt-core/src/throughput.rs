//! Throughput mode: the ping sends messages of `--size` one way, as fast as the runtime lets it;
//! the pong counts messages and bytes per 100 ms window, checks every sequence number, and sends
//! its counts back at the end, so that the logs stay on the host that runs the sweep.

use std::{
    collections::HashMap,
    io::{self, Write},
    net::SocketAddr,
    time::{Duration, Instant},
};

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};

use crate::{
    options::{MAX_TCP_PAYLOAD, MAX_UDP_PAYLOAD, PingOptions, Protocol},
    output::{Outcome, RunContext},
    ping::Frame,
    runtime::{Runtime, RuntimeInfo, TcpIo, UdpIo, connect_to_pong, udp_to_pong},
    stats::nearest_rank,
    wire::{self, SEQ_LEN},
};

/// The receiving side's counting window.
pub const WINDOW: Duration = Duration::from_millis(100);

/// The pong's read buffer.
const READ_BYTES: usize = 64 * 1024;

/// How long the ping waits for the pong's handshake or counts before giving up on it.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(5);

// Control messages, 8 bytes each. Read as sequence numbers they are above 10^18, which no data
// message reaches.
/// Sender → sink: a session starts; the message size (u64, little-endian) follows.
const HELLO: [u8; 8] = *b"RTTtput1";
/// Sink → sender: counting.
const READY: [u8; 8] = *b"RTTready";
/// UDP sender → sink: the run is over, send the counts.
const DONE: [u8; 8] = *b"RTTdone!";
/// Sink → sender: the counts follow.
const COUNTS: [u8; 8] = *b"RTTcount";

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
    fn add(&mut self, window: usize, messages: u64, bytes: u64) {
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
struct Tally {
    began: Instant,
    counts: Counts,
}

impl Tally {
    fn new(began: Instant) -> Self {
        Self {
            began,
            counts: Counts::default(),
        }
    }

    fn add(&mut self, at: Instant, messages: u64, bytes: u64) {
        let window =
            (at.saturating_duration_since(self.began).as_nanos() / WINDOW.as_nanos()) as usize;
        self.counts.add(window, messages, bytes);
    }
}

/// Finds message boundaries in a TCP byte stream and checks that sequence numbers run 0, 1, 2…
#[derive(Debug)]
struct Framing {
    size: usize,
    /// Bytes of the current message seen so far.
    offset: usize,
    seq_bytes: [u8; SEQ_LEN],
    next_seq: u64,
}

impl Framing {
    fn new(size: usize) -> Self {
        Self {
            size,
            offset: 0,
            seq_bytes: [0; SEQ_LEN],
            next_seq: 0,
        }
    }

    /// Consumes a chunk of the stream; returns how many messages it completed.
    fn feed(&mut self, mut chunk: &[u8]) -> anyhow::Result<u64> {
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

fn hello(size: usize) -> [u8; 16] {
    let mut hello = [0u8; 16];
    hello[..8].copy_from_slice(&HELLO);
    hello[8..].copy_from_slice(&(size as u64).to_le_bytes());
    hello
}

/// The message size a `HELLO` announces, if it is one this suite sends.
fn announced_size(hello: &[u8], limit: usize) -> Option<usize> {
    let size = u64::from_le_bytes(hello.strip_prefix(&HELLO)?.get(..8)?.try_into().ok()?);
    usize::try_from(size)
        .ok()
        .filter(|s| (SEQ_LEN..=limit).contains(s))
}

/// Serves one TCP throughput session: counts until the sender closes, then sends the counts.
pub async fn sink_tcp<S: TcpIo>(mut stream: S) -> anyhow::Result<()> {
    let mut hello = [0u8; 16];
    stream
        .read_exact(&mut hello)
        .await
        .context("reading the session's first bytes")?;
    let size = announced_size(&hello, MAX_TCP_PAYLOAD).ok_or_else(|| {
        anyhow!("not a throughput session: is an rtt ping talking to a throughput pong?")
    })?;
    stream
        .write_all(&READY)
        .await
        .context("answering the handshake")?;
    let mut tally = Tally::new(Instant::now());
    let mut framing = Framing::new(size);
    let mut buf = vec![0; READ_BYTES];
    loop {
        let len = stream.read(&mut buf).await.context("receiving messages")?;
        if len == 0 {
            break;
        }
        let at = Instant::now();
        // Bytes are counted with the message they complete, so every window holds whole messages.
        let completed = framing.feed(&buf[..len])?;
        tally.add(at, completed, completed * size as u64);
    }
    stream
        .write_all(&tally.counts.encode())
        .await
        .context("sending the counts back")?;
    stream.shutdown_write().await.context("closing the session")
}

/// Serves UDP throughput sessions, one per sender address, until killed.
pub async fn sink_udp<U: UdpIo>(socket: U) {
    struct Session {
        tally: Tally,
        size: usize,
        next_seq: u64,
    }
    let mut sessions: HashMap<SocketAddr, Session> = HashMap::new();
    // Kept so that a repeated DONE (the counts were lost) is answered again.
    let mut finished: HashMap<SocketAddr, Vec<u8>> = HashMap::new();
    let mut buf = vec![0u8; MAX_UDP_PAYLOAD + 1];
    loop {
        // A failed receive or send concerns one datagram; the sender retries control messages.
        let Ok((len, peer)) = socket.recv_from(&mut buf).await else {
            continue;
        };
        let at = Instant::now();
        let datagram = &buf[..len];
        if let Some(size) = announced_size(datagram, MAX_UDP_PAYLOAD) {
            sessions.insert(
                peer,
                Session {
                    tally: Tally::new(at),
                    size,
                    next_seq: 0,
                },
            );
            finished.remove(&peer);
            let _ = socket.send_to(&READY, peer).await;
        } else if datagram == DONE {
            if let Some(session) = sessions.remove(&peer) {
                finished.insert(peer, session.tally.counts.encode());
            }
            if let Some(counts) = finished.get(&peer) {
                let _ = socket.send_to(counts, peer).await;
            }
        } else if let Some(session) = sessions.get_mut(&peer) {
            let seq = wire::read_seq(datagram).filter(|_| len == session.size);
            match seq {
                Some(seq) if seq >= session.next_seq => session.next_seq = seq + 1,
                _ => session.tally.counts.out_of_order += 1,
            }
            session.tally.add(at, 1, len as u64);
        }
    }
}

/// What the ping sent.
#[derive(Clone, Copy, Debug, Default)]
struct Sent {
    messages: u64,
    bytes: u64,
}

/// One throughput run on the runtime under test.
pub(crate) async fn session<R: Runtime>(
    options: PingOptions,
    info: RuntimeInfo,
) -> ThroughputReport {
    let frame = Frame::<R>::begin(&options);
    let mut sent = Sent::default();
    let result = match options.protocol {
        Protocol::Tcp => send_tcp::<R>(&options, &mut sent).await,
        Protocol::Udp => send_udp::<R>(&options, &mut sent).await,
    };
    let (counts, outcome) = match result {
        Ok(counts) => (Some(counts), Ok(())),
        Err(error) => (None, Err(error)),
    };
    let context = frame.end(&options, info, outcome).await;
    // The measured windows: after the warm-up, as many whole windows as the duration holds.
    let first = (options.warmup / WINDOW.as_secs_f64()).round() as usize;
    let count = (options.duration / WINDOW.as_secs_f64()).floor() as usize;
    let measured = counts
        .as_ref()
        .map(|c| {
            (first..first + count)
                .map(|i| c.windows.get(i).copied().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    let size = options.size as u64;
    let batch_bytes =
        (options.protocol == Protocol::Tcp).then(|| options.batch.max(size) / size * size);
    ThroughputReport {
        context,
        batch_bytes,
        sent,
        counts,
        measured,
    }
}

async fn send_tcp<R: Runtime>(options: &PingOptions, sent: &mut Sent) -> anyhow::Result<Counts> {
    let address = options.address;
    let mut stream = connect_to_pong::<R>(address).await?;
    stream
        .write_all(&hello(options.size))
        .await
        .with_context(|| format!("greeting the pong at {address}"))?;
    let mut ready = [0u8; 8];
    let answered = R::until(
        Instant::now() + CONTROL_TIMEOUT,
        stream.read_exact(&mut ready),
    )
    .await;
    if !matches!(answered, Some(Ok(()))) || ready != READY {
        bail!(
            "the pong at {address} (tcp) did not answer as a throughput pong: start it with --mode throughput"
        );
    }

    let end = Instant::now() + options.warmup() + options.duration();
    // Batched as a throughput-minded application would (`--batch`): one write per 8-byte message
    // measures the system call more than the runtime.
    let per_batch = (usize::try_from(options.batch).unwrap_or(usize::MAX) / options.size).max(1);
    let mut batch = wire::message(options.size).repeat(per_batch);
    let mut seq = 0;
    while Instant::now() < end {
        for message in batch.chunks_exact_mut(options.size) {
            wire::write_seq(message, seq);
            seq += 1;
        }
        stream.write_all(&batch).await.map_err(|e| {
            anyhow!("sending to the pong at {address} (tcp): {e}; did it stop mid-run?")
        })?;
        sent.messages += per_batch as u64;
        sent.bytes += batch.len() as u64;
    }
    stream
        .shutdown_write()
        .await
        .with_context(|| format!("ending the run with the pong at {address}"))?;

    let mut reply = Vec::new();
    let mut buf = vec![0u8; READ_BYTES];
    let deadline = Instant::now() + CONTROL_TIMEOUT;
    loop {
        match R::until(deadline, stream.read(&mut buf)).await {
            Some(Ok(0)) => break,
            Some(Ok(len)) => reply.extend_from_slice(&buf[..len]),
            Some(Err(e)) => {
                return Err(e)
                    .with_context(|| format!("reading the counts from the pong at {address}"));
            }
            None => bail!(
                "no counts from the pong at {address} (tcp) within {CONTROL_TIMEOUT:?} of the run's end"
            ),
        }
    }
    Counts::decode(&reply).ok_or_else(|| {
        anyhow!("the pong at {address} (tcp) sent no valid counts: did it stop mid-run?")
    })
}

async fn send_udp<R: Runtime>(options: &PingOptions, sent: &mut Sent) -> anyhow::Result<Counts> {
    let address = options.address;
    let socket = udp_to_pong::<R>(address).await?;
    let stopped =
        |e: io::Error| anyhow!("sending to the pong at {address} (udp): {e}; is it running?");
    let mut buf = vec![0u8; MAX_UDP_PAYLOAD + 1];

    // The handshake, repeated in case a datagram is lost.
    let mut ready = false;
    for _ in 0..3 {
        socket.send(&hello(options.size)).await.map_err(stopped)?;
        match socket
            .recv_until(&mut buf, Instant::now() + Duration::from_secs(1))
            .await
        {
            Ok(Some(len)) if buf[..len] == READY => ready = true,
            Ok(Some(_)) => bail!(
                "the pong at {address} (udp) echoed instead of counting: start it with --mode throughput"
            ),
            Ok(None) => continue,
            Err(e) => return Err(stopped(e)),
        }
        break;
    }
    if !ready {
        bail!(
            "no throughput pong answered at {address} (udp) in 3 s: is it running with --mode throughput?"
        );
    }

    let end = Instant::now() + options.warmup() + options.duration();
    let mut message = wire::message(options.size);
    let mut seq = 0;
    while Instant::now() < end {
        wire::write_seq(&mut message, seq);
        seq += 1;
        socket.send(&message).await.map_err(stopped)?;
        sent.messages += 1;
        sent.bytes += message.len() as u64;
    }

    // Ask for the counts until they come; DONE or the answer may be lost like any datagram.
    for _ in 0..10 {
        socket.send(&DONE).await.map_err(stopped)?;
        let deadline = Instant::now() + Duration::from_millis(500);
        while let Some(len) = socket
            .recv_until(&mut buf, deadline)
            .await
            .map_err(stopped)?
        {
            if let Some(counts) = Counts::decode(&buf[..len]) {
                return Ok(counts);
            }
        }
    }
    bail!("no counts from the pong at {address} (udp) after the run: did it stop mid-run?")
}

/// Mean and percentiles (nearest rank) of a rate across the measured windows.
fn spread(per_window: impl Iterator<Item = u64>, scale: f64) -> Value {
    let mut values: Vec<u64> = per_window.collect();
    values.sort_unstable();
    if values.is_empty() {
        return json!({ "mean": null, "p5": null, "p50": null, "p95": null });
    }
    let mean = values.iter().sum::<u64>() as f64 / values.len() as f64;
    json!({
        "mean": mean * scale,
        "p5": nearest_rank(&values, 5.0) as f64 * scale,
        "p50": nearest_rank(&values, 50.0) as f64 * scale,
        "p95": nearest_rank(&values, 95.0) as f64 * scale,
    })
}

/// The result of a throughput run.
#[derive(Debug)]
pub struct ThroughputReport {
    context: RunContext,
    /// TCP: the most bytes of whole messages per write (`--batch`); `None` for UDP.
    batch_bytes: Option<u64>,
    sent: Sent,
    counts: Option<Counts>,
    /// Messages and bytes of each measured window.
    measured: Vec<(u64, u64)>,
}

impl ThroughputReport {
    fn windows_per_second() -> f64 {
        1.0 / WINDOW.as_secs_f64()
    }

    fn lost(&self) -> Option<u64> {
        self.counts
            .as_ref()
            .map(|c| self.sent.messages.saturating_sub(c.messages))
    }
}

impl Outcome for ThroughputReport {
    fn context(&self) -> &RunContext {
        &self.context
    }

    fn sent(&self) -> u64 {
        self.sent.messages
    }

    fn to_json(&self) -> Value {
        let per_second = Self::windows_per_second();
        self.context.to_json(
            "throughput",
            json!({
                "window_s": WINDOW.as_secs_f64(),
                "batch_bytes": self.batch_bytes,
                "windows": self.measured.len(),
                "sent": self.sent.messages,
                "sent_bytes": self.sent.bytes,
                "received": self.measured.iter().map(|w| w.0).sum::<u64>(),
                "received_bytes": self.measured.iter().map(|w| w.1).sum::<u64>(),
                "lost": self.lost(),
                "out_of_order": self.counts.as_ref().map(|c| c.out_of_order),
                "msg_per_s": spread(self.measured.iter().map(|w| w.0), per_second),
                "gbit_per_s": spread(self.measured.iter().map(|w| w.1), per_second * 8.0 / 1e9),
            }),
        )
    }

    fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "window,t_ns,messages,bytes")?;
        for (i, (messages, bytes)) in self.measured.iter().enumerate() {
            writeln!(
                out,
                "{i},{},{messages},{bytes}",
                i as u128 * WINDOW.as_nanos()
            )?;
        }
        Ok(())
    }

    fn human(&self) -> String {
        let json = self.to_json();
        let mut text = self.context.headline("throughput");
        text += &format!(
            "  sent {} messages ({:.1} MB), lost {}\n",
            self.sent.messages,
            self.sent.bytes as f64 / 1e6,
            self.lost().map_or("unknown".to_owned(), |l| l.to_string())
        );
        let windows = self.measured.len();
        for (key, unit, scale) in [("msg_per_s", "M msg/s", 1e6), ("gbit_per_s", "Gb/s", 1.0)] {
            let r = &json[key];
            if let (Some(p50), Some(p5), Some(p95)) =
                (r["p50"].as_f64(), r["p5"].as_f64(), r["p95"].as_f64())
            {
                let (p50, p5, p95) = (p50 / scale, p5 / scale, p95 / scale);
                text += &format!(
                    "  p50 {p50:.3} {unit}  (p5 {p5:.3}, p95 {p95:.3}; {windows} windows of 100 ms)\n"
                );
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                let mut framing = Framing::new(size);
                let completed: u64 = bytes
                    .chunks(chunk)
                    .map(|c| framing.feed(c).expect("in order"))
                    .sum();
                assert_eq!(completed, 50, "size {size}, chunks of {chunk}");
                assert_eq!(framing.offset, 0);
            }
        }
    }

    #[test]
    fn framing_rejects_a_skipped_message() {
        let mut bytes = stream(16, 3);
        bytes.drain(16..32);
        let error = Framing::new(16).feed(&bytes).expect_err("seq 2 after 0");
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

    #[test]
    fn a_hello_announces_a_valid_size_only() {
        assert_eq!(announced_size(&hello(64), MAX_UDP_PAYLOAD), Some(64));
        assert_eq!(announced_size(&hello(4), MAX_UDP_PAYLOAD), None);
        assert_eq!(announced_size(&hello(70_000), MAX_UDP_PAYLOAD), None);
        assert_eq!(announced_size(&stream(64, 1), MAX_UDP_PAYLOAD), None);
    }

    #[test]
    fn rates_spread_over_windows() {
        let spread = spread([30u64, 10, 20, 40].into_iter(), 10.0);
        assert_eq!(spread["p50"], 200.0);
        assert_eq!(spread["p95"], 400.0);
        assert_eq!(spread["mean"], 250.0);
    }
}
