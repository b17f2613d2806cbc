//! The seam between the suite and a runtime: what really differs between runtimes (build, spawn,
//! sleep, yield, connect, read, write). Each runtime crate implements these traits in a few
//! lines, the way an application on that runtime would write them.
//!
//! Two kinds of runtime meet here. Readiness-based ones (std, tokio, async-std, smol) read into
//! and write from memory the caller keeps; completion-based ones (io_uring: monoio, compio,
//! glommio) hand the buffer to the kernel, which may still write into it after the future that
//! asked was dropped. So every read and write *lends* its buffer (`Vec<u8>`) and gets it back
//! with the result, and a call that gives up at a deadline gives back a buffer all the same.
//! Thread-per-core runtimes also run `!Send` futures on the thread that made them; they meet
//! the `Send` bounds below with [`ThreadBound`], which checks at run time that a value never
//! leaves its thread (it never does: such a runtime never moves a task). The measurement loop
//! is written once over these traits and serves both kinds.

use std::{
    future::Future,
    io,
    net::SocketAddr,
    time::{Duration, Instant},
};

use anyhow::{Context, anyhow};

pub use crate::{
    knobs::{RingEntriesKnob, RuntimeInfo, ThreadsKnob},
    thread_per_core::{Rethrow, ThreadBound, catching, io_uring_unavailable},
};

/// How long a ping waits on a silent pong before giving up on it: past a run's planned end for
/// its echoes, writes and counts; from the start of a connect or a handshake. The async runtimes
/// race each wait against a timer ([`Runtime::until`]); std bounds each blocking socket call by
/// it, and a phase of the run by its deadline ([`TcpIo::bound_by`]). One limit for every wait.
pub const STALL_LIMIT: Duration = Duration::from_secs(5);

/// A runtime under test.
pub trait Runtime: 'static {
    /// The framework label in logs, as in runtimes.json (`std`, `tokio`, `monoio`, …).
    const FRAMEWORK: &'static str;
    /// The options that build this runtime, its own and no other's: flattened into each of its
    /// binaries, so that the parser itself refuses another runtime's knob (exit 2).
    type Knobs: clap::Args
        + clap::FromArgMatches
        + Clone
        + std::fmt::Debug
        + Default
        + Send
        + 'static;

    /// The reference baseline these knobs make of the runtime, if any, as its framework label
    /// and the flag that makes it (std `--busy-poll`: `busy-poll`, as in runtimes.json).
    fn reference(_knobs: &Self::Knobs) -> Option<(&'static str, &'static str)> {
        None
    }

    /// The framework label of a run with these knobs: [`Self::FRAMEWORK`], or the reference's.
    fn label(knobs: &Self::Knobs) -> &'static str {
        Self::reference(knobs).map_or(Self::FRAMEWORK, |(label, _)| label)
    }

    /// Whether its I/O calls block their thread rather than wait as futures (std): an HTTP pong
    /// on it is a small blocking server, a thread per connection, rather than hyper.
    const BLOCKING_IO: bool = false;

    type TcpStream: TcpIo;
    type TcpListener: Send + Sync + 'static;
    type UdpSocket: UdpIo;
    /// A spawned task (std: a thread); awaiting it gives the task's result.
    type Task<T: Send + 'static>: Future<Output = T> + Send + 'static;

    /// The framework's version as built: the version of its crate (named as its framework label)
    /// locked in Cargo.lock; std says its rustc release instead.
    fn version() -> String {
        crate::build_info::locked_version(Self::FRAMEWORK)
            .unwrap_or("unknown")
            .to_owned()
    }

    /// Builds the runtime and runs `main` as a task on it (not beside it, so that it competes
    /// with the decoys for the same workers), returning its output.
    fn run<M, F>(knobs: &Self::Knobs, main: M) -> anyhow::Result<F::Output>
    where
        M: FnOnce(RuntimeInfo) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    fn spawn<F>(future: F) -> Self::Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    /// Lets `task` run on without anyone awaiting it.
    fn detach<T: Send + 'static>(task: Self::Task<T>) {
        drop(task);
    }

    fn sleep_until(deadline: Instant) -> impl Future<Output = ()> + Send;

    fn yield_now() -> impl Future<Output = ()> + Send;

    /// `future`'s output, or `None` if `deadline` passes first. The default races it against
    /// the runtime's timer; std, whose calls block, bounds its socket calls instead.
    fn until<F>(deadline: Instant, future: F) -> impl Future<Output = Option<F::Output>> + Send
    where
        F: Future + Send,
        F::Output: Send,
    {
        async move {
            let timer = std::pin::pin!(Self::sleep_until(deadline));
            let future = std::pin::pin!(future);
            match futures::future::select(future, timer).await {
                futures::future::Either::Left((output, _)) => Some(output),
                futures::future::Either::Right(((), _)) => None,
            }
        }
    }

    /// Connects with Nagle's algorithm off: every message goes out at once.
    fn connect(address: SocketAddr) -> impl Future<Output = io::Result<Self::TcpStream>> + Send;

    fn listen(address: SocketAddr) -> impl Future<Output = io::Result<Self::TcpListener>> + Send;

    fn listener_address(listener: &Self::TcpListener) -> io::Result<SocketAddr>;

    /// Accepts a client, with Nagle's algorithm off.
    fn accept(
        listener: &Self::TcpListener,
    ) -> impl Future<Output = io::Result<(Self::TcpStream, SocketAddr)>> + Send;

    fn bind_udp(address: SocketAddr) -> impl Future<Output = io::Result<Self::UdpSocket>> + Send;
}

