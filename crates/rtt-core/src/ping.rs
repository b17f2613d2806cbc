//! The ping: connects to a pong, sends paced messages on the runtime under test and keeps the RTT
//! of every reply in the measured window. One loop serves every runtime and both transports;
//! only the calls behind the [`Runtime`] traits differ.

use std::{
    future::Future,
    io,
    net::SocketAddr,
    process::ExitCode,
    time::{Duration, Instant, SystemTime},
};

use anyhow::{Context, anyhow, bail};

use crate::{
    decoy::Decoys,
    machine::{self, Machine},
    options::{self, Mode, PacingMode, PingOptions, Protocol},
    output::{LogFiles, Outcome, RttReport, RunContext},
    pacing::{Pacer, Wait},
    recorder::Recorder,
    runtime::{Runtime, RuntimeInfo, TcpIo, UdpIo, connect_to_pong, udp_to_pong},
    stats::RttStats,
    throughput, wire,
};

/// How long after its planned end a run may still wait for a TCP echo before giving up on a
/// stalled pong (std: how long one read may block).
pub const TCP_STALL_LIMIT: Duration = Duration::from_secs(5);

/// Entry point of every `*-ping` binary.
pub fn main<R: Runtime>() -> ExitCode {
    let name: &'static str = Box::leak(format!("{}-ping", R::BINARY_PREFIX).into_boxed_str());
    let about =
        "Measures round-trip times (or throughput) to a pong of this suite and prints or logs them";
    let (options, mut command) = options::parse::<PingOptions>(name, about);
    options::check_ping::<R>(&options, &mut command);
    match run::<R>(name, options) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("{name}: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run<R: Runtime>(name: &str, options: PingOptions) -> anyhow::Result<ExitCode> {
    let files = options.out.as_deref().map(LogFiles::create).transpose()?;
    let json = options.json;
    let outcome: Box<dyn Outcome> = R::run(&options.runtime.clone(), move |info| async move {
        match options.mode {
            Mode::Rtt => Box::new(session::<R>(options, info).await) as Box<dyn Outcome>,
            Mode::Throughput => Box::new(throughput::session::<R>(options, info).await),
        }
    })?;
    if let Some(files) = files {
        files.write(outcome.as_ref())?;
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&outcome.to_json())?);
    } else if outcome.sent() > 0 {
        print!("{}", outcome.human());
    }
    if let Some(warning) = outcome.warning() {
        eprintln!("{name}: warning: {warning}");
    }
    Ok(match &outcome.context().error {
        Some(error) => {
            eprintln!("{name}: error: {error} (what was measured is kept)");
            ExitCode::FAILURE
        }
        None => ExitCode::SUCCESS,
    })
}

/// What every run does around its measurement: note the start, run the decoys during it, and
/// describe it afterwards.
pub(crate) struct Frame<R: Runtime> {
    started_at: String,
    decoys: Decoys<R>,
}

impl<R: Runtime> Frame<R> {
    /// Starts the decoys, before any warm-up.
    pub(crate) fn begin(options: &PingOptions) -> Self {
        let work = Duration::from_micros(options.decoy_work_us);
        Self {
            started_at: machine::rfc3339(SystemTime::now()),
            decoys: Decoys::<R>::spawn(options.tasks, options.decoy, work),
        }
    }

    /// Stops the decoys and describes the run.
    pub(crate) async fn end(
        self,
        options: &PingOptions,
        info: RuntimeInfo,
        outcome: anyhow::Result<()>,
    ) -> RunContext {
        let decoy_iterations = self.decoys.stop().await;
        RunContext {
            framework: R::FRAMEWORK,
            framework_version: R::version(),
            flavor: info.flavor,
            threads: info.threads,
            transport: options.protocol.as_str(),
            payload: options.size,
            tasks: options.tasks,
            decoy: match options.decoy {
                options::DecoyKind::Spin => "spin",
                options::DecoyKind::Sleep => "sleep",
            },
            decoy_work_us: options.decoy_work_us,
            decoy_iterations,
            duration_s: options.duration,
            warmup_s: options.warmup,
            address: options.address.to_string(),
            machine: Machine::read(),
            started_at: self.started_at,
            error: outcome.err().map(|e| format!("{e:#}")),
        }
    }
}

