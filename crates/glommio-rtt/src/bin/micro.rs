//! `glommio-micro`: the in-process micro-benchmarks (scheduler, Notify vs oneshot, channels) on glommio, one thread.
fn main() -> std::process::ExitCode {
    rtt_micro::main::<glommio_rtt::Glommio>(env!("CARGO_BIN_NAME"))
}
