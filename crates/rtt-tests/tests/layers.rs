//! The layers of the shared crates, checked on their sources: only the entry points read the
//! command line, and no module of a crate uses another that uses it back, directly or around a
//! cycle. A module's uses are the paths it names (`use` trees and inline `crate::`, `super::`,
//! `self::` and child-module paths), its unit tests left out.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// A crate's modules (`rtt::open`; the crate root is `crate`), each with the modules it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

const ROOT: &str = "crate";

/// The module graph of the crate whose sources are under `src`.
fn graph_of(src: &Path) -> Graph {
    let mut files = Vec::new();
    collect_files(src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|file| (module_of(src, file), code_of(file)))
        .collect();
    modules
        .iter()
        .map(|(module, code)| (module.clone(), uses(module, code, &modules)))
        .collect()
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("bin") {
            collect_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") && !is_unit_tests(&path) {
            files.push(path);
        }
    }
}

/// A module's unit tests in a file of their own (`#[cfg(test)] mod tests;` beside its code:
/// `tests.rs` or `tests/mod.rs`), which may use anything, as the inline `#[cfg(test)] mod tests { … }`
/// that `code_of` leaves out may.
fn is_unit_tests(file: &Path) -> bool {
    file.file_name().is_some_and(|name| name == "tests.rs")
        || file
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|dir| dir == "tests")
}

/// `src/rtt/open.rs` is `rtt::open`, `src/rtt/mod.rs` is `rtt`, `src/lib.rs` the root.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file
        .strip_prefix(src)
        .expect("under src")
        .with_extension("");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    if parts.is_empty() {
        ROOT.to_owned()
    } else {
        parts.join("::")
    }
}

/// A file's code without its comments and its unit tests (which may use anything).
fn code_of(file: &Path) -> String {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if at == 0 || line[..at].ends_with(char::is_whitespace) => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn parent(module: &str) -> String {
    match module.rsplit_once("::") {
        Some((parent, _)) => parent.to_owned(),
        None => ROOT.to_owned(),
    }
}

fn join(base: &str, name: &str) -> String {
    if base == ROOT {
        name.to_owned()
    } else {
        format!("{base}::{name}")
    }
}

/// The other modules that `module` (its `code`) names, among `modules`.
fn uses(module: &str, code: &str, modules: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut paths = Vec::new();
    for statement in code.split(';') {
        // A `use` declaration starts its line, after any `pub`: not one in a string or a name.
        let keyword = statement.match_indices("use ").find(|(at, _)| {
            let line = statement[..*at]
                .rsplit('\n')
                .next()
                .unwrap_or_default()
                .trim();
            line.is_empty() || line.starts_with("pub")
        });
        if let Some((at, _)) = keyword {
            let tree: String = statement[at + 4..].split_whitespace().collect();
            expand(&tree, "", &mut paths);
        }
    }
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|word| word.contains("::"))
        .collect();
    paths.extend(words.into_iter().map(str::to_owned));
    paths
        .iter()
        .filter_map(|path| resolve(module, path, modules))
        .filter(|target| target != module)
        .collect()
}

/// Adds every path of a `use` tree (`a::{b, c::{d, e}}`) to `paths`.
fn expand(tree: &str, prefix: &str, paths: &mut Vec<String>) {
    let Some(open) = tree.find('{') else {
        paths.push(format!("{prefix}{tree}"));
        return;
    };
    let head = format!("{prefix}{}", &tree[..open]);
    let close = tree.rfind('}').filter(|&close| close > open);
    let body = &tree[open + 1..close.unwrap_or(tree.len())];
    let (mut depth, mut start) = (0, 0);
    for (at, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&body[start..at], &head, paths);
                start = at + 1;
            }
            _ => {}
        }
    }
    if start < body.len() {
        expand(&body[start..], &head, paths);
    }
}

