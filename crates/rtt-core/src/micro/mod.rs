//! The in-process micro-benchmarks of `*-micro`, written once for every runtime: the scheduler
//! (`spawn_many`, `yield_many`, `ping_pong`, `chained_spawn`), Notify vs oneshot at scale, and
//! channel throughput. A runtime crate adds only its ecosystem's primitives ([`Primitives`]).
//!
//! `options` (the command line) and `plan` (sizes, std's cap, the memory check) run before
//! anything is allocated; `scheduler`, `wake` and `channel` are the benchmarks, on `countdown`
//! and `primitives`; `run` is the method (warm-up, repeats, timeout) and `report` the log.

pub mod channel;
pub mod countdown;
pub mod options;
pub mod plan;
pub mod primitives;
pub mod report;
pub mod run;
pub mod scheduler;
pub mod wake;

use std::process::ExitCode;

use clap::error::ErrorKind;

pub use primitives::Primitives;

use self::{
    options::{Bench, MicroOptions},
    report::Report,
};

/// Runs the micro binary `name` (its `CARGO_BIN_NAME`, e.g. `tokio-micro`) on runtime `R`.
pub fn main<R: Primitives>(name: &'static str) -> ExitCode {
    let about = "Runs one in-process benchmark of the runtime (scheduler, Notify vs oneshot, \
                 channel throughput) and prints or logs the time of each repeat";
    let (options, mut command) = crate::options::parse::<MicroOptions>(name, about);
    if let Some(flag) = options.misplaced() {
        let message = match flag {
            "--event-size" if options.bench == Bench::Channel => {
                "--event-size applies to the string event types only (--event-type string, \
                 string_copy, shared or shared_arc)"
                    .to_owned()
            }
            _ => format!(
                "{flag} does not apply to --bench {}; see --help for the sizes of each benchmark",
                options.bench.as_str()
            ),
        };
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    if options.runtime.busy_poll {
        let message = "--busy-poll applies to std-ping and std-pong only";
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    crate::options::check_runtime::<R>(&options.runtime, &mut command);
    let plan = match plan::plan::<R>(&options) {
        Ok(plan) => plan,
        Err(message) => command.error(ErrorKind::ValueValidation, message).exit(),
    };
    let primitive = primitive::<R>(options.bench);
    let framework = (R::FRAMEWORK, R::version());
    let outcome = Report::begin(
        name,
        options.out.as_deref(),
        options.json,
        &plan,
        framework,
        &primitive,
    )
    .and_then(|report| run::run::<R>(plan, report));
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
