//! `monoio-ping`: round-trip times to a pong, measured on the monoio runtime.
fn main() -> std::process::ExitCode {
    eprintln!("monoio-ping: not built yet");
    std::process::ExitCode::FAILURE
}
