//! The benchmarks, what a channel event is, and the sizes of a run: their names, their defaults
//! and which sizes each benchmark takes. The one source of these facts, which `--describe` prints.

use clap::{Args, ValueEnum};
use rtt_core::log::MicroParams;
use serde_json::{Map, Value};

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

/// The sizes of a run as asked for (`--tasks`, `--workers`, …); `None` where not given.
#[derive(Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
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
}

impl Sizes {
    /// The flags `bench` takes; any other size given is misplaced.
    pub fn flags_of(&self, bench: Bench) -> &'static [&'static str] {
        match bench {
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
        }
    }

    /// Sizes given that `bench` does not use, as the flag a person typed.
    pub fn misplaced(&self, bench: Bench) -> Option<&'static str> {
        let used = self.flags_of(bench);
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
        .find(|&(flag, given)| given && !used.contains(&flag))
        .map(|(flag, _)| flag)
    }

    /// The sizes of `bench`, its defaults where not given, as its log records them: those it
    /// does not take are `None`.
    pub fn params(&self, bench: Bench) -> MicroParams {
        let mut params = MicroParams::default();
        match bench {
            Bench::SpawnMany => params.tasks = Some(self.tasks.unwrap_or(10_000)),
            Bench::PingPong | Bench::ChainedSpawn => {
                params.tasks = Some(self.tasks.unwrap_or(1_000));
            }
            Bench::YieldMany => {
                params.tasks = Some(self.tasks.unwrap_or(200));
                params.yields = Some(self.yields.unwrap_or(1_000));
            }
            Bench::Notify | Bench::Oneshot => {
                params.instances = Some(self.instances.unwrap_or(10_000));
                params.hold_ms = Some(self.hold_ms.unwrap_or(100));
            }
            Bench::Channel => {
                let event_type = self.event_type.unwrap_or(EventType::Int);
                params.workers = Some(self.workers.unwrap_or(100));
                params.events = Some(self.events.unwrap_or(10_000));
                params.queue = Some(self.queue.unwrap_or(256));
                params.event_type = Some(event_type.as_str().to_owned());
                let size = self.event_size.unwrap_or(DEFAULT_EVENT_SIZE);
                params.event_size = event_type.is_string().then_some(size);
            }
        }
        params
    }
}

/// What `*-micro --describe` prints: every benchmark with its default sizes (as its log would
/// record them), every event type, and a string event's default size.
pub fn describe() -> Value {
    let benches: Map<String, Value> = Bench::value_variants()
        .iter()
        .map(|&bench| {
            let params = serde_json::to_value(Sizes::default().params(bench)).unwrap_or_default();
            let taken: Map<String, Value> = params
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            (bench.as_str().to_owned(), taken.into())
        })
        .collect();
    let event_types: Vec<Value> = EventType::value_variants()
        .iter()
        .map(|kind| kind.as_str().into())
        .collect();
    let mut described = Map::new();
    described.insert("benches".to_owned(), benches.into());
    described.insert("event_types".to_owned(), event_types.into());
    described.insert("event_size".to_owned(), DEFAULT_EVENT_SIZE.into());
    described.into()
}

/// Where [`describe`] is committed, for the sweep and the analysis (Python's `suite.benchmarks`),
/// which read the benchmarks' names, event types and default sizes from it instead of restating them.
pub const DESCRIBE_FILE: &str = "schema/micro-benchmarks.json";

#[cfg(test)]
mod tests {
    use super::*;
    use std::{fs, path::Path};

    #[test]
    fn the_committed_description_is_what_describe_prints() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(DESCRIBE_FILE);
        let generated = format!("{:#}\n", describe());
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            fs::write(&path, &generated).expect("writes the description");
        }
        let committed = fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{DESCRIBE_FILE} is not what `--describe` prints: regenerate it with \
             `UPDATE_SCHEMA=1 cargo test -p rtt-micro describe` and commit it"
        );
    }
}
