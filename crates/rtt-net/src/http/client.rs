//! The ping's HTTP/1.1 client, written once over the runtime seam so that every runtime's ping
//! does the same work: each message is one `POST /echo` whose body is the message (its sequence
//! number first), sent whole; each reply is a response head parsed with httparse (hyper's own
//! parser) and a body of the `Content-Length` it gives. One request in flight per connection:
//! HTTP/1.1 without pipelining.

use std::{collections::BTreeMap, io, mem::take, net::SocketAddr, ops::Range, time::Instant};

use rtt_core::runtime::TcpRead;

use super::routes::{ECHO_METHOD, ECHO_PATH, MAX_HEAD};

/// A `POST /echo` request, built once and numbered per message.
#[derive(Clone, Debug)]
pub struct EchoRequest {
    /// Head and body, as sent.
    pub bytes: Vec<u8>,
    /// Where the body (the message) starts: the head's length.
    pub body_at: usize,
}

impl EchoRequest {
    /// The request that carries `message` to the pong at `host`.
    pub fn new(host: SocketAddr, message: &[u8]) -> Self {
        let head = format!(
            "{ECHO_METHOD} {ECHO_PATH} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/octet-stream\r\ncontent-length: {}\r\n\r\n",
            message.len()
        );
        let mut bytes = head.into_bytes();
        let body_at = bytes.len();
        bytes.extend_from_slice(message);
        Self { bytes, body_at }
    }

    /// The message, to be numbered.
    pub fn body_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[self.body_at..]
    }
}

/// What a connection's responses were: by status, and the largest head.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub statuses: BTreeMap<u16, u64>,
    pub response_head_bytes: u64,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        for (status, count) in &other.statuses {
            *self.statuses.entry(*status).or_default() += count;
        }
        self.response_head_bytes = self.response_head_bytes.max(other.response_head_bytes);
    }
}

/// One response read whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// When the read that completed it returned: its arrival, before it was parsed or counted.
    pub at: Instant,
    /// Where its body is in [`ResponseReader::body`]'s buffer.
    body: Range<usize>,
}

impl Response {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Reads responses from one connection, keeping what came beyond the last one.
pub struct ResponseReader {
    /// Bytes read and not yet consumed; the last response's from its start.
    buffer: Vec<u8>,
    /// How much of `buffer` the last response took, dropped before the next is read.
    consumed: usize,
    /// Lent to the runtime for each read.
    chunk: Vec<u8>,
    /// When the last read returned.
    read_at: Instant,
    pub tally: Tally,
}

/// How much a read asks for at once: any echo of the default size and its head in one read.
const CHUNK: usize = 16 * 1024;

impl Default for ResponseReader {
    fn default() -> Self {
        Self {
            buffer: Vec::with_capacity(CHUNK),
            consumed: 0,
            chunk: vec![0; CHUNK],
            read_at: Instant::now(),
            tally: Tally::default(),
        }
    }
}

impl ResponseReader {
    /// Reads the next response whole, and tallies its status.
    pub async fn read<Rd: TcpRead>(&mut self, reader: &mut Rd) -> io::Result<Response> {
        self.buffer.drain(..self.consumed);
        self.consumed = 0;
        let (status, head_len, body_len) = loop {
            if let Some(head) = parse_head(&self.buffer)? {
                break head;
            }
            if self.buffer.len() > MAX_HEAD {
                return Err(invalid(format!("a response head over {MAX_HEAD} bytes")));
            }
            self.fill(reader).await?;
        };
        let end = head_len + body_len;
        while self.buffer.len() < end {
            self.fill(reader).await?;
        }
        self.consumed = end;
        *self.tally.statuses.entry(status).or_default() += 1;
        self.tally.response_head_bytes = self.tally.response_head_bytes.max(head_len as u64);
        Ok(Response {
            status,
            at: self.read_at,
            body: head_len..end,
        })
    }

