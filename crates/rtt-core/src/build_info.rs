//! Facts fixed when the binary was built: suite version and commit, rustc, locked crate versions.

/// The suite's version and the commit it was built from, e.g. `0.1.0 (git 1a2b3c4d5e)`.
pub const SUITE_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("RTT_GIT_COMMIT"),
    ")"
);

/// `rustc --version` of the compiler that built this binary.
pub const RUSTC: &str = env!("RTT_RUSTC_VERSION");

/// The version of `package` locked in Cargo.lock when this binary was built.
pub fn locked_version(package: &str) -> Option<&'static str> {
    env!("RTT_LOCKED_VERSIONS")
        .split(';')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == package)
        .map(|(_, version)| version)
}

/// The release of the standard library: the rustc version number (`1.95.0`).
pub fn rustc_release() -> &'static str {
    RUSTC.split_whitespace().nth(1).unwrap_or(RUSTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locked_version_of_a_dependency_is_known() {
        let version = locked_version("clap").expect("clap is in Cargo.lock");
        assert!(version.starts_with("4."), "{version}");
        assert_eq!(locked_version("no-such-crate"), None);
    }
}
