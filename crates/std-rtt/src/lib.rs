//! Plain `std` blocking I/O, the baseline: one OS thread per task, blocking socket calls,
//! `thread::sleep`. The shared async loop runs on a trivial executor whose futures never wait
//! (every call blocks its thread, as plain std code does), so no runtime sits in between.
//! With `--busy-poll` the same calls spin on non-blocking sockets and never sleep: the
//! busy-poll reference, the lowest RTT this machine gives.

pub mod micro;
mod sockets;

pub use sockets::{Tcp, Udp};

use std::{
    future::Future,
    io,
    net::{SocketAddr, TcpListener, TcpStream, UdpSocket},
    pin::Pin,
    sync::atomic::{AtomicBool, Ordering},
    task::{Context, Poll},
    thread,
    time::Instant,
};

use rtt_core::{
    build_info,
    runtime::{Runtime, RuntimeInfo, STALL_LIMIT, deep_listener},
};

pub struct Std;

/// std's one knob, which makes it the busy-poll reference.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct StdKnobs {
    /// Spin on non-blocking sockets instead of sleeping in them (std only): the busy-poll
    /// reference, the lowest RTT this machine gives; its logs say framework `busy-poll`
    #[arg(long)]
    pub busy_poll: bool,
}

/// Whether this process spins on non-blocking sockets (`--busy-poll`) instead of blocking in
/// them: set once, before the run starts.
static BUSY_POLL: AtomicBool = AtomicBool::new(false);

fn busy_polling() -> bool {
    BUSY_POLL.load(Ordering::Relaxed)
}

/// Repeats a non-blocking socket call while it would block, spinning; gives up with `TimedOut`
/// once `deadline` has passed (no deadline: never).
fn spin<T>(deadline: Option<Instant>, mut call: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match call() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(io::ErrorKind::TimedOut.into());
                }
                std::hint::spin_loop();
            }
            other => return other,
        }
    }
}

impl Runtime for Std {
    const FRAMEWORK: &'static str = "std";
    type Knobs = StdKnobs;

    fn reference(knobs: &StdKnobs) -> Option<(&'static str, &'static str)> {
        knobs.busy_poll.then_some(("busy-poll", "--busy-poll"))
    }

    const BLOCKING_IO: bool = true;

    type TcpStream = Tcp;
    type TcpListener = TcpListener;
    type UdpSocket = Udp;
    type Task<T: Send + 'static> = Task<T>;

    fn version() -> String {
        build_info::rustc_release().to_owned()
    }

    fn run<M, F>(knobs: &StdKnobs, main: M) -> anyhow::Result<F::Output>
    where
        M: FnOnce(RuntimeInfo) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        BUSY_POLL.store(knobs.busy_poll, Ordering::Relaxed);
        let flavor = if knobs.busy_poll {
            "busy_poll"
        } else {
            "os_threads"
        };
        let info = RuntimeInfo::new(flavor, 1).with("busy_poll", knobs.busy_poll);
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
        if busy_polling() {
            while Instant::now() < deadline {
                std::hint::spin_loop();
            }
        } else {
            thread::sleep(deadline.saturating_duration_since(Instant::now()));
        }
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
        Tcp::new(stream, Some(STALL_LIMIT))
    }

    async fn listen(address: SocketAddr) -> io::Result<TcpListener> {
        deep_listener(address)
    }

    fn listener_address(listener: &TcpListener) -> io::Result<SocketAddr> {
        listener.local_addr()
    }

    /// Accepting blocks even when busy polling: a second spinning thread on the pong's CPU
    /// would take turns with the one serving the client.
    async fn accept(listener: &TcpListener) -> io::Result<(Tcp, SocketAddr)> {
        let (stream, peer) = listener.accept()?;
        stream.set_nodelay(true)?;
        Ok((Tcp::new(stream, None)?, peer))
    }

    /// Receives get their deadline per call (`recv_until`); a send that blocks gives up after
    /// `STALL_LIMIT`.
    async fn bind_udp(address: SocketAddr) -> io::Result<Udp> {
        let socket = UdpSocket::bind(address)?;
        socket.set_write_timeout(Some(STALL_LIMIT))?;
        socket.set_nonblocking(busy_polling())?;
        Ok(Udp::new(socket))
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
