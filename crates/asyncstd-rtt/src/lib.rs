//! The async-std runtime under test: how async-std builds, spawns, sleeps, yields and does
//! socket I/O. Everything else is in `rtt-core`.

pub mod micro;

use std::{future::Future, io, net::SocketAddr, time::Instant};

use async_std::{
    net::{TcpListener, TcpStream, UdpSocket},
    task,
};
use rtt_core::runtime::{
    FuturesTcp, Lent, Runtime, RuntimeInfo, ThreadsKnob, UdpIo, available_cpus, deep_listener,
};

/// async-std reads its worker count from this variable when its executor first starts.
const THREADS_VARIABLE: &str = "ASYNC_STD_THREAD_COUNT";

pub struct AsyncStd;

impl Runtime for AsyncStd {
    const FRAMEWORK: &'static str = "async-std";
    type Knobs = ThreadsKnob;

    type TcpStream = Tcp;
    type TcpListener = TcpListener;
    type UdpSocket = Udp;
    type Task<T: Send + 'static> = task::JoinHandle<T>;

    fn run<M, F>(knobs: &Self::Knobs, main: M) -> anyhow::Result<F::Output>
    where
        M: FnOnce(RuntimeInfo) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        if let Some(threads) = knobs.threads {
            // SAFETY: called before the first task is spawned, while this is the only thread.
            #[allow(unsafe_code)]
            unsafe {
                std::env::set_var(THREADS_VARIABLE, threads.to_string());
            }
        }
        // The count async-std will use: the variable, else the CPUs this process may run on.
        let threads = std::env::var(THREADS_VARIABLE)
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(available_cpus)
            .max(1);
        let main = main(RuntimeInfo::new("global_executor", threads));
        Ok(task::block_on(task::spawn(main)))
    }

    fn spawn<F>(future: F) -> task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        task::spawn(future)
    }

    async fn sleep_until(deadline: Instant) {
        task::sleep(deadline.saturating_duration_since(Instant::now())).await;
    }

    async fn yield_now() {
        task::yield_now().await;
    }

    async fn connect(address: SocketAddr) -> io::Result<Tcp> {
        let stream = TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        Ok(tcp(stream))
    }

    async fn listen(address: SocketAddr) -> io::Result<TcpListener> {
        Ok(TcpListener::from(deep_listener(address)?))
    }

    fn listener_address(listener: &TcpListener) -> io::Result<SocketAddr> {
        listener.local_addr()
    }

    async fn accept(listener: &TcpListener) -> io::Result<(Tcp, SocketAddr)> {
        let (stream, peer) = listener.accept().await?;
        stream.set_nodelay(true)?;
        Ok((tcp(stream), peer))
    }

    async fn bind_udp(address: SocketAddr) -> io::Result<Udp> {
        UdpSocket::bind(address).await.map(Udp)
    }
}

/// async-std's and smol's streams implement the `futures` I/O traits.
pub type Tcp = FuturesTcp<TcpStream>;

fn tcp(stream: TcpStream) -> Tcp {
    FuturesTcp::new(stream, |stream| stream.shutdown(std::net::Shutdown::Write))
}

pub struct Udp(UdpSocket);

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
        let remaining = deadline.saturating_duration_since(Instant::now());
        let received = match async_std::future::timeout(remaining, self.0.recv(&mut buf)).await {
            Ok(received) => received.map(Some),
            Err(_timed_out) => Ok(None),
        };
        (received, buf)
    }

    async fn send_to(&self, buf: Vec<u8>, len: usize, peer: SocketAddr) -> Lent<usize> {
        (self.0.send_to(&buf[..len], peer).await, buf)
    }

    async fn recv_from(&self, mut buf: Vec<u8>) -> Lent<(usize, SocketAddr)> {
        (self.0.recv_from(&mut buf).await, buf)
    }
}