    /// The body of `response`, the last one read.
    pub fn body(&self, response: &Response) -> &[u8] {
        &self.buffer[response.body.clone()]
    }

    /// Appends what the next read gives; the end of the stream is an error mid-response.
    async fn fill<Rd: TcpRead>(&mut self, reader: &mut Rd) -> io::Result<()> {
        let (read, chunk) = reader.read(take(&mut self.chunk)).await;
        self.read_at = Instant::now();
        self.chunk = chunk;
        match read? {
            0 => Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                self.buffer.extend_from_slice(&self.chunk[..n]);
                Ok(())
            }
        }
    }
}

/// The status, head length and body length of the response at the start of `bytes`, once its
/// head is all there.
fn parse_head(bytes: &[u8]) -> io::Result<Option<(u16, usize, usize)>> {
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(bytes) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(error) => return Err(invalid(format!("a malformed response head ({error})"))),
    };
    let status = response.code.unwrap_or_default();
    let length = response
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .map(|h| {
            std::str::from_utf8(h.value)
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .ok_or_else(|| invalid("a response with a bad Content-Length".to_owned()))
        })
        .transpose()?;
    match length {
        Some(length) => Ok(Some((status, head_len, length))),
        // The pongs of this suite always say how long their body is: a chunked body or one
        // ended by closing the connection is not theirs.
        None => Err(invalid(format!(
            "a response (status {status}) without Content-Length"
        ))),
    }
}

fn invalid(what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{what}: is it an HTTP pong of this suite?"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives `parts` one per read.
    struct Parts(Vec<Vec<u8>>);

    impl TcpRead for Parts {
        async fn read_exact(&mut self, buf: Vec<u8>) -> rtt_core::runtime::Lent<()> {
            (Err(io::ErrorKind::Unsupported.into()), buf)
        }

        async fn read(&mut self, mut buf: Vec<u8>) -> rtt_core::runtime::Lent<usize> {
            if self.0.is_empty() {
                return (Ok(0), buf);
            }
            let part = self.0.remove(0);
            buf[..part.len()].copy_from_slice(&part);
            (Ok(part.len()), buf)
        }
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        futures::executor::block_on(future)
    }

    #[test]
    fn the_request_carries_the_message_as_its_body() {
        let address: SocketAddr = "127.0.0.1:9009".parse().expect("an address");
        let mut request = EchoRequest::new(address, &[7; 64]);
        request.body_mut()[0] = 1;
        let text = String::from_utf8_lossy(&request.bytes[..request.body_at]).into_owned();
        assert!(text.starts_with("POST /echo HTTP/1.1\r\n"), "{text}");
        assert!(text.contains("content-length: 64\r\n"), "{text}");
        assert_eq!(request.bytes.len(), request.body_at + 64);
        assert_eq!(request.bytes[request.body_at], 1);
    }

    #[test]
    fn responses_split_across_reads_and_run_together_are_each_read_whole() {
        let first = b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc".to_vec();
        let second = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_vec();
        let mut joined = first[20..].to_vec();
        joined.extend_from_slice(&second);
        let mut parts = Parts(vec![first[..20].to_vec(), joined]);
        let mut reader = ResponseReader::default();
        let response = block_on(reader.read(&mut parts)).expect("the first response");
        assert_eq!(
            (response.status, reader.body(&response)),
            (200, &b"abc"[..])
        );
        let response = block_on(reader.read(&mut parts)).expect("the second response");
        assert_eq!(response.status, 404);
        assert!(!response.is_success());
        assert_eq!(reader.tally.statuses, BTreeMap::from([(200, 1), (404, 1)]));
        let error = block_on(reader.read(&mut parts)).expect_err("the stream ended");
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_response_without_a_length_is_refused_by_name() {
        let mut parts = Parts(vec![b"HTTP/1.1 200 OK\r\n\r\nabc".to_vec()]);
        let error = block_on(ResponseReader::default().read(&mut parts)).expect_err("refused");
        assert!(error.to_string().contains("Content-Length"), "{error}");
    }
}
