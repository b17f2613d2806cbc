//! `std-pong`: the echo server on plain blocking std sockets, one thread per client.
fn main() -> std::process::ExitCode {
    rtt_net::pong::main::<std_rtt::Std>(env!("CARGO_BIN_NAME"))
}
