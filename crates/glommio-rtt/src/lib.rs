//! The glommio runtime under test: how glommio builds, spawns, sleeps, yields and does socket I/O.

pub mod micro;

// glommio runs `!Send` tasks on its executor's thread: every socket, task handle and operation in
// flight is wrapped in `ThreadBound` for the seam's `Send` bounds (none leaves that thread). Its
// sockets borrow the seam's lent `Vec<u8>` and copy through buffers of their own, which are what
// the kernel gets: the lent buffer comes back whole, whatever happens to the operation.

use std::{
    future::Future,
    io,
    net::{Shutdown, SocketAddr},
    panic::AssertUnwindSafe,
    time::{Duration, Instant},
};

use futures::{
    AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
    io::{ReadHalf, WriteHalf},
};
use glommio::{
    CpuSet, GlommioError, LocalExecutor, LocalExecutorBuilder, Placement, ReactorErrorKind,
    net::{TcpListener, TcpStream, UdpSocket},
    timer::Timer,
};
use rtt_core::runtime::{
    Lent, Rethrow, Runtime, RuntimeInfo, TcpIo, TcpRead, TcpWrite, ThreadBound, UdpIo, catching,
    io_uring_unavailable,
};

/// glommio 0.9's preempt timer when not told (`DEFAULT_PREEMPT_TIMER`, executor/mod.rs): 100 ms.
const DEFAULT_PREEMPT_TIMER_US: u64 = 100_000;

pub struct Glommio;

/// glommio's knobs: how its executor parks and preempts.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct GlommioKnobs {
    /// glommio: how long an idle executor spins before it parks its thread [default: 0]
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub spin_before_park_us: Option<u64>,
    /// glommio: how long a task queue runs before the executor preempts it to poll its rings
    /// [default: 100000, glommio's 100 ms]
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub preempt_timer_us: Option<u64>,
}

impl Runtime for Glommio {
    const FRAMEWORK: &'static str = "glommio";
    type Knobs = GlommioKnobs;

    type TcpStream = Tcp;
    type TcpListener = ThreadBound<TcpListener>;
    type UdpSocket = Udp;
    type Task<T: Send + 'static> = Task<T>;

    fn run<M, F>(knobs: &GlommioKnobs, main: M) -> anyhow::Result<F::Output>
    where
        M: FnOnce(RuntimeInfo) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // glommio's default is no spinning: an idle executor parks at once
        // (`spin_before_park().unwrap_or_default()` in `LocalExecutor::run`).
        let spin_us = knobs.spin_before_park_us.unwrap_or(0);
        let builder = match spin_us {
            // No placement: the sweep's taskset decides where this thread runs.
            0 => LocalExecutorBuilder::new(Placement::Unbound),
            // glommio drops the spin of an executor bound to no CPU (`LocalExecutor::new`), so
            // fence it to the CPUs this process may already run on: that moves nothing.
            _ => LocalExecutorBuilder::new(Placement::Fenced(allowed_cpus()?))
                .spin_before_park(Duration::from_micros(spin_us)),
        };
        // While tasks are runnable, glommio polls its rings only when it preempts the running
        // queue: this timer sets its latency under CPU-bound load (`DEFAULT_PREEMPT_TIMER`).
        let preempt_us = knobs.preempt_timer_us.unwrap_or(DEFAULT_PREEMPT_TIMER_US);
        let builder = builder.preempt_timer(Duration::from_micros(preempt_us));
        let executor = make(builder)?;
        let main = main(
            RuntimeInfo::new("thread_per_core", 1)
                .with("spin_before_park_us", spin_us)
                .with("preempt_timer_us", preempt_us),
        );
        // `run` spawns `main` as a task of the executor's default queue, beside the decoys.
        Ok(executor.run(main))
    }

    fn spawn<F>(future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // glommio lets a panic unwind out of the executor; catch it in the task instead, to
        // re-raise it where the task is awaited.
        Rethrow(ThreadBound::new(glommio::spawn_local(catching(future))))
    }

    /// A glommio task is cancelled when its handle is dropped: detach it instead.
    fn detach<T: Send + 'static>(task: Task<T>) {
        drop(task.0.take().detach());
    }

    fn sleep_until(deadline: Instant) -> impl Future<Output = ()> + Send {
        // The timer is made on first poll: glommio's timers belong to the running executor.
        ThreadBound::new(async move {
            Timer::new(deadline.saturating_duration_since(Instant::now())).await;
        })
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        // glommio's unconditional yield: the task goes to the back of its task queue. While
        // that queue has tasks, glommio polls its rings only when preempted (every 100 ms by
        // default, `preempt_timer`): with spinning decoys, that sets the ping's latency.
        ThreadBound::new(async { glommio::executor().yield_now().await })
    }

    fn connect(address: SocketAddr) -> impl Future<Output = io::Result<Tcp>> + Send {
        ThreadBound::new(async move {
            let stream = TcpStream::connect(address).await?;
            stream.set_nodelay(true)?;
            Ok(Tcp(ThreadBound::new(stream)))
        })
    }

    // glommio binds its listeners with SO_REUSEPORT (to shard a port across executors), so a
    // second pong on a port in use would share it and take half its clients. glommio takes a
    // listener from nothing but a raw descriptor (unsafe), so a plain bind, dropped at once,
    // first makes a taken port fail here as on every other runtime.
    fn listen(address: SocketAddr) -> impl Future<Output = io::Result<Self::TcpListener>> + Send {
        ThreadBound::new(async move {
            drop(std::net::TcpListener::bind(address)?);
            Ok(ThreadBound::new(TcpListener::bind(address)?))
        })
    }

    fn listener_address(listener: &Self::TcpListener) -> io::Result<SocketAddr> {
        Ok(listener.local_addr()?)
    }

    fn accept(
        listener: &Self::TcpListener,
    ) -> impl Future<Output = io::Result<(Tcp, SocketAddr)>> + Send {
        let listener: &TcpListener = listener;
        ThreadBound::new(async move {
            let stream = listener.accept().await?;
            stream.set_nodelay(true)?;
            let peer = stream.peer_addr()?;
            Ok((Tcp(ThreadBound::new(stream)), peer))
        })
    }

    /// glommio's own `UdpSocket::bind` sets SO_REUSEPORT, so two of a ping's sockets bound to
    /// port 0 may be given the same port, and the kernel then hands one of them the other's
    /// replies (seen: one of 100 sockets received nothing). Bound as std binds instead, and given
    /// to glommio as the socket2 socket it takes.
    fn bind_udp(address: SocketAddr) -> impl Future<Output = io::Result<Udp>> + Send {
        use glommio_socket2::{Domain, Socket, Type};
        ThreadBound::new(async move {
            let socket = Socket::new(Domain::for_address(address), Type::DGRAM, None)?;
            socket.bind(&address.into())?;
            Ok(Udp(ThreadBound::new(UdpSocket::from(socket))))
        })
    }
}

