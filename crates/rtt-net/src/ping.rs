//! The entry point of every `*-ping` binary: parses the command line, resolves it once into what
//! the clients take ([`RunSpec`] and the measurement's own spec), runs the RTT or the throughput
//! client on the runtime under test, writes and prints what it measured, and sets the exit code.

use std::{path::PathBuf, process::ExitCode, thread, time::Duration};

use clap::Args;
use rtt_core::{
    cli,
    output::{LogFiles, Outcome},
    runtime::{Runtime, STALL_LIMIT},
};
use rtt_counters::{Counting, CountingSpec};

use crate::{
    decoy::DecoySpec,
    lifecycle::RunSpec,
    options::{self, DEFAULT_WINDOW, Mode, PingOptions, PongOptions},
    pacing::Schedule,
    rtt::{self, Load, RttSpec},
    throughput::{self, ThroughputSpec},
    wire::Protocol,
};

/// What a ping measures, and how.
#[derive(Clone, Copy, Debug)]
enum Measurement {
    Rtt(RttSpec),
    Throughput(ThroughputSpec),
}

/// Runs the ping `name` (the name it was started under, e.g. `tokio-ping`) on runtime `R`.
pub fn main<R: Runtime>(name: &'static str) -> ExitCode {
    let about =
        "Measures round-trip times (or throughput) to a pong of this suite and prints or logs them";
    let pong = PongOptions::augment_args(clap::Command::new("pong"));
    let (options, knobs, mut command) =
        cli::parse::<PingOptions, R::Knobs>(name, about, R::FRAMEWORK, &[pong]);
    options::check_ping(&options, &mut command);
    let (run, measurement) = resolve(&options, R::label(&knobs));
    match ping::<R>(name, run, measurement, knobs, options.out, options.json) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("{name}: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The run the checked `options` describe, for a runtime labelled `framework`.
fn resolve(options: &PingOptions, framework: &'static str) -> (RunSpec, Measurement) {
    let run = RunSpec {
        framework,
        variant: options.variant.clone(),
        target: options.address,
        transport: options.protocol,
        payload: options.size,
        warmup_s: options.warmup,
        duration_s: options.duration,
        decoys: DecoySpec {
            count: options.tasks,
            kind: options.decoy,
            work_us: options.decoy_work_us,
        },
        counting: (!options.no_counters).then_some(CountingSpec {
            pong_pid: options.pong_pid,
            kernel_events: options.all_counters,
        }),
    };
    let measurement = match options.mode {
        Mode::Rtt => Measurement::Rtt(RttSpec {
            schedule: Schedule {
                mode: options.pacing,
                interval: options.interval(),
            },
            connections: options.connections,
            window: (options.load == Load::Open).then(|| match options.protocol {
                Protocol::Http => 1,
                _ => options.window.unwrap_or(DEFAULT_WINDOW),
            }),
            udp_timeout: Duration::from_millis(options.udp_timeout_ms),
        }),
        Mode::Throughput => Measurement::Throughput(ThroughputSpec {
            batch: options.batch,
        }),
    };
    (run, measurement)
}

fn ping<R: Runtime>(
    name: &'static str,
    run: RunSpec,
    measurement: Measurement,
    knobs: R::Knobs,
    out: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let files = out.as_deref().map(LogFiles::create).transpose()?;
    let empty = files
        .as_ref()
        .map(|f| f.paths().to_vec())
        .unwrap_or_default();
    // Opened here, on the thread that starts the runtime's, so all of them count.
    let counting = match measurement {
        Measurement::Rtt(_) => run.counting.map(Counting::start),
        Measurement::Throughput(_) => None,
    };
    start_watchdog(name, run.warmup() + run.duration() + 3 * STALL_LIMIT, empty);
    let outcome: Box<dyn Outcome> = R::run(&knobs, move |info| async move {
        match measurement {
            Measurement::Rtt(spec) => {
                Box::new(rtt::session::<R>(run, spec, info, counting).await) as Box<dyn Outcome>
            }
            Measurement::Throughput(spec) => {
                Box::new(throughput::session::<R>(run, spec, info).await)
            }
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
    if let Some(missing) = log.counters().and_then(|c| c.missing()) {
        eprintln!("{name}: note: {missing}");
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
