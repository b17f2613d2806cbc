//! `compio-pong`: the echo (or counting) server of the suite on the compio runtime.
fn main() -> std::process::ExitCode {
    eprintln!("compio-pong: not built yet");
    std::process::ExitCode::FAILURE
}
