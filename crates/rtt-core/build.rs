//! Records what a result depends on at build time: the compiler and the exact locked version of
//! every dependency (so a log names the runtime version it really ran). The suite's commit is not
//! compiled in: `make` stamps it beside the binaries (see `build_info::suite_version`), so a commit
//! that changes no Rust source rebuilds nothing.
use std::{env, fs, path::Path, process::Command};

fn main() {
    let manifest_dir = env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let root = Path::new(&manifest_dir).join("../..");

    let lock = root.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let locked = fs::read_to_string(&lock)
        .map(|text| locked_versions(&text))
        .unwrap_or_default();
    println!("cargo:rustc-env=RTT_LOCKED_VERSIONS={locked}");

    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = output_of(Command::new(rustc).arg("--version")).unwrap_or_default();
    println!("cargo:rustc-env=RTT_RUSTC_VERSION={rustc_version}");
}

/// `name=version;name=version…` for every package in a Cargo.lock.
fn locked_versions(lock: &str) -> String {
    let mut pairs = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"').to_owned());
        } else if let (Some(value), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            pairs.push(format!("{n}={}", value.trim_matches('"')));
        }
    }
    pairs.join(";")
}

fn output_of(command: &mut Command) -> Option<String> {
    let out = command.output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
