//! What every HTTP pong answers, whatever serves it: `POST /echo` gives the body back, `GET /`
//! a short fixed body, anything else an error status; and the limits it holds clients to.

use std::time::Duration;

use crate::delay::PlantedDelay;

/// The method and path the ping sends its messages with.
pub const ECHO_METHOD: &str = "POST";
pub const ECHO_PATH: &str = "/echo";

/// `GET /`'s body, as a hello-world server's (what load generators such as wrk fetch by default).
pub const HELLO: &[u8] = b"Hello, World!";

/// The largest request head a pong reads: a larger one is answered 431 and the connection closed.
pub const MAX_HEAD: usize = 64 * 1024;

/// The largest body `POST /echo` takes: the largest TCP message of the suite.
pub const MAX_BODY: usize = crate::wire::MAX_TCP_PAYLOAD;

/// How an HTTP pong serves its clients: the same for every runtime.
#[derive(Clone, Copy, Debug)]
pub struct ServerSpec {
    /// A connection whose next request head is not in within this time is closed (an idle
    /// keep-alive connection included, as hyper counts it).
    pub header_timeout: Duration,
    /// Spun before an answer to `POST /echo` (the pong's `--delay-ns`, one in `--delay-every`).
    pub delay: &'static PlantedDelay,
}

/// What a request gets, by its method and path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// `POST /echo`: 200 with the request's body.
    Echo,
    /// `GET /`: 200 with [`HELLO`].
    Hello,
    /// A known path with another method: 405.
    WrongMethod,
    /// Any other path: 404.
    NotFound,
}

impl Route {
    pub fn of(method: &str, path: &str) -> Self {
        match (method, path) {
            (ECHO_METHOD, ECHO_PATH) => Route::Echo,
            ("GET" | "HEAD", "/") => Route::Hello,
            (_, ECHO_PATH | "/") => Route::WrongMethod,
            _ => Route::NotFound,
        }
    }

    /// The status of the answer.
    pub fn status(self) -> u16 {
        match self {
            Route::Echo | Route::Hello => 200,
            Route::WrongMethod => 405,
            Route::NotFound => 404,
        }
    }
}

/// The reason phrase of a status this suite sends.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_method_and_path() {
        assert_eq!(Route::of("POST", "/echo"), Route::Echo);
        assert_eq!(Route::of("GET", "/"), Route::Hello);
        assert_eq!(Route::of("GET", "/echo").status(), 405);
        assert_eq!(Route::of("POST", "/nowhere").status(), 404);
    }
}
