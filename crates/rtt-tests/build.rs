//! Generates `for_each_runtime!` from runtimes.json at the repository's root, so that every
//! end-to-end test runs on every runtime of the one list, and a new runtime needs no test edit.

use std::{env, fs, path::PathBuf};

fn main() {
    let list = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../runtimes.json");
    println!("cargo::rerun-if-changed={}", list.display());
    let text = fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("reading the runtime list {}: {e}", list.display()));
    let json: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not valid JSON: {e}", list.display()));
    let runtimes = json["runtimes"]
        .as_array()
        .unwrap_or_else(|| panic!("{} has no \"runtimes\" array", list.display()));
    // (label, binary prefix, whether it has a `*-micro`: no `modes`, or `modes` naming micro).
    let entries: Vec<(&str, &str, bool)> = runtimes
        .iter()
        .map(|r| {
            let field = |name: &str| {
                r[name].as_str().unwrap_or_else(|| {
                    panic!("{}: a runtime without \"{name}\": {r}", list.display())
                })
            };
            let micro = r["modes"]
                .as_array()
                .is_none_or(|modes| modes.iter().any(|mode| mode == "micro"));
            (field("label"), field("binary_prefix"), micro)
        })
        .collect();
    let micro: Vec<_> = entries.iter().filter(|entry| entry.2).cloned().collect();
    let io_uring: String = runtimes
        .iter()
        .filter(|r| r["io_uring"] == true)
        .map(|r| format!("{}, ", r["binary_prefix"]))
        .collect();
    let code = format!(
        "/// (label, binary prefix) of every runtime in runtimes.json, in its order.\n\
         pub const RUNTIMES: &[(&str, &str)] = &[{}];\n\n\
         /// The runtimes that have a `*-micro` binary (MODE=micro).\n\
         pub const MICRO_RUNTIMES: &[(&str, &str)] = &[{}];\n\n\
         /// The binary prefixes of the runtimes that need io_uring.\n\
         pub const IO_URING_RUNTIMES: &[&str] = &[{}];\n\n\
         {}\n{}",
        pairs(&entries),
        pairs(&micro),
        io_uring,
        test_macro("for_each_runtime", "runtime", &entries),
        test_macro("for_each_micro_runtime", "runtime with a `*-micro`", &micro),
    );
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("runtimes.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

fn pairs(entries: &[(&str, &str, bool)]) -> String {
    entries
        .iter()
        .map(|(label, prefix, _)| format!("(\"{label}\", \"{prefix}\"), "))
        .collect()
}

/// A macro `name!` that generates one `#[test]` per entry, named after its binary prefix (a
/// valid identifier), calling `$check(prefix)`.
fn test_macro(name: &str, what: &str, entries: &[(&str, &str, bool)]) -> String {
    let tests: String = entries
        .iter()
        .map(|(_, prefix, _)| format!("#[test] fn {prefix}() {{ super::$check(\"{prefix}\") }}\n"))
        .collect();
    format!(
        "/// Generates one `#[test]` per {what}, named after it, that calls `$check(prefix)`.\n\
         #[macro_export]\n\
         macro_rules! {name} {{\n\
         ($($check:ident),* $(,)?) => {{$(\n\
         mod $check {{\n{tests}}}\n\
         )*}};\n\
         }}\n"
    )
}
