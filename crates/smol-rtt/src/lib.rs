//! The smol runtime under test: how smol builds, spawns, sleeps, yields and does socket I/O.
//! Everything else is in `rtt-core`.

pub mod micro;

use std::{future::Future, io, net::SocketAddr, time::Instant};

use rtt_core::runtime::{
    FuturesTcp, Lent, Runtime, RuntimeInfo, ThreadsKnob, UdpIo, deep_listener,
};
use smol::{
    Timer,
    net::{TcpListener, TcpStream, UdpSocket},
};

/// smol's global executor reads its worker count from this variable when it first starts.
const THREADS_VARIABLE: &str = "SMOL_THREADS";

pub struct Smol;

impl Runtime for Smol {
    const FRAMEWORK: &'static str = "smol";
    type Knobs = ThreadsKnob;

    type TcpStream = Tcp;
    type TcpListener = TcpListener;
    type UdpSocket = Udp;
    type Task<T: Send + 'static> = smol::Task<T>;

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
        // The count smol will use: the variable, else its default of one worker.
        let threads = std::env::var(THREADS_VARIABLE)
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(1)
            .max(1);
        let main = main(RuntimeInfo::new("global_executor", threads));
        Ok(smol::block_on(smol::spawn(main)))
    }

    fn spawn<F>(future: F) -> smol::Task<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        smol::spawn(future)
    }

    /// A smol task is cancelled when dropped: detach it instead.
    fn detach<T: Send + 'static>(task: smol::Task<T>) {
        task.detach();
    }

    async fn sleep_until(deadline: Instant) {
        Timer::at(deadline).await;
    }

    async fn yield_now() {
        smol::future::yield_now().await;
    }

    async fn connect(address: SocketAddr) -> io::Result<Tcp> {
        let stream = TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        Ok(tcp(stream))
    }

    async fn listen(address: SocketAddr) -> io::Result<TcpListener> {
        TcpListener::try_from(deep_listener(address)?)
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
        let reply = async { self.0.recv(&mut buf).await.map(Some) };
        let timeout = async {
            Timer::at(deadline).await;
            Ok(None)
        };
        let received = smol::future::or(reply, timeout).await;
        (received, buf)
    }

    async fn send_to(&self, buf: Vec<u8>, len: usize, peer: SocketAddr) -> Lent<usize> {
        (self.0.send_to(&buf[..len], peer).await, buf)
    }

    async fn recv_from(&self, mut buf: Vec<u8>) -> Lent<(usize, SocketAddr)> {
        (self.0.recv_from(&mut buf).await, buf)
    }
}
