//! The entry point of every `*-ping` binary: parses the options, runs the RTT or the throughput
//! client on the runtime under test, writes and prints what it measured, and sets the exit code.

use std::{path::PathBuf, process::ExitCode, thread, time::Duration};

use crate::{
    options::{self, Mode, PingOptions},
    output::{LogFiles, Outcome},
    rtt,
    runtime::{Runtime, STALL_LIMIT},
    throughput,
};

/// Runs the ping binary `name` (its `CARGO_BIN_NAME`, e.g. `tokio-ping`) on runtime `R`.
pub fn main<R: Runtime>(name: &'static str) -> ExitCode {
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

fn run<R: Runtime>(name: &'static str, options: PingOptions) -> anyhow::Result<ExitCode> {
    let files = options.out.as_deref().map(LogFiles::create).transpose()?;
    let json = options.json;
    let empty = files
        .as_ref()
        .map(|f| f.paths().to_vec())
        .unwrap_or_default();
    start_watchdog(
        name,
        options.warmup() + options.duration() + 3 * STALL_LIMIT,
        empty,
    );
    let outcome: Box<dyn Outcome> = R::run(&options.runtime.clone(), move |info| async move {
        match options.mode {
            Mode::Rtt => Box::new(rtt::session::<R>(options, info).await) as Box<dyn Outcome>,
            Mode::Throughput => Box::new(throughput::session::<R>(options, info).await),
        }
    })?;
    if let Some(files) = files {
        files.write(outcome.as_ref())?;
    }
    let log = outcome.log();
    if json {
        println!("{}", serde_json::to_string_pretty(log)?);
    } else if log.sent() > 0 {
        print!("{}", log.human());
    }
    if let Some(warning) = log.warning() {
        eprintln!("{name}: warning: {warning}");
    }
    Ok(match log.error() {
        Some(error) => {
            eprintln!("{name}: error: {error} (what was measured is kept)");
            ExitCode::FAILURE
        }
        None => ExitCode::SUCCESS,
    })
}

/// Every wait of a run has a deadline, but those deadlines are the runtime's own timers: a
/// runtime that never polls the measurement again (a scheduler starved by a task that never
/// really yields, as tokio with `--event-interval 1` and a spin decoy) fires none of them. A plain
/// thread, outside the runtime, ends such a process once `limit` (the run plus every stall limit
/// it may spend) has passed, removing the log files it made, which nothing could fill.
fn start_watchdog(name: &'static str, limit: Duration, empty_logs: Vec<PathBuf>) {
    thread::spawn(move || {
        thread::sleep(limit);
        for path in empty_logs {
            let _ = std::fs::remove_file(path);
        }
        eprintln!(
            "{name}: error: the run did not end within {:.0} s: the runtime under test never ran the measurement to its end (a task that never yields its worker also starves the timers that bound every wait); nothing measured could be written",
            limit.as_secs_f64()
        );
        std::process::exit(1);
    });
}
