//! HTTP/1.1 as a transport (`--protocol http`): what the ping asks and what every pong answers,
//! defined once. The ping's client (`client`) is written once over the runtime seam; the pong is
//! hyper over the runtime's own sockets (`hyper_server`), or, on std, whose calls block, a small
//! server with a thread per connection (`blocking_server`). Both answer alike (`routes`).

pub mod blocking_server;
pub mod client;
pub mod hyper_server;
pub mod routes;

use std::time::Duration;

use rtt_core::runtime::Runtime;

/// How an HTTP pong serves its clients: the same for every runtime.
#[derive(Clone, Copy, Debug)]
pub struct ServerSpec {
    /// A connection whose next request head is not in within this time is closed (an idle
    /// keep-alive connection included, as hyper counts it).
    pub header_timeout: Duration,
    /// Spun before each answer to `POST /echo` (the pong's `--delay-ns`).
    pub delay: Duration,
}

/// Serves one client until it leaves, misbehaves or stalls; nothing it does reaches the others.
pub async fn serve_connection<R: Runtime>(stream: R::TcpStream, spec: ServerSpec) {
    if R::BLOCKING_IO {
        blocking_server::serve::<R>(stream, spec).await;
    } else {
        hyper_server::serve::<R>(stream, spec).await;
    }
}
