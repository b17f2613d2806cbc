//! One ping run, whatever it measures: what it is ([`RunSpec`], resolved once from the command
//! line) and what every run does around its measurement ([`Lifecycle`]: note the start, run the
//! decoys meanwhile, stop them and describe the run as its log's [`RunContext`]). Measures nothing.

use std::{
    net::SocketAddr,
    time::{Duration, SystemTime},
};

use rtt_core::{
    build_info,
    log::{RunContext, RunHeader, SCHEMA},
    machine::{self, Machine},
    runtime::{Runtime, RuntimeInfo},
};
use rtt_counters::CountingSpec;

use crate::{
    decoy::{DecoySpec, Decoys},
    wire::Protocol,
};

/// What every ping run is, whatever it measures.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// The framework label of the logs (`tokio`, or a reference such as `busy-poll`).
    pub framework: &'static str,
    /// The sweep's label when the run is a variant of its runtime.
    pub variant: Option<String>,
    /// The pong.
    pub target: SocketAddr,
    pub transport: Protocol,
    /// Bytes of each message.
    pub payload: usize,
    /// Seconds exchanged first and left out of the statistics, as given.
    pub warmup_s: f64,
    /// Measured seconds, after the warm-up, as given.
    pub duration_s: f64,
    pub decoys: DecoySpec,
    /// What each end did over the window, counted (`None`: --no-counters).
    pub counting: Option<CountingSpec>,
}

impl RunSpec {
    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.warmup_s)
    }

    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.duration_s)
    }
}

/// What every run does around its measurement.
pub struct Lifecycle<R: Runtime> {
    started_at: String,
    decoys: Decoys<R>,
}

impl<R: Runtime> Lifecycle<R> {
    /// Starts the decoys, before any warm-up.
    pub fn begin(run: &RunSpec) -> Self {
        Self {
            started_at: machine::rfc3339(SystemTime::now()),
            decoys: Decoys::<R>::spawn(run.decoys),
        }
    }

    /// Stops the decoys and describes the run; `outcome` is how the measurement ended.
    pub async fn end(
        self,
        run: &RunSpec,
        info: RuntimeInfo,
        outcome: anyhow::Result<()>,
    ) -> RunContext {
        let decoy_iterations = self.decoys.stop().await;
        let error = outcome.err().map(|e| format!("{e:#}"));
        let header = RunHeader {
            schema: SCHEMA.to_owned(),
            framework: run.framework.to_owned(),
            framework_version: R::version(),
            flavor: Some(info.flavor.clone()),
            threads: Some(info.threads),
            machine: Machine::read(),
            rustc: Some(build_info::RUSTC.to_owned()),
            suite_version: build_info::suite_version().to_owned(),
            started_at: self.started_at,
            complete: error.is_none(),
            error,
        };
        RunContext {
            header,
            runtime_config: Some(info.config()),
            variant: run.variant.clone(),
            transport: run.transport.as_str().to_owned(),
            payload: run.payload,
            tasks: run.decoys.count,
            decoy: Some(run.decoys.kind.as_str().to_owned()),
            decoy_work_us: Some(run.decoys.work_us),
            decoy_iterations: Some(decoy_iterations),
            duration_s: run.duration_s,
            warmup_s: run.warmup_s,
            address: run.target.to_string(),
        }
    }
}
