//! The ping's side of throughput mode: greets a counting pong, sends numbered messages one way as
//! fast as the runtime lets it until the run's end, then asks for the pong's counts. Every wait
//! on the pong is bounded by [`STALL_LIMIT`], so a stalled pong fails the run instead of hanging it.

use std::{
    io,
    time::{Duration, Instant},
};

use anyhow::{Context, anyhow, bail};

use rtt_core::runtime::{
    Runtime, RuntimeInfo, STALL_LIMIT, TcpIo, TcpRead, TcpWrite, UdpIo, connect_to_pong, send_copy,
    timed_out, udp_to_pong, write_copy,
};

use super::{
    control::{DONE, READY, hello},
    counting::Counts,
    report::{Sent, ThroughputReport},
};
use crate::{
    lifecycle::{Lifecycle, RunSpec},
    wire::{self, MAX_UDP_PAYLOAD, Protocol},
};

/// What a throughput run does besides what every run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThroughputSpec {
    /// TCP: the most bytes of whole messages per write; 0 writes each message on its own.
    pub batch: u64,
}

/// The buffer the pong's counts are read into.
const READ_BYTES: usize = 64 * 1024;

/// One throughput run on the runtime under test.
pub async fn session<R: Runtime>(
    run: RunSpec,
    spec: ThroughputSpec,
    info: RuntimeInfo,
) -> ThroughputReport {
    let lifecycle = Lifecycle::<R>::begin(&run);
    let mut sent = Sent::default();
    let result = match run.transport {
        Protocol::Tcp => send_tcp::<R>(&run, spec, &mut sent).await,
        Protocol::Udp => send_udp::<R>(&run, &mut sent).await,
        Protocol::Http => Err(anyhow!(
            "throughput over http is not measured: the options refuse it"
        )),
    };
    let (counts, outcome) = match result {
        Ok(counts) => (Some(counts), Ok(())),
        Err(error) => (None, Err(error)),
    };
    let context = lifecycle.end(&run, info, outcome).await;
    ThroughputReport::new(context, &run, spec.batch, sent, counts)
}

async fn send_tcp<R: Runtime>(
    run: &RunSpec,
    spec: ThroughputSpec,
    sent: &mut Sent,
) -> anyhow::Result<Counts> {
    let (address, size) = (run.target, run.payload);
    let limit = STALL_LIMIT.as_secs();
    let mut stream = connect_to_pong::<R>(address).await?;

    let handshake = async {
        write_copy(&mut stream, &hello(size)).await?;
        let (read, ready) = stream.read_exact(vec![0; READY.len()]).await;
        read.map(|()| ready == READY)
    };
    match R::until(Instant::now() + STALL_LIMIT, handshake).await {
        Some(Ok(true)) => {}
        Some(Err(e)) if !timed_out(&e) => bail!(
            "the pong at {address} (tcp) did not answer as a throughput pong ({e}): start it with --mode throughput"
        ),
        Some(Ok(false)) => bail!(
            "the pong at {address} (tcp) did not answer as a throughput pong: start it with --mode throughput"
        ),
        Some(Err(_)) | None => bail!(
            "no answer to the handshake from the pong at {address} (tcp) in {limit} s: is it stopped, overloaded, or not a pong of this suite?"
        ),
    }

    let end = Instant::now() + run.warmup() + run.duration();
    // The pong drains the socket as fast as it counts: a write still waiting `STALL_LIMIT` past
    // the run's end means it stopped reading. Its counts are due by then too.
    let deadline = end + STALL_LIMIT;
    stream
        .bound_by(deadline)
        .with_context(|| format!("setting the timeouts of the stream to {address}"))?;
    // Batched as a throughput-minded application would (`--batch`): one write per 8-byte message
    // measures the system call more than the runtime.
    let per_batch = (usize::try_from(spec.batch).unwrap_or(usize::MAX) / size).max(1);
    let mut batch = wire::message(size).repeat(per_batch);
    let sending = async {
        let mut seq = 0;
        while Instant::now() < end {
            for message in batch.chunks_exact_mut(size) {
                wire::write_seq(message, seq);
                seq += 1;
            }
            let len = batch.len();
            let written;
            (written, batch) = stream.write_all(batch, len).await;
            written?;
            sent.messages += per_batch as u64;
            sent.bytes += len as u64;
        }
        io::Result::Ok(())
    };
    match R::until(deadline, sending).await {
        Some(Ok(())) => {}
        Some(Err(e)) if !timed_out(&e) => {
            bail!("sending to the pong at {address} (tcp): {e}; did it stop mid-run?")
        }
        Some(Err(_)) | None => bail!(
            "sending to the pong at {address} (tcp): it took no data for {limit} s: is it stopped or overloaded?"
        ),
    }

    read_counts::<R>(&mut stream, run, deadline).await
}

