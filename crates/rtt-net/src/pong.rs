//! The pong: echoes every TCP client byte for byte as read, every UDP datagram back to its
//! sender, and every HTTP `POST /echo`'s body in its response (`http`), until killed (`--mode throughput`: counts them instead). A client that misbehaves
//! only ever loses its own connection. `--delay-ns` holds each echo (or, with `--delay-every N`,
//! one in N) back by a known time, to plant a difference a sweep should call.

use std::{
    io::Write,
    net::SocketAddr,
    process::ExitCode,
    time::{Duration, Instant},
};

use anyhow::Context;
use clap::Args;
use rtt_core::{
    cli,
    runtime::{Runtime, TcpIo, UdpIo},
};

use crate::{
    delay::PlantedDelay,
    http::{self, ServerSpec},
    options::{self, Mode, PingOptions, PongOptions},
    throughput,
    wire::Protocol,
};

/// Big enough for any UDP datagram and for large TCP reads.
const BUFFER: usize = 64 * 1024;

/// Runs the pong `name` (the name it was started under, e.g. `tokio-pong`) on runtime `R`.
pub fn main<R: Runtime>(name: &'static str) -> ExitCode {
    let about = "Echoes the messages of this suite's pings until killed";
    let ping = PingOptions::augment_args(clap::Command::new("ping"));
    let (options, knobs, mut command) =
        cli::parse::<PongOptions, R::Knobs>(name, about, R::FRAMEWORK, &[ping]);
    options::check_pong(&options, &mut command);
    let result = R::run(&knobs, move |_| serve::<R>(options)).and_then(|served| served);
    if let Err(error) = result {
        eprintln!("{name}: error: {error:#}");
    }
    ExitCode::FAILURE
}

async fn serve<R: Runtime>(options: PongOptions) -> anyhow::Result<()> {
    let address = options.address;
    // Counted over the whole pong, every transport and client together (`delay`).
    let delay = PlantedDelay::new(
        Duration::from_nanos(options.delay_ns),
        options.delay_every(),
    )
    .leak();
    match options.protocol {
        Protocol::Tcp | Protocol::Http => {
            let over = options.protocol;
            let listener = R::listen(address)
                .await
                .with_context(|| format!("listening on {address} ({})", over.as_str()))?;
            announce(R::listener_address(&listener)?, over)?;
            let spec = ServerSpec {
                header_timeout: Duration::from_millis(options.header_timeout_ms),
                delay,
            };
            loop {
                match (R::accept(&listener).await, over, options.mode) {
                    (Ok((stream, _)), Protocol::Http, _) => {
                        R::detach(R::spawn(http::serve_connection::<R>(stream, spec)))
                    }
                    (Ok((stream, _)), _, Mode::Rtt) => R::detach(R::spawn(echo_tcp(stream, delay))),
                    (Ok((stream, peer)), _, Mode::Throughput) => R::detach(R::spawn(async move {
                        if let Err(error) = throughput::sink_tcp(stream).await {
                            eprintln!("warning: throughput session from {peer}: {error:#}");
                        }
                    })),
                    (Err(error), ..) => {
                        eprintln!("warning: accepting a client on {address}: {error}");
                        // Out of file descriptors, say: back off rather than spin on the error.
                        R::sleep_until(Instant::now() + Duration::from_millis(10)).await;
                    }
                }
            }
        }
        Protocol::Udp => {
            let socket = R::bind_udp(address)
                .await
                .with_context(|| format!("listening on {address} (udp)"))?;
            announce(socket.local_address()?, options.protocol)?;
            if options.mode == Mode::Throughput {
                throughput::sink_udp(socket).await;
                return Ok(());
            }
            let mut buf = vec![0; BUFFER];
            loop {
                // A failed receive or send concerns one datagram; the next one is served anyway.
                let received;
                (received, buf) = socket.recv_from(buf).await;
                if let Ok((len, peer)) = received {
                    delay.before_echo();
                    (_, buf) = socket.send_to(buf, len, peer).await;
                }
            }
        }
    }
}

/// The line scripts and tests wait for, flushed at once.
fn announce(address: SocketAddr, protocol: Protocol) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on {address} ({})", protocol.as_str())?;
    stdout.flush().context("writing the 'listening on' line")
}

/// Echoes one client until it leaves; any error ends this client only.
async fn echo_tcp<S: TcpIo>(mut stream: S, delay: &'static PlantedDelay) {
    let mut buf = vec![0; BUFFER];
    loop {
        let (read, lent) = stream.read(buf).await;
        let Ok(len @ 1..) = read else { return };
        // An echo is what one read brought (a whole message, unless the ping has several in flight).
        delay.before_echo();
        let (written, lent) = stream.write_all(lent, len).await;
        if written.is_err() {
            return;
        }
        buf = lent;
    }
}