/// Builds the executor, which sets up its io_uring rings: glommio has no other driver, so
/// failing to is io_uring being unavailable (placement errors aside).
fn make(builder: LocalExecutorBuilder) -> anyhow::Result<LocalExecutor> {
    // glommio 0.9 panics rather than returning an error when it cannot probe io_uring
    // (`check_supported_operations` in sys/uring.rs): catch that panic, with the hook silenced
    // so that no message or backtrace is printed, and say why in one line.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let made = std::panic::catch_unwind(AssertUnwindSafe(|| builder.make()));
    std::panic::set_hook(hook);
    match made {
        Ok(Ok(executor)) => Ok(executor),
        Ok(Err(GlommioError::ReactorError(ReactorErrorKind::MemLockLimit(limit, needed)))) => {
            Err(io_uring_unavailable(format!(
                "RLIMIT_MEMLOCK is {limit} bytes, glommio needs {needed} to lock its rings' \
                 memory (raise it with ulimit -l)"
            )))
        }
        Ok(Err(GlommioError::BuilderError(kind))) => {
            Err(anyhow::anyhow!("placing glommio's executor: {kind}"))
        }
        Ok(Err(other)) => Err(io_uring_unavailable(other)),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("no message");
            // Its message goes on to guess at an old kernel: keep its first sentence, the fact.
            let fact = message.split('.').next().unwrap_or(message);
            Err(io_uring_unavailable(format!(
                "glommio could not probe io_uring (\"{fact}\"; it needs Linux 5.8 or later with \
                 io_uring allowed)"
            )))
        }
    }
}

/// The CPUs this process may run on (its affinity, as `taskset` set it), as glommio names them.
fn allowed_cpus() -> anyhow::Result<CpuSet> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let list = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .ok_or_else(|| anyhow::anyhow!("no Cpus_allowed_list in /proc/self/status"))?;
    let mut allowed = Vec::new();
    for range in list.trim().split(',') {
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        allowed.push(first.parse::<usize>()?..=last.parse::<usize>()?);
    }
    let cpus = CpuSet::online()
        .map_err(io::Error::from)?
        .filter(|cpu| allowed.iter().any(|range| range.contains(&cpu.cpu)));
    Ok(cpus)
}

/// A glommio task whose panic, if any, is re-raised where it is awaited.
pub type Task<T> = Rethrow<ThreadBound<glommio::Task<std::thread::Result<T>>>>;

