//! The compio runtime under test (io_uring only): how it builds, spawns, sleeps, yields, does I/O.

pub mod micro;

use std::{
    future::Future,
    io,
    net::SocketAddr,
    pin::{Pin, pin},
    task::{Context, Poll},
    time::Instant,
};

use compio::{
    BufResult,
    buf::{IntoInner, IoBuf, Slice},
    driver::ProactorBuilder,
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    net::{TcpListener, TcpStream, UdpSocket},
    runtime::{JoinHandle, RuntimeBuilder},
};
use futures::future::{Either, select};
use rtt_core::runtime::{
    Lent, RingEntriesKnob, Runtime, RuntimeInfo, TcpIo, TcpRead, TcpWrite, ThreadBound, UdpIo,
    deep_listener, io_uring_unavailable,
};

/// compio-driver's `ProactorBuilder::new()` sets `capacity: 1024` (compio-driver 0.12, lib.rs):
/// the io_uring submission queue's entries when `--ring-entries` is not given.
const DEFAULT_RING_ENTRIES: u32 = 1024;

pub struct Compio;

impl Runtime for Compio {
    const FRAMEWORK: &'static str = "compio";
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
        let ring_entries = knobs.ring_entries.unwrap_or(DEFAULT_RING_ENTRIES);
        let mut proactor = ProactorBuilder::new();
        // The kernel rounds the submission queue up to a power of two.
        proactor.capacity(ring_entries);
        // Built without compio's `polling` feature, the only driver is io_uring: all that can
        // fail here is setting up the ring (refused, disabled, too old a kernel).
        let runtime = RuntimeBuilder::new()
            .with_proactor(proactor)
            .build()
            .map_err(io_uring_unavailable)?;
        // Should a build ever pick another driver at run time, it is not what is measured here.
        let driver = runtime.driver_type();
        if !driver.is_iouring() {
            return Err(io_uring_unavailable(format!(
                "compio chose its {driver:?} driver"
            )));
        }
        let main = main(RuntimeInfo::new("thread_per_core", 1).with("ring_entries", ring_entries));
        // Spawned, not polled by `block_on` itself, so that it takes its turn with the decoys.
        let main = Task(runtime.spawn(main));
        Ok(runtime.block_on(main))
    }

    fn spawn<F>(future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        Task(compio::runtime::spawn(future))
    }

    /// Dropping a compio `JoinHandle` cancels its task: detach it instead.
    fn detach<T: Send + 'static>(task: Task<T>) {
        task.0.detach();
    }

    async fn sleep_until(deadline: Instant) {
        ThreadBound::new(compio::time::sleep_until(deadline)).await;
    }

    /// compio has no yield of its own: wake this task and step aside once. Its executor puts a
    /// woken task at the back of its queue, behind every task that is ready.
    async fn yield_now() {
        let mut yielded = false;
        std::future::poll_fn(|cx| {
            if yielded {
                return Poll::Ready(());
            }
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        })
        .await;
    }

    async fn connect(address: SocketAddr) -> io::Result<Tcp> {
        let stream = ThreadBound::new(TcpStream::connect(address)).await?;
        stream.set_nodelay(true)?;
        Ok(Tcp(ThreadBound::new(stream)))
    }

    async fn listen(address: SocketAddr) -> io::Result<ThreadBound<TcpListener>> {
        let listener = TcpListener::from_std(deep_listener(address)?)?;
        Ok(ThreadBound::new(listener))
    }

    fn listener_address(listener: &ThreadBound<TcpListener>) -> io::Result<SocketAddr> {
        listener.local_addr()
    }

    async fn accept(listener: &ThreadBound<TcpListener>) -> io::Result<(Tcp, SocketAddr)> {
        let (stream, peer) = ThreadBound::new(listener.accept()).await?;
        stream.set_nodelay(true)?;
        Ok((Tcp(ThreadBound::new(stream)), peer))
    }

    async fn bind_udp(address: SocketAddr) -> io::Result<Udp> {
        let socket = ThreadBound::new(UdpSocket::bind(address)).await?;
        Ok(Udp(ThreadBound::new(socket)))
    }
}

