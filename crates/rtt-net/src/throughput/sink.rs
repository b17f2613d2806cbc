//! The pong's side of throughput mode: sinks that count what a sender sends, per window, and send
//! the counts back when the sender is done. A misbehaving sender only ends its own session.

use std::{collections::HashMap, net::SocketAddr, time::Instant};

use anyhow::{Context, anyhow};

use super::{
    control::{DONE, READY, announced_size},
    counting::{StreamSplitter, Tally},
};
use rtt_core::runtime::{TcpIo, UdpIo, send_copy, write_copy};

use crate::wire::{self, MAX_TCP_PAYLOAD, MAX_UDP_PAYLOAD};

/// The sink's read buffer.
const READ_BYTES: usize = 64 * 1024;

/// Serves one TCP throughput session: counts until the sender closes, then sends the counts.
pub async fn sink_tcp<S: TcpIo>(mut stream: S) -> anyhow::Result<()> {
    let (read, hello) = stream.read_exact(vec![0; 16]).await;
    read.context("reading the session's first bytes")?;
    let size = announced_size(&hello, MAX_TCP_PAYLOAD).ok_or_else(|| {
        anyhow!("not a throughput session: is an rtt ping talking to a throughput pong?")
    })?;
    write_copy(&mut stream, &READY)
        .await
        .context("answering the handshake")?;
    let mut tally = Tally::new(Instant::now());
    let mut splitter = StreamSplitter::new(size);
    let mut buf = vec![0; READ_BYTES];
    loop {
        let read;
        (read, buf) = stream.read(buf).await;
        let len = read.context("receiving messages")?;
        if len == 0 {
            break;
        }
        let at = Instant::now();
        // Bytes are counted with the message they complete, so every window holds whole messages.
        let completed = splitter.feed(&buf[..len])?;
        tally.add(at, completed, completed * size as u64);
    }
    write_copy(&mut stream, &tally.counts.encode())
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
        let received;
        (received, buf) = socket.recv_from(buf).await;
        let Ok((len, peer)) = received else {
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
            let _ = send_copy(&socket, &READY, Some(peer)).await;
        } else if datagram == DONE {
            if let Some(session) = sessions.remove(&peer) {
                finished.insert(peer, session.tally.counts.encode());
            }
            if let Some(counts) = finished.get(&peer) {
                let _ = send_copy(&socket, counts, Some(peer)).await;
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
