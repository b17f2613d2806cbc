//! `glommio-ping`: round-trip times to a pong, measured on the glommio runtime.
fn main() -> std::process::ExitCode {
    eprintln!("glommio-ping: not built yet");
    std::process::ExitCode::FAILURE
}
