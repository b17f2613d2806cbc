//! A runtime's knobs: the options that build it (`--threads`, tokio's scheduler intervals, ring
//! entries, …), which runtime honours which ([`Knob`]), and what it really ran with
//! ([`RuntimeInfo`], logged as `runtime_config`).

use serde_json::{Map, Value};

/// How the runtime under test is built: its knobs. Each runtime honours the ones it lists in
/// [`Runtime::KNOBS`]; the others are refused before anything runs.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct RuntimeOptions {
    /// Worker threads of the runtime [default: the runtime's own default, which follows the CPUs
    /// this process may run on]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Scheduler flavor (tokio only) [default: multi_thread]
    #[arg(long, value_enum)]
    pub flavor: Option<Flavor>,
    /// Spin on non-blocking sockets instead of sleeping in them (std only): the busy-poll
    /// reference, the lowest RTT this machine gives; its logs say framework `busy-poll`
    #[arg(long)]
    pub busy_poll: bool,
    /// tokio: scheduler ticks between polls of the I/O and timer drivers [default: 61]
    #[arg(long, value_name = "TICKS", value_parser = clap::value_parser!(u32).range(1..))]
    pub event_interval: Option<u32>,
    /// tokio: ticks between checks of the global (injection) queue [default: 31 on
    /// current_thread, tuned at run time on multi_thread]
    #[arg(long, value_name = "TICKS", value_parser = clap::value_parser!(u32).range(1..))]
    pub global_queue_interval: Option<u32>,
    /// tokio: the most I/O events handled per poll of the driver [default: 1024]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_io_events_per_tick: Option<u64>,
    /// monoio, compio: entries of the io_uring submission queue [default: the runtime's]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=32_768))]
    pub ring_entries: Option<u32>,
    /// glommio: how long an idle executor spins before it parks its thread [default: 0]
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub spin_before_park_us: Option<u64>,
    /// glommio: how long a task queue runs before the executor preempts it to poll its rings
    /// [default: 100000, glommio's 100 ms]
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub preempt_timer_us: Option<u64>,
}

/// A runtime option that only some runtimes have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    Threads,
    Flavor,
    BusyPoll,
    EventInterval,
    GlobalQueueInterval,
    MaxIoEventsPerTick,
    RingEntries,
    SpinBeforePark,
    PreemptTimer,
}

impl Knob {
    pub const ALL: [Knob; 9] = [
        Knob::Threads,
        Knob::Flavor,
        Knob::BusyPoll,
        Knob::EventInterval,
        Knob::GlobalQueueInterval,
        Knob::MaxIoEventsPerTick,
        Knob::RingEntries,
        Knob::SpinBeforePark,
        Knob::PreemptTimer,
    ];

    /// The option on the command line.
    pub fn flag(self) -> &'static str {
        match self {
            Knob::Threads => "--threads",
            Knob::Flavor => "--flavor",
            Knob::BusyPoll => "--busy-poll",
            Knob::EventInterval => "--event-interval",
            Knob::GlobalQueueInterval => "--global-queue-interval",
            Knob::MaxIoEventsPerTick => "--max-io-events-per-tick",
            Knob::RingEntries => "--ring-entries",
            Knob::SpinBeforePark => "--spin-before-park-us",
            Knob::PreemptTimer => "--preempt-timer-us",
        }
    }

    /// Whether `options` sets this knob.
    pub fn is_set(self, options: &RuntimeOptions) -> bool {
        match self {
            Knob::Threads => options.threads.is_some(),
            Knob::Flavor => options.flavor.is_some(),
            Knob::BusyPoll => options.busy_poll,
            Knob::EventInterval => options.event_interval.is_some(),
            Knob::GlobalQueueInterval => options.global_queue_interval.is_some(),
            Knob::MaxIoEventsPerTick => options.max_io_events_per_tick.is_some(),
            Knob::RingEntries => options.ring_entries.is_some(),
            Knob::SpinBeforePark => options.spin_before_park_us.is_some(),
            Knob::PreemptTimer => options.preempt_timer_us.is_some(),
        }
    }
}

/// tokio's two schedulers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Flavor {
    #[value(name = "multi_thread")]
    MultiThread,
    #[value(name = "current_thread")]
    CurrentThread,
}

/// How the runtime under test was really set up, as recorded in the logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeInfo {
    /// e.g. `multi_thread`, `current_thread`, `global_executor`, `os_threads`, `thread_per_core`.
    pub flavor: String,
    /// Worker threads the runtime runs tasks on, as the runtime reports or was told.
    pub threads: usize,
    /// Every other knob of the runtime and the value it ran with, defaults written out.
    pub knobs: Map<String, Value>,
}

impl RuntimeInfo {
    pub fn new(flavor: &str, threads: usize) -> Self {
        Self {
            flavor: flavor.to_owned(),
            threads,
            knobs: Map::new(),
        }
    }

    /// Records a knob's value (as set, or the runtime's default).
    pub fn with(mut self, knob: &str, value: impl Into<Value>) -> Self {
        self.knobs.insert(knob.to_owned(), value.into());
        self
    }

    /// The log's `runtime_config`: flavor, threads and every knob.
    pub fn config(&self) -> Map<String, Value> {
        let mut config = Map::new();
        config.insert("flavor".to_owned(), self.flavor.clone().into());
        config.insert("threads".to_owned(), self.threads.into());
        config.extend(self.knobs.clone());
        config
    }
}
