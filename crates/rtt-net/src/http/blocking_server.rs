//! std's HTTP/1.1 pong: a small server, one thread per connection (std's tasks are threads),
//! keep-alive, bodies of a `Content-Length`, no pipelining expected (a pipelined request is
//! served after the one before it). It answers as hyper does on the other runtimes (`routes`),
//! and holds clients to the same limits: a head over 64 KiB gets 431, a malformed one 400, and
//! a head not in within the header timeout closes the connection, so a stalled client costs a
//! thread only that long.

use std::{io, mem::take, time::Instant};

use rtt_core::runtime::{Runtime, TcpIo, TcpWrite, timed_out};

use super::routes::{HELLO, MAX_BODY, MAX_HEAD, Route, ServerSpec, reason};

/// What a request asked, once its head is in.
struct Head {
    route: Route,
    /// Its length in the buffer.
    len: usize,
    body_len: usize,
    /// `Connection: close`, or HTTP/1.0.
    close: bool,
}

/// Why a connection ends before its next request.
enum Refusal {
    /// The client left, stalled or broke the stream: nothing to answer.
    Gone,
    /// An answer with this status, then the connection is closed.
    Status(u16),
}

/// Serves one client until it leaves, misbehaves or stalls.
pub async fn serve<R: Runtime>(mut stream: R::TcpStream, spec: ServerSpec) {
    // Each blocking call gives up after the header timeout (at most the stall limit: a wait
    // longer than that is taken again while its deadline has not passed).
    let Ok(()) = stream.bound_by(Instant::now() + spec.header_timeout) else {
        return;
    };
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = vec![0; 16 * 1024];
    let mut response = Vec::with_capacity(4096);
    loop {
        let deadline = Instant::now() + spec.header_timeout;
        let head = match read_head(&mut stream, &mut buffer, &mut chunk, deadline).await {
            Ok(head) => head,
            Err(Refusal::Gone) => return,
            Err(Refusal::Status(status)) => {
                answer(&mut response, status, b"", true);
                let _ = rtt_core::runtime::write_copy(&mut stream, &response).await;
                return;
            }
        };
        let end = head.len + head.body_len;
        let body_deadline = Instant::now() + spec.header_timeout;
        while buffer.len() < end {
            let Ok(()) = fill(&mut stream, &mut buffer, &mut chunk, body_deadline).await else {
                return;
            };
        }
        let body: &[u8] = match head.route {
            Route::Echo => {
                spec.delay.before_echo();
                &buffer[head.len..end]
            }
            Route::Hello => HELLO,
            Route::WrongMethod | Route::NotFound => b"",
        };
        answer(&mut response, head.route.status(), body, head.close);
        buffer.drain(..end);
        let len = response.len();
        let written;
        (written, response) = stream.write_all(take(&mut response), len).await;
        if written.is_err() || head.close {
            return;
        }
    }
}

/// Reads until a whole request head is in `buffer`, and what it asks.
async fn read_head<S: TcpIo>(
    stream: &mut S,
    buffer: &mut Vec<u8>,
    chunk: &mut Vec<u8>,
    deadline: Instant,
) -> Result<Head, Refusal> {
    loop {
        if let Some(head) = parse_head(buffer)? {
            return Ok(head);
        }
        if buffer.len() > MAX_HEAD {
            return Err(Refusal::Status(431));
        }
        fill(stream, buffer, chunk, deadline)
            .await
            .map_err(|_| Refusal::Gone)?;
    }
}

/// The head at the start of `buffer`, once it is all there.
fn parse_head(buffer: &[u8]) -> Result<Option<Head>, Refusal> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut request = httparse::Request::new(&mut headers);
    let len = match request.parse(buffer) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(Refusal::Status(431)),
        Err(_) => return Err(Refusal::Status(400)),
    };
    if len > MAX_HEAD {
        return Err(Refusal::Status(431));
    }
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_ascii_lowercase())
    };
    if header("transfer-encoding").is_some() {
        // Only bodies of a known length: what the suite's pings and wrk send.
        return Err(Refusal::Status(501));
    }
    let body_len = match header("content-length") {
        None => 0,
        Some(value) => value.parse::<usize>().map_err(|_| Refusal::Status(400))?,
    };
    if body_len > MAX_BODY {
        return Err(Refusal::Status(413));
    }
    let close = request.version == Some(0) || header("connection").as_deref() == Some("close");
    let route = Route::of(
        request.method.unwrap_or_default(),
        request.path.unwrap_or_default(),
    );
    Ok(Some(Head {
        route,
        len,
        body_len,
        close,
    }))
}

/// Appends what the next read gives, waiting at most until `deadline`; the end of the stream,
/// the deadline or an error ends the connection.
async fn fill<S: TcpIo>(
    stream: &mut S,
    buffer: &mut Vec<u8>,
    chunk: &mut Vec<u8>,
    deadline: Instant,
) -> io::Result<()> {
    loop {
        let (read, lent) = stream.read(take(chunk)).await;
        *chunk = lent;
        match read {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buffer.extend_from_slice(&chunk[..n]);
                // A client trickling bytes is held to the deadline too.
                return match Instant::now() < deadline {
                    true => Ok(()),
                    false => Err(io::ErrorKind::TimedOut.into()),
                };
            }
            // The socket's timeout is the stall limit at most: wait on.
            Err(error) if timed_out(&error) && Instant::now() < deadline => {}
            Err(error) => return Err(error),
        }
    }
}

/// Writes a whole response into `out`: status line, length, body.
fn answer(out: &mut Vec<u8>, status: u16, body: &[u8], close: bool) {
    use std::io::Write;
    out.clear();
    let connection = if close { "connection: close\r\n" } else { "" };
    // Writing into a Vec cannot fail.
    let _ = write!(
        out,
        "HTTP/1.1 {status} {}\r\ncontent-length: {}\r\n{connection}\r\n",
        reason(status),
        body.len()
    );
    out.extend_from_slice(body);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> Result<Option<Head>, Refusal> {
        parse_head(text.as_bytes())
    }

    #[test]
    fn heads_are_read_whole_and_judged() {
        let h = head("POST /echo HTTP/1.1\r\ncontent-length: 5\r\n\r\nhello")
            .ok()
            .flatten()
            .expect("a whole head");
        assert_eq!((h.route, h.body_len, h.close), (Route::Echo, 5, false));
        assert!(matches!(
            head("POST /echo HTTP/1.1\r\ncontent-le"),
            Ok(None)
        ));
        assert!(matches!(head("GARBAGE\r\n\r\n"), Err(Refusal::Status(400))));
        let h = head("GET / HTTP/1.0\r\n\r\n")
            .ok()
            .flatten()
            .expect("a head");
        assert!(h.close, "HTTP/1.0 closes after its answer");
        assert!(matches!(
            head("POST /echo HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n"),
            Err(Refusal::Status(501))
        ));
    }

    #[test]
    fn answers_say_their_length() {
        let mut out = Vec::new();
        answer(&mut out, 200, b"abc", false);
        assert_eq!(out, b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc");
    }
}
