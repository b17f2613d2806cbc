//! The command line of every `*-micro`: which benchmark, its sizes, the repeats and the timeout.
//! Bad values are rejected here (exit 2). Only the entry point reads it.

use std::path::PathBuf;

use clap::Args;

use crate::bench::{Bench, Sizes};

/// Options of every `*-micro`.
#[derive(Args, Clone, Debug)]
pub struct MicroOptions {
    /// The benchmark to run
    #[arg(long, value_enum, required_unless_present = "describe")]
    pub bench: Option<Bench>,
    #[command(flatten)]
    pub sizes: Sizes,
    /// Timed repeats, after one untimed warm-up iteration
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000), allow_negative_numbers = true)]
    pub repeat: u32,
    /// Seconds the whole run may last; past it the run stops and keeps its finished repeats
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0, value_parser = parse_timeout, allow_negative_numbers = true)]
    pub timeout: f64,
    /// Write the log to STEM.json
    #[arg(long, value_name = "STEM")]
    pub out: Option<PathBuf>,
    /// Print the JSON log on stdout instead of the human summary
    #[arg(long)]
    pub json: bool,
    /// Print the benchmarks, their default sizes and the event types as one JSON object, and
    /// exit: how the sweep and the analysis learn them
    #[arg(long, exclusive = true)]
    pub describe: bool,
}

fn parse_timeout(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| "not a number of seconds".to_owned())?;
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 86_400.0 {
        return Err("must be more than 0 and at most 86400 seconds".to_owned());
    }
    Ok(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        micro: MicroOptions,
    }

    fn micro(args: &[&str]) -> Result<MicroOptions, clap::Error> {
        Cli::try_parse_from(["micro"].iter().chain(args)).map(|cli| cli.micro)
    }

    fn misplaced(o: &MicroOptions) -> Option<&'static str> {
        o.sizes.misplaced(o.bench.expect("a benchmark"))
    }

    #[test]
    fn defaults_follow_the_issue() {
        let o = micro(&["--bench", "spawn_many"]).expect("parses");
        assert_eq!((o.repeat, o.timeout, o.sizes.tasks), (10, 120.0, None));
        assert_eq!(misplaced(&o), None);
    }

    #[test]
    fn bad_values_are_rejected_with_the_option_named() {
        for (args, option) in [
            (&["--bench", "nope"][..], "--bench"),
            (&["--bench", "spawn_many", "--tasks", "0"], "--tasks"),
            (&["--bench", "channel", "--queue", "0"], "--queue"),
            (
                &["--bench", "channel", "--event-type", "float"],
                "--event-type",
            ),
            (&["--bench", "notify", "--instances", "-1"], "--instances"),
            (&["--bench", "notify", "--repeat", "0"], "--repeat"),
            (&["--bench", "notify", "--timeout", "0"], "--timeout"),
        ] {
            let error = micro(args).expect_err("must be rejected").to_string();
            assert!(error.contains(option), "{args:?}: {error}");
        }
    }

    #[test]
    fn describe_stands_alone() {
        let o = micro(&["--describe"]).expect("parses without --bench");
        assert!(o.describe && o.bench.is_none());
        assert!(micro(&["--describe", "--bench", "notify"]).is_err());
        assert!(
            micro(&[])
                .expect_err("--bench is required")
                .to_string()
                .contains("--bench")
        );
    }

    #[test]
    fn sizes_of_another_benchmark_are_misplaced() {
        let o = micro(&["--bench", "spawn_many", "--workers", "3"]).expect("parses alone");
        assert_eq!(misplaced(&o), Some("--workers"));
        let o = micro(&["--bench", "yield_many", "--tasks", "3", "--yields", "2"]).expect("ok");
        assert_eq!(misplaced(&o), None);
    }

    #[test]
    fn event_size_applies_to_string_events_only() {
        fn args(kind: &str) -> [&str; 6] {
            [
                "--bench",
                "channel",
                "--event-type",
                kind,
                "--event-size",
                "64",
            ]
        }
        for kind in ["string", "string_copy", "shared", "shared_arc"] {
            let o = micro(&args(kind)).expect("parses");
            assert_eq!(
                (misplaced(&o), o.sizes.event_size),
                (None, Some(64)),
                "{kind}"
            );
        }
        let o = micro(&args("int")).expect("parses alone");
        assert_eq!(misplaced(&o), Some("--event-size"));
        let o = micro(&["--bench", "channel", "--event-size", "64"]).expect("parses alone");
        assert_eq!(misplaced(&o), Some("--event-size"), "int is the default");
        let error = micro(&["--bench", "channel", "--event-size", "0"]).expect_err("0 bytes");
        assert!(error.to_string().contains("--event-size"), "{error}");
    }
}
