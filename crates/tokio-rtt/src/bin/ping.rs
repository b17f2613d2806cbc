//! `tokio-ping`: round-trip times to a pong, measured on the tokio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::ping::main::<tokio_rtt::Tokio>(env!("CARGO_BIN_NAME"))
}
