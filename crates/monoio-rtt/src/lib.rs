//! The monoio runtime under test (io_uring, one thread): how it builds, spawns, sleeps, yields and does socket I/O.

pub mod micro;

use std::{
    future::Future,
    io,
    net::SocketAddr,
    pin::pin,
    time::{Duration, Instant},
};

use futures::future::{Either, select};
use monoio::{
    IoUringDriver, RuntimeBuilder,
    buf::IoBuf,
    io::{AsyncReadRent, AsyncReadRentExt, AsyncWriteRent, AsyncWriteRentExt, Splitable},
    net::{
        ListenerOpts, TcpListener, TcpStream,
        tcp::{TcpOwnedReadHalf, TcpOwnedWriteHalf},
        udp::UdpSocket,
    },
    task::JoinHandle,
};
use rtt_core::runtime::{
    Lent, Rethrow, RingEntriesKnob, Runtime, RuntimeInfo, TcpIo, TcpRead, TcpWrite, ThreadBound,
    UdpIo, catching, io_uring_unavailable,
};

/// The ring monoio builds when not told (`IoUringDriver::DEFAULT_ENTRIES` in monoio 0.2.4).
const DEFAULT_RING_ENTRIES: u32 = 1024;
/// The smallest ring monoio builds: `RuntimeBuilder::with_entries` raises smaller requests to it.
const MIN_RING_ENTRIES: u32 = 256;

pub struct Monoio;

impl Runtime for Monoio {
    const FRAMEWORK: &'static str = "monoio";
    type Knobs = RingEntriesKnob;

    type TcpStream = Tcp;
    type TcpListener = ThreadBound<TcpListener>;
    type UdpSocket = Udp;
    type Task<T: Send + 'static> = Task<T>;

    fn run<M, F>(knobs: &Self::Knobs, main: M) -> anyhow::Result<F::Output>
    where
        M: FnOnce(RuntimeInfo) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let ring_entries = knobs.ring_entries.map_or(DEFAULT_RING_ENTRIES, |entries| {
            entries.max(MIN_RING_ENTRIES)
        });
        // The io_uring driver by name, never `FusionDriver`, which would fall back to epoll (and
        // the legacy driver is not even compiled in): the suite measures monoio on io_uring.
        // Building sets up the ring and nothing else, so any failure is io_uring's.
        let mut runtime = RuntimeBuilder::<IoUringDriver>::new()
            .with_entries(ring_entries)
            .enable_timer()
            .build()
            .map_err(io_uring_unavailable)?;
        let main = main(RuntimeInfo::new("thread_per_core", 1).with("ring_entries", ring_entries));
        // A task like the decoys, queued with them, rather than the future block_on polls
        // between its rounds of tasks.
        Ok(runtime.block_on(async { Self::spawn(main).await }))
    }

    fn spawn<F>(future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // monoio does not catch a task's panic: it would unwind out of `block_on` from whichever
        // task panicked. Caught here, it is re-raised where the task is awaited, as on tokio.
        Rethrow(monoio::spawn(catching(future)))
    }

    // `detach` is the default drop: a monoio task whose handle is dropped runs on (task/join.rs).

    fn sleep_until(deadline: Instant) -> impl Future<Output = ()> + Send {
        ThreadBound::new(monoio::time::sleep_until(deadline.into()))
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        // monoio 0.2.4 has no yield of its own. The usual one (wake yourself, return Pending)
        // does not yield there: a task woken while it runs goes back to the *front* of the run
        // queue (scheduler.rs, `yield_now` → `push_front`) and runs again at once. Nor may a
        // yield keep the task runnable (behind an empty task, say): monoio fires its timers only
        // when it parks, which it does only once its run queue is empty (runtime.rs,
        // `block_on`), so tasks that yield that way would starve every timer, and a paced run
        // with spin decoys would hang. A zero sleep is monoio's way to let the driver run; its
        // timer rounds up to the next millisecond, so a decoy may also wait up to 1 ms.
        ThreadBound::new(monoio::time::sleep(Duration::ZERO))
    }

    fn connect(address: SocketAddr) -> impl Future<Output = io::Result<Tcp>> + Send {
        ThreadBound::new(async move {
            let stream = TcpStream::connect_addr(address).await?;
            stream.set_nodelay(true)?;
            Ok(Tcp(ThreadBound::new(stream)))
        })
    }

    async fn listen(address: SocketAddr) -> io::Result<ThreadBound<TcpListener>> {
        // monoio sets SO_REUSEPORT on listeners by default: off, so that a second pong on a
        // port in use fails as it does on every other runtime instead of sharing it.
        let options = ListenerOpts::new().reuse_port(false);
        TcpListener::bind_with_config(address, &options).map(ThreadBound::new)
    }

    fn listener_address(listener: &ThreadBound<TcpListener>) -> io::Result<SocketAddr> {
        listener.local_addr()
    }

    fn accept(
        listener: &ThreadBound<TcpListener>,
    ) -> impl Future<Output = io::Result<(Tcp, SocketAddr)>> + Send {
        ThreadBound::new(async move {
            let (stream, peer) = listener.accept().await?;
            stream.set_nodelay(true)?;
            Ok((Tcp(ThreadBound::new(stream)), peer))
        })
    }

    async fn bind_udp(address: SocketAddr) -> io::Result<Udp> {
        UdpSocket::bind(address).map(|socket| Udp(ThreadBound::new(socket)))
    }
}

