//! `monoio-micro`: the in-process micro-benchmarks (scheduler, Notify vs oneshot, channels) on monoio, one thread.
fn main() -> std::process::ExitCode {
    rtt_micro::main::<monoio_rtt::Monoio>(env!("CARGO_BIN_NAME"))
}
