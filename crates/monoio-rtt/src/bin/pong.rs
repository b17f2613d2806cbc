//! `monoio-pong`: the echo (or counting) server of the suite on the monoio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::pong::main::<monoio_rtt::Monoio>(env!("CARGO_BIN_NAME"))
}
