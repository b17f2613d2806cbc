//! `compio-rtt`: the ping, pong and in-process benchmarks on compio, one executable started
//! through its links `compio-ping`, `compio-pong` and `compio-micro`.
use compio_rtt::Compio;

fn main() -> std::process::ExitCode {
    rtt_core::roles::Roles {
        ping: rtt_net::ping::main::<Compio>,
        pong: rtt_net::pong::main::<Compio>,
        micro: rtt_micro::main::<Compio>,
    }
    .run()
}
