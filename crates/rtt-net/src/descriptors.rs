//! The open-files limit: a ping opens a socket per connection and a pong one per client, so both
//! make room for them (raising the soft limit, up to the hard one) before a run starts, or say
//! what to raise: never a failure halfway through a run.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// Descriptors a process needs besides its sockets: stdio, the log files, the listener and the
/// runtime's own (epoll or io_uring, eventfds, timers).
const RESERVE: u64 = 64;

/// Makes room for `sockets` more sockets; on failure, the message of the exit-2 error, naming
/// `ulimit -n` and the option (`what`) asking for them.
pub fn make_room_for(sockets: u32, what: &str) -> Result<(), String> {
    let needed = u64::from(sockets) + RESERVE;
    let limit = getrlimit(Resource::Nofile);
    // `None` is no limit at all.
    if limit.current.is_none_or(|soft| soft >= needed) {
        return Ok(());
    }
    if limit.maximum.is_none_or(|hard| hard >= needed) {
        let raised = Rlimit {
            current: Some(needed),
            maximum: limit.maximum,
        };
        return setrlimit(Resource::Nofile, raised).map_err(|e| {
            format!("{what} needs {needed} open files: raising the limit failed: {e}")
        });
    }
    let hard = limit.maximum.unwrap_or(u64::MAX);
    Err(format!(
        "{what} needs about {needed} open files, but this process may open at most {hard} (ulimit -n): raise the limit, e.g. `ulimit -n {needed}`, or ask for fewer connections"
    ))
}
