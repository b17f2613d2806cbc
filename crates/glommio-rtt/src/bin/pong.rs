//! `glommio-pong`: the echo (or counting) server of the suite on the glommio runtime.
fn main() -> std::process::ExitCode {
    eprintln!("glommio-pong: not built yet");
    std::process::ExitCode::FAILURE
}
