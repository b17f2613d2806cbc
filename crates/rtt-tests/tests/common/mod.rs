//! Drives the real binaries for the end-to-end tests: starts pongs on free ports, runs pings
//! with a deadline, reads back their logs. Binaries come from the same target folder as the
//! test itself (`make` builds them; `cargo build --release` does too).

#![allow(dead_code, clippy::unwrap_used)] // each test file uses a different part; tests may panic

use std::{
    io::{BufRead, BufReader},
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use serde_json::Value;

/// Binary prefixes of the runtimes under test.
pub const RUNTIMES: [&str; 4] = ["std", "tokio", "asyncstd", "smol"];

/// Generates one `#[test]` per runtime, named after it, that calls `$check(runtime)`.
#[macro_export]
macro_rules! for_each_runtime {
    ($($check:ident),* $(,)?) => {$(
        mod $check {
            #[test] fn std() { super::$check("std") }
            #[test] fn tokio() { super::$check("tokio") }
            #[test] fn asyncstd() { super::$check("asyncstd") }
            #[test] fn smol() { super::$check("smol") }
        }
    )*};
}

/// The path of binary `name` (e.g. `tokio-ping`), built in this test's profile.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let path = profile_dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: build the binaries first (`make`)",
        path.display()
    );
    path
}

/// A running pong, killed when dropped.
pub struct Pong {
    child: Child,
    pub address: SocketAddr,
}

impl Pong {
    pub fn start(runtime: &str, protocol: &str) -> Self {
        Self::start_with(runtime, &["--protocol", protocol])
    }

    /// A pong on a free loopback port with extra arguments (e.g. `--mode throughput`).
    pub fn start_with(runtime: &str, args: &[&str]) -> Self {
        let mut child = Command::new(binary(&format!("{runtime}-pong")))
            .args(["--address", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let address = read_listening_line(&mut child);
        Pong { child, address }
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The pong's process id, for signals such as SIGSTOP (a stalled pong).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the pong process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Pong {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Waits (at most 10 s) for `listening on 127.0.0.1:PORT (proto)` and returns the address.
fn read_listening_line(child: &mut Child) -> SocketAddr {
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("pong printed no 'listening on' line in 10 s");
    let address = line
        .strip_prefix("listening on ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line from the pong: {line:?}"));
    address.parse().unwrap()
}

/// A folder under the system temp dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new() -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("rtt-tests-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a finished ping left behind.
pub struct PingRun {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The JSON log, if one was written.
    pub json: Option<Value>,
    /// The rows of the CSV log, three numbers each: `(seq, t_ns, rtt_ns)` for an RTT run,
    /// `(window, messages, bytes)` (t_ns dropped) for a throughput run.
    pub rows: Vec<(u64, u64, u64)>,
    _dir: TempDir,
}

impl PingRun {
    pub fn json(&self) -> &Value {
        self.json
            .as_ref()
            .unwrap_or_else(|| panic!("no JSON log; stderr: {}", self.stderr))
    }

    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }
}

/// Runs `{runtime}-ping` with `args` (split at spaces) plus `--out`, killing it if it outlives
/// `deadline`.
pub fn ping(runtime: &str, args: &str, deadline: Duration) -> PingRun {
    ping_with(runtime, args, deadline, |_| {})
}

/// As [`ping`], calling `during(elapsed)` every 10 ms while the ping runs.
pub fn ping_with(
    runtime: &str,
    args: &str,
    deadline: Duration,
    mut during: impl FnMut(Duration),
) -> PingRun {
    let dir = TempDir::new();
    let stem = dir.0.join("run");
    let started = Instant::now();
    let mut child = Command::new(binary(&format!("{runtime}-ping")))
        .args(args.split_whitespace())
        .arg("--out")
        .arg(&stem)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            panic!("{runtime}-ping {args:?} still running after {deadline:?}");
        }
        during(started.elapsed());
        thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    let output = child.wait_with_output().unwrap();
    let json = std::fs::read_to_string(stem.with_extension("json"))
        .ok()
        .filter(|text| !text.is_empty())
        .map(|text| serde_json::from_str(&text).unwrap());
    let rows = std::fs::read_to_string(stem.with_extension("csv"))
        .map(|text| parse_csv(&text))
        .unwrap_or_default();
    PingRun {
        status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed,
        json,
        rows,
        _dir: dir,
    }
}

fn parse_csv(text: &str) -> Vec<(u64, u64, u64)> {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let throughput = header == "window,t_ns,messages,bytes";
    assert!(
        throughput || header == "seq,t_ns,rtt_ns",
        "unexpected CSV header {header:?}"
    );
    lines
        .map(|line| {
            let fields: Vec<u64> = line.split(',').map(|f| f.parse().unwrap()).collect();
            if throughput {
                (fields[0], fields[2], fields[3])
            } else {
                (fields[0], fields[1], fields[2])
            }
        })
        .collect()
}

/// A JSON field as u64, with a readable failure.
pub fn uint(json: &Value, key: &str) -> u64 {
    json[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not an unsigned integer in {json}"))
}

/// A JSON field as f64, with a readable failure.
pub fn float(json: &Value, key: &str) -> f64 {
    json[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {json}"))
}