/// A monoio task whose panic, if any, is re-raised where it is awaited. monoio's handle is
/// `Send` already (for a `Send` output): no `ThreadBound` needed.
pub type Task<T> = Rethrow<JoinHandle<std::thread::Result<T>>>;

// Buffers: a read lends monoio a `Box<[u8]>`, whose `IoBufMut` takes exactly its length and
// leaves it be, where `Vec<u8>`'s takes its capacity and sets its length to the bytes read. The
// suite's buffers are `vec![0; n]`, whose capacity is their length, so `into_boxed_slice` and
// `into_vec` move the pointer and neither copy nor allocate. A write lends `buf.slice(..len)`,
// monoio's owned view, and gets the whole `Vec` back with `into_inner`.

/// A monoio stream, or one of its owned halves.
pub struct Tcp<S = TcpStream>(ThreadBound<S>);

impl<S: AsyncReadRent + 'static> TcpRead for Tcp<S> {
    fn read_exact(&mut self, buf: Vec<u8>) -> impl Future<Output = Lent<()>> + Send {
        ThreadBound::new(async move {
            let (result, buf) = self.0.read_exact(buf.into_boxed_slice()).await;
            (result.map(drop), buf.into_vec())
        })
    }

    fn read(&mut self, buf: Vec<u8>) -> impl Future<Output = Lent<usize>> + Send {
        ThreadBound::new(async move {
            let (result, buf) = self.0.read(buf.into_boxed_slice()).await;
            (result, buf.into_vec())
        })
    }
}

impl<S: AsyncWriteRent + 'static> TcpWrite for Tcp<S> {
    fn write_all(&mut self, buf: Vec<u8>, len: usize) -> impl Future<Output = Lent<()>> + Send {
        ThreadBound::new(async move {
            let (result, buf) = self.0.write_all(buf.slice(..len)).await;
            (result.map(drop), buf.into_inner())
        })
    }
}

impl TcpIo for Tcp {
    type ReadHalf = Tcp<TcpOwnedReadHalf>;
    type WriteHalf = Tcp<TcpOwnedWriteHalf>;

    fn into_split(self) -> io::Result<(Self::ReadHalf, Self::WriteHalf)> {
        let (reader, writer) = self.0.take().into_split();
        Ok((Tcp(ThreadBound::new(reader)), Tcp(ThreadBound::new(writer))))
    }

    fn shutdown_write(&mut self) -> impl Future<Output = io::Result<()>> + Send {
        // monoio's shutdown is `shutdown(fd, SHUT_WR)`: the peer reads end-of-stream.
        ThreadBound::new(async move { self.0.shutdown().await })
    }
}

pub struct Udp(ThreadBound<UdpSocket>);

impl UdpIo for Udp {
    fn local_address(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }

    fn connect(&self, peer: SocketAddr) -> impl Future<Output = io::Result<()>> + Send {
        ThreadBound::new(async move { self.0.connect(peer).await })
    }

    fn send(&self, buf: Vec<u8>, len: usize) -> impl Future<Output = Lent<usize>> + Send {
        ThreadBound::new(async move {
            let (result, buf) = self.0.send(buf.slice(..len)).await;
            (result, buf.into_inner())
        })
    }

    fn recv_until(
        &self,
        buf: Vec<u8>,
        deadline: Instant,
    ) -> impl Future<Output = Lent<Option<usize>>> + Send {
        ThreadBound::new(async move {
            let len = buf.len();
            let receive = pin!(self.0.recv(buf.into_boxed_slice()));
            let timer = pin!(monoio::time::sleep_until(deadline.into()));
            match select(receive, timer).await {
                Either::Left(((result, buf), _)) => (result.map(Some), buf.into_vec()),
                // Past the deadline, the receive is dropped: monoio (its `async-cancel` feature)
                // then queues an io_uring async cancel ahead of any later operation, so it cannot
                // take a later datagram, and keeps its buffer until the kernel lets go of it
                // (driver/uring/mod.rs, `drop_op`). A fresh buffer, off the normal path.
                Either::Right(((), _)) => (Ok(None), vec![0; len]),
            }
        })
    }

    fn send_to(
        &self,
        buf: Vec<u8>,
        len: usize,
        peer: SocketAddr,
    ) -> impl Future<Output = Lent<usize>> + Send {
        ThreadBound::new(async move {
            let (result, buf) = self.0.send_to(buf.slice(..len), peer).await;
            (result, buf.into_inner())
        })
    }

    fn recv_from(&self, buf: Vec<u8>) -> impl Future<Output = Lent<(usize, SocketAddr)>> + Send {
        ThreadBound::new(async move {
            let (result, buf) = self.0.recv_from(buf.into_boxed_slice()).await;
            (result, buf.into_vec())
        })
    }
}
