//! The in-process micro-benchmarks of `*-micro`, written once for every runtime: the scheduler
//! (`spawn_many`, `yield_many`, `ping_pong`, `chained_spawn`), Notify vs oneshot at scale, and
//! channel throughput. A runtime crate adds only its ecosystem's primitives ([`Primitives`]).
//!
//! [`main`] is the entry point: it alone reads the command line (`options`), and resolves it
//! (`spec`, from the benchmarks and their sizes in `bench`) before anything is allocated.
//! `scheduler`, `wake` and `channel` are the benchmarks, on `countdown` and `primitives`; `run`
//! is the method (warm-up, repeats, timeout) and `report` the log.

pub mod bench;
pub mod channel;
pub mod countdown;
pub mod options;
pub mod primitives;
pub mod report;
pub mod run;
pub mod scheduler;
pub mod spec;
pub mod wake;

use std::{process::ExitCode, time::Duration};

use clap::error::ErrorKind;
use rtt_core::cli;

pub use primitives::Primitives;

use self::{bench::Bench, options::MicroOptions, report::Report};

/// Runs the micro benchmarks `name` (the name they were started under, e.g. `tokio-micro`) on
/// runtime `R`.
pub fn main<R: Primitives>(name: &'static str) -> ExitCode {
    let about = "Runs one in-process benchmark of the runtime (scheduler, Notify vs oneshot, \
                 channel throughput) and prints or logs the time of each repeat";
    let (options, knobs, mut command) =
        cli::parse::<MicroOptions, R::Knobs>(name, about, R::FRAMEWORK, &[]);
    let Some(bench) = options.bench else {
        println!("{}", bench::describe());
        return ExitCode::SUCCESS;
    };
    if let Some(flag) = options.sizes.misplaced(bench) {
        let message = match flag {
            "--event-size" if bench == Bench::Channel => {
                "--event-size applies to the string event types only (--event-type string, \
                 string_copy, shared or shared_arc)"
                    .to_owned()
            }
            _ => format!(
                "{flag} does not apply to --bench {}; see --help for the sizes of each benchmark",
                bench.as_str()
            ),
        };
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    if let Some((_, flag)) = R::reference(&knobs) {
        let runtime = name.strip_suffix("-micro").unwrap_or(name);
        let message = format!("{flag} applies to {runtime}-ping and {runtime}-pong only");
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    let timeout = Duration::from_secs_f64(options.timeout);
    let spec = match spec::resolve::<R>(bench, &options.sizes, options.repeat, timeout) {
        Ok(spec) => spec,
        Err(message) => command.error(ErrorKind::ValueValidation, message).exit(),
    };
    let primitive = primitive::<R>(bench);
    let framework = (R::FRAMEWORK, R::version());
    let outcome = Report::begin(
        name,
        options.out.as_deref(),
        options.json,
        &spec,
        framework,
        &primitive,
    )
    .and_then(|report| run::run::<R>(spec, &knobs, report));
    outcome.unwrap_or_else(|error| {
        eprintln!("{name}: error: {error:#}");
        ExitCode::FAILURE
    })
}

/// What `bench` measures on `R`, as the log names it.
fn primitive<R: Primitives>(bench: Bench) -> String {
    match bench {
        Bench::SpawnMany | Bench::ChainedSpawn => R::SPAWN.to_owned(),
        Bench::YieldMany => format!("{} + {}", R::SPAWN, R::YIELD),
        Bench::PingPong => format!("{} + {}", R::SPAWN, R::ONESHOT),
        Bench::Notify => R::NOTIFY.to_owned(),
        Bench::Oneshot => R::ONESHOT.to_owned(),
        Bench::Channel => R::CHANNEL.to_owned(),
    }
}
