//! A runtime's knobs: the options that build it. Each runtime declares its own as a `clap::Args`
//! type ([`Runtime::Knobs`](crate::runtime::Runtime::Knobs)); this module holds only the two that
//! several runtimes share, and what a runtime really ran with ([`RuntimeInfo`], logged as
//! `runtime_config`).

use serde_json::{Map, Value};

/// `--threads`, for a runtime with a pool of worker threads (tokio, async-std, smol).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ThreadsKnob {
    /// Worker threads of the runtime [default: the runtime's own default, which follows the CPUs
    /// this process may run on]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

/// `--ring-entries`, for a runtime on io_uring that lets its ring be sized (monoio, compio).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct RingEntriesKnob {
    /// monoio, compio: entries of the io_uring submission queue [default: the runtime's]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=32_768))]
    pub ring_entries: Option<u32>,
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
