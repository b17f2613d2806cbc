//! `monoio-ping`: round-trip times to a pong, measured on the monoio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::ping::main::<monoio_rtt::Monoio>(env!("CARGO_BIN_NAME"))
}
