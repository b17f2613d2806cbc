//! Closed load (the default): on each connection, one message in flight; the next is sent once
//! the previous echo is in (or, over UDP, lost), when the pacer says.

use std::time::Instant;

use rtt_core::runtime::Runtime;

use super::{
    link::{Answer, HttpLink, Link, TcpLink, UdpLink, stalled_past_end},
    timeline::{Connection, Outcome},
};
use crate::{
    pacing::Wait,
    recorder::Recorder,
    wire::{self, Protocol},
};

/// One TCP connection under closed load.
pub(super) async fn tcp<R: Runtime>(stream: R::TcpStream, part: Connection) -> Outcome {
    let link = TcpLink::new(stream, part.target, part.payload);
    let (recorder, result, _) = over_stream::<R, _>(link, part, Protocol::Tcp).await;
    (recorder, result)
}

/// One HTTP connection under closed load: TCP's loop, with the responses' tally.
pub(super) async fn http<R: Runtime>(stream: R::TcpStream, part: Connection) -> Outcome {
    let link = HttpLink::new(stream, part.target, part.payload);
    let (mut recorder, result, link) = over_stream::<R, _>(link, part, Protocol::Http).await;
    recorder.http = link.tally().clone();
    (recorder, result)
}

/// A stream's exchanges, bounded by the run's guard (a read or write has no deadline of its own).
async fn over_stream<R: Runtime, L: Link>(
    mut link: L,
    part: Connection,
    transport: Protocol,
) -> (Recorder, anyhow::Result<()>, L) {
    let address = part.target;
    let mut recorder = part.timeline.recorder();
    let exchanges = exchange_loop::<R, _>(&mut link, part, &mut recorder);
    let result = R::until(part.timeline.deadline, exchanges)
        .await
        .unwrap_or_else(|| Err(stalled_past_end(address, transport)));
    (recorder, result, link)
}

/// One UDP socket under closed load (each datagram has its own deadline).
pub(super) async fn udp<R: Runtime>(socket: R::UdpSocket, part: Connection) -> Outcome {
    let mut recorder = part.timeline.recorder();
    let mut link = UdpLink::new(socket, &part);
    let result = exchange_loop::<R, _>(&mut link, part, &mut recorder).await;
    (recorder, result)
}

/// Sends message after message as the pacer says until the measured window ends; records the
/// replies of messages sent inside the window.
async fn exchange_loop<R: Runtime, L: Link>(
    link: &mut L,
    part: Connection,
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    let (pacer, measure_start, end) = (part.pacer, part.timeline.measure_start, part.timeline.end);
    let mut now = Instant::now();
    for seq in 0.. {
        let late = match pacer.wait(seq, now) {
            Wait::None => false,
            Wait::Late => true,
            Wait::Until(due) if due >= end => break,
            Wait::Until(due) => {
                R::sleep_until(due).await;
                false
            }
        };
        wire::write_seq(link.message(), seq);
        let sent_at = Instant::now();
        if sent_at >= end {
            break;
        }
        let measured = sent_at >= measure_start;
        if measured {
            recorder.sent += 1;
            recorder.late += u64::from(late);
        }
        let echo = link.exchange(seq, sent_at).await?;
        now = echo.at;
        if measured {
            recorder.out_of_order += echo.stale;
            match echo.answer {
                Answer::Echoed => recorder.record(seq, sent_at - measure_start, echo.at - sent_at),
                Answer::Lost => recorder.lost += 1,
                Answer::Refused => {}
            }
        }
    }
    Ok(())
}
