//! `compio-ping`: round-trip times to a pong, measured on the compio runtime.
fn main() -> std::process::ExitCode {
    eprintln!("compio-ping: not built yet");
    std::process::ExitCode::FAILURE
}
