//! Command-line options, defined once and flattened into every ping and pong so all runtimes
//! accept exactly the same flags. Bad values are rejected here, before anything runs (exit 2).

use std::{
    net::{SocketAddr, ToSocketAddrs},
    path::PathBuf,
    time::Duration,
};

use clap::{ArgMatches, Args, Command, FromArgMatches, ValueEnum, error::ErrorKind};

use crate::{
    build_info,
    decoy::DecoyKind,
    descriptors, pacing,
    runtime::{Knob, Runtime, RuntimeOptions},
    wire::{self, MAX_TCP_PAYLOAD, MAX_UDP_PAYLOAD},
};

/// The most connections one ping opens (`--connections`).
pub const MAX_CONNECTIONS: i64 = 100_000;

/// Messages in flight per connection in open load when `--window` is not given.
pub const DEFAULT_WINDOW: u32 = 64;

/// The longest UDP throughput run: its per-window counts must fit one datagram.
pub const MAX_UDP_THROUGHPUT_SECONDS: f64 = 400.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Protocol {
    Tcp,
    Udp,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Tcp => "tcp",
            Protocol::Udp => "udp",
        }
    }
}

impl PacingMode {
    pub fn as_str(self) -> &'static str {
        match self {
            PacingMode::Schedule => "schedule",
            PacingMode::Sleep => "sleep",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Round-trip times of paced messages (the pong echoes)
    Rtt,
    /// One-way messages as fast as possible (the pong counts them)
    Throughput,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Load {
    /// Each connection sends its next message once the previous echo is in
    Closed,
    /// Each connection sends on its schedule, echoes or not (up to --window in flight)
    Open,
}

impl Load {
    pub fn as_str(self) -> &'static str {
        match self {
            Load::Closed => "closed",
            Load::Open => "open",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PacingMode {
    /// Message k is due at t0 + k·interval (the rate on the x-axis is the rate asked for).
    Schedule,
    /// Sleep the interval after each reply (the 2022 method; the real rate is lower).
    Sleep,
}

/// Options of every `*-ping`.
#[derive(Args, Clone, Debug)]
pub struct PingOptions {
    /// The pong to measure against
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_address)]
    pub address: SocketAddr,
    /// What to measure; a throughput run needs a pong started with `--mode throughput`
    #[arg(long, value_enum, default_value_t = Mode::Rtt)]
    pub mode: Mode,
    /// Transport
    #[arg(long, value_enum, default_value_t = Protocol::Tcp)]
    pub protocol: Protocol,
    /// Payload in bytes: at least 8 (the sequence number); UDP at most 65507
    #[arg(long, value_name = "BYTES", default_value_t = 64, value_parser = parse_size, allow_negative_numbers = true)]
    pub size: usize,
    /// Time between sends; 0 = back-to-back
    #[arg(long, value_name = "SECONDS", value_parser = parse_interval, conflicts_with = "rate", allow_negative_numbers = true)]
    pub interval: Option<f64>,
    /// Messages per second: the inverse of --interval
    #[arg(long, value_name = "MSG_PER_S", value_parser = parse_rate, allow_negative_numbers = true)]
    pub rate: Option<f64>,
    /// schedule: message k is due at t0 + k·interval; sleep: sleep the interval after each reply
    #[arg(long, value_enum, default_value_t = PacingMode::Schedule)]
    pub pacing: PacingMode,
    /// Measured time, after the warm-up
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_positive_seconds, allow_negative_numbers = true)]
    pub duration: f64,
    /// Time sent and received before measuring, excluded from the statistics
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, value_parser = parse_seconds, allow_negative_numbers = true)]
    pub warmup: f64,
    /// TCP connections (or UDP sockets) to the pong, each driven by its own task (std: thread),
    /// with its own sequence numbers; --rate is their aggregate, each sends at rate/N, staggered
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_CONNECTIONS))]
    pub connections: u32,
    /// closed: a connection's next message waits for its previous echo; open: each connection
    /// sends on schedule (a sender and a receiver task), and latency_ns counts from when each
    /// message was due
    #[arg(long, value_enum, default_value_t = Load::Closed)]
    pub load: Load,
    /// Open load: the most messages in flight per connection; a send held back is late
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub window: Option<u32>,
    /// CPU-bound decoy tasks spawned on the same runtime (std: threads)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub tasks: u32,
    /// What each decoy does between yields
    #[arg(long, value_enum, default_value_t = DecoyKind::Spin)]
    pub decoy: DecoyKind,
    /// Busy work per decoy iteration, in microseconds
    #[arg(long, value_name = "US", default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub decoy_work_us: u64,
    /// A datagram unanswered this long is counted lost and the next one is sent
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=4000))]
    pub udp_timeout_ms: u64,
    /// Throughput over TCP: write whole messages in batches of up to this many bytes; 0 writes
    /// each message on its own (one system call per message, like an unbatched application)
    #[arg(long, value_name = "BYTES", default_value_t = 65_536, value_parser = clap::value_parser!(u64).range(0..=(64 << 20)))]
    pub batch: u64,
    #[command(flatten)]
    pub runtime: RuntimeOptions,
    /// The line this run belongs to when it is a variant of its runtime (a sweep's VARIANTS,
    /// e.g. `tokio-ei8`): recorded as the log's `variant`, beside the runtime's `framework`
    #[arg(long, value_name = "LABEL", value_parser = parse_variant)]
    pub variant: Option<String>,
    /// Write STEM.csv (one row per reply) and STEM.json (summary and context)
    #[arg(long, value_name = "STEM")]
    pub out: Option<PathBuf>,
    /// Print the JSON summary on stdout instead of the human one
    #[arg(long)]
    pub json: bool,
}

