//! The tokio runtime under test: how tokio builds, spawns, sleeps, yields and does socket I/O.
//! Everything else is in `rtt-core`.

pub mod micro;

use std::{
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    task::{Context, Poll},
    time::Instant,
};

use rtt_core::runtime::{Lent, Runtime, RuntimeInfo, TcpIo, TcpRead, TcpWrite, ThreadsKnob, UdpIo};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    net::{
        TcpStream,
        tcp::{OwnedReadHalf, OwnedWriteHalf},
    },
};

pub struct Tokio;

/// tokio's knobs: its threads, its scheduler and how often that polls its drivers and queues.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TokioKnobs {
    #[command(flatten)]
    pub threads: ThreadsKnob,
    /// Scheduler flavor (tokio only) [default: multi_thread]
    #[arg(long, value_enum)]
    pub flavor: Option<Flavor>,
    /// tokio: scheduler ticks between polls of the I/O and timer drivers [default: 61]
    #[arg(long, value_name = "TICKS", value_parser = clap::value_parser!(u32).range(1..))]
    pub event_interval: Option<u32>,
    /// tokio: ticks between checks of the global (injection) queue [default: 31 on
    /// current_thread, tuned at run time on multi_thread]
    #[arg(long, value_name = "TICKS", value_parser = clap::value_parser!(u32).range(1..))]
    pub global_queue_interval: Option<u32>,
    /// tokio: the most I/O events handled per poll of the driver [default: 1024]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_io_events_per_tick: Option<u64>,
}

/// tokio's two schedulers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Flavor {
    #[value(name = "multi_thread")]
    MultiThread,
    #[value(name = "current_thread")]
    CurrentThread,
}

impl Flavor {
    /// Its name as the command line and the log spell it.
    fn name(self) -> &'static str {
        match self {
            Flavor::MultiThread => "multi_thread",
            Flavor::CurrentThread => "current_thread",
        }
    }
}

impl Runtime for Tokio {
    const FRAMEWORK: &'static str = "tokio";
    type Knobs = TokioKnobs;

    type TcpStream = Tcp;
    type TcpListener = tokio::net::TcpListener;
    type UdpSocket = Udp;
    type Task<T: Send + 'static> = Task<T>;

    fn run<M, F>(knobs: &TokioKnobs, main: M) -> anyhow::Result<F::Output>
    where
        M: FnOnce(RuntimeInfo) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let flavor = knobs.flavor.unwrap_or(Flavor::MultiThread);
        let mut builder = match flavor {
            Flavor::MultiThread => tokio::runtime::Builder::new_multi_thread(),
            Flavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        };
        if let Some(threads) = knobs.threads.threads {
            builder.worker_threads(threads.into());
        }
        // tokio keeps its defaults private: these are its documented ones (1.x), written out
        // so that every log says what ran.
        let event_interval = knobs.event_interval.unwrap_or(61);
        builder.event_interval(event_interval);
        let global_queue_interval = match (knobs.global_queue_interval, flavor) {
            (Some(ticks), _) => {
                builder.global_queue_interval(ticks);
                ticks.into()
            }
            (None, Flavor::CurrentThread) => 31.into(),
            // The multi-threaded scheduler tunes it from how long its tasks run.
            (None, _) => serde_json::Value::from("tuned"),
        };
        let max_io_events_per_tick = knobs.max_io_events_per_tick.unwrap_or(1024);
        builder.max_io_events_per_tick(max_io_events_per_tick.try_into()?);
        let runtime = builder.enable_all().build()?;
        // Ask tokio rather than guess: under `taskset -c 1` its default is one worker.
        let threads = runtime.metrics().num_workers();
        let main = main(
            RuntimeInfo::new(flavor.name(), threads)
                .with("event_interval", event_interval)
                .with("global_queue_interval", global_queue_interval)
                .with("max_io_events_per_tick", max_io_events_per_tick),
        );
        Ok(runtime.block_on(Task(runtime.spawn(main))))
    }

    fn spawn<F>(future: F) -> Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        Task(tokio::spawn(future))
    }

    async fn sleep_until(deadline: Instant) {
        tokio::time::sleep_until(deadline.into()).await;
    }

    async fn yield_now() {
        tokio::task::yield_now().await;
    }

    async fn connect(address: SocketAddr) -> io::Result<Self::TcpStream> {
        let stream = TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        Ok(Tcp(stream))
    }

    async fn listen(address: SocketAddr) -> io::Result<Self::TcpListener> {
        tokio::net::TcpListener::bind(address).await
    }

    fn listener_address(listener: &Self::TcpListener) -> io::Result<SocketAddr> {
        listener.local_addr()
    }

    async fn accept(listener: &Self::TcpListener) -> io::Result<(Self::TcpStream, SocketAddr)> {
        let (stream, peer) = listener.accept().await?;
        stream.set_nodelay(true)?;
        Ok((Tcp(stream), peer))
    }

    async fn bind_udp(address: SocketAddr) -> io::Result<Self::UdpSocket> {
        tokio::net::UdpSocket::bind(address).await.map(Udp)
    }
}

