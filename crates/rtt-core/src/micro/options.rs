//! The command line of every `*-micro`: which benchmark, its sizes, the repeats and the timeout.
//! Bad values and options that do not apply to the benchmark are rejected here (exit 2).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::runtime::RuntimeOptions;

/// The benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Bench {
    /// One task spawns --tasks tasks; each signals its completion
    #[value(name = "spawn_many")]
    SpawnMany,
    /// --tasks tasks each yield --yields times
    #[value(name = "yield_many")]
    YieldMany,
    /// --tasks round trips: a task spawns a task that answers it over a oneshot
    #[value(name = "ping_pong")]
    PingPong,
    /// Each task spawns the next, --tasks deep
    #[value(name = "chained_spawn")]
    ChainedSpawn,
    /// --instances holders sleep --hold-ms, then wake their waiter through a Notify
    #[value(name = "notify")]
    Notify,
    /// --instances holders sleep --hold-ms, then drop their oneshot sender
    #[value(name = "oneshot")]
    Oneshot,
    /// --workers workers each receive --events events from their own producer over a queue
    /// of --queue
    #[value(name = "channel")]
    Channel,
}

impl Bench {
    pub fn as_str(self) -> &'static str {
        match self {
            Bench::SpawnMany => "spawn_many",
            Bench::YieldMany => "yield_many",
            Bench::PingPong => "ping_pong",
            Bench::ChainedSpawn => "chained_spawn",
            Bench::Notify => "notify",
            Bench::Oneshot => "oneshot",
            Bench::Channel => "channel",
        }
    }
}

/// What a channel event is (docs/micro.md, "Event kinds").
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EventType {
    /// A 64-bit integer
    Int,
    /// A string of --event-size bytes built afresh for each event
    String,
    /// A copy, made for each event, of one shared string of --event-size bytes
    #[value(name = "string_copy")]
    StringCopy,
    /// A pointer to one string of --event-size bytes that nobody counts (&'static str)
    Shared,
    /// One Arc<str> of --event-size bytes cloned for every event: one reference count
    /// contended by every producer and worker
    #[value(name = "shared_arc")]
    SharedArc,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Int => "int",
            EventType::String => "string",
            EventType::StringCopy => "string_copy",
            EventType::Shared => "shared",
            EventType::SharedArc => "shared_arc",
        }
    }

    /// Whether the event is a string, whose length `--event-size` sets.
    pub fn is_string(self) -> bool {
        self != EventType::Int
    }
}

/// The bytes of a string event when `--event-size` is not given, as in the Go/Rust
/// "bench-of-chan".
pub const DEFAULT_EVENT_SIZE: u64 = 16;

/// Options of every `*-micro`.
#[derive(Args, Clone, Debug)]
pub struct MicroOptions {
    /// The benchmark to run
    #[arg(long, value_enum)]
    pub bench: Bench,
    /// spawn_many: tasks spawned [10000]; yield_many: yielding tasks [200]; ping_pong: round
    /// trips [1000]; chained_spawn: chain depth [1000]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000), allow_negative_numbers = true)]
    pub tasks: Option<u64>,
    /// yield_many: yields per task [1000]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000), allow_negative_numbers = true)]
    pub yields: Option<u64>,
    /// notify, oneshot: holder and waiter pairs [10000]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000), allow_negative_numbers = true)]
    pub instances: Option<u64>,
    /// notify, oneshot: how long each holder sleeps before it wakes its waiter [100]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=60_000), allow_negative_numbers = true)]
    pub hold_ms: Option<u64>,
    /// channel: workers, each with its own queue and producer [100]
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000), allow_negative_numbers = true)]
    pub workers: Option<u64>,
    /// channel: events each producer sends [10000]
    #[arg(long, value_name = "E", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000), allow_negative_numbers = true)]
    pub events: Option<u64>,
    /// channel: the bound of each worker's queue [256]
    #[arg(long, value_name = "Q", value_parser = clap::value_parser!(u64).range(1..=16_777_216), allow_negative_numbers = true)]
    pub queue: Option<u64>,
    /// channel: what an event is [default: int]
    #[arg(long, value_enum)]
    pub event_type: Option<EventType>,
    /// channel, string event types: bytes of each string [16]
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..=1_048_576), allow_negative_numbers = true)]
    pub event_size: Option<u64>,
    /// Timed repeats, after one untimed warm-up iteration
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000), allow_negative_numbers = true)]
    pub repeat: u32,
    /// Seconds the whole run may last; past it the run stops and keeps its finished repeats
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0, value_parser = parse_timeout, allow_negative_numbers = true)]
    pub timeout: f64,
    #[command(flatten)]
    pub runtime: RuntimeOptions,
    /// Write the log to STEM.json
    #[arg(long, value_name = "STEM")]
    pub out: Option<PathBuf>,
    /// Print the JSON log on stdout instead of the human summary
    #[arg(long)]
    pub json: bool,
}

