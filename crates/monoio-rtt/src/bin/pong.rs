//! `monoio-pong`: the echo (or counting) server of the suite on the monoio runtime.
fn main() -> std::process::ExitCode {
    eprintln!("monoio-pong: not built yet");
    std::process::ExitCode::FAILURE
}
