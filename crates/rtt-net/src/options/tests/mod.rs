//! Unit tests of the ping's and pong's options: what each accepts, and what it refuses with exit 2.

use super::*;
use clap::Parser;

#[derive(Parser, Debug)]
struct Cli {
    #[command(flatten)]
    ping: PingOptions,
}

fn ping(args: &[&str]) -> Result<PingOptions, clap::Error> {
    let argv = ["ping", "--address", "127.0.0.1:9009"].iter().chain(args);
    Cli::try_parse_from(argv).map(|cli| cli.ping)
}

#[derive(Parser, Debug)]
struct PongCli {
    #[command(flatten)]
    pong: PongOptions,
}

/// The pong's options, parsed and checked: the problem found, if any.
fn pong(args: &[&str]) -> Result<PongOptions, String> {
    let argv = ["pong"].iter().chain(args);
    let options = PongCli::try_parse_from(argv)
        .map_err(|e| e.to_string())?
        .pong;
    options.check().map(|()| options)
}

#[test]
fn a_pong_delays_every_echo_unless_told_one_in_n() {
    let o = pong(&["--delay-ns", "2000"]).expect("valid");
    assert_eq!((o.delay_ns, o.delay_every()), (2000, 1));
    let o = pong(&["--delay-ns", "2000", "--delay-every", "100"]).expect("valid");
    assert_eq!(o.delay_every(), 100);
    assert_eq!(pong(&[]).expect("valid").delay_every(), 1);
}

#[test]
fn delay_every_without_a_delay_or_with_throughput_is_refused() {
    for (args, named) in [
        (
            &["--delay-ns", "2000", "--delay-every", "0"][..],
            "--delay-every 0",
        ),
        (&["--delay-every", "10"], "add --delay-ns"),
        (
            &["--delay-every", "10", "--delay-ns", "0"],
            "add --delay-ns",
        ),
        (
            &["--mode", "throughput", "--delay-every", "10"],
            "--mode throughput",
        ),
        (
            &["--mode", "throughput", "--delay-ns", "5"],
            "--mode throughput",
        ),
    ] {
        let error = pong(args).expect_err("refused");
        assert!(error.contains(named), "{args:?}: {error}");
        assert_eq!(error.lines().count(), 1, "{args:?}: {error}");
    }
}

#[test]
fn defaults_follow_the_design() {
    let o = ping(&[]).expect("defaults parse");
    assert_eq!(
        (o.protocol, o.size, o.pacing),
        (Protocol::Tcp, 64, PacingMode::Schedule)
    );
    assert_eq!(
        (o.duration, o.warmup, o.tasks, o.udp_timeout_ms),
        (10.0, 1.0, 0, 1000)
    );
    assert_eq!(o.interval(), Duration::ZERO);
}

#[test]
fn rate_is_the_inverse_of_interval() {
    assert_eq!(
        ping(&["--rate", "1000"]).expect("parses").interval(),
        Duration::from_millis(1)
    );
    assert_eq!(
        ping(&["--interval", "0.01"]).expect("parses").interval(),
        Duration::from_millis(10)
    );
    assert!(ping(&["--rate", "10", "--interval", "0.1"]).is_err());
}

#[test]
fn bad_values_are_rejected_with_the_option_named() {
    for (args, option) in [
        (&["--size", "3"][..], "--size"),
        (&["--interval", "-0.5"], "--interval"),
        (&["--duration", "0"], "--duration"),
        (&["--duration", "abc"], "--duration"),
        (&["--duration", "-1"], "--duration"),
        (&["--protocol", "sctp"], "--protocol"),
        (&["--rate", "0"], "--rate"),
        (&["--udp-timeout-ms", "0"], "--udp-timeout-ms"),
    ] {
        let error = ping(args).expect_err("must be rejected").to_string();
        assert!(error.contains(option), "{args:?}: {error}");
    }
    let error = Cli::try_parse_from(["ping", "--address", "nowhere"]).expect_err("rejected");
    assert!(error.to_string().contains("--address"), "{error}");
}

#[test]
fn throughput_runs_take_no_pace() {
    let o = ping(&["--mode", "throughput", "--interval", "0.001"]).expect("parses alone");
    assert!(
        o.check()
            .expect_err("no pace")
            .contains("--mode throughput")
    );
    let o = ping(&[
        "--mode",
        "throughput",
        "--protocol",
        "udp",
        "--duration",
        "500",
    ])
    .expect("parses");
    assert!(o.check().expect_err("too long").contains("400"));
    assert!(
        ping(&["--mode", "throughput"])
            .expect("parses")
            .check()
            .is_ok()
    );
}

#[test]
fn udp_payloads_are_limited_to_one_datagram() {
    let o = ping(&["--protocol", "udp", "--size", "65508"]).expect("parses alone");
    assert!(o.check().expect_err("too large").contains("65507"));
    assert!(
        ping(&["--protocol", "udp", "--size", "65507"])
            .expect("parses")
            .check()
            .is_ok()
    );
}
