//! `compio-micro`: the in-process micro-benchmarks (scheduler, Notify vs oneshot, channels) on compio, one thread.
fn main() -> std::process::ExitCode {
    rtt_micro::main::<compio_rtt::Compio>(env!("CARGO_BIN_NAME"))
}
