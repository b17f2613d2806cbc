//! The HTTP/1.1 pong of the async runtimes: hyper 1.x serving one connection over the runtime's
//! own stream, through one adapter written here over the seam for every runtime (hyper's
//! poll-based `Read`/`Write` over the seam's lent-buffer calls; one copy each way, which every
//! runtime pays alike), with the runtime's own timer for hyper's header-read timeout.

use std::{
    future::Future,
    io,
    marker::PhantomData,
    mem::take,
    pin::Pin,
    sync::Mutex,
    task::{Context, Poll, ready},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::{
    Request, Response, StatusCode,
    body::Incoming,
    rt::{ReadBufCursor, Sleep, Timer},
    server::conn::http1,
    service::service_fn,
};
use rtt_core::runtime::{Lent, Runtime, TcpIo, TcpRead, TcpWrite};

use super::routes::{HELLO, MAX_BODY, MAX_HEAD, Route, ServerSpec};

/// Serves one client with hyper until it leaves, misbehaves or stalls.
pub async fn serve<R: Runtime>(stream: R::TcpStream, spec: ServerSpec) {
    let Ok(io) = SeamIo::new(stream) else { return };
    let service = service_fn(move |request| answer::<R>(request, spec));
    let connection = http1::Builder::new()
        .timer(SeamTimer::<R>(PhantomData))
        .header_read_timeout(spec.header_timeout)
        .max_buf_size(MAX_HEAD)
        .keep_alive(true)
        .serve_connection(io, service);
    // A client that breaks the protocol or stalls ends its own connection only.
    let _ = connection.await;
}

/// What every request gets (`routes`): the echo's body, the fixed body, or an error status. The
/// body must be in within the header timeout, as std's server asks: hyper's own timeout covers
/// only the head. A body cut short (nothing to answer, RFC 9112 §6.3) or stalled gets no answer:
/// the service fails with why, and hyper closes the connection.
async fn answer<R: Runtime>(
    request: Request<Incoming>,
    spec: ServerSpec,
) -> Result<Response<Full<Bytes>>, &'static str> {
    let route = Route::of(request.method().as_str(), request.uri().path());
    let body = match route {
        Route::Echo => {
            let mut body = std::pin::pin!(Limited::new(request.into_body(), MAX_BODY).collect());
            // A small body comes with its head: a timer is armed only when it has not.
            let collected =
                match std::future::poll_fn(|cx| Poll::Ready(body.as_mut().poll(cx))).await {
                    Poll::Ready(collected) => Some(collected),
                    Poll::Pending => R::until(Instant::now() + spec.header_timeout, body).await,
                };
            match collected {
                Some(Ok(collected)) => {
                    spec.delay.before_echo();
                    collected.to_bytes()
                }
                Some(Err(error)) if error.is::<LengthLimitError>() => {
                    return Ok(respond(StatusCode::PAYLOAD_TOO_LARGE, Bytes::new()));
                }
                Some(Err(_)) => return Err("the request's body was cut short"),
                None => return Err("the request's body stalled past the header timeout"),
            }
        }
        Route::Hello => Bytes::from_static(HELLO),
        Route::WrongMethod | Route::NotFound => Bytes::new(),
    };
    let status = StatusCode::from_u16(route.status()).unwrap_or(StatusCode::OK);
    Ok(respond(status, body))
}

fn respond(status: StatusCode, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response
}

/// A boxed seam call that owns its half and gives it back with the result.
type Call<H, T> = Pin<Box<dyn Future<Output = (H, Lent<T>)> + Send>>;

/// One half of the stream: idle (with its buffer), or lent to a call in flight.
#[derive(Default)]
enum Half<H, T> {
    Idle(H, Vec<u8>),
    Busy(Call<H, T>),
    /// After a call failed, or while switching state.
    #[default]
    Gone,
}

/// How much one read asks for (hyper's own read buffer starts at 8 KiB).
const READ_CHUNK: usize = 16 * 1024;

/// The seam's stream as hyper's `Read` and `Write`: each half keeps its call in flight between
/// polls, since the seam lends a buffer for the whole call rather than borrowing hyper's.
pub struct SeamIo<S: TcpIo> {
    reader: Half<S::ReadHalf, usize>,
    /// Bytes read and not yet given to hyper: `chunk[unread]`.
    unread: std::ops::Range<usize>,
    writer: Half<S::WriteHalf, ()>,
}

