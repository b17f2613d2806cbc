//! `asyncstd-pong`: the echo server on the async-std runtime.
fn main() -> std::process::ExitCode {
    rtt_net::pong::main::<asyncstd_rtt::AsyncStd>(env!("CARGO_BIN_NAME"))
}