/// glommio's stream implements the `futures` I/O traits: they borrow the lent buffer, and a read
/// dropped at a deadline leaves only a readiness poll behind, which consumes no data. glommio has
/// no split of its own: its halves are the `futures` ones (a lock each poll takes in turn).
pub struct Tcp<S = TcpStream>(ThreadBound<S>);

impl<S: AsyncRead + Unpin + 'static> TcpRead for Tcp<S> {
    fn read_exact(&mut self, mut buf: Vec<u8>) -> impl Future<Output = Lent<()>> + Send {
        let stream = &mut *self.0;
        ThreadBound::new(async move { (stream.read_exact(&mut buf).await, buf) })
    }

    fn read(&mut self, mut buf: Vec<u8>) -> impl Future<Output = Lent<usize>> + Send {
        let stream = &mut *self.0;
        ThreadBound::new(async move { (stream.read(&mut buf).await, buf) })
    }
}

impl<S: AsyncWrite + Unpin + 'static> TcpWrite for Tcp<S> {
    fn write_all(&mut self, buf: Vec<u8>, len: usize) -> impl Future<Output = Lent<()>> + Send {
        let stream = &mut *self.0;
        ThreadBound::new(async move { (stream.write_all(&buf[..len]).await, buf) })
    }
}

impl TcpIo for Tcp {
    type ReadHalf = Tcp<ReadHalf<TcpStream>>;
    type WriteHalf = Tcp<WriteHalf<TcpStream>>;

    fn into_split(self) -> io::Result<(Self::ReadHalf, Self::WriteHalf)> {
        let (reader, writer) = self.0.take().split();
        Ok((Tcp(ThreadBound::new(reader)), Tcp(ThreadBound::new(writer))))
    }

    fn shutdown_write(&mut self) -> impl Future<Output = io::Result<()>> + Send {
        let stream = &*self.0;
        ThreadBound::new(async move { Ok(stream.shutdown(Shutdown::Write).await?) })
    }
}

/// glommio's UDP socket: `send`/`recv` borrow the lent buffer and copy through glommio's own.
pub struct Udp(ThreadBound<UdpSocket>);

impl UdpIo for Udp {
    fn local_address(&self) -> io::Result<SocketAddr> {
        Ok(self.0.local_addr()?)
    }

    fn connect(&self, peer: SocketAddr) -> impl Future<Output = io::Result<()>> + Send {
        let socket = &*self.0;
        ThreadBound::new(async move { Ok(socket.connect(peer).await?) })
    }

    fn send(&self, buf: Vec<u8>, len: usize) -> impl Future<Output = Lent<usize>> + Send {
        let socket = &*self.0;
        ThreadBound::new(async move { (socket.send(&buf[..len]).await.map_err(Into::into), buf) })
    }

    fn recv_until(
        &self,
        mut buf: Vec<u8>,
        deadline: Instant,
    ) -> impl Future<Output = Lent<Option<usize>>> + Send {
        let socket = &*self.0;
        ThreadBound::new(async move {
            // glommio's read timeout links an IORING_OP_LINK_TIMEOUT to the receive: the kernel
            // itself cancels a receive still waiting when it expires, so nothing is left in
            // flight to swallow a later datagram. It takes a duration, never zero; past the
            // deadline one last receive still takes a datagram that has already come.
            let left = deadline.saturating_duration_since(Instant::now());
            let set = socket.set_read_timeout(Some(left.max(Duration::from_nanos(1))));
            let received = match set {
                Ok(()) => socket.recv(&mut buf).await,
                Err(error) => Err(error),
            };
            // The timeout is the socket's: clear it for its other receives.
            let _ = socket.set_read_timeout(None);
            let received = match received.map_err(io::Error::from) {
                Ok(len) => Ok(Some(len)),
                Err(error) if error.kind() == io::ErrorKind::TimedOut => Ok(None),
                Err(error) => Err(error),
            };
            (received, buf)
        })
    }

    fn send_to(
        &self,
        buf: Vec<u8>,
        len: usize,
        peer: SocketAddr,
    ) -> impl Future<Output = Lent<usize>> + Send {
        let socket = &*self.0;
        ThreadBound::new(async move {
            let sent = socket.send_to(&buf[..len], peer).await;
            (sent.map_err(Into::into), buf)
        })
    }

    fn recv_from(
        &self,
        mut buf: Vec<u8>,
    ) -> impl Future<Output = Lent<(usize, SocketAddr)>> + Send {
        let socket = &*self.0;
        ThreadBound::new(async move {
            let received = socket.recv_from(&mut buf).await;
            (received.map_err(Into::into), buf)
        })
    }
}
