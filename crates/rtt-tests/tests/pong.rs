//! The pong keeps serving whatever its clients do: many at once, garbage, half a message, a
//! disconnect mid-message, a reset. A real ping run afterwards still succeeds. A second pong on
//! its port fails rather than share it. Its planted delay holds back the echoes it names, and
//! only those; a delay that names none is refused.

use crate::common;

use std::{
    io::{Read, Write},
    net::{TcpStream, UdpSocket},
    process::Command,
    time::Duration,
};

use common::{Pong, binary, output_within, ping, uint};
use rtt_core::stats::nearest_rank;

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

/// The planted rare tail: with `--delay-every 10 --delay-ns 2000000` the pong spins 2 ms before
/// its 10th, 20th, … echo and no other, over every transport. A back-to-back std ping (one
/// connection, so the pong's n-th echo answers message n − 1, warm-up included) sees exactly
/// those replies 2 ms slow or more, most of the others faster than any of them, and the run's
/// median among the undelayed replies.
fn the_pong_delays_one_echo_in_n_over_every_transport(runtime: &str) {
    const EVERY: u64 = 10;
    const DELAY_NS: u64 = 2_000_000;
    for protocol in ["tcp", "udp", "http"] {
        let what = format!("{runtime} {protocol}");
        let pong = Pong::start_with(
            runtime,
            &[
                "--protocol",
                protocol,
                "--delay-every",
                &EVERY.to_string(),
                "--delay-ns",
                &DELAY_NS.to_string(),
            ],
        );
        let args = format!(
            "--address {} --protocol {protocol} --duration 0.5 --warmup 0.1",
            pong.address
        );
        let run = ping("std", &args, Duration::from_secs(20));
        assert_eq!(run.code(), Some(0), "{what}: {}", run.stderr);
        let planted = |seq: u64| (seq + 1) % EVERY == 0;
        let (mut delayed, mut undelayed): (Vec<&(u64, u64, u64)>, Vec<_>) =
            run.rows.iter().partition(|row| planted(row.0));
        delayed.sort_unstable_by_key(|row| row.2);
        undelayed.sort_unstable_by_key(|row| row.2);
        let n = run.rows.len();
        // A machine under load answers a few hundred back to back in 0.5 s: tens planted.
        assert!(
            delayed.len() >= 5,
            "{what}: {} delayed of {n}",
            delayed.len()
        );
        // One in ten of the messages, wherever the measured window starts.
        assert!(
            delayed.len().abs_diff(n / EVERY as usize) <= 1,
            "{what}: {} of {n} replies were planted",
            delayed.len()
        );
        let fastest_planted = delayed.first().map(|row| row.2);
        assert!(
            fastest_planted >= Some(DELAY_NS),
            "{what}: a planted reply took only {fastest_planted:?} ns"
        );
        let rtts = |rows: &[&(u64, u64, u64)]| rows.iter().map(|row| row.2).collect::<Vec<_>>();
        let undelayed = rtts(&undelayed);
        // The others are not held back: most of them are faster than the fastest planted one
        // (every echo delayed would put their median past it). A loaded machine slows some of
        // them as much, not most.
        let undelayed_p50 = nearest_rank(&undelayed, 50.0);
        assert!(
            Some(undelayed_p50) < fastest_planted,
            "{what}: unplanted p50 {undelayed_p50} ns, fastest planted {fastest_planted:?} ns"
        );
        // The median moves only as far as one more sample in ten above it moves it: to the
        // undelayed replies' 5/9 quantile, well inside their body.
        let log = &run.json()["rtt_ns"];
        let (p50, p99) = (uint(log, "p50"), uint(log, "p99"));
        let body = nearest_rank(&undelayed, 75.0);
        assert!(
            p50 <= body,
            "{what}: p50 {p50} ns, above the undelayed replies' p75 {body} ns"
        );
        assert!(
            p99 >= DELAY_NS,
            "{what}: p99 {p99} ns, below the planted delay"
        );
    }
}

/// A planted delay that names no echo, or echoes a throughput pong does not send, is refused
/// in one line naming the problem and the fix, before the pong listens.
fn a_pong_refuses_a_delay_every_that_delays_nothing(runtime: &str) {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--delay-every", "0", "--delay-ns", "2000"],
            "--delay-every 0",
        ),
        (&["--delay-every", "10"], "add --delay-ns"),
        (
            &["--delay-every", "10", "--delay-ns", "0"],
            "add --delay-ns",
        ),
        (
            &[
                "--mode",
                "throughput",
                "--delay-every",
                "10",
                "--delay-ns",
                "2000",
            ],
            "--mode throughput",
        ),
    ];
    for (args, named) in cases {
        let mut command = Command::new(binary(&format!("{runtime}-pong")));
        command.args(["--address", "127.0.0.1:0"]).args(*args);
        let (output, killed) = output_within(command, Duration::from_secs(10));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!killed, "{runtime} {args:?}: the pong ran");
        assert_eq!(
            output.status.code(),
            Some(2),
            "{runtime} {args:?}: {stderr}"
        );
        let problem = stderr.lines().next().unwrap_or_default();
        assert!(
            problem.starts_with("error: ") && problem.contains(named),
            "{runtime} {args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{runtime} {args:?}: it listened");
    }
}

for_each_runtime!(
    the_pong_survives_misbehaving_clients,
    the_udp_pong_answers_each_sender_and_any_size,
    a_second_pong_on_a_port_in_use_fails,
    the_pong_delays_one_echo_in_n_over_every_transport,
    a_pong_refuses_a_delay_every_that_delays_nothing,
);
