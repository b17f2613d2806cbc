//! `std-micro`: the in-process micro-benchmarks (scheduler, Notify vs oneshot, channels) on std.
fn main() -> std::process::ExitCode {
    rtt_micro::main::<std_rtt::Std>(env!("CARGO_BIN_NAME"))
}
