//! `asyncstd-rtt`: the ping, pong and in-process benchmarks on async-std, one executable started
//! through its links `asyncstd-ping`, `asyncstd-pong` and `asyncstd-micro`.
use asyncstd_rtt::AsyncStd;

fn main() -> std::process::ExitCode {
    rtt_core::roles::Roles {
        ping: rtt_net::ping::main::<AsyncStd>,
        pong: rtt_net::pong::main::<AsyncStd>,
        micro: rtt_micro::main::<AsyncStd>,
    }
    .run()
}