impl<S: TcpIo> SeamIo<S> {
    pub fn new(stream: S) -> io::Result<Self> {
        let (reader, writer) = stream.into_split()?;
        Ok(Self {
            reader: Half::Idle(reader, vec![0; READ_CHUNK]),
            unread: 0..0,
            writer: Half::Idle(writer, Vec::with_capacity(READ_CHUNK)),
        })
    }

    /// Finishes the write in flight, if any.
    fn poll_written(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Half::Busy(call) = &mut self.writer {
            let (writer, (written, buffer)) = ready!(call.as_mut().poll(cx));
            match written {
                Ok(()) => self.writer = Half::Idle(writer, buffer),
                Err(error) => {
                    self.writer = Half::Gone;
                    return Poll::Ready(Err(error));
                }
            }
        }
        match self.writer {
            Half::Gone => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
            _ => Poll::Ready(Ok(())),
        }
    }
}

// The halves are only ever moved in and out of their calls, never pinned in place.
impl<S: TcpIo> Unpin for SeamIo<S> {}

impl<S: TcpIo> hyper::rt::Read for SeamIo<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut cursor: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            match &mut this.reader {
                Half::Idle(_, chunk) if !this.unread.is_empty() => {
                    let n = this.unread.len().min(cursor.remaining());
                    let start = this.unread.start;
                    cursor.put_slice(&chunk[start..start + n]);
                    this.unread.start += n;
                    return Poll::Ready(Ok(()));
                }
                Half::Idle(..) => {
                    let Half::Idle(mut reader, chunk) = take(&mut this.reader) else {
                        unreachable!("matched as idle")
                    };
                    this.reader = Half::Busy(Box::pin(async move {
                        let read = reader.read(chunk).await;
                        (reader, read)
                    }));
                }
                Half::Busy(call) => {
                    let (reader, (read, chunk)) = ready!(call.as_mut().poll(cx));
                    this.reader = Half::Idle(reader, chunk);
                    match read {
                        // The end of the stream: hyper sees a read of nothing.
                        Ok(0) => return Poll::Ready(Ok(())),
                        Ok(n) => this.unread = 0..n,
                        Err(error) => {
                            this.reader = Half::Gone;
                            return Poll::Ready(Err(error));
                        }
                    }
                }
                Half::Gone => return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
            }
        }
    }
}

impl<S: TcpIo> hyper::rt::Write for SeamIo<S> {
    /// Takes `data` at once, into the half's buffer, and starts writing it: the next write or
    /// flush finishes that write first.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_written(cx))?;
        let Half::Idle(mut writer, mut buffer) = take(&mut this.writer) else {
            unreachable!("a finished write leaves its half idle")
        };
        buffer.clear();
        buffer.extend_from_slice(data);
        let len = data.len();
        this.writer = Half::Busy(Box::pin(async move {
            let written = writer.write_all(buffer, len).await;
            (writer, written)
        }));
        // Most writes finish at once: polled now, the data is on its way before hyper's flush.
        if let Poll::Ready(Err(error)) = this.poll_written(cx) {
            return Poll::Ready(Err(error));
        }
        Poll::Ready(Ok(len))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_written(cx)
    }

    /// The connection closes when hyper drops it, halves and all; what is written is flushed.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_written(cx)
    }
}

/// hyper's timer on the runtime's own (`Runtime::sleep_until`).
struct SeamTimer<R>(PhantomData<fn() -> R>);

impl<R: Runtime> Timer for SeamTimer<R> {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(SeamSleep(Mutex::new(Box::pin(R::sleep_until(deadline)))))
    }
}

/// A runtime's sleep as hyper wants it: `Sync` too, which the mutex gives (only the task that
/// owns the connection ever polls it, so the lock is never contended).
struct SeamSleep(Mutex<Pin<Box<dyn Future<Output = ()> + Send>>>);

impl Future for SeamSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut sleep = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        sleep.as_mut().poll(cx)
    }
}

impl Sleep for SeamSleep {}
