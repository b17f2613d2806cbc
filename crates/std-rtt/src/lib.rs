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
        Ok(Tcp(stream))
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
        Ok((Tcp(stream), peer))
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

pub struct Tcp(TcpStream);

impl TcpIo for Tcp {
    async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }

    async fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.0.read_exact(buf)
    }

    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }

    async fn shutdown_write(&mut self) -> io::Result<()> {
        self.0.shutdown(std::net::Shutdown::Write)
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
