//! `smol-micro`: the in-process micro-benchmarks (scheduler, Notify vs oneshot, channels) on smol.
fn main() -> std::process::ExitCode {
    rtt_micro::main::<smol_rtt::Smol>(env!("CARGO_BIN_NAME"))
}
