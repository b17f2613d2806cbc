//! Facts fixed when the binary was built: suite version and commit, rustc, locked crate versions.

use std::{fs, path::Path, sync::LazyLock};

/// The file `make` writes beside the binaries: the commit they were built from (`git rev-parse
/// --short=10 HEAD`, with `-modified` when the Rust sources differed from it).
pub const COMMIT_STAMP: &str = "suite-commit";

/// The suite's version and the commit this binary was built from, e.g. `0.1.0 (git 1a2b3c4d5e)`.
///
/// The commit is read from the stamp beside the executable, and trusted only when the stamp is at
/// least as new as the executable: a binary that Cargo relinked after `make` last stamped (a plain
/// `cargo build` of changed sources) says `git unknown` rather than name a commit it may not be.
pub fn suite_version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        let commit = std::env::current_exe()
            .ok()
            .and_then(|exe| stamped_commit(&exe))
            .unwrap_or_else(|| "unknown".into());
        format!("{} (git {commit})", env!("CARGO_PKG_VERSION"))
    });
    VERSION.as_str()
}

/// The commit in the stamp beside `exe`, if the stamp is there and not older than `exe`.
fn stamped_commit(exe: &Path) -> Option<String> {
    let stamp = exe.with_file_name(COMMIT_STAMP);
    let modified = |path: &Path| fs::metadata(path).and_then(|m| m.modified()).ok();
    if modified(&stamp)? < modified(exe)? {
        return None;
    }
    let text = fs::read_to_string(&stamp).ok()?;
    let commit = text.trim();
    let plausible = !commit.is_empty()
        && commit.len() <= 64
        && commit
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    plausible.then(|| commit.to_owned())
}

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

    #[test]
    fn a_stamp_names_the_commit_only_when_it_is_not_older_than_the_binary() {
        let dir = std::env::temp_dir().join(format!("rtt-stamp-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let exe = dir.join("some-ping");
        fs::write(&exe, b"binary").expect("exe");
        assert_eq!(stamped_commit(&exe), None, "no stamp");

        let stamp = dir.join(COMMIT_STAMP);
        fs::write(&stamp, "1a2b3c4d5e-modified\n").expect("stamp");
        assert_eq!(stamped_commit(&exe).as_deref(), Some("1a2b3c4d5e-modified"));

        let earlier = fs::metadata(&exe)
            .and_then(|m| m.modified())
            .expect("mtime")
            - std::time::Duration::from_secs(60);
        fs::File::options()
            .write(true)
            .open(&stamp)
            .and_then(|f| f.set_modified(earlier))
            .expect("set mtime");
        assert_eq!(
            stamped_commit(&exe),
            None,
            "a binary relinked after the stamp"
        );

        fs::write(&stamp, "not a commit; rm -rf\n").expect("stamp");
        assert_eq!(stamped_commit(&exe), None, "garbage");
        fs::remove_dir_all(&dir).expect("clean up");
    }
}
