//! `tokio-ping`: round-trip times to a pong, measured on the tokio runtime.
fn main() -> std::process::ExitCode {
    rtt_core::ping::main::<tokio_rtt::Tokio>(env!("CARGO_BIN_NAME"))
}