/// What an I/O call gives back: its result and the buffer it was lent, with the same length.
pub type Lent<T> = (io::Result<T>, Vec<u8>);

/// Reads from a TCP stream, or from its reading half. Each call lends its buffer and gets it
/// back (see the module's doc).
pub trait TcpRead: Send + 'static {
    /// Fills the whole of `buf`.
    fn read_exact(&mut self, buf: Vec<u8>) -> impl Future<Output = Lent<()>> + Send;
    /// Reads what has come, at most `buf.len()` bytes, into the front of `buf`; 0 at the end.
    fn read(&mut self, buf: Vec<u8>) -> impl Future<Output = Lent<usize>> + Send;
}

/// Writes to a TCP stream, or to its writing half (lending its buffer, as [`TcpRead`]).
pub trait TcpWrite: Send + 'static {
    /// Writes `buf[..len]`.
    fn write_all(&mut self, buf: Vec<u8>, len: usize) -> impl Future<Output = Lent<()>> + Send;
}

/// A connected TCP stream.
pub trait TcpIo: TcpRead + TcpWrite {
    type ReadHalf: TcpRead;
    type WriteHalf: TcpWrite;

    /// The stream as a reading and a writing half, which a receiver and a sender task use at
    /// the same time (`--load open`): each the way the runtime's applications split a stream.
    fn into_split(self) -> io::Result<(Self::ReadHalf, Self::WriteHalf)>;
    /// Closes the sending half: the peer reads end-of-stream, and can still answer.
    fn shutdown_write(&mut self) -> impl Future<Output = io::Result<()>> + Send;
    /// Makes each later blocking call on the stream give up by `deadline` (and after
    /// [`STALL_LIMIT`] at most). Only std's calls block; the async runtimes' waits are raced
    /// against a timer with [`Runtime::until`] instead, so by default this does nothing. Called
    /// between the phases of a run, never inside a measured loop.
    fn bound_by(&mut self, deadline: Instant) -> io::Result<()> {
        let _ = deadline;
        Ok(())
    }
}

/// A UDP socket. Each call lends its buffer and gets it back (see the module's doc); a datagram
/// is received into the front of the buffer.
pub trait UdpIo: Send + Sync + 'static {
    fn local_address(&self) -> io::Result<SocketAddr>;
    /// Fixes the peer: `send` goes there and only its datagrams are received.
    fn connect(&self, peer: SocketAddr) -> impl Future<Output = io::Result<()>> + Send;
    /// Sends `buf[..len]` to the peer.
    fn send(&self, buf: Vec<u8>, len: usize) -> impl Future<Output = Lent<usize>> + Send;
    /// Receives one datagram from the peer, or `None` once `deadline` has passed; a receive
    /// still in flight then is cancelled, never left to swallow a later datagram.
    fn recv_until(
        &self,
        buf: Vec<u8>,
        deadline: Instant,
    ) -> impl Future<Output = Lent<Option<usize>>> + Send;
    /// Sends `buf[..len]` to `peer`.
    fn send_to(
        &self,
        buf: Vec<u8>,
        len: usize,
        peer: SocketAddr,
    ) -> impl Future<Output = Lent<usize>> + Send;
    fn recv_from(&self, buf: Vec<u8>) -> impl Future<Output = Lent<(usize, SocketAddr)>> + Send;
}

/// Writes a control message (a handshake, the counts) from a copy: the exchanges that are
/// measured lend their own buffers instead.
pub async fn write_copy<S: TcpWrite>(stream: &mut S, bytes: &[u8]) -> io::Result<()> {
    stream.write_all(bytes.to_vec(), bytes.len()).await.0
}

/// Sends a control datagram from a copy (see [`write_copy`]).
pub async fn send_copy<U: UdpIo>(
    socket: &U,
    bytes: &[u8],
    peer: Option<SocketAddr>,
) -> io::Result<usize> {
    match peer {
        Some(peer) => socket.send_to(bytes.to_vec(), bytes.len(), peer).await.0,
        None => socket.send(bytes.to_vec(), bytes.len()).await.0,
    }
}

