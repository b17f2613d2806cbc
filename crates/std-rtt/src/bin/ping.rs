//! `std-ping`: round-trip times to a pong, measured with plain blocking std sockets.
fn main() -> std::process::ExitCode {
    rtt_net::ping::main::<std_rtt::Std>(env!("CARGO_BIN_NAME"))
}
