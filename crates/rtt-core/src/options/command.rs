//! The command line as a whole: parsing it, and the checks that need more than one option, the
//! runtime under test or the process's limits. Each failure exits 2 with clap's message; with
//! `--check-options`, passing them all exits 0.

use clap::{ArgMatches, Args, Command, FromArgMatches, error::ErrorKind};

use super::{Mode, PingOptions, PongOptions, Protocol};
use crate::{
    build_info, descriptors,
    runtime::{Knob, Runtime, RuntimeOptions},
};

/// Parses the command line of binary `name` into `T`; on bad input prints the problem and exits 2.
pub fn parse<T: Args + FromArgMatches>(name: &'static str, about: &'static str) -> (T, Command) {
    let command = T::augment_args(
        Command::new(name)
            .version(build_info::suite_version())
            .about(about),
    );
    let matches: ArgMatches = command.clone().get_matches();
    match T::from_arg_matches(&matches) {
        Ok(options) => (options, command),
        Err(error) => error.format(&mut command.clone()).exit(),
    }
}

/// Rejects option combinations a single option's parser cannot see.
pub fn check_ping<R: Runtime>(options: &PingOptions, command: &mut Command) {
    if let Err(message) = options.check() {
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    check_runtime::<R>(&options.runtime, command);
    let what = format!("--connections {}", options.connections);
    check_room(
        descriptors::make_room_for(options.connections, &what),
        command,
    );
    if options.check_options {
        std::process::exit(0);
    }
}

/// Rejects the options of a pong, once parsed.
pub fn check_pong<R: Runtime>(options: &PongOptions, command: &mut Command) {
    check_runtime::<R>(&options.runtime, command);
    if options.delay_ns > 0 && options.mode == Mode::Throughput {
        let problem =
            "--delay-ns delays each echo: drop it, or --mode throughput (which echoes nothing)";
        command.error(ErrorKind::ArgumentConflict, problem).exit();
    }
    // A UDP pong serves every peer from its one socket.
    if options.protocol == Protocol::Tcp {
        let what = format!("serving --connections {}", options.connections);
        check_room(
            descriptors::make_room_for(options.connections, &what),
            command,
        );
    }
    if options.check_options {
        std::process::exit(0);
    }
}

/// Exits 2 when the open-files limit leaves no room for the sockets asked for.
fn check_room(room: Result<(), String>, command: &mut Command) {
    if let Err(message) = room {
        command.error(ErrorKind::ValueValidation, message).exit();
    }
}

/// Rejects runtime options the runtime under test does not have.
pub fn check_runtime<R: Runtime>(options: &RuntimeOptions, command: &mut Command) {
    let Some(knob) = Knob::ALL
        .into_iter()
        .find(|knob| knob.is_set(options) && !R::KNOBS.contains(knob))
    else {
        return;
    };
    let honoured = match R::KNOBS {
        [] => "it has none".to_owned(),
        knobs => {
            let flags: Vec<_> = knobs.iter().map(|knob| knob.flag()).collect();
            format!("its options are {}", flags.join(", "))
        }
    };
    let problem = format!(
        "{} does not apply to {}: drop it ({honoured})",
        knob.flag(),
        R::FRAMEWORK
    );
    command.error(ErrorKind::ArgumentConflict, problem).exit();
}