/// One RTT run on the runtime under test.
async fn session<R: Runtime>(options: PingOptions, info: RuntimeInfo) -> RttReport {
    let frame = Frame::<R>::begin(&options);
    let mut recorder = Recorder::new();
    let outcome = measure::<R>(&options, &mut recorder).await;
    let context = frame.end(&options, info, outcome).await;

    let measured_for = recorder
        .window
        .map(|(start, end)| Instant::now().clamp(start, end) - start)
        .unwrap_or_default();
    let achieved_rate = if measured_for.is_zero() {
        0.0
    } else {
        recorder.sent as f64 / measured_for.as_secs_f64()
    };
    RttReport {
        context,
        interval_s: options.interval().as_secs_f64(),
        pacing: match options.pacing {
            PacingMode::Schedule => "schedule",
            PacingMode::Sleep => "sleep",
        },
        udp_timeout_ms: options.udp_timeout_ms,
        sent: recorder.sent,
        lost: recorder.lost,
        late: recorder.late,
        out_of_order: recorder.out_of_order,
        achieved_rate,
        stats: RttStats::from_samples(&mut recorder.rtts_ns()),
        recorder,
    }
}

/// Connects and runs the exchange loop until the measured window ends.
async fn measure<R: Runtime>(options: &PingOptions, recorder: &mut Recorder) -> anyhow::Result<()> {
    let address = options.address;
    match options.protocol {
        Protocol::Tcp => {
            let stream = connect_to_pong::<R>(address).await?;
            let mut link = TcpLink {
                stream,
                address,
                echo: vec![0; options.size],
            };
            // A TCP read has no deadline of its own: one guard for the whole run (UDP needs none,
            // each datagram has its own), so a stalled pong cannot hold the ping forever.
            let deadline = Instant::now() + options.warmup() + options.duration() + TCP_STALL_LIMIT;
            let exchanges = exchange_loop::<R, _>(&mut link, options, recorder);
            R::until(deadline, exchanges).await.unwrap_or_else(|| {
                Err(anyhow!(
                    "no echo from the pong at {address} (tcp) for {} s past the run's end: is it stopped or overloaded?",
                    TCP_STALL_LIMIT.as_secs()
                ))
            })
        }
        Protocol::Udp => {
            let socket = udp_to_pong::<R>(address).await?;
            let mut link = UdpLink {
                socket,
                address,
                size: options.size,
                timeout: options.udp_timeout(),
                echo: vec![0; options::MAX_UDP_PAYLOAD + 1],
            };
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
    let mut message = wire::message(options.size);
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
        wire::write_seq(&mut message, seq);
        let sent_at = Instant::now();
        if sent_at >= end {
            break;
        }
        let measured = sent_at >= measure_start;
        if measured {
            recorder.sent += 1;
            recorder.late += u64::from(late);
        }
        let echo = link.exchange(&message, seq, sent_at).await?;
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

/// What came back for one message.
struct Echo {
    /// When the reply was read (or when the wait for it ended).
    at: Instant,
    /// Whether the message's own reply arrived in time.
    received: bool,
    /// Replies that belonged to earlier messages (or to none) and were set aside.
    stale: u64,
}

/// One message out, its echo back: the part that differs between TCP and UDP.
trait Link: Send {
    fn exchange(
        &mut self,
        message: &[u8],
        seq: u64,
        sent_at: Instant,
    ) -> impl Future<Output = anyhow::Result<Echo>> + Send;
}

struct TcpLink<S> {
    stream: S,
    address: SocketAddr,
    echo: Vec<u8>,
}

impl<S: TcpIo> Link for TcpLink<S> {
    async fn exchange(
        &mut self,
        message: &[u8],
        seq: u64,
        _sent_at: Instant,
    ) -> anyhow::Result<Echo> {
        let address = self.address;
        self.stream
            .write_all(message)
            .await
            .with_context(|| format!("sending to the pong at {address} (tcp)"))?;
        if let Err(error) = self.stream.read_exact(&mut self.echo).await {
            return Err(match error.kind() {
                io::ErrorKind::UnexpectedEof => {
                    anyhow!("the pong at {address} (tcp) closed the connection")
                }
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => anyhow!(
                    "no echo from the pong at {address} (tcp) for {} s: is it stopped or overloaded?",
                    TCP_STALL_LIMIT.as_secs()
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

struct UdpLink<U> {
    socket: U,
    address: SocketAddr,
    size: usize,
    timeout: Duration,
    echo: Vec<u8>,
}

impl<U: UdpIo> Link for UdpLink<U> {
    async fn exchange(
        &mut self,
        message: &[u8],
        seq: u64,
        sent_at: Instant,
    ) -> anyhow::Result<Echo> {
        let address = self.address;
        let refused =
            || anyhow!("the pong at {address} (udp) refused the datagram: is it running?");
        match self.socket.send(message).await {
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return Err(refused()),
            other => other.with_context(|| format!("sending to the pong at {address} (udp)"))?,
        };
        let deadline = sent_at + self.timeout;
        let mut stale = 0;
        loop {
            match self.socket.recv_until(&mut self.echo, deadline).await {
                Ok(Some(len)) => {
                    let at = Instant::now();
                    if len == self.size && wire::read_seq(&self.echo[..len]) == Some(seq) {
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
