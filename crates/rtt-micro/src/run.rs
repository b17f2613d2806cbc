//! The method of every micro run: one untimed warm-up iteration, then `--repeat` timed ones, each
//! sent to a collector thread as it finishes. The collector holds the deadline (`--timeout`): when
//! it passes, it reports the finished repeats and ends the process, whatever the benchmark's
//! tasks (or std's threads) are blocked in. No wait of a run outlives it.

use std::{
    process::ExitCode,
    sync::mpsc::{self, RecvTimeoutError},
    thread,
    time::{Duration, Instant},
};

use crate::{
    bench::{Bench, EventType},
    channel::{Copied, Fresh, Source, channel},
    primitives::Primitives,
    report::Report,
    scheduler,
    spec::MicroSpec,
    wake,
};

/// What the benchmark task tells the collector.
enum Progress {
    /// A timed repeat took this many ns.
    Repeat(u64),
    /// An iteration failed its completion check: no further repeat runs.
    Failed(String),
}

/// Runs the benchmark of `spec` on runtime `R`, built with `knobs`, and reports it.
pub fn run<R: Primitives>(
    spec: MicroSpec,
    knobs: &R::Knobs,
    mut report: Report,
) -> anyhow::Result<ExitCode> {
    if spec.not_run.is_some() {
        // Nothing runs: the log names the runtime's flavor, with no thread used.
        let info = R::run(knobs, |info| async move { info })?;
        report.runtime(&info.flavor, 0);
        return report.finish();
    }
    let deadline = Instant::now() + spec.timeout;
    let collector = R::run(knobs, move |info| {
        let threads = if R::THREAD_PER_TASK {
            usize::try_from(spec.peak_tasks).unwrap_or(usize::MAX)
        } else {
            info.threads
        };
        report.runtime(&info.flavor, threads);
        let (progress, updates) = mpsc::channel();
        // Spawned here, once the runtime is built: async-std and smol read their thread count
        // from the environment while theirs is the only thread.
        let timeout_s = spec.timeout.as_secs_f64();
        let repeat = spec.repeat;
        let collector =
            thread::spawn(move || collect(updates, deadline, timeout_s, repeat, report));
        async move {
            iterations::<R>(&spec, &progress).await;
            collector
        }
    })?;
    match collector.join() {
        Ok(report) => report.finish(),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Receives the repeats until the benchmark ends; past `deadline`, reports and exits.
fn collect(
    updates: mpsc::Receiver<Progress>,
    deadline: Instant,
    timeout_s: f64,
    repeat: u32,
    mut report: Report,
) -> Report {
    loop {
        match updates.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Progress::Repeat(ns)) => report.repeat(ns),
            Ok(Progress::Failed(error)) => report.fail(error),
            Err(RecvTimeoutError::Disconnected) => return report,
            Err(RecvTimeoutError::Timeout) => {
                report.fail(format!(
                    "timeout: --timeout {timeout_s} s passed with {} of {repeat} repeats finished",
                    report.finished_repeats()
                ));
                // The benchmark's tasks may be blocked for good: end the process here, exit 1
                // whether or not the log could be written.
                if let Err(error) = report.finish() {
                    eprintln!("error: {error:#}");
                }
                std::process::exit(1);
            }
        }
    }
}

/// The warm-up iteration, then the timed repeats, each sent as it finishes.
async fn iterations<R: Primitives>(spec: &MicroSpec, progress: &mpsc::Sender<Progress>) {
    let source = Source::new(spec.event_size());
    for iteration in 0..=spec.repeat {
        let update = match once::<R>(spec, &source).await {
            Ok(_) if iteration == 0 => continue,
            Ok(elapsed) => Progress::Repeat(nanos(elapsed)),
            Err(error) if iteration == 0 => Progress::Failed(format!("warm-up: {error}")),
            Err(error) => Progress::Failed(format!("repeat {iteration}: {error}")),
        };
        let failed = matches!(update, Progress::Failed(_));
        if progress.send(update).is_err() || failed {
            return;
        }
    }
}

/// One iteration of the benchmark.
async fn once<R: Primitives>(spec: &MicroSpec, source: &Source) -> Result<Duration, String> {
    let p = &spec.params;
    let size = |value: Option<u64>| value.unwrap_or_default();
    match spec.bench {
        Bench::SpawnMany => scheduler::spawn_many::<R>(size(p.tasks)).await,
        Bench::YieldMany => scheduler::yield_many::<R>(size(p.tasks), size(p.yields)).await,
        Bench::PingPong => scheduler::ping_pong::<R>(size(p.tasks)).await,
        Bench::ChainedSpawn => scheduler::chained_spawn::<R>(size(p.tasks)).await,
        Bench::Notify => wake::notify::<R>(size(p.instances), spec.hold()).await,
        Bench::Oneshot => wake::oneshot::<R>(size(p.instances), spec.hold()).await,
        Bench::Channel => {
            let (workers, events) = (size(p.workers), size(p.events));
            let queue = usize::try_from(size(p.queue)).unwrap_or(usize::MAX);
            let (w, e, q) = (workers, events, queue);
            match spec.event_type() {
                EventType::Int => channel::<R, u64>(w, e, q, source).await,
                EventType::String => channel::<R, Fresh>(w, e, q, source).await,
                EventType::StringCopy => channel::<R, Copied>(w, e, q, source).await,
                EventType::Shared => channel::<R, &'static str>(w, e, q, source).await,
                EventType::SharedArc => channel::<R, std::sync::Arc<str>>(w, e, q, source).await,
            }
        }
    }
}

/// A duration in whole ns, at least 1 (a repeat always takes some time).
fn nanos(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX).max(1)
}