/// A tokio task whose panic, if any, is re-raised where it is awaited.
pub struct Task<T>(tokio::task::JoinHandle<T>);

impl<T> Future for Task<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0).poll(cx).map(|joined| match joined {
            Ok(output) => output,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => panic!("a task of the measurement was cancelled: {error}"),
        })
    }
}

/// A tokio stream, or one of its owned halves.
pub struct Tcp<S = TcpStream>(S);

impl<S: AsyncRead + Unpin + Send + 'static> TcpRead for Tcp<S> {
    async fn read_exact(&mut self, mut buf: Vec<u8>) -> Lent<()> {
        (self.0.read_exact(&mut buf).await.map(drop), buf)
    }

    async fn read(&mut self, mut buf: Vec<u8>) -> Lent<usize> {
        (self.0.read(&mut buf).await, buf)
    }
}

impl<S: AsyncWrite + Unpin + Send + 'static> TcpWrite for Tcp<S> {
    async fn write_all(&mut self, buf: Vec<u8>, len: usize) -> Lent<()> {
        (self.0.write_all(&buf[..len]).await, buf)
    }
}

impl TcpIo for Tcp {
    type ReadHalf = Tcp<OwnedReadHalf>;
    type WriteHalf = Tcp<OwnedWriteHalf>;

    fn into_split(self) -> io::Result<(Self::ReadHalf, Self::WriteHalf)> {
        let (reader, writer) = self.0.into_split();
        Ok((Tcp(reader), Tcp(writer)))
    }

    async fn shutdown_write(&mut self) -> io::Result<()> {
        self.0.shutdown().await
    }
}

pub struct Udp(tokio::net::UdpSocket);

impl UdpIo for Udp {
    fn local_address(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }

    async fn connect(&self, peer: SocketAddr) -> io::Result<()> {
        self.0.connect(peer).await
    }

    async fn send(&self, buf: Vec<u8>, len: usize) -> Lent<usize> {
        (self.0.send(&buf[..len]).await, buf)
    }

    async fn recv_until(&self, mut buf: Vec<u8>, deadline: Instant) -> Lent<Option<usize>> {
        let received = tokio::time::timeout_at(deadline.into(), self.0.recv(&mut buf)).await;
        (received.ok().transpose(), buf)
    }

    async fn send_to(&self, buf: Vec<u8>, len: usize, peer: SocketAddr) -> Lent<usize> {
        (self.0.send_to(&buf[..len], peer).await, buf)
    }

    async fn recv_from(&self, mut buf: Vec<u8>) -> Lent<(usize, SocketAddr)> {
        (self.0.recv_from(&mut buf).await, buf)
    }
}
