//! The lifecycle every ping run shares, whatever it measures: note the start, run the decoys
//! during the measurement, stop them and describe the run ([`RunContext`]). Measures nothing.

use std::time::{Duration, SystemTime};

use crate::{
    build_info,
    decoy::Decoys,
    log::{RunContext, SCHEMA},
    machine::{self, Machine},
    options::PingOptions,
    runtime::{Runtime, RuntimeInfo},
};

/// What every run does around its measurement.
pub struct Frame<R: Runtime> {
    started_at: String,
    decoys: Decoys<R>,
}

impl<R: Runtime> Frame<R> {
    /// Starts the decoys, before any warm-up.
    pub fn begin(options: &PingOptions) -> Self {
        let work = Duration::from_micros(options.decoy_work_us);
        Self {
            started_at: machine::rfc3339(SystemTime::now()),
            decoys: Decoys::<R>::spawn(options.tasks, options.decoy, work),
        }
    }

    /// Stops the decoys and describes the run; `outcome` is how the measurement ended.
    pub async fn end(
        self,
        options: &PingOptions,
        info: RuntimeInfo,
        outcome: anyhow::Result<()>,
    ) -> RunContext {
        let decoy_iterations = self.decoys.stop().await;
        let error = outcome.err().map(|e| format!("{e:#}"));
        RunContext {
            schema: SCHEMA.to_owned(),
            framework: R::label(&options.runtime).to_owned(),
            framework_version: R::version(),
            runtime_config: Some(info.config()),
            variant: options.variant.clone(),
            flavor: Some(info.flavor),
            threads: Some(info.threads),
            transport: options.protocol.as_str().to_owned(),
            payload: options.size,
            tasks: options.tasks,
            decoy: Some(options.decoy.as_str().to_owned()),
            decoy_work_us: Some(options.decoy_work_us),
            decoy_iterations: Some(decoy_iterations),
            duration_s: options.duration,
            warmup_s: options.warmup,
            address: options.address.to_string(),
            machine: Machine::read(),
            rustc: Some(build_info::RUSTC.to_owned()),
            suite_version: build_info::suite_version().to_owned(),
            started_at: self.started_at,
            complete: error.is_none(),
            error,
        }
    }
}
