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
    let entries: Vec<(&str, &str)> = runtimes
        .iter()
        .map(|r| {
            let field = |name: &str| {
                r[name].as_str().unwrap_or_else(|| {
                    panic!("{}: a runtime without \"{name}\": {r}", list.display())
                })
            };
            (field("label"), field("binary_prefix"))
        })
        .collect();

    // One `#[test]` per runtime, named after its binary prefix (a valid identifier).
    let tests: String = entries
        .iter()
        .map(|(_, prefix)| format!("#[test] fn {prefix}() {{ super::$check(\"{prefix}\") }}\n"))
        .collect();
    let pairs: String = entries
        .iter()
        .map(|(label, prefix)| format!("(\"{label}\", \"{prefix}\"), "))
        .collect();
    let code = format!(
        "/// (label, binary prefix) of every runtime in runtimes.json, in its order.\n\
         pub const RUNTIMES: &[(&str, &str)] = &[{pairs}];\n\n\
         /// Generates one `#[test]` per runtime, named after it, that calls `$check(prefix)`.\n\
         #[macro_export]\n\
         macro_rules! for_each_runtime {{\n\
         ($($check:ident),* $(,)?) => {{$(\n\
         mod $check {{\n{tests}}}\n\
         )*}};\n\
         }}\n"
    );
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("runtimes.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
