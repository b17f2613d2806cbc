//! HTTP/1.1 as a transport (`--protocol http`): what the ping asks and what every pong answers,
//! defined once. The ping's client (`client`) is written once over the runtime seam; the pong is
//! hyper over the runtime's own sockets (`hyper_server`), or, on std, whose calls block, a small
//! server with a thread per connection (`blocking_server`). Both answer alike (`routes`).

pub mod blocking_server;
pub mod client;
pub mod hyper_server;
pub mod routes;

pub use routes::ServerSpec;

use rtt_core::runtime::Runtime;

/// Serves one client until it leaves, misbehaves or stalls; nothing it does reaches the others.
pub async fn serve_connection<R: Runtime>(stream: R::TcpStream, spec: ServerSpec) {
    if R::BLOCKING_IO {
        blocking_server::serve::<R>(stream, spec).await;
    } else {
        hyper_server::serve::<R>(stream, spec).await;
    }
}