impl PingOptions {
    /// Time between sends; zero for back-to-back.
    pub fn interval(&self) -> Duration {
        match (self.interval, self.rate) {
            (_, Some(rate)) => pacing::interval_from_secs(1.0 / rate),
            (Some(seconds), None) => pacing::interval_from_secs(seconds),
            (None, None) => Duration::ZERO,
        }
    }

    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.duration)
    }

    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.warmup)
    }

    pub fn udp_timeout(&self) -> Duration {
        Duration::from_millis(self.udp_timeout_ms)
    }

    /// Open load's window (messages in flight per connection); `None` in closed load.
    pub fn window(&self) -> Option<u32> {
        (self.load == Load::Open).then(|| self.window.unwrap_or(DEFAULT_WINDOW))
    }

    /// Checks that need more than one option at a time.
    fn check(&self) -> Result<(), String> {
        if self.protocol == Protocol::Udp && self.size > MAX_UDP_PAYLOAD {
            return Err(format!(
                "--size {} is too large for UDP: a datagram carries at most {MAX_UDP_PAYLOAD} bytes; use --protocol tcp or a smaller --size",
                self.size
            ));
        }
        if self.window.is_some() && self.load == Load::Closed {
            return Err("--window applies to --load open: a closed loop has one message in flight per connection".to_owned());
        }
        if self.load == Load::Open {
            if self.interval().is_zero() {
                return Err("--load open sends on a schedule: give it one with --rate or --interval (not 0)".to_owned());
            }
            if self.pacing == PacingMode::Sleep {
                return Err("--load open sends on a schedule: drop --pacing sleep".to_owned());
            }
        }
        if self.pacing == PacingMode::Sleep && self.connections > 1 {
            return Err(
                "--pacing sleep (the 2022 method) drives one connection: drop it, or --connections"
                    .to_owned(),
            );
        }
        if self.mode == Mode::Throughput {
            if self.connections > 1 || self.load == Load::Open {
                return Err(
                    "--connections and --load apply to --mode rtt: a throughput run has one sender"
                        .to_owned(),
                );
            }
            if self.interval.is_some() || self.rate.is_some() {
                return Err("--interval and --rate do not apply to --mode throughput: it sends as fast as it can".to_owned());
            }
            let total = self.warmup + self.duration;
            if self.protocol == Protocol::Udp && total > MAX_UDP_THROUGHPUT_SECONDS {
                return Err(format!(
                    "--warmup plus --duration is {total} s: a UDP throughput run lasts at most {MAX_UDP_THROUGHPUT_SECONDS} s (its counts come back in one datagram)"
                ));
            }
        }
        Ok(())
    }
}

