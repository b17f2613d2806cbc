//! `std-rtt`: the ping, pong and in-process benchmarks on std, one executable started
//! through its links `std-ping`, `std-pong` and `std-micro`.
use std_rtt::Std;

fn main() -> std::process::ExitCode {
    rtt_core::roles::Roles {
        ping: rtt_net::ping::main::<Std>,
        pong: rtt_net::pong::main::<Std>,
        micro: rtt_micro::main::<Std>,
    }
    .run()
}
