//! The command line of every ping and pong, defined once so all runtimes accept the same flags
//! (beside each runtime's own knobs). Bad values are rejected here, before anything runs (exit 2).
//! Only the entry points read it: they resolve it into what the clients take.

mod values;

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::{Args, Command, ValueEnum, error::ErrorKind};

use self::values::{
    parse_address, parse_interval, parse_positive_seconds, parse_rate, parse_seconds, parse_size,
    parse_variant,
};
use crate::{
    decoy::DecoyKind,
    descriptors,
    pacing::{self, PacingMode},
    rtt::Load,
    wire::{MAX_UDP_PAYLOAD, Protocol},
};

/// The most connections one ping opens (`--connections`).
pub const MAX_CONNECTIONS: i64 = 100_000;

/// Messages in flight per connection in open load when `--window` is not given.
pub const DEFAULT_WINDOW: u32 = 64;

/// Why `--mode throughput` refuses http, for the ping and the pong.
const HTTP_THROUGHPUT: &str = "--mode throughput counts one-way messages, and HTTP answers every request: use --protocol tcp for throughput, or --mode rtt with --protocol http --interval 0 (requests per second are its achieved rate)";

/// How long an HTTP pong waits for a request head, idle time included, unless told.
pub const DEFAULT_HEADER_TIMEOUT_MS: u64 = 30_000;

/// The longest UDP throughput run: its per-window counts must fit one datagram.
pub const MAX_UDP_THROUGHPUT_SECONDS: f64 = 400.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Round-trip times of paced messages (the pong echoes)
    Rtt,
    /// One-way messages as fast as possible (the pong counts them)
    Throughput,
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
    /// Open load: the most messages in flight per connection; a send held back is late (http:
    /// 1, HTTP/1.1 without pipelining)
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
    /// The line this run belongs to when it is a variant of its runtime (a sweep's VARIANTS,
    /// e.g. `tokio-ei8`): recorded as the log's `variant`, beside the runtime's `framework`
    #[arg(long, value_name = "LABEL", value_parser = parse_variant)]
    pub variant: Option<String>,
    /// Count nothing: by default an RTT run counts what this process (and, with --pong-pid, the
    /// pong) did over the measured window (CPU time, switches, system calls, wake-ups)
    #[arg(long)]
    pub no_counters: bool,
    /// The pong's PID, when it runs on this host: its counters are read with this process's (none
    /// with --no-counters: a sweep hands every ping its pong's PID, a variant may turn counting off)
    #[arg(long, value_name = "PID")]
    pub pong_pid: Option<u32>,
    /// Also count system calls, wake-ups and every switch (perf_event_open): their probes run at
    /// each system call and switch, so they slow the run they count
    #[arg(long, conflicts_with = "no_counters")]
    pub all_counters: bool,
    /// Write STEM.csv (one row per reply) and STEM.json (summary and context)
    #[arg(long, value_name = "STEM")]
    pub out: Option<PathBuf>,
    /// Print the JSON summary on stdout instead of the human one
    #[arg(long)]
    pub json: bool,
    /// Check these options and exit: 0 if a run would start with them, 2 naming the problem
    /// otherwise (how the sweeps check VARIANTS before anything runs)
    #[arg(long)]
    pub check_options: bool,
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

    /// Checks that need more than one option at a time.
    fn check(&self) -> Result<(), String> {
        if self.protocol == Protocol::Udp && self.size > MAX_UDP_PAYLOAD {
            return Err(format!(
                "--size {} is too large for UDP: a datagram carries at most {MAX_UDP_PAYLOAD} bytes; use --protocol tcp or a smaller --size",
                self.size
            ));
        }
        if self.protocol == Protocol::Http && self.window.is_some_and(|w| w > 1) {
            return Err("--window above 1 does not apply to --protocol http: HTTP/1.1 without pipelining has one request in flight per connection; drop --window, or add --connections".to_owned());
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
            if self.protocol == Protocol::Http {
                return Err(HTTP_THROUGHPUT.to_owned());
            }
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
    /// Spin this many nanoseconds on the clock after reading a message, before echoing it: a
    /// known difference planted to calibrate what a sweep can resolve (rtt mode only)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1_000_000_000))]
    pub delay_ns: u64,
    /// With --delay-ns: delay one echo in N only (the pong's N-th, 2N-th, … echo, all its
    /// clients counted together), a planted rare tail; 1 delays every echo
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=1_000_000_000))]
    pub delay_every: Option<u64>,
    /// HTTP: close a connection whose next request head is not in within this time, idle
    /// keep-alive time included (hyper's header-read timeout, on every runtime)
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_HEADER_TIMEOUT_MS, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub header_timeout_ms: u64,
    /// Check these options and exit: 0 if a run would start with them, 2 naming the problem
    /// otherwise (how the sweeps check VARIANTS before anything runs)
    #[arg(long)]
    pub check_options: bool,
}

/// Rejects option combinations a single option's parser cannot see.
pub fn check_ping(options: &PingOptions, command: &mut Command) {
    let what = format!("--connections {}", options.connections);
    let room = || descriptors::make_room_for(options.connections, &what);
    check(options.check(), room, options.check_options, command);
}

impl PongOptions {
    /// One echo in this many is delayed by `--delay-ns`.
    pub fn delay_every(&self) -> u64 {
        self.delay_every.unwrap_or(1)
    }

    /// Checks that need more than one option at a time.
    fn check(&self) -> Result<(), String> {
        if self.mode == Mode::Throughput {
            let delays = match (self.delay_ns > 0, self.delay_every.is_some()) {
                (true, true) => Some("--delay-ns and --delay-every delay echoes: drop them"),
                (true, false) => Some("--delay-ns delays each echo: drop it"),
                (false, true) => Some("--delay-every delays echoes: drop it"),
                (false, false) => None,
            };
            if let Some(problem) = delays {
                return Err(format!(
                    "{problem}, or --mode throughput (which echoes nothing)"
                ));
            }
            if self.protocol == Protocol::Http {
                return Err(HTTP_THROUGHPUT.to_owned());
            }
        }
        match self.delay_every {
            Some(0) => Err("--delay-every 0 names no echo to delay: give N of 1 or more (one echo in N is delayed by --delay-ns)".to_owned()),
            Some(n) if self.delay_ns == 0 => Err(format!("--delay-every {n} says which echoes --delay-ns delays, and there is no --delay-ns: add --delay-ns D (in ns), or drop --delay-every")),
            _ => Ok(()),
        }
    }
}

/// Rejects the options of a pong, once parsed.
pub fn check_pong(options: &PongOptions, command: &mut Command) {
    let what = format!("serving --connections {}", options.connections);
    // A UDP pong serves every peer from its one socket.
    let room = || match options.protocol {
        Protocol::Udp => Ok(()),
        _ => descriptors::make_room_for(options.connections, &what),
    };
    check(options.check(), room, options.check_options, command);
}

/// Exits 2 on a `conflict` between options, or when the open-files limit leaves no `room` for
/// the sockets asked for; with `--check-options`, exits 0 once both are fine.
fn check(
    conflict: Result<(), String>,
    room: impl FnOnce() -> Result<(), String>,
    check_options: bool,
    command: &mut Command,
) {
    if let Err(message) = conflict {
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    if let Err(message) = room() {
        command.error(ErrorKind::ValueValidation, message).exit();
    }
    if check_options {
        std::process::exit(0);
    }
}

#[cfg(test)]
mod tests;
