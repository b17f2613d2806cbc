//! `asyncstd-micro`: the in-process micro-benchmarks (scheduler, Notify vs oneshot, channels) on asyncstd.
fn main() -> std::process::ExitCode {
    rtt_micro::main::<asyncstd_rtt::AsyncStd>(env!("CARGO_BIN_NAME"))
}
