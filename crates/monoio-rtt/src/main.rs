//! `monoio-rtt`: the ping, pong and in-process benchmarks on monoio, one executable started
//! through its links `monoio-ping`, `monoio-pong` and `monoio-micro`.
use monoio_rtt::Monoio;

fn main() -> std::process::ExitCode {
    rtt_core::roles::Roles {
        ping: rtt_net::ping::main::<Monoio>,
        pong: rtt_net::pong::main::<Monoio>,
        micro: rtt_micro::main::<Monoio>,
    }
    .run()
}
