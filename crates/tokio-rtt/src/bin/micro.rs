//! `tokio-micro`: the in-process micro-benchmarks (scheduler, Notify vs oneshot, channels) on tokio.
fn main() -> std::process::ExitCode {
    rtt_micro::main::<tokio_rtt::Tokio>(env!("CARGO_BIN_NAME"))
}
