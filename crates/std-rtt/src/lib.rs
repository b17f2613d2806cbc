//! Plain `std` blocking I/O, the baseline: one OS thread per task, blocking socket calls,
//! `thread::sleep`. The shared async loop runs on a trivial executor whose futures never wait
//! (every call blocks its thread, as plain std code does), so no runtime sits in between.

use std::{
    future::Future,
    io::{self, Read, Write},
    net::{SocketAddr, TcpListener, TcpStream, UdpSocket},
    pin::Pin,
    sync::atomic::{AtomicU64, Ordering},
    task::{Context, Poll},
    thread,
    time::{Duration, Instant},
};

use rtt_core::{
    build_info,
    runtime::{Runtime, RuntimeInfo, RuntimeOptions, STALL_LIMIT, TcpIo, UdpIo},
};

pub struct Std;

impl Runtime for Std {
    const FRAMEWORK: &'static str = "std";
    const HAS_THREADS: bool = false;

    type TcpStream = Tcp;
    type TcpListener = TcpListener;
    type UdpSocket = Udp;
    type Task<T: Send + 'static> = Task<T>;

    fn version() -> String {
        build_info::rustc_release().to_owned()
    }

    fn run<M, F>(options: &RuntimeOptions, main: M) -> anyhow::Result<F::Output>
    where
        M: FnOnce(RuntimeInfo) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        debug_assert!(options.threads.is_none(), "rejected by the option checks");
        let info = RuntimeInfo {
            flavor: "os_threads".to_owned(),
            threads: 1,
        };
        Ok(futures::executor::block_on(main(info)))
    }

    fn spawn<F>(future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        Task(Some(thread::spawn(move || {
            futures::executor::block_on(future)
        })))
    }

    async fn sleep_until(deadline: Instant) {
        thread::sleep(deadline.saturating_duration_since(Instant::now()));
    }

    async fn yield_now() {
        thread::yield_now();
    }

    /// std calls block, so a race against a timer cannot interrupt them; the sockets carry
    /// their own timeouts instead (see `connect` and `Udp::recv_until`).
    async fn until<F>(_deadline: Instant, future: F) -> Option<F::Output>
    where
        F: Future + Send,
        F::Output: Send,
    {
        Some(future.await)
    }

    /// A ping's stream: every blocking call on it (connect, read, write) gives up after
    /// `STALL_LIMIT`, so a stalled pong cannot hold the ping forever.
    async fn connect(address: SocketAddr) -> io::Result<Tcp> {
        let stream = TcpStream::connect_timeout(&address, STALL_LIMIT)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(STALL_LIMIT))?;
        stream.set_write_timeout(Some(STALL_LIMIT))?;
        Ok(Tcp::new(stream))
    }

    async fn listen(address: SocketAddr) -> io::Result<TcpListener> {
        TcpListener::bind(address)
    }

    fn listener_address(listener: &TcpListener) -> io::Result<SocketAddr> {
        listener.local_addr()
    }

    async fn accept(listener: &TcpListener) -> io::Result<(Tcp, SocketAddr)> {
        let (stream, peer) = listener.accept()?;
        stream.set_nodelay(true)?;
        Ok((Tcp::new(stream), peer))
    }

    /// Receives get their deadline per call (`recv_until`); a send that blocks gives up after
    /// `STALL_LIMIT`.
    async fn bind_udp(address: SocketAddr) -> io::Result<Udp> {
        let socket = UdpSocket::bind(address)?;
        socket.set_write_timeout(Some(STALL_LIMIT))?;
        Ok(Udp {
            socket,
            read_timeout_ns: AtomicU64::new(0),
        })
    }
}

/// A thread; awaiting it joins the thread (and re-raises its panic).
pub struct Task<T>(Option<thread::JoinHandle<T>>);

impl<T> Future for Task<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        match self.0.take().map(thread::JoinHandle::join) {
            Some(Ok(output)) => Poll::Ready(output),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => panic!("a std task was awaited twice"),
        }
    }
}

pub struct Tcp {
    stream: TcpStream,
    /// When the current phase of the run must be over (`bound_by`), if one was set.
    deadline: Option<Instant>,
}

impl Tcp {
    fn new(stream: TcpStream) -> Self {
        Self {
            stream,
            deadline: None,
        }
    }

    /// A blocking send returns short only when its timeout expired (or a signal came): the peer
    /// may have stopped reading. The rest may wait only what is left until the deadline, so that
    /// one write of many bytes cannot wait a whole timeout again and again.
    fn after_short_write(&mut self) -> io::Result<()> {
        let Some(deadline) = self.deadline else {
            return Ok(());
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_write_timeout(Some(left.min(STALL_LIMIT)))
    }
}

impl TcpIo for Tcp {
    /// `Write::write_all`, but a short write is noticed (the clock is read only then).
    async fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            match self.stream.write(buf) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(written) => {
                    if written < buf.len() {
                        self.after_short_write()?;
                    }
                    buf = &buf[written..];
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    async fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.stream.read_exact(buf)
    }

    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.read(buf)
    }

    async fn shutdown_write(&mut self) -> io::Result<()> {
        self.stream.shutdown(std::net::Shutdown::Write)
    }

    fn bound_by(&mut self, deadline: Instant) -> io::Result<()> {
        // A zero timeout would mean none at all: the shortest one is 1 ms.
        let limit = deadline
            .saturating_duration_since(Instant::now())
            .clamp(Duration::from_millis(1), STALL_LIMIT);
        self.stream.set_read_timeout(Some(limit))?;
        self.stream.set_write_timeout(Some(limit))?;
        self.deadline = Some(deadline);
        Ok(())
    }
}

pub struct Udp {
    socket: UdpSocket,
    /// The receive timeout last set on the socket (0: none yet), so that the common case costs
    /// no extra syscall.
    read_timeout_ns: AtomicU64,
}

/// How far a blocking receive may outlast its deadline before the timeout is set again: one
/// `setsockopt` per message would be a cost the async runtimes do not pay.
const TIMEOUT_SLACK: Duration = Duration::from_millis(1);

impl UdpIo for Udp {
    fn local_address(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    async fn connect(&self, peer: SocketAddr) -> io::Result<()> {
        self.socket.connect(peer)
    }

    async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        self.socket.send(buf)
    }

    async fn recv_until(&self, buf: &mut [u8], deadline: Instant) -> io::Result<Option<usize>> {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Ok(None);
        }
        let current = Duration::from_nanos(self.read_timeout_ns.load(Ordering::Relaxed));
        if current < remaining || current > remaining + TIMEOUT_SLACK {
            self.socket.set_read_timeout(Some(remaining))?;
            let nanos = u64::try_from(remaining.as_nanos()).unwrap_or(u64::MAX);
            self.read_timeout_ns.store(nanos, Ordering::Relaxed);
        }
        match self.socket.recv(buf) {
            Ok(len) => Ok(Some(len)),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    async fn send_to(&self, buf: &[u8], peer: SocketAddr) -> io::Result<usize> {
        self.socket.send_to(buf, peer)
    }

    async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.socket.recv_from(buf)
    }
}
