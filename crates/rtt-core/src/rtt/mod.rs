//! The RTT client: opens `--connections` TCP connections (or UDP sockets) to a pong, drives each
//! from its own task on the runtime under test, and keeps the RTT of every reply in the measured
//! window. One loop per load (closed here, open in [`open`]) serves every runtime and both
//! transports; only the calls behind the [`Runtime`] traits and the `Link` (TCP or UDP) differ.

mod in_flight;
mod link;
mod open;
mod report;

use std::{sync::Arc, time::Instant};

use anyhow::{anyhow, bail};

pub use report::RttReport;

use self::link::{Link, TcpLink, UdpLink};
use crate::{
    frame::Frame,
    options::{Load, PingOptions, Protocol},
    pacing::{Pacer, Wait},
    recorder::Recorder,
    runtime::{Runtime, RuntimeInfo, STALL_LIMIT, TcpIo, connect_to_pong, udp_to_pong},
    wire,
};

/// What one connection kept, and how it ended.
type Outcome = (Recorder, anyhow::Result<()>);

/// One RTT run on the runtime under test.
pub async fn session<R: Runtime>(options: PingOptions, info: RuntimeInfo) -> RttReport {
    let frame = Frame::<R>::begin(&options);
    let options = Arc::new(options);
    let (recorders, outcome) = measure::<R>(&options).await;
    let context = frame.end(&options, info, outcome).await;
    RttReport::new(context, &options, recorders)
}

/// The times every connection of a run shares.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// When the first message is due, once every connection is open.
    start: Instant,
    measure_start: Instant,
    end: Instant,
    /// A TCP read or write has no deadline of its own: one guard for the whole run (UDP needs
    /// none, each datagram has its own), so a stalled pong cannot hold the ping forever.
    deadline: Instant,
}

impl Plan {
    fn starting_now(options: &PingOptions) -> Self {
        let start = Instant::now();
        let measure_start = start + options.warmup();
        let end = measure_start + options.duration();
        Self {
            start,
            measure_start,
            end,
            deadline: end + STALL_LIMIT,
        }
    }

    /// Connection `conn`'s share of the schedule.
    fn pacer(&self, conn: u32, options: &PingOptions) -> Pacer {
        let (interval, n) = (options.interval(), options.connections);
        Pacer::for_connection(options.pacing, self.start, interval, conn, n)
    }

    /// A connection's recorder, for this run's measured window.
    fn recorder(&self) -> Recorder {
        let mut recorder = Recorder::new();
        recorder.window = Some((self.measure_start, self.end));
        recorder
    }
}

/// Opens every connection, then runs them all, each in its own task; their recorders, in the
/// order of the connections, and the first error.
async fn measure<R: Runtime>(options: &Arc<PingOptions>) -> (Vec<Recorder>, anyhow::Result<()>) {
    let address = options.address;
    let n = options.connections;
    let opened = match options.protocol {
        Protocol::Tcp => open_all(n, || connect_to_pong::<R>(address))
            .await
            .map(|streams| {
                let plan = Plan::starting_now(options);
                let run = |(conn, stream)| tcp_connection::<R>(stream, conn, plan, options.clone());
                (0..)
                    .zip(streams)
                    .map(run)
                    .map(R::spawn)
                    .collect::<Vec<_>>()
            }),
        Protocol::Udp => open_all(n, || udp_to_pong::<R>(address))
            .await
            .map(|sockets| {
                let plan = Plan::starting_now(options);
                let run = |(conn, socket)| udp_connection::<R>(socket, conn, plan, options.clone());
                (0..).zip(sockets).map(run).map(R::spawn).collect()
            }),
    };
    let tasks = match opened {
        Ok(tasks) => tasks,
        Err(error) => return (Vec::new(), Err(error)),
    };
    let mut recorders = Vec::with_capacity(tasks.len());
    let mut outcome = Ok(());
    for (conn, task) in (0..).zip(tasks) {
        let (recorder, result) = task.await;
        recorders.push(recorder);
        if let (Ok(()), Err(error)) = (&outcome, result) {
            outcome = Err(match n {
                1 => error,
                _ => error.context(format!("connection {conn} of {n}")),
            });
        }
    }
    if outcome.is_ok() && options.protocol == Protocol::Udp {
        let sent: u64 = recorders.iter().map(|r| r.sent).sum();
        if sent > 0 && recorders.iter().all(|r| r.received() == 0) {
            outcome = Err(anyhow!(
                "none of the {sent} datagrams sent to {address} (udp) was answered within {} ms: is the pong running and the port open?",
                options.udp_timeout_ms
            ));
        }
    }
    (recorders, outcome)
}

/// Opens `n` sockets with `open`, one after the other, before any is used; the first error ends it.
async fn open_all<T, F>(n: u32, mut open: impl FnMut() -> F) -> anyhow::Result<Vec<T>>
where
    F: Future<Output = anyhow::Result<T>>,
{
    let mut opened = Vec::with_capacity(n as usize);
    for _ in 0..n {
        opened.push(open().await?);
    }
    Ok(opened)
}

/// One TCP connection, under either load.
async fn tcp_connection<R: Runtime>(
    mut stream: R::TcpStream,
    conn: u32,
    plan: Plan,
    options: Arc<PingOptions>,
) -> Outcome {
    let address = options.address;
    // std's blocking calls have socket timeouts instead of the runtime's race against a timer.
    if let Err(error) = stream.bound_by(plan.deadline) {
        let error =
            anyhow!(error).context(format!("setting the timeouts of the stream to {address}"));
        return (Recorder::new(), Err(error));
    }
    let pacer = plan.pacer(conn, &options);
    if options.load == Load::Open {
        return open::tcp::<R>(stream, pacer, plan, &options).await;
    }
    let mut recorder = plan.recorder();
    let mut link = TcpLink::new(stream, address, options.size);
    let exchanges = exchange_loop::<R, _>(&mut link, pacer, plan, &mut recorder);
    let result = R::until(plan.deadline, exchanges).await.unwrap_or_else(|| {
        bail!(
            "no echo from the pong at {address} (tcp) for {} s past the run's end: is it stopped or overloaded?",
            STALL_LIMIT.as_secs()
        )
    });
    (recorder, result)
}

/// One UDP socket, under either load.
async fn udp_connection<R: Runtime>(
    socket: R::UdpSocket,
    conn: u32,
    plan: Plan,
    options: Arc<PingOptions>,
) -> Outcome {
    let pacer = plan.pacer(conn, &options);
    if options.load == Load::Open {
        return open::udp::<R>(socket, pacer, plan, &options).await;
    }
    let mut recorder = plan.recorder();
    let mut link = UdpLink::new(socket, options.address, &options);
    let result = exchange_loop::<R, _>(&mut link, pacer, plan, &mut recorder).await;
    (recorder, result)
}

/// Sends message after message as the pacer says until the measured window ends; records the
/// replies of messages sent inside the window.
async fn exchange_loop<R: Runtime, L: Link>(
    link: &mut L,
    pacer: Pacer,
    plan: Plan,
    recorder: &mut Recorder,
) -> anyhow::Result<()> {
    let Plan {
        measure_start, end, ..
    } = plan;
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
            match echo.received {
                true => recorder.record(seq, sent_at - measure_start, echo.at - sent_at),
                false => recorder.lost += 1,
            }
        }
    }
    Ok(())
}
