//! `glommio-rtt`: the ping, pong and in-process benchmarks on glommio, one executable started
//! through its links `glommio-ping`, `glommio-pong` and `glommio-micro`.
use glommio_rtt::Glommio;

fn main() -> std::process::ExitCode {
    rtt_core::roles::Roles {
        ping: rtt_net::ping::main::<Glommio>,
        pong: rtt_net::pong::main::<Glommio>,
        micro: rtt_micro::main::<Glommio>,
    }
    .run()
}
