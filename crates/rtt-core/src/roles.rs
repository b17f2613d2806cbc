//! One executable per runtime, three roles: `tokio-ping`, `tokio-pong` and `tokio-micro` are links
//! to `tokio-rtt`, which plays the role named by the link it was started through. Linking each
//! runtime's code once, not three times, halves a cold build; the binaries keep their names.

use std::{ffi::OsStr, path::Path, process::ExitCode};

/// The entry point of a role: given the name it was started under (`tokio-ping`), it parses the
/// command line, runs, and says how it went.
pub type Entry = fn(&'static str) -> ExitCode;

/// A runtime's three entry points.
pub struct Roles {
    pub ping: Entry,
    pub pong: Entry,
    pub micro: Entry,
}

/// The suffix of each role's name, with what it is: `make` links `<prefix>-<role>` to
/// `<prefix>-rtt` for each of them.
const SUFFIXES: [(&str, &str); 3] = [
    ("-ping", "the client"),
    ("-pong", "the echo server"),
    ("-micro", "the in-process benchmarks"),
];

impl Roles {
    /// Runs the role this process was started as, read from the file name of its `argv[0]`; a
    /// name with no role's suffix is refused (exit 2), naming the links to start it through.
    pub fn run(&self) -> ExitCode {
        let argv0 = std::env::args_os().next().unwrap_or_default();
        let name = Path::new(&argv0)
            .file_name()
            .and_then(OsStr::to_str)
            .unwrap_or_default();
        // Leaked once per process: clap names a command by a `&'static str`.
        let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
        match self.role(name) {
            Some(entry) => entry(name),
            None => {
                let prefix = name.strip_suffix("-rtt").unwrap_or(name);
                let links: Vec<String> = SUFFIXES
                    .iter()
                    .map(|(suffix, what)| format!("{prefix}{suffix} ({what})"))
                    .collect();
                eprintln!(
                    "{name}: start it through one of its links, which `make` puts beside it: {}",
                    links.join(", ")
                );
                ExitCode::from(2)
            }
        }
    }

    /// The entry of the role whose suffix ends `name`, if any.
    fn role(&self, name: &str) -> Option<Entry> {
        let entries = [self.ping, self.pong, self.micro];
        SUFFIXES
            .iter()
            .zip(entries)
            .find(|((suffix, _), _)| name.ends_with(suffix) && name.len() > suffix.len())
            .map(|(_, entry)| entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ping(_: &'static str) -> ExitCode {
        ExitCode::from(11)
    }
    fn pong(_: &'static str) -> ExitCode {
        ExitCode::from(12)
    }
    fn micro(_: &'static str) -> ExitCode {
        ExitCode::from(13)
    }

    #[test]
    fn the_role_is_the_suffix_of_the_name() {
        let roles = Roles { ping, pong, micro };
        let played = |name| roles.role(name).map(|entry| entry(""));
        assert_eq!(played("tokio-ping"), Some(ExitCode::from(11)));
        assert_eq!(played("my-tokio-pong"), Some(ExitCode::from(12)));
        assert_eq!(played("std-micro"), Some(ExitCode::from(13)));
        assert_eq!(played("tokio-rtt"), None);
        assert_eq!(played("-ping"), None, "a suffix alone names no runtime");
    }
}