/// A compio task whose panic, if any, is re-raised where it is awaited. compio's `JoinHandle`
/// is `Send` when its output is.
pub struct Task<T>(JoinHandle<T>);

impl<T> Future for Task<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0).poll(cx).map(|joined| match joined {
            Ok(output) => output,
            Err(compio::runtime::JoinError::Panicked(panic)) => std::panic::resume_unwind(panic),
            Err(error) => panic!("a task of the measurement was cancelled: {error}"),
        })
    }
}

/// Lends `buf[..len]` to an operation: compio reads into a `Vec` up to its capacity and may
/// lengthen it, a slice keeps both the bytes and the length the seam lent.
fn lend(buf: Vec<u8>, len: usize) -> Slice<Vec<u8>> {
    buf.slice(..len)
}

/// The result and the whole buffer back.
fn given_back<T>(BufResult(result, slice): BufResult<T, Slice<Vec<u8>>>) -> Lent<T> {
    (result, slice.into_inner())
}

pub struct Tcp(ThreadBound<TcpStream>);

impl TcpRead for Tcp {
    async fn read_exact(&mut self, buf: Vec<u8>) -> Lent<()> {
        let len = buf.len();
        given_back(ThreadBound::new(self.0.read_exact(lend(buf, len))).await)
    }

    async fn read(&mut self, buf: Vec<u8>) -> Lent<usize> {
        let len = buf.len();
        given_back(ThreadBound::new(self.0.read(lend(buf, len))).await)
    }
}

impl TcpWrite for Tcp {
    async fn write_all(&mut self, buf: Vec<u8>, len: usize) -> Lent<()> {
        given_back(ThreadBound::new(self.0.write_all(lend(buf, len))).await)
    }
}

impl TcpIo for Tcp {
    type ReadHalf = Self;
    type WriteHalf = Self;

    /// compio's owned halves are two handles on the one socket.
    fn into_split(self) -> io::Result<(Self, Self)> {
        let (reader, writer) = self.0.take().into_split();
        Ok((Tcp(ThreadBound::new(reader)), Tcp(ThreadBound::new(writer))))
    }

    async fn shutdown_write(&mut self) -> io::Result<()> {
        ThreadBound::new(self.0.shutdown()).await
    }
}

pub struct Udp(ThreadBound<UdpSocket>);

impl UdpIo for Udp {
    fn local_address(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }

    async fn connect(&self, peer: SocketAddr) -> io::Result<()> {
        ThreadBound::new(self.0.connect(peer)).await
    }

    async fn send(&self, buf: Vec<u8>, len: usize) -> Lent<usize> {
        given_back(ThreadBound::new(self.0.send(lend(buf, len))).await)
    }

    async fn recv_until(&self, buf: Vec<u8>, deadline: Instant) -> Lent<Option<usize>> {
        let len = buf.len();
        let socket = &self.0;
        ThreadBound::new(async move {
            // The receive is polled first: a datagram already in wins over the deadline.
            let receive = pin!(socket.recv(lend(buf, len)));
            let timer = pin!(compio::time::sleep_until(deadline));
            match select(receive, timer).await {
                Either::Left((received, _)) => {
                    let (received, buf) = given_back(received);
                    (received.map(Some), buf)
                }
                // Dropping compio's operation future cancels the receive (an io_uring
                // AsyncCancel, queued before anything this task submits next), and the buffer
                // stays with the kernel until the cancel completes: the only fresh allocation,
                // off the path of a reply that arrives in time.
                Either::Right(((), _)) => (Ok(None), vec![0; len]),
            }
        })
        .await
    }

    async fn send_to(&self, buf: Vec<u8>, len: usize, peer: SocketAddr) -> Lent<usize> {
        given_back(ThreadBound::new(self.0.send_to(lend(buf, len), peer)).await)
    }

    async fn recv_from(&self, buf: Vec<u8>) -> Lent<(usize, SocketAddr)> {
        let len = buf.len();
        given_back(ThreadBound::new(self.0.recv_from(lend(buf, len))).await)
    }
}
