//! `glommio-pong`: the echo (or counting) server of the suite on the glommio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::pong::main::<glommio_rtt::Glommio>(env!("CARGO_BIN_NAME"))
}
