//! The RTT client: connects to a pong, sends paced messages on the runtime under test and keeps
//! the RTT of every reply in the measured window. One loop serves every runtime and both
//! transports; only the calls behind the [`Runtime`] traits and the `Link` (TCP or UDP) differ.

mod link;
mod report;

use std::time::Instant;

use anyhow::{Context, anyhow, bail};

pub use report::RttReport;

use self::link::{Link, TcpLink, UdpLink};
use crate::{
    frame::Frame,
    options::{PacingMode, PingOptions, Protocol},
    pacing::{Pacer, Wait},
    recorder::Recorder,
    runtime::{Runtime, RuntimeInfo, STALL_LIMIT, TcpIo, connect_to_pong, udp_to_pong},
    wire,
};

/// One RTT run on the runtime under test.
pub async fn session<R: Runtime>(options: PingOptions, info: RuntimeInfo) -> RttReport {
    let frame = Frame::<R>::begin(&options);
    let mut recorder = Recorder::new();
    let outcome = measure::<R>(&options, &mut recorder).await;
    let context = frame.end(&options, info, outcome).await;
    RttReport::new(context, &options, recorder)
}

/// Connects and runs the exchange loop until the measured window ends.
async fn measure<R: Runtime>(options: &PingOptions, recorder: &mut Recorder) -> anyhow::Result<()> {
    let address = options.address;
    match options.protocol {
        Protocol::Tcp => {
            let mut stream = connect_to_pong::<R>(address).await?;
            // A TCP read or write has no deadline of its own: one guard for the whole run (UDP
            // needs none, each datagram has its own), so a stalled pong cannot hold the ping
            // forever. std's blocking calls have socket timeouts instead.
            let deadline = Instant::now() + options.warmup() + options.duration() + STALL_LIMIT;
            stream
                .bound_by(deadline)
                .with_context(|| format!("setting the timeouts of the stream to {address}"))?;
            let mut link = TcpLink::new(stream, address, options.size);
            let exchanges = exchange_loop::<R, _>(&mut link, options, recorder);
            R::until(deadline, exchanges).await.unwrap_or_else(|| {
                Err(anyhow!(
                    "no echo from the pong at {address} (tcp) for {} s past the run's end: is it stopped or overloaded?",
                    STALL_LIMIT.as_secs()
                ))
            })
        }
        Protocol::Udp => {
            let socket = udp_to_pong::<R>(address).await?;
            let mut link = UdpLink::new(socket, address, options);
            exchange_loop::<R, _>(&mut link, options, recorder).await?;
            if recorder.sent > 0 && recorder.received() == 0 {
                bail!(
                    "none of the {} datagrams sent to {address} (udp) was answered within {} ms: is the pong running and the port open?",
                    recorder.sent,
                    options.udp_timeout_ms
                );
            }
            Ok(())
        }
    }
}

/// Sends message after message as the pacer says until the measured window ends; records the
/// replies of messages sent inside the window.
async fn exchange_loop<R: Runtime, L: Link>(
    link: &mut L,
    options: &PingOptions,
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    let start = Instant::now();
    let measure_start = start + options.warmup();
    let end = measure_start + options.duration();
    recorder.window = Some((measure_start, end));
    let interval = options.interval();
    let pacer = match options.pacing {
        _ if interval.is_zero() => Pacer::BackToBack,
        PacingMode::Schedule => Pacer::Schedule { start, interval },
        PacingMode::Sleep => Pacer::Sleep { interval },
    };
    let mut now = start;
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
            match echo.received {
                true => recorder.record(seq, sent_at - measure_start, echo.at - sent_at),
                false => recorder.lost += 1,
            }
        }
    }
    Ok(())
}
