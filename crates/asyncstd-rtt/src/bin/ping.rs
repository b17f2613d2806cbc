//! `asyncstd-ping`: round-trip times to a pong, measured on the async-std runtime.
fn main() -> std::process::ExitCode {
    rtt_net::ping::main::<asyncstd_rtt::AsyncStd>(env!("CARGO_BIN_NAME"))
}
