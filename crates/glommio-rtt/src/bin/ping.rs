//! `glommio-ping`: round-trip times to a pong, measured on the glommio runtime.
fn main() -> std::process::ExitCode {
    rtt_net::ping::main::<glommio_rtt::Glommio>(env!("CARGO_BIN_NAME"))
}