/// A TCP stream of a runtime whose sockets implement the `futures` I/O traits (async-std, smol):
/// the same calls an application on those runtimes makes.
pub struct FuturesTcp<S> {
    stream: S,
    /// How this runtime shuts down the sending half: `close()` does not on every runtime
    /// (async-std's only flushes).
    shutdown_write: fn(&S) -> io::Result<()>,
}

impl<S> FuturesTcp<S> {
    pub fn new(stream: S, shutdown_write: fn(&S) -> io::Result<()>) -> Self {
        Self {
            stream,
            shutdown_write,
        }
    }
}

impl<S> TcpRead for FuturesTcp<S>
where
    S: futures::AsyncRead + Unpin + Send + 'static,
{
    async fn read_exact(&mut self, mut buf: Vec<u8>) -> Lent<()> {
        let result = futures::AsyncReadExt::read_exact(&mut self.stream, &mut buf).await;
        (result, buf)
    }

    async fn read(&mut self, mut buf: Vec<u8>) -> Lent<usize> {
        let result = futures::AsyncReadExt::read(&mut self.stream, &mut buf).await;
        (result, buf)
    }
}

impl<S> TcpWrite for FuturesTcp<S>
where
    S: futures::AsyncWrite + Unpin + Send + 'static,
{
    async fn write_all(&mut self, buf: Vec<u8>, len: usize) -> Lent<()> {
        let result = futures::AsyncWriteExt::write_all(&mut self.stream, &buf[..len]).await;
        (result, buf)
    }
}

/// Both runtimes' streams are handles on one shared socket: a clone is the other half.
impl<S> TcpIo for FuturesTcp<S>
where
    S: futures::AsyncRead + futures::AsyncWrite + Clone + Unpin + Send + 'static,
{
    type ReadHalf = Self;
    type WriteHalf = Self;

    fn into_split(self) -> io::Result<(Self, Self)> {
        let reader = Self::new(self.stream.clone(), self.shutdown_write);
        Ok((reader, self))
    }

    async fn shutdown_write(&mut self) -> io::Result<()> {
        (self.shutdown_write)(&self.stream)
    }
}

/// Connects a ping to its pong over TCP within [`STALL_LIMIT`], with an error that says what to
/// check.
pub async fn connect_to_pong<R: Runtime>(address: SocketAddr) -> anyhow::Result<R::TcpStream> {
    match R::until(Instant::now() + STALL_LIMIT, R::connect(address)).await {
        Some(Ok(stream)) => Ok(stream),
        Some(Err(e)) => Err(anyhow!(
            "connecting to {address} (tcp): {e}; is the pong running there?"
        )),
        None => Err(anyhow!(
            "connecting to {address} (tcp): no answer in {} s; is the pong running there?",
            STALL_LIMIT.as_secs()
        )),
    }
}

/// A pong's listening socket, as std: `SO_REUSEADDR`, and an accept queue as deep as the kernel
/// allows (`net.core.somaxconn`, 4096 by default) instead of the 128 of std's `bind` and of the
/// runtimes built on it. A ping opens its connections faster than a pong that spawns a thread or
/// a task per client accepts them; a full queue drops SYNs, and each costs its client a 1 s
/// retransmission (10 000 connections then take minutes to open). Each runtime wraps it in its
/// own listener, as its documentation shows for a socket configured beforehand.
pub fn deep_listener(address: SocketAddr) -> io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(address), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.bind(&address.into())?;
    socket.listen(i32::MAX)?; // Linux caps it at net.core.somaxconn
    Ok(socket.into())
}

/// Whether an I/O error is a blocking call's timeout (std's socket timeouts).
pub fn timed_out(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A UDP socket connected to the pong at `address`.
pub async fn udp_to_pong<R: Runtime>(address: SocketAddr) -> anyhow::Result<R::UdpSocket> {
    let socket = R::bind_udp(unspecified_for(address))
        .await
        .with_context(|| format!("opening a UDP socket to reach {address}"))?;
    socket
        .connect(address)
        .await
        .with_context(|| format!("connecting a UDP socket to {address}"))?;
    Ok(socket)
}

/// The address to bind a client socket to so that it can reach `peer` (same IP family).
pub fn unspecified_for(peer: SocketAddr) -> SocketAddr {
    match peer {
        SocketAddr::V4(_) => SocketAddr::from(([0, 0, 0, 0], 0)),
        SocketAddr::V6(_) => SocketAddr::from(([0u16; 8], 0)),
    }
}

/// The worker count a runtime defaults to: the CPUs this process may run on (so `taskset -c 1`
/// gives one), as tokio and async-std compute it.
pub fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
