//! HTTP pongs against clients that break the protocol or stall: a malformed request
//! line, a head over the limit, a slowloris, a body cut short, two hundred of them at once. Each
//! loses its own connection only: an honest client beside them is served, on time, and no dead
//! client leaves a thread or a socket behind. Raw `TcpStream`s, so that nothing is polite.

use crate::common;

use std::{
    io::{ErrorKind, Read, Write},
    net::{Shutdown, SocketAddr, TcpStream},
    thread,
    time::{Duration, Instant},
};

use common::{Kept, Pong};

/// The longest any one socket call of these tests may block: none may hang.
const TIMEOUT: Duration = Duration::from_secs(5);

/// The pongs' limit on a request head (`rtt_net::http::routes::MAX_HEAD`).
const MAX_HEAD: usize = 64 * 1024;

/// The header timeout the stalling tests give the pong, and the latest a stalled connection
/// may be closed after it (a loaded machine's slack).
const HEADER_TIMEOUT: Duration = Duration::from_millis(500);
const CUT_BY: Duration = Duration::from_secs(5);

/// Half a request head: no blank line will ever end it.
const HALF_HEAD: &[u8] = b"POST /echo HTTP/1.1\r\nhost: pong\r\ncontent-le";

/// A whole head promising 1000 bytes, and the 10 that come.
const SHORT_BODY: &[u8] =
    b"POST /echo HTTP/1.1\r\nhost: pong\r\ncontent-length: 1000\r\n\r\n0123456789";

/// An HTTP pong of `runtime` with extra `args`, its stderr kept to look for panics.
fn start(runtime: &str, args: &[&str]) -> (Pong, Kept) {
    let mut all = vec!["--protocol", "http"];
    all.extend(args);
    Pong::start_keeping_stderr(runtime, &all)
}

/// A client whose every read and write gives up after [`TIMEOUT`].
fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address)
        .unwrap_or_else(|e| panic!("connecting to {address}: {e} — is the pong running?"));
    stream
        .set_read_timeout(Some(TIMEOUT))
        .expect("read timeout");
    stream
        .set_write_timeout(Some(TIMEOUT))
        .expect("write timeout");
    stream.set_nodelay(true).expect("nodelay");
    stream
}

/// One `POST /echo` of `body` on a keep-alive connection: the status and body of the answer.
fn post(stream: &mut TcpStream, body: &[u8]) -> (u16, Vec<u8>) {
    let mut request = format!(
        "POST /echo HTTP/1.1\r\nhost: pong\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request).expect("sends a request");
    let mut answer = Vec::with_capacity(256);
    let mut chunk = [0u8; 4096];
    let mut read = |answer: &mut Vec<u8>| match stream.read(&mut chunk) {
        Ok(0) => panic!(
            "closed mid-answer after {:?}",
            String::from_utf8_lossy(answer)
        ),
        Ok(n) => answer.extend_from_slice(&chunk[..n]),
        Err(e) => panic!("reading an answer: {e}"),
    };
    let head_len = loop {
        if let Some(at) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read(&mut answer);
    };
    let head = String::from_utf8_lossy(&answer[..head_len]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let body_len: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no content-length in {head:?}"));
    while answer.len() < head_len + body_len {
        read(&mut answer);
    }
    // One request at a time: anything past this answer is a second one nobody asked for.
    assert_eq!(answer.len(), head_len + body_len, "{head:?}");
    (status, answer.split_off(head_len))
}

/// Echo number `n` on `stream`, checked whole; its round trip.
fn echo(stream: &mut TcpStream, n: usize) -> Duration {
    let body = format!("echo {n:06} of an honest client");
    let sent = Instant::now();
    let (status, echoed) = post(stream, body.as_bytes());
    let rtt = sent.elapsed();
    assert_eq!(
        (status, String::from_utf8_lossy(&echoed)),
        (200, body.as_str().into()),
        "echo {n}"
    );
    rtt
}

/// A few echoes on a fresh connection: the pong still serves.
fn still_serves(address: SocketAddr, what: &str) {
    let mut honest = connect(address);
    for n in 0..5 {
        let rtt = echo(&mut honest, n);
        assert!(rtt < TIMEOUT, "{what}: echo {n} took {rtt:?}");
    }
}

/// Everything `stream` gives until the pong closes it (a reset counts: a pong that closes with
/// our bytes unread makes its kernel answer with RST).
fn read_until_closed(stream: &mut TcpStream, what: &str) -> Vec<u8> {
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted
                ) =>
            {
                return got;
            }
            Err(e) => panic!(
                "{what}: still open ({e}) after {:?}",
                String::from_utf8_lossy(&got)
            ),
        }
    }
}

