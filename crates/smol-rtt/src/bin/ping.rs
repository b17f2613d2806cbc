//! `smol-ping`: round-trip times to a pong, measured on the smol runtime.
fn main() -> std::process::ExitCode {
    rtt_net::ping::main::<smol_rtt::Smol>(env!("CARGO_BIN_NAME"))
}