/// Options of every `*-pong`.
#[derive(Args, Clone, Debug)]
pub struct PongOptions {
    /// Where to listen; port 0 picks a free one (printed on the `listening on` line)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9009", value_parser = parse_address)]
    pub address: SocketAddr,
    /// rtt: echo every message; throughput: count messages and bytes, report them at the end
    #[arg(long, value_enum, default_value_t = Mode::Rtt)]
    pub mode: Mode,
    /// Transport
    #[arg(long, value_enum, default_value_t = Protocol::Tcp)]
    pub protocol: Protocol,
    /// TCP clients to be ready for at once: the file-descriptor limit is checked for them
    /// before listening
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_CONNECTIONS))]
    pub connections: u32,
    #[command(flatten)]
    pub runtime: RuntimeOptions,
}

/// Parses the command line of binary `name` into `T`; on bad input prints the problem and exits 2.
pub fn parse<T: Args + FromArgMatches>(name: &'static str, about: &'static str) -> (T, Command) {
    let command = T::augment_args(
        Command::new(name)
            .version(build_info::SUITE_VERSION)
            .about(about),
    );
    let matches: ArgMatches = command.clone().get_matches();
    match T::from_arg_matches(&matches) {
        Ok(options) => (options, command),
        Err(error) => error.format(&mut command.clone()).exit(),
    }
}

/// Rejects option combinations a single option's parser cannot see.
pub fn check_ping<R: Runtime>(options: &PingOptions, command: &mut Command) {
    if let Err(message) = options.check() {
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    check_runtime::<R>(&options.runtime, command);
    let what = format!("--connections {}", options.connections);
    check_room(
        descriptors::make_room_for(options.connections, &what),
        command,
    );
}

/// Rejects the options of a pong, once parsed.
pub fn check_pong<R: Runtime>(options: &PongOptions, command: &mut Command) {
    check_runtime::<R>(&options.runtime, command);
    // A UDP pong serves every peer from its one socket.
    if options.protocol == Protocol::Tcp {
        let what = format!("serving --connections {}", options.connections);
        check_room(
            descriptors::make_room_for(options.connections, &what),
            command,
        );
    }
}

/// Exits 2 when the open-files limit leaves no room for the sockets asked for.
fn check_room(room: Result<(), String>, command: &mut Command) {
    if let Err(message) = room {
        command.error(ErrorKind::ValueValidation, message).exit();
    }
}

/// Rejects runtime options the runtime under test does not have.
pub fn check_runtime<R: Runtime>(options: &RuntimeOptions, command: &mut Command) {
    let Some(knob) = Knob::ALL
        .into_iter()
        .find(|knob| knob.is_set(options) && !R::KNOBS.contains(knob))
    else {
        return;
    };
    let honoured = match R::KNOBS {
        [] => "it has none".to_owned(),
        knobs => {
            let flags: Vec<_> = knobs.iter().map(|knob| knob.flag()).collect();
            format!("its options are {}", flags.join(", "))
        }
    };
    let problem = format!(
        "{} does not apply to {}: drop it ({honoured})",
        knob.flag(),
        R::FRAMEWORK
    );
    command.error(ErrorKind::ArgumentConflict, problem).exit();
}

fn parse_address(text: &str) -> Result<SocketAddr, String> {
    let hint = "expected HOST:PORT, e.g. 127.0.0.1:9009";
    let mut addresses = text.to_socket_addrs().map_err(|e| format!("{e}; {hint}"))?;
    addresses
        .next()
        .ok_or_else(|| format!("'{text}' resolves to no address; {hint}"))
}

fn parse_variant(text: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-".contains(c);
    match text.chars().all(allowed) && !text.is_empty() {
        true => Ok(text.to_owned()),
        false => Err("letters, digits, '.', '_' and '-' only, e.g. tokio-ei8".to_owned()),
    }
}

fn parse_size(text: &str) -> Result<usize, String> {
    let size: usize = text
        .parse()
        .map_err(|_| "not a whole number of bytes".to_owned())?;
    if size < wire::SEQ_LEN {
        return Err(format!(
            "must be at least {} bytes, the sequence number",
            wire::SEQ_LEN
        ));
    }
    if size > MAX_TCP_PAYLOAD {
        return Err(format!("must be at most {MAX_TCP_PAYLOAD} bytes"));
    }
    Ok(size)
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| "not a number of seconds".to_owned())?;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err("must be a finite number of seconds, 0 or more".to_owned());
    }
    Ok(seconds)
}

