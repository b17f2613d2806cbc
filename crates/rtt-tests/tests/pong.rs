//! The pong keeps serving whatever its clients do: many at once, garbage, half a message, a
//! disconnect mid-message, a reset. A real ping run afterwards still succeeds. A second pong on
//! its port fails rather than share it.

use crate::common;

use std::{
    io::{Read, Write},
    net::{TcpStream, UdpSocket},
    process::Command,
    time::Duration,
};

use common::{Pong, binary, output_within, ping, uint};

fn the_pong_survives_misbehaving_clients(runtime: &str) {
    let mut pong = Pong::start(runtime, "tcp");
    let address = pong.address;
    let timeout = Some(Duration::from_secs(5));

    // Garbage is echoed as it is: the pong never parses.
    let mut garbage = TcpStream::connect(address).expect("connects");
    garbage.set_read_timeout(timeout).expect("timeout");
    garbage.write_all(b"\xff\x00not a message").expect("writes");
    let mut echo = [0u8; 15];
    garbage.read_exact(&mut echo).expect("echoed");
    assert_eq!(&echo, b"\xff\x00not a message");

    // Half a message, then gone.
    let mut half = TcpStream::connect(address).expect("connects");
    half.write_all(&[1, 2, 3]).expect("writes");
    drop(half);

    // A reset: closing with unread data in the receive buffer makes the kernel send RST.
    let mut reset = TcpStream::connect(address).expect("connects");
    reset.write_all(&[0u8; 4096]).expect("writes");
    std::thread::sleep(Duration::from_millis(50)); // let the echo arrive unread
    drop(reset);

    // Idle clients that stay connected while a real run goes on beside them.
    let idle: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(address).expect("connects"))
        .collect();
    let addr = address.to_string();
    let run = ping(
        runtime,
        &format!("--address {addr} --duration 0.3 --warmup 0"),
        Duration::from_secs(10),
    );
    assert_eq!(run.code(), Some(0), "{runtime}: {}", run.stderr);
    assert!(uint(&run.json()["rtt_ns"], "n") > 100);
    assert!(pong.is_running(), "{runtime}: the pong died");
    drop(idle);
    drop(garbage);
}

fn the_udp_pong_answers_each_sender_and_any_size(runtime: &str) {
    let pong = Pong::start(runtime, "udp");
    let clients: Vec<UdpSocket> = (0..2)
        .map(|_| UdpSocket::bind("127.0.0.1:0").expect("binds"))
        .collect();
    for (i, client) in clients.iter().enumerate() {
        client
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let payload = vec![i as u8; 3 + i * 60_000];
        client.send_to(&payload, pong.address).expect("sends");
        let mut buf = vec![0u8; 65_536];
        let (len, from) = client.recv_from(&mut buf).expect("echoed");
        assert_eq!(
            (&buf[..len], from),
            (&payload[..], pong.address),
            "{runtime}: client {i}"
        );
    }
}

/// A pong started on a port a pong already holds exits 1 naming the address, and the first goes
/// on: no runtime may share the port (SO_REUSEPORT would split the clients between the two).
fn a_second_pong_on_a_port_in_use_fails(runtime: &str) {
    for protocol in ["tcp", "udp"] {
        let mut first = Pong::start(runtime, protocol);
        let address = first.address.to_string();
        let mut second = Command::new(binary(&format!("{runtime}-pong")));
        second.args(["--address", &address, "--protocol", protocol]);
        let (output, killed) = output_within(second, Duration::from_secs(10));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !killed,
            "{runtime} {protocol}: a second pong took {address} too"
        );
        assert_eq!(
            output.status.code(),
            Some(1),
            "{runtime} {protocol}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("listening on {address} ({protocol})"))
                && stderr.contains("in use"),
            "{runtime} {protocol}: {stderr}"
        );
        assert!(
            first.is_running(),
            "{runtime} {protocol}: the first pong died"
        );
    }
}

for_each_runtime!(
    the_pong_survives_misbehaving_clients,
    the_udp_pong_answers_each_sender_and_any_size,
    a_second_pong_on_a_port_in_use_fails,
);
