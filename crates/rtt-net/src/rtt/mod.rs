//! The RTT client: opens `--connections` TCP connections (or UDP sockets) to a pong, drives each
//! from its own task on the runtime under test, and keeps the RTT of every reply in the measured
//! window. Two loops, one per load ([`closed`] and [`open`], siblings over the [`timeline`] they
//! share), serve every runtime and both transports; only the calls behind the runtime's traits
//! and the `Link` (TCP or UDP) differ.

mod closed;
mod in_flight;
mod link;
mod open;
mod report;
mod sender;
mod spec;
mod timeline;

use anyhow::anyhow;
use rtt_core::runtime::{Runtime, RuntimeInfo, TcpIo, connect_to_pong, udp_to_pong};

pub use self::{
    report::RttReport,
    spec::{Load, RttSpec},
};

use self::timeline::{Connection, Outcome, Timeline};
use rtt_core::log::{HttpFacts, RunCounters};
use rtt_counters::Counting;

use crate::{
    http::{
        client::{EchoRequest, Tally},
        routes::{ECHO_METHOD, ECHO_PATH},
    },
    lifecycle::{Lifecycle, RunSpec},
    pacing::Pacer,
    recorder::Recorder,
    wire::{self, Protocol},
};

/// One RTT run on the runtime under test.
pub async fn session<R: Runtime>(
    run: RunSpec,
    spec: RttSpec,
    info: RuntimeInfo,
    counting: Option<Counting>,
) -> RttReport {
    let lifecycle = Lifecycle::<R>::begin(&run);
    let (recorders, outcome, counters) = measure::<R>(&run, spec, counting).await;
    let context = lifecycle.end(&run, info, outcome).await;
    let http = (run.transport == Protocol::Http).then(|| http_facts(&run, &recorders));
    RttReport::new(context, &spec, recorders, http, counters)
}

/// Opens every connection, then runs them all, each in its own task; their recorders, in the
/// order of the connections, the first error, and what each end did over the window.
async fn measure<R: Runtime>(
    run: &RunSpec,
    spec: RttSpec,
    mut counting: Option<Counting>,
) -> (Vec<Recorder>, anyhow::Result<()>, Option<RunCounters>) {
    let address = run.target;
    let n = spec.connections;
    let part = |timeline: Timeline, conn: u32| Connection {
        target: address,
        payload: run.payload,
        pacer: Pacer::for_connection(spec.schedule, timeline.start, conn, n),
        timeline,
        window: spec.window,
        udp_timeout: spec.udp_timeout,
    };
    let opened =
        match run.transport {
            Protocol::Tcp | Protocol::Http => open_all(n, || connect_to_pong::<R>(address))
                .await
                .map(|streams| {
                    let timeline = Timeline::starting_now(run);
                    if let Some(c) = counting.as_mut() {
                        c.over(timeline.measure_start, timeline.end);
                    }
                    let http = run.transport == Protocol::Http;
                    let task =
                        |(conn, stream)| tcp_connection::<R>(stream, part(timeline, conn), http);
                    (0..)
                        .zip(streams)
                        .map(task)
                        .map(R::spawn)
                        .collect::<Vec<_>>()
                }),
            Protocol::Udp => open_all(n, || udp_to_pong::<R>(address))
                .await
                .map(|sockets| {
                    let timeline = Timeline::starting_now(run);
                    if let Some(c) = counting.as_mut() {
                        c.over(timeline.measure_start, timeline.end);
                    }
                    let task = |(conn, socket)| udp_connection::<R>(socket, part(timeline, conn));
                    (0..).zip(sockets).map(task).map(R::spawn).collect()
                }),
        };
    let tasks = match opened {
        Ok(tasks) => tasks,
        Err(error) => return (Vec::new(), Err(error), None),
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
    if outcome.is_ok() && run.transport == Protocol::Udp {
        let sent: u64 = recorders.iter().map(|r| r.sent).sum();
        if sent > 0 && recorders.iter().all(|r| r.received() == 0) {
            outcome = Err(anyhow!(
                "none of the {sent} datagrams sent to {address} (udp) was answered within {} ms: is the pong running and the port open?",
                spec.udp_timeout.as_millis()
            ));
        }
    }
    let counters = counting.and_then(|c| c.finish(outcome.is_ok()));
    (recorders, outcome, counters)
}

/// What an HTTP run asked, and how its responses came back.
fn http_facts(run: &RunSpec, recorders: &[Recorder]) -> HttpFacts {
    let request = EchoRequest::new(run.target, &wire::message(run.payload));
    let mut tally = Tally::default();
    recorders.iter().for_each(|r| tally.add(&r.http));
    HttpFacts {
        method: ECHO_METHOD.to_owned(),
        path: ECHO_PATH.to_owned(),
        body_bytes: run.payload,
        request_head_bytes: request.body_at,
        response_head_bytes: tally.response_head_bytes,
        statuses: tally
            .statuses
            .iter()
            .map(|(status, count)| (status.to_string(), *count))
            .collect(),
    }
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

/// One TCP connection, bare or carrying HTTP, under either load.
async fn tcp_connection<R: Runtime>(
    mut stream: R::TcpStream,
    part: Connection,
    http: bool,
) -> Outcome {
    // std's blocking calls have socket timeouts instead of the runtime's race against a timer.
    if let Err(error) = stream.bound_by(part.timeline.deadline) {
        let error = anyhow!(error).context(format!(
            "setting the timeouts of the stream to {}",
            part.target
        ));
        return (Recorder::new(), Err(error));
    }
    match (part.window, http) {
        (Some(window), false) => open::tcp::<R>(stream, part, window).await,
        (None, false) => closed::tcp::<R>(stream, part).await,
        (Some(window), true) => open::http::<R>(stream, part, window).await,
        (None, true) => closed::http::<R>(stream, part).await,
    }
}

/// One UDP socket, under either load.
async fn udp_connection<R: Runtime>(socket: R::UdpSocket, part: Connection) -> Outcome {
    match part.window {
        Some(window) => open::udp::<R>(socket, part, window).await,
        None => closed::udp::<R>(socket, part).await,
    }
}
