//! The entry point of every `*-ping` binary: parses the options, runs the RTT or the throughput
//! client on the runtime under test, writes and prints what it measured, and sets the exit code.

use std::process::ExitCode;

use crate::{
    options::{self, Mode, PingOptions},
    output::{LogFiles, Outcome},
    rtt,
    runtime::Runtime,
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

fn run<R: Runtime>(name: &str, options: PingOptions) -> anyhow::Result<ExitCode> {
    let files = options.out.as_deref().map(LogFiles::create).transpose()?;
    let json = options.json;
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
