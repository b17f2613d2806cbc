//! A binary's command line as one `clap` command: its own options and its runtime's knobs. A flag
//! that neither has, nor any other binary of the suite, and that is no typo of one, is taken for
//! another runtime's knob: refused (exit 2) with a message naming this runtime's own knobs.

use clap::{
    Args, Command, FromArgMatches,
    error::{ContextKind, ContextValue, ErrorKind},
};

use crate::build_info;

/// Parses the command line of binary `name` (of runtime `framework`) into its options `T` and its
/// runtime's knobs `K`; on bad input prints the problem and exits 2. `elsewhere` are the commands
/// of the suite's other binaries: a flag of theirs given here gets clap's own message.
pub fn parse<T, K>(
    name: &'static str,
    about: &'static str,
    framework: &str,
    elsewhere: &[Command],
) -> (T, K, Command)
where
    T: Args + FromArgMatches,
    K: Args + FromArgMatches,
{
    let command = K::augment_args(T::augment_args(
        Command::new(name)
            .version(build_info::suite_version())
            .about(about),
    ));
    let matches = command.clone().try_get_matches().unwrap_or_else(|error| {
        if let Some(problem) = foreign_knob::<K>(&error, framework, elsewhere) {
            command
                .clone()
                .error(ErrorKind::ArgumentConflict, problem)
                .exit();
        }
        error.exit()
    });
    match (T::from_arg_matches(&matches), K::from_arg_matches(&matches)) {
        (Ok(options), Ok(knobs)) => (options, knobs, command),
        (Err(error), _) | (_, Err(error)) => error.format(&mut command.clone()).exit(),
    }
}

/// Edits (insertions, deletions, substitutions) that make one flag of the other; a flag at most
/// this many from a known one is a typo of it, which clap's own message points out.
const TYPO_EDITS: usize = 2;

/// The message refusing another runtime's knob, when `error` is one: an unknown long flag that
/// is no typo of a known one, and that no other binary of the suite has.
fn foreign_knob<K: Args>(
    error: &clap::Error,
    framework: &str,
    elsewhere: &[Command],
) -> Option<String> {
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(given)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = given.split('=').next().unwrap_or(given);
    if !flag.starts_with("--") {
        return None;
    }
    // clap suggests any flag alike enough (`--interval` for tokio's `--event-interval`): only a
    // near one makes the flag a typo.
    if let Some(ContextValue::String(near)) = error.get(ContextKind::SuggestedArg) {
        if edits(flag, near) <= TYPO_EDITS {
            return None;
        }
    }
    if elsewhere
        .iter()
        .any(|command| long_flags(command).contains(&flag.to_owned()))
    {
        return None;
    }
    let own = long_flags(&K::augment_args(Command::new("knobs")));
    let honoured = match own.as_slice() {
        [] => "it has none".to_owned(),
        flags => format!("its options are {}", flags.join(", ")),
    };
    Some(format!(
        "{flag} does not apply to {framework}: drop it ({honoured})"
    ))
}

/// The Levenshtein distance between `a` and `b`, in characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // `row[j]`: the edits between the part of `a` seen so far and `b[..j]`.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = match ca == *cb {
                true => diagonal,
                false => 1 + diagonal.min(above).min(row[j]),
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Every `--long` flag of `command`, in its order.
pub fn long_flags(command: &Command) -> Vec<String> {
    command
        .get_arguments()
        .filter_map(|arg| arg.get_long())
        .map(|long| format!("--{long}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Args, Debug)]
    struct Options {
        #[arg(long)]
        interval: Option<f64>,
        #[arg(long)]
        duration: Option<f64>,
    }

    #[derive(clap::Args, Debug)]
    struct Knobs {
        #[arg(long)]
        threads: Option<u16>,
        #[arg(long)]
        busy_poll: bool,
    }

    /// What parsing `args` with [`Options`] and [`Knobs`] refuses, if another runtime's knob.
    fn refusal(args: &[&str], elsewhere: &[Command]) -> Option<String> {
        let command = Knobs::augment_args(Options::augment_args(Command::new("t")));
        let error = command
            .try_get_matches_from(["t"].iter().chain(args))
            .expect_err("refused");
        foreign_knob::<Knobs>(&error, "rt", elsewhere)
    }

    #[test]
    fn another_runtimes_knob_is_refused_naming_this_runtimes_own() {
        let named = "drop it (its options are --threads, --busy-poll)";
        assert_eq!(
            refusal(&["--ring-entries", "8"], &[]),
            Some(format!("--ring-entries does not apply to rt: {named}"))
        );
        // clap finds --interval alike, but a knob is no typo of it.
        assert_eq!(
            refusal(&["--event-interval=8"], &[]),
            Some(format!("--event-interval does not apply to rt: {named}"))
        );
    }

    #[test]
    fn a_typo_or_another_binarys_option_keeps_claps_message() {
        assert_eq!(refusal(&["--duraton", "1"], &[]), None);
        let pong = Command::new("pong").arg(clap::Arg::new("window").long("window"));
        assert_eq!(refusal(&["--window", "8"], &[pong]), None);
        assert_eq!(refusal(&["--interval"], &[]), None, "a missing value");
    }

    #[test]
    fn edits_count_insertions_deletions_and_substitutions() {
        assert_eq!(edits("--duraton", "--duration"), 1);
        assert_eq!(edits("--event-interval", "--interval"), 6);
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("", "abc"), 3);
    }
}
