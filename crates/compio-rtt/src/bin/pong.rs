//! `compio-pong`: the echo (or counting) server of the suite on the compio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::pong::main::<compio_rtt::Compio>(env!("CARGO_BIN_NAME"))
}