/// The module a path used in `module` lands in, if it is one of this crate's.
fn resolve(module: &str, path: &str, modules: &BTreeMap<String, String>) -> Option<String> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (mut base, rest) = match *segments.first()? {
        "crate" => (ROOT.to_owned(), &segments[1..]),
        "self" => (module.to_owned(), &segments[1..]),
        "super" => (module.to_owned(), &segments[..]),
        child if modules.contains_key(&join(module, child)) => (module.to_owned(), &segments[..]),
        _ => return None,
    };
    let mut rest = rest.iter().peekable();
    while rest.next_if(|segment| **segment == "super").is_some() {
        base = parent(&base);
    }
    // `crate::{` alone, say: the path goes on inside the braces, which the `use` tree gives.
    rest.peek()?;
    for segment in rest {
        let next = join(&base, segment);
        if !modules.contains_key(&next) {
            break;
        }
        base = next;
    }
    Some(base)
}

/// A cycle of modules each using the next, if the graph has one.
fn cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut found = path[at..].to_vec();
            found.push(module.to_owned());
            return Some(found);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_owned());
        for used in graph.get(module).into_iter().flatten() {
            if let Some(found) = visit(used, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(module, graph, &mut Vec::new(), &mut done))
}

/// The modules of `graph` other than `entries` that use `cli`.
fn below_entries_using(graph: &Graph, cli: &str, entries: &[&str]) -> Vec<String> {
    graph
        .iter()
        .filter(|(module, used)| used.contains(cli) && !entries.contains(&module.as_str()))
        .map(|(module, _)| module.clone())
        .collect()
}

fn sources(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

#[test]
fn only_the_entry_points_read_the_command_line() {
    for (name, cli, entries) in [
        ("rtt-net", "options", &["ping", "pong"][..]),
        ("rtt-micro", "options", &[ROOT][..]),
        ("rtt-core", "cli", &[][..]),
    ] {
        let graph = graph_of(&sources(name));
        assert!(graph.contains_key(cli), "{name} has no module {cli}");
        assert_eq!(
            below_entries_using(&graph, cli, entries),
            Vec::<String>::new(),
            "{name}: modules below the entry points {entries:?} use the command line ({cli})"
        );
    }
}

#[test]
fn no_two_modules_of_a_shared_crate_use_each_other() {
    for name in ["rtt-core", "rtt-net", "rtt-micro"] {
        let graph = graph_of(&sources(name));
        assert!(graph.len() > 5, "{name}: {graph:?}");
        assert_eq!(cycle(&graph), None, "{name}: a cycle of module uses");
    }
}

/// The checks above find what they look for: a planted cycle, and a planted use of the command
/// line below the entry point.
#[test]
fn the_layer_checks_catch_a_cycle_and_a_command_line_read_below_the_entry() {
    let dir = std::env::temp_dir().join(format!("rtt-layers-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("client").join("tests")).expect("creates the sources");
    for (file, code) in [
        (
            "lib.rs",
            "mod options;\nmod client;\nuse crate::options::Cli;\n",
        ),
        ("options.rs", "pub struct Cli;\n"),
        (
            "client/mod.rs",
            "mod timeline;\nuse self::timeline::T; // a comment naming crate::nothing\npub struct Loop;\n",
        ),
        (
            "client/timeline.rs",
            "use crate::{options::Cli, client::Loop};\npub struct T;\n#[cfg(test)]\nmod tests { use super::super::*; }\n",
        ),
        // Unit tests in their own file may use anything too.
        (
            "client/tests/mod.rs",
            "use crate::options::Cli;\nuse super::*;\n",
        ),
    ] {
        fs::write(src.join(file), code).expect("writes a source");
    }
    let graph = graph_of(&src);
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(
        below_entries_using(&graph, "options", &[ROOT]),
        ["client::timeline"]
    );
    assert_eq!(
        cycle(&graph),
        Some(vec![
            "client".to_owned(),
            "client::timeline".to_owned(),
            "client".to_owned()
        ])
    );
}