impl MicroOptions {
    /// Options given that the benchmark does not use, as the flag a person typed.
    pub fn misplaced(&self) -> Option<&'static str> {
        let uses = |flags: &[&str], flag: &str| flags.contains(&flag);
        let used: &[&str] = match self.bench {
            Bench::SpawnMany | Bench::PingPong | Bench::ChainedSpawn => &["--tasks"],
            Bench::YieldMany => &["--tasks", "--yields"],
            Bench::Notify | Bench::Oneshot => &["--instances", "--hold-ms"],
            Bench::Channel if self.event_type.is_some_and(EventType::is_string) => &[
                "--workers",
                "--events",
                "--queue",
                "--event-type",
                "--event-size",
            ],
            Bench::Channel => &["--workers", "--events", "--queue", "--event-type"],
        };
        [
            ("--tasks", self.tasks.is_some()),
            ("--yields", self.yields.is_some()),
            ("--instances", self.instances.is_some()),
            ("--hold-ms", self.hold_ms.is_some()),
            ("--workers", self.workers.is_some()),
            ("--events", self.events.is_some()),
            ("--queue", self.queue.is_some()),
            ("--event-type", self.event_type.is_some()),
            ("--event-size", self.event_size.is_some()),
        ]
        .into_iter()
        .find(|&(flag, given)| given && !uses(used, flag))
        .map(|(flag, _)| flag)
    }
}

fn parse_timeout(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| "not a number of seconds".to_owned())?;
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 86_400.0 {
        return Err("must be more than 0 and at most 86400 seconds".to_owned());
    }
    Ok(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        micro: MicroOptions,
    }

    fn micro(args: &[&str]) -> Result<MicroOptions, clap::Error> {
        Cli::try_parse_from(["micro"].iter().chain(args)).map(|cli| cli.micro)
    }

    #[test]
    fn defaults_follow_the_issue() {
        let o = micro(&["--bench", "spawn_many"]).expect("parses");
        assert_eq!((o.repeat, o.timeout, o.tasks), (10, 120.0, None));
        assert_eq!(o.misplaced(), None);
    }

    #[test]
    fn bad_values_are_rejected_with_the_option_named() {
        for (args, option) in [
            (&["--bench", "nope"][..], "--bench"),
            (&["--bench", "spawn_many", "--tasks", "0"], "--tasks"),
            (&["--bench", "channel", "--queue", "0"], "--queue"),
            (
                &["--bench", "channel", "--event-type", "float"],
                "--event-type",
            ),
            (&["--bench", "notify", "--instances", "-1"], "--instances"),
            (&["--bench", "notify", "--repeat", "0"], "--repeat"),
            (&["--bench", "notify", "--timeout", "0"], "--timeout"),
        ] {
            let error = micro(args).expect_err("must be rejected").to_string();
            assert!(error.contains(option), "{args:?}: {error}");
        }
    }

    #[test]
    fn sizes_of_another_benchmark_are_misplaced() {
        let o = micro(&["--bench", "spawn_many", "--workers", "3"]).expect("parses alone");
        assert_eq!(o.misplaced(), Some("--workers"));
        let o = micro(&["--bench", "yield_many", "--tasks", "3", "--yields", "2"]).expect("ok");
        assert_eq!(o.misplaced(), None);
    }

    #[test]
    fn event_size_applies_to_string_events_only() {
        fn args(kind: &str) -> [&str; 6] {
            [
                "--bench",
                "channel",
                "--event-type",
                kind,
                "--event-size",
                "64",
            ]
        }
        for kind in ["string", "string_copy", "shared", "shared_arc"] {
            let o = micro(&args(kind)).expect("parses");
            assert_eq!((o.misplaced(), o.event_size), (None, Some(64)), "{kind}");
        }
        let o = micro(&args("int")).expect("parses alone");
        assert_eq!(o.misplaced(), Some("--event-size"));
        let o = micro(&["--bench", "channel", "--event-size", "64"]).expect("parses alone");
        assert_eq!(o.misplaced(), Some("--event-size"), "int is the default");
        let error = micro(&["--bench", "channel", "--event-size", "0"]).expect_err("0 bytes");
        assert!(error.to_string().contains("--event-size"), "{error}");
    }
}
