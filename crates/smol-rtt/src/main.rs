//! `smol-rtt`: the ping, pong and in-process benchmarks on smol, one executable started
//! through its links `smol-ping`, `smol-pong` and `smol-micro`.
use smol_rtt::Smol;

fn main() -> std::process::ExitCode {
    rtt_core::roles::Roles {
        ping: rtt_net::ping::main::<Smol>,
        pong: rtt_net::pong::main::<Smol>,
        micro: rtt_micro::main::<Smol>,
    }
    .run()
}
