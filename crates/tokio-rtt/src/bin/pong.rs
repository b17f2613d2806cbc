//! `tokio-pong`: the echo server on the tokio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::pong::main::<tokio_rtt::Tokio>(env!("CARGO_BIN_NAME"))
}
