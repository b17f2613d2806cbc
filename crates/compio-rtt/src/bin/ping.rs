//! `compio-ping`: round-trip times to a pong, measured on the compio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::ping::main::<compio_rtt::Compio>(env!("CARGO_BIN_NAME"))
}