fn parse_positive_seconds(text: &str) -> Result<f64, String> {
    match parse_seconds(text)? {
        s if s > 0.0 => Ok(s),
        _ => Err("must be more than 0 seconds".to_owned()),
    }
}

fn parse_interval(text: &str) -> Result<f64, String> {
    let seconds = parse_seconds(text)?;
    if seconds > 0.0 && seconds < 1e-6 {
        return Err("must be 0 (back-to-back) or at least 0.000001 s".to_owned());
    }
    Ok(seconds)
}

fn parse_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text
        .parse()
        .map_err(|_| "not a number of messages per second".to_owned())?;
    if !rate.is_finite() || rate <= 0.0 || rate > 1e6 {
        return Err(
            "must be more than 0 and at most 1000000 msg/s; omit it for back-to-back".to_owned(),
        );
    }
    Ok(rate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        ping: PingOptions,
    }

    fn ping(args: &[&str]) -> Result<PingOptions, clap::Error> {
        let argv = ["ping", "--address", "127.0.0.1:9009"].iter().chain(args);
        Cli::try_parse_from(argv).map(|cli| cli.ping)
    }

    #[test]
    fn defaults_follow_the_design() {
        let o = ping(&[]).expect("defaults parse");
        assert_eq!(
            (o.protocol, o.size, o.pacing),
            (Protocol::Tcp, 64, PacingMode::Schedule)
        );
        assert_eq!(
            (o.duration, o.warmup, o.tasks, o.udp_timeout_ms),
            (10.0, 1.0, 0, 1000)
        );
        assert_eq!(o.interval(), Duration::ZERO);
    }

    #[test]
    fn rate_is_the_inverse_of_interval() {
        assert_eq!(
            ping(&["--rate", "1000"]).expect("parses").interval(),
            Duration::from_millis(1)
        );
        assert_eq!(
            ping(&["--interval", "0.01"]).expect("parses").interval(),
            Duration::from_millis(10)
        );
        assert!(ping(&["--rate", "10", "--interval", "0.1"]).is_err());
    }

    #[test]
    fn bad_values_are_rejected_with_the_option_named() {
        for (args, option) in [
            (&["--size", "3"][..], "--size"),
            (&["--interval", "-0.5"], "--interval"),
            (&["--duration", "0"], "--duration"),
            (&["--duration", "abc"], "--duration"),
            (&["--duration", "-1"], "--duration"),
            (&["--protocol", "sctp"], "--protocol"),
            (&["--rate", "0"], "--rate"),
            (&["--udp-timeout-ms", "0"], "--udp-timeout-ms"),
        ] {
            let error = ping(args).expect_err("must be rejected").to_string();
            assert!(error.contains(option), "{args:?}: {error}");
        }
        let error = Cli::try_parse_from(["ping", "--address", "nowhere"]).expect_err("rejected");
        assert!(error.to_string().contains("--address"), "{error}");
    }

    #[test]
    fn throughput_runs_take_no_pace() {
        let o = ping(&["--mode", "throughput", "--interval", "0.001"]).expect("parses alone");
        assert!(
            o.check()
                .expect_err("no pace")
                .contains("--mode throughput")
        );
        let o = ping(&[
            "--mode",
            "throughput",
            "--protocol",
            "udp",
            "--duration",
            "500",
        ])
        .expect("parses");
        assert!(o.check().expect_err("too long").contains("400"));
        assert!(
            ping(&["--mode", "throughput"])
                .expect("parses")
                .check()
                .is_ok()
        );
    }

    #[test]
    fn udp_payloads_are_limited_to_one_datagram() {
        let o = ping(&["--protocol", "udp", "--size", "65508"]).expect("parses alone");
        assert!(o.check().expect_err("too large").contains("65507"));
        assert!(
            ping(&["--protocol", "udp", "--size", "65507"])
                .expect("parses")
                .check()
                .is_ok()
        );
    }
}