/// Whether `stream` (non-blocking) has been closed by the pong; what it said meanwhile goes to
/// `got`.
fn is_closed(stream: &mut TcpStream, got: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return true,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

/// The first line of an answer, for messages.
fn status_line(answer: &[u8]) -> String {
    let text = String::from_utf8_lossy(answer);
    text.lines().next().unwrap_or_default().to_owned()
}

/// The pong is still running and has not panicked (a panic in one connection's task or thread
/// leaves the process up on most runtimes, and shows only on stderr).
fn assert_unharmed(pong: &mut Pong, stderr: &Kept, what: &str) {
    assert!(
        pong.is_running(),
        "{what}: the pong died: {}",
        stderr.text()
    );
    let text = stderr.text();
    assert!(
        !text.contains("panicked"),
        "{what}: the pong panicked: {text}"
    );
}

/// Threads and open files of process `pid`.
fn threads_and_files(pid: u32) -> (usize, usize) {
    let count = |dir: &str| {
        std::fs::read_dir(format!("/proc/{pid}/{dir}"))
            .unwrap_or_else(|e| panic!("reading /proc/{pid}/{dir}: {e}"))
            .count()
    };
    (count("task"), count("fd"))
}

/// The 99th percentile, nearest rank: the smallest value at least 99% of `rtts` do not exceed.
fn p99(mut rtts: Vec<Duration>) -> Duration {
    rtts.sort_unstable();
    rtts[(rtts.len() * 99).div_ceil(100) - 1]
}

/// A malformed request line is answered 400 and its connection closed; the next client is
/// served as if nothing had happened.
fn a_malformed_request_line_gets_400_and_a_close(runtime: &str) {
    let (mut pong, stderr) = start(runtime, &[]);
    let mut bad = connect(pong.address);
    bad.write_all(b"BLAH\r\n\r\n").expect("sends garbage");
    let answer = read_until_closed(&mut bad, runtime);
    assert!(
        answer.starts_with(b"HTTP/1.1 400"),
        "{runtime}: answered {:?}",
        status_line(&answer)
    );
    still_serves(pong.address, runtime);
    assert_unharmed(&mut pong, &stderr, runtime);
}

/// A head over 64 KiB is refused (431, or at least no 2xx) and its connection closed: the pong
/// buffers no more of it.
fn a_head_over_64_kib_gets_431_and_a_close(runtime: &str) {
    let (mut pong, stderr) = start(runtime, &[]);
    let mut big = connect(pong.address);
    let mut head = b"GET / HTTP/1.1\r\nhost: pong\r\nx-big: ".to_vec();
    head.resize(head.len() + MAX_HEAD + 4096, b'a');
    head.extend_from_slice(b"\r\n\r\n");
    // The pong may refuse it before the last byte is in, and close: a failed write is expected.
    let _ = big.write_all(&head);
    let answer = read_until_closed(&mut big, runtime);
    // A close with our bytes unread is a reset, which may beat the 431 to us: then no answer.
    assert!(
        answer.is_empty() || answer.starts_with(b"HTTP/1.1 431"),
        "{runtime}: answered {:?}",
        status_line(&answer)
    );
    still_serves(pong.address, runtime);
    assert_unharmed(&mut pong, &stderr, runtime);
}

/// Slowloris: one client sends half a head and falls silent, another trickles a byte every
/// 100 ms. An honest client is served meanwhile, and both are cut once the header timeout has
/// passed (the tick of a runtime's timer may round it by a millisecond), and well before 5 s.
fn a_stalled_head_is_cut_at_the_header_timeout_while_others_are_served(runtime: &str) {
    let timeout_ms = HEADER_TIMEOUT.as_millis().to_string();
    let (mut pong, stderr) = start(runtime, &["--header-timeout-ms", &timeout_ms]);
    // Before connecting: the pong's clock for a connection starts at its accept, later.
    let started = Instant::now();
    let mut silent = connect(pong.address);
    silent.write_all(HALF_HEAD).expect("sends half a head");
    let mut trickler = connect(pong.address);
    // Then a header value of one byte every 100 ms.
    trickler
        .write_all(b"POST /echo HTTP/1.1\r\nhost: pong\r\nx-slow: ")
        .expect("sends half a head");

    let mut honest = connect(pong.address);
    for n in 0..20 {
        echo(&mut honest, n);
    }
    let served = started.elapsed();

    let mut stalled = [(silent, None, Vec::new()), (trickler, None, Vec::new())];
    for (stream, _, _) in &stalled {
        stream.set_nonblocking(true).expect("non-blocking");
    }
    let mut next_trickle = started + Duration::from_millis(100);
    while started.elapsed() < CUT_BY + Duration::from_secs(1)
        && stalled.iter().any(|(_, closed, _)| closed.is_none())
    {
        for (stream, closed, got) in &mut stalled {
            if closed.is_none() && is_closed(stream, got) {
                *closed = Some(started.elapsed());
            }
        }
        if Instant::now() >= next_trickle && stalled[1].1.is_none() {
            // A write after the pong closed may fail; the read above tells the close.
            let _ = stalled[1].0.write_all(b"a");
            next_trickle += Duration::from_millis(100);
        }
        thread::sleep(Duration::from_millis(5));
    }

    for ((_, closed, got), who) in stalled.iter().zip(["silent", "trickling"]) {
        let what = format!("{runtime}: the {who} client");
        let closed = closed.unwrap_or_else(|| panic!("{what} was still open after {CUT_BY:?}"));
        assert!(
            closed >= HEADER_TIMEOUT - Duration::from_millis(1) && closed <= CUT_BY,
            "{what} was cut {closed:?} in, the header timeout being {HEADER_TIMEOUT:?}"
        );
        assert!(
            served < closed,
            "{what} was cut ({closed:?}) before the honest one was served ({served:?})"
        );
        assert!(
            !got.starts_with(b"HTTP/1.1 2"),
            "{what}: answered {:?}",
            status_line(got)
        );
    }
    assert_unharmed(&mut pong, &stderr, runtime);
}

/// A client that promises 1000 bytes of body, sends 10 and leaves costs the pong that
/// connection only.
fn a_client_gone_mid_body_leaves_the_pong_serving(runtime: &str) {
    let (mut pong, stderr) = start(runtime, &[]);
    let mut gone = connect(pong.address);
    gone.write_all(SHORT_BODY)
        .expect("sends a head and part of a body");
    drop(gone);
    // Let the pong meet the close before the honest client comes.
    thread::sleep(Duration::from_millis(50));
    still_serves(pong.address, runtime);
    assert_unharmed(&mut pong, &stderr, runtime);
}

/// A body cut short by the client's end of stream (it shuts its writing half and still reads)
/// is not a whole message: the pong closes the connection (RFC 9112 §6.3: "the recipient MUST
/// consider the message to be incomplete and close the connection"), with a 400 at most; never
/// an answer as if the body were whole, or too large.
fn a_body_cut_short_is_not_answered_as_too_large(runtime: &str) {
    let (mut pong, stderr) = start(runtime, &[]);
    let mut cut = connect(pong.address);
    cut.write_all(SHORT_BODY)
        .expect("sends a head and part of a body");
    cut.shutdown(Shutdown::Write).expect("ends its stream");
    let answer = read_until_closed(&mut cut, runtime);
    assert!(
        answer.is_empty() || answer.starts_with(b"HTTP/1.1 400"),
        "{runtime}: a body of 10 bytes out of 1000 was answered {:?}",
        status_line(&answer)
    );
    still_serves(pong.address, runtime);
    assert_unharmed(&mut pong, &stderr, runtime);
}

/// A client that sends a whole head, 10 bytes of the 1000 it promised and then stalls is cut
/// too, as std's pong does after the header timeout: else a slow body holds a connection (a
/// socket, and on std a thread) for as long as the client likes, which the header timeout is
/// there to prevent.
fn a_stalled_body_is_cut_like_a_stalled_head(runtime: &str) {
    let timeout_ms = HEADER_TIMEOUT.as_millis().to_string();
    let (mut pong, stderr) = start(runtime, &["--header-timeout-ms", &timeout_ms]);
    let started = Instant::now();
    let mut stalled = connect(pong.address);
    stalled
        .write_all(SHORT_BODY)
        .expect("sends a head and part of a body");
    stalled
        .set_read_timeout(Some(CUT_BY))
        .expect("read timeout");
    let answer = read_until_closed(&mut stalled, runtime);
    let closed = started.elapsed();
    assert!(
        closed <= CUT_BY && !answer.starts_with(b"HTTP/1.1 2"),
        "{runtime}: cut {closed:?} in, answered {:?}",
        status_line(&answer)
    );
    still_serves(pong.address, runtime);
    assert_unharmed(&mut pong, &stderr, runtime);
}

/// Echoes of the honest client in each phase of the crowd test, after a warm-up.
const ECHOES: usize = 300;
const WARM_UP: usize = 50;
const BAD_CLIENTS: usize = 200;

/// Rounds of the crowd test, the first within its bound passing: other processes' bursts of CPU
/// (a build beside the tests) can land on one phase and not the other, while a pong that lets
/// bad clients slow the honest one is slow in every round.
const ROUNDS: usize = 3;

/// 200 misbehaving clients arrive while an honest client echoes, one before each of its echoes:
/// a third send half a head and stall (the default 30 s header timeout keeps them all open to
/// the end), a third leave mid-body, a third send garbage. The honest client's p99 with them is
/// within 10× its p99 in the control taken just before on the same connection, where as many
/// clients arrive the same way but behave (each one echo, then gone): so a pong that must start
/// a thread per client (std) pays for the arrivals in both, and only the misbehaviour is judged.
fn two_hundred_bad_clients_barely_slow_an_honest_one(runtime: &str) {
    let (mut pong, stderr) = start(runtime, &[]);
    let address = pong.address;
    let mut honest = connect(address);
    for n in 0..WARM_UP {
        echo(&mut honest, n);
    }
    // The honest client's echoes, each of the first BAD_CLIENTS after one client's arrival.
    let mut phase = |arrive: &mut dyn FnMut(usize)| -> Vec<Duration> {
        (0..ECHOES)
            .map(|n| {
                if n < BAD_CLIENTS {
                    arrive(n);
                }
                echo(&mut honest, n)
            })
            .collect()
    };
    let mut rounds = Vec::with_capacity(ROUNDS);
    while rounds.len() < ROUNDS {
        let control = phase(&mut |n| {
            let mut polite = connect(address);
            echo(&mut polite, n);
        });
        let mut crowd = Vec::with_capacity(BAD_CLIENTS);
        let loaded = phase(&mut |n| {
            let mut bad = connect(address);
            let sent = match n % 3 {
                0 => bad.write_all(HALF_HEAD),
                1 => bad.write_all(SHORT_BODY),
                _ => bad.write_all(b"\x16\x03\x01 not HTTP at all\r\n\r\n"),
            };
            sent.expect("a bad client sends");
            if n % 3 != 1 {
                crowd.push(bad);
            }
        });
        assert_unharmed(&mut pong, &stderr, runtime);
        let (control, loaded) = (p99(control), p99(loaded));
        let bound = control * 10;
        rounds.push(format!("{control:?} to {loaded:?} (at most {bound:?})"));
        if loaded < bound {
            return;
        }
        drop(crowd);
        // Let the pong see the crowd leave before the next control phase.
        thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "{runtime}: among {BAD_CLIENTS} bad clients, the honest client's p99 went from {} (its p99 \
         among as many polite ones)",
        rounds.join(", from ")
    );
}

/// 200 clients that send half a head, half of them then leaving, half stalling until the header
/// timeout cuts them: the pong's threads and open files come back to what they were before,
/// within 5 s. std serves each connection on a thread of its own, so a connection never ended
/// would be a thread for good; the others must stay bounded too.
fn dead_clients_leave_no_threads_behind(runtime: &str) {
    let timeout_ms = HEADER_TIMEOUT.as_millis().to_string();
    let (mut pong, stderr) = start(runtime, &["--header-timeout-ms", &timeout_ms]);
    let pid = pong.pid();
    // A first client, served and gone: whatever a runtime starts lazily is started.
    still_serves(pong.address, runtime);
    thread::sleep(Duration::from_millis(100));
    let (threads_before, files_before) = threads_and_files(pid);

    let mut stalled = Vec::with_capacity(BAD_CLIENTS / 2);
    for n in 0..BAD_CLIENTS {
        let mut bad = connect(pong.address);
        bad.write_all(HALF_HEAD).expect("sends half a head");
        if n % 2 == 0 {
            stalled.push(bad);
        }
    }
    let (mut threads, mut files) = threads_and_files(pid);
    let peak = threads;
    // A runtime may start a helper thread or two on demand (glommio does): a few, never one
    // per client.
    let settled =
        |threads: usize, files: usize| threads <= threads_before + 4 && files <= files_before + 4;
    let since = Instant::now();
    while !settled(threads, files) && since.elapsed() < CUT_BY {
        thread::sleep(Duration::from_millis(20));
        (threads, files) = threads_and_files(pid);
    }
    assert!(
        settled(threads, files),
        "{runtime}: {threads} threads and {files} open files {:?} after {BAD_CLIENTS} dead \
         clients, {threads_before} and {files_before} before (threads peaked at {peak} or more)",
        since.elapsed()
    );
    still_serves(pong.address, runtime);
    assert_unharmed(&mut pong, &stderr, runtime);
    drop(stalled);
}

for_each_runtime!(
    a_malformed_request_line_gets_400_and_a_close,
    a_head_over_64_kib_gets_431_and_a_close,
    a_stalled_head_is_cut_at_the_header_timeout_while_others_are_served,
    a_client_gone_mid_body_leaves_the_pong_serving,
    a_body_cut_short_is_not_answered_as_too_large,
    a_stalled_body_is_cut_like_a_stalled_head,
    two_hundred_bad_clients_barely_slow_an_honest_one,
    dead_clients_leave_no_threads_behind,
);
