//! `tokio-rtt`: the ping, pong and in-process benchmarks on tokio, one executable started
//! through its links `tokio-ping`, `tokio-pong` and `tokio-micro`.
use tokio_rtt::Tokio;

fn main() -> std::process::ExitCode {
    rtt_core::roles::Roles {
        ping: rtt_net::ping::main::<Tokio>,
        pong: rtt_net::pong::main::<Tokio>,
        micro: rtt_micro::main::<Tokio>,
    }
    .run()
}
