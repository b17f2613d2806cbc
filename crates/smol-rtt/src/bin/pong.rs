//! `smol-pong`: the echo server on the smol runtime.
fn main() -> std::process::ExitCode {
    rtt_net::pong::main::<smol_rtt::Smol>(env!("CARGO_BIN_NAME"))
}
