//! std's sockets as the seam wants them: blocking calls bounded by socket timeouts (a ping's by
//! the stall limit and the phase's deadline), or with `--busy-poll` non-blocking calls spun on.

use std::{
    io::{self, Read, Write},
    net::{SocketAddr, TcpStream, UdpSocket},
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};

use rtt_core::runtime::{Lent, STALL_LIMIT, TcpIo, TcpRead, TcpWrite, UdpIo};

use crate::{busy_polling, spin};

pub struct Tcp {
    stream: TcpStream,
    /// When the current phase of the run must be over (`bound_by`), if one was set.
    deadline: Option<Instant>,
    /// How long one call may wait (a ping's stream: `STALL_LIMIT`; a pong's: forever).
    stall_limit: Option<Duration>,
}

impl Tcp {
    pub(crate) fn new(stream: TcpStream, stall_limit: Option<Duration>) -> io::Result<Self> {
        stream.set_nonblocking(busy_polling())?;
        Ok(Self {
            stream,
            deadline: None,
            stall_limit,
        })
    }

    /// When a busy-polled call starting now must give up: the stall limit, or the phase's end.
    fn spin_deadline(&self) -> Option<Instant> {
        let stall = self.stall_limit.map(|limit| Instant::now() + limit);
        match (stall, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn busy_read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let deadline = self.spin_deadline();
        spin(deadline, || self.stream.read(buf))
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

impl Tcp {
    /// `Write::write_all`, but a short write is noticed (the clock is read only then).
    fn write_slice(&mut self, mut buf: &[u8]) -> io::Result<()> {
        let busy = busy_polling();
        let deadline = if busy { self.spin_deadline() } else { None };
        while !buf.is_empty() {
            let written = if busy {
                spin(deadline, || self.stream.write(buf))
            } else {
                self.stream.write(buf)
            };
            match written {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(written) => {
                    if written < buf.len() && !busy {
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

    fn read_exact_slice(&mut self, mut buf: &mut [u8]) -> io::Result<()> {
        if !busy_polling() {
            return self.stream.read_exact(buf);
        }
        while !buf.is_empty() {
            match self.busy_read(buf)? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => buf = &mut buf[n..],
            }
        }
        Ok(())
    }

    fn read_slice(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if busy_polling() {
            self.busy_read(buf)
        } else {
            self.stream.read(buf)
        }
    }
}

impl TcpRead for Tcp {
    async fn read_exact(&mut self, mut buf: Vec<u8>) -> Lent<()> {
        (self.read_exact_slice(&mut buf), buf)
    }

    async fn read(&mut self, mut buf: Vec<u8>) -> Lent<usize> {
        (self.read_slice(&mut buf), buf)
    }
}

impl TcpWrite for Tcp {
    async fn write_all(&mut self, buf: Vec<u8>, len: usize) -> Lent<()> {
        (self.write_slice(&buf[..len]), buf)
    }
}

impl TcpIo for Tcp {
    type ReadHalf = Self;
    type WriteHalf = Self;

    /// Two handles on the one socket (`try_clone`), sharing its timeouts.
    fn into_split(self) -> io::Result<(Self, Self)> {
        let reader = Self {
            stream: self.stream.try_clone()?,
            deadline: self.deadline,
            stall_limit: self.stall_limit,
        };
        Ok((reader, self))
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

    async fn send(&self, buf: Vec<u8>, len: usize) -> Lent<usize> {
        (self.send_slice(&buf[..len]), buf)
    }

    async fn recv_until(&self, mut buf: Vec<u8>, deadline: Instant) -> Lent<Option<usize>> {
        (self.recv_until_slice(&mut buf, deadline), buf)
    }

    async fn send_to(&self, buf: Vec<u8>, len: usize, peer: SocketAddr) -> Lent<usize> {
        (self.send_to_slice(&buf[..len], peer), buf)
    }

    async fn recv_from(&self, mut buf: Vec<u8>) -> Lent<(usize, SocketAddr)> {
        (self.recv_from_slice(&mut buf), buf)
    }
}

impl Udp {
    pub(crate) fn new(socket: UdpSocket) -> Self {
        Self {
            socket,
            read_timeout_ns: AtomicU64::new(0),
        }
    }

    fn send_slice(&self, buf: &[u8]) -> io::Result<usize> {
        if busy_polling() {
            spin(Some(Instant::now() + STALL_LIMIT), || self.socket.send(buf))
        } else {
            self.socket.send(buf)
        }
    }

    fn recv_until_slice(&self, buf: &mut [u8], deadline: Instant) -> io::Result<Option<usize>> {
        if busy_polling() {
            return match spin(Some(deadline), || self.socket.recv(buf)) {
                Ok(len) => Ok(Some(len)),
                Err(e) if e.kind() == io::ErrorKind::TimedOut => Ok(None),
                Err(e) => Err(e),
            };
        }
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

    fn send_to_slice(&self, buf: &[u8], peer: SocketAddr) -> io::Result<usize> {
        if busy_polling() {
            spin(Some(Instant::now() + STALL_LIMIT), || {
                self.socket.send_to(buf, peer)
            })
        } else {
            self.socket.send_to(buf, peer)
        }
    }

    fn recv_from_slice(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        if busy_polling() {
            spin(None, || self.socket.recv_from(buf))
        } else {
            self.socket.recv_from(buf)
        }
    }
}