/// Shuts the stream's write side and reads the counts the pong sends before it closes, by `deadline`.
async fn read_counts<R: Runtime>(
    stream: &mut R::TcpStream,
    run: &RunSpec,
    deadline: Instant,
) -> anyhow::Result<Counts> {
    let (address, limit) = (run.target, STALL_LIMIT.as_secs());
    let mut reply = Vec::new();
    let mut buf = vec![0u8; READ_BYTES];
    let counting = async {
        stream.bound_by(deadline)?;
        stream.shutdown_write().await?;
        loop {
            let read;
            (read, buf) = stream.read(buf).await;
            match read? {
                0 => return io::Result::Ok(()),
                len => reply.extend_from_slice(&buf[..len]),
            }
        }
    };
    match R::until(deadline, counting).await {
        Some(Ok(())) => {}
        Some(Err(e)) if !timed_out(&e) => {
            return Err(e)
                .with_context(|| format!("reading the counts from the pong at {address} (tcp)"));
        }
        Some(Err(_)) | None => bail!(
            "no counts from the pong at {address} (tcp) within {limit} s of the run's end: is it stopped or overloaded?"
        ),
    }
    Counts::decode(&reply).ok_or_else(|| {
        anyhow!("the pong at {address} (tcp) sent no valid counts: did it stop mid-run?")
    })
}

async fn send_udp<R: Runtime>(run: &RunSpec, sent: &mut Sent) -> anyhow::Result<Counts> {
    let (address, size) = (run.target, run.payload);
    let socket = udp_to_pong::<R>(address).await?;
    let stopped =
        |e: io::Error| anyhow!("sending to the pong at {address} (udp): {e}; is it running?");
    let mut buf = vec![0u8; MAX_UDP_PAYLOAD + 1];

    // The handshake, repeated in case a datagram is lost.
    let mut ready = false;
    for _ in 0..3 {
        send_copy(&socket, &hello(size), None)
            .await
            .map_err(stopped)?;
        let received;
        (received, buf) = socket
            .recv_until(buf, Instant::now() + Duration::from_secs(1))
            .await;
        match received {
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

    let end = Instant::now() + run.warmup() + run.duration();
    let mut message = wire::message(size);
    let sending = async {
        let mut seq = 0;
        while Instant::now() < end {
            wire::write_seq(&mut message, seq);
            seq += 1;
            let len = message.len();
            let result;
            (result, message) = socket.send(message, len).await;
            result?;
            sent.messages += 1;
            sent.bytes += len as u64;
        }
        io::Result::Ok(())
    };
    // A datagram is dropped rather than waited for, but the guard costs nothing and leaves no
    // send unbounded.
    match R::until(end + STALL_LIMIT, sending).await {
        Some(result) => result.map_err(stopped)?,
        None => bail!(
            "sending to the pong at {address} (udp): the socket took no datagram for {} s",
            STALL_LIMIT.as_secs()
        ),
    }

    // Ask for the counts until they come; DONE or the answer may be lost like any datagram.
    let retry = Duration::from_millis(500);
    for _ in 0..STALL_LIMIT.as_millis() / retry.as_millis() {
        send_copy(&socket, &DONE, None).await.map_err(stopped)?;
        let deadline = Instant::now() + retry;
        loop {
            let received;
            (received, buf) = socket.recv_until(buf, deadline).await;
            let Some(len) = received.map_err(stopped)? else {
                break;
            };
            if let Some(counts) = Counts::decode(&buf[..len]) {
                return Ok(counts);
            }
        }
    }
    bail!("no counts from the pong at {address} (udp) after the run: did it stop mid-run?")
}
