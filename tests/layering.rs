//! ARCHITECTURE.md's layering invariants, checked on the source: a change that breaks one fails
//! here, with the file and line, rather than waiting for a reviewer to notice.
//! - One transport: only `src/api/` talks HTTP (gloo-net, `fetch`).
//! - One place for preferences: only `src/browser/preferences.rs` reads or writes localStorage.
//! - `api/` imports nothing from `state/` or `pages/`.
//! - State never names pages: `state/` sits below `pages/` (what it needs from the pages' chunk
//!   is handed to it by `App`; the chunk's plumbing is `src/chunk.rs`).
//! - The store's keepers sit below state: `archive` and `request_log` name no `state`, page or
//!   component (a refusal is handed back, and `state::refusals` records it).
//! - No circle between src/'s top-level modules: each module's imports of the others form a
//!   graph with no cycle, so each can be read (and tested) knowing only the ones below it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The lines of the files under `src/{under}` that contain any of `needles`, outside comments,
/// as `path:line: text`.
fn lines_naming(under: &str, needles: &[&str], except: &[&str]) -> Vec<String> {
    let root = src();
    let mut found = Vec::new();
    for file in rust_files(&root.join(under)) {
        let relative = file
            .strip_prefix(&root)
            .expect("under src")
            .to_string_lossy()
            .into_owned();
        if except.iter().any(|prefix| relative.starts_with(prefix)) {
            continue;
        }
        let text = fs::read_to_string(&file).expect("a readable source file");
        for (number, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if needles.iter().any(|needle| code.contains(needle)) {
                found.push(format!("src/{relative}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn only_the_transport_talks_http() {
    let found = lines_naming(
        "",
        &["gloo_net", "fetch_with_request", "fetch_with_str"],
        &["api/"],
    );
    assert!(
        found.is_empty(),
        "HTTP outside src/api/ (ARCHITECTURE.md, one transport):\n{}",
        found.join("\n")
    );
}

#[test]
fn only_the_preferences_module_touches_local_storage() {
    let found = lines_naming("", &["local_storage()"], &["browser/preferences.rs"]);
    assert!(
        found.is_empty(),
        "localStorage outside src/browser/preferences.rs (ARCHITECTURE.md, one place for \
         preferences):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_transport_names_no_state_and_no_page() {
    let found = lines_naming(
        "api",
        &["crate::state", "crate::pages", "crate::components"],
        &[],
    );
    assert!(
        found.is_empty(),
        "src/api/ reaching up (ARCHITECTURE.md, one transport):\n{}",
        found.join("\n")
    );
}

#[test]
fn state_lives_in_context_not_in_thread_locals() {
    let found = lines_naming("state", &["thread_local!"], &[]);
    assert!(
        found.is_empty(),
        "a thread-local in src/state/ (ARCHITECTURE.md, what state holds is context):\n{}",
        found.join("\n")
    );
}

#[test]
fn state_never_names_pages() {
    let found = lines_naming(
        "state",
        &["crate::pages", "pages::", "super::super::pages"],
        &[],
    );
    assert!(
        found.is_empty(),
        "src/state/ naming pages (ARCHITECTURE.md, state never names pages):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_stores_keepers_name_no_state_page_or_component() {
    let mut found = Vec::new();
    for keeper in ["archive", "request_log"] {
        let needles = [
            "crate::state",
            "crate::pages",
            "crate::components",
            "crate::app",
        ];
        if src().join(keeper).is_dir() {
            found.extend(lines_naming(keeper, &needles, &[]));
        }
        found.extend(lines_of_file(&format!("{keeper}.rs"), &needles));
    }
    assert!(
        found.is_empty(),
        "src/archive and src/request_log reaching up (ARCHITECTURE.md, layering):\n{}",
        found.join("\n")
    );
}

/// The lines of `src/{file}` that contain any of `needles`, outside comments.
fn lines_of_file(file: &str, needles: &[&str]) -> Vec<String> {
    let text = fs::read_to_string(src().join(file)).expect("a readable source file");
    code_lines(&text)
        .filter(|(_, code)| needles.iter().any(|needle| code.contains(needle)))
        .map(|(number, code)| format!("src/{file}:{number}: {}", code.trim()))
        .collect()
}

/// The lines of a source text that are not comments, numbered from 1.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
}

/// A top-level module's imports of the others: for each module it names, one place it does.
type Imports = BTreeMap<String, BTreeMap<String, String>>;

/// The top-level modules of the sources `files` (path under src/, text), and which others each
/// names (`crate::other`). `main.rs`, `lib.rs` and `bin/` are the crate's roots, not modules.
fn imports_of(files: &[(String, String)]) -> Imports {
    let module_of = |path: &str| -> Option<String> {
        let first = path.split('/').next()?;
        let name = first.strip_suffix(".rs").unwrap_or(first);
        (!["main", "lib", "bin"].contains(&name)).then(|| name.to_owned())
    };
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|(path, _)| module_of(path))
        .collect();
    let mut imports = Imports::new();
    for (path, text) in files {
        let Some(module) = module_of(path) else {
            continue;
        };
        let named = imports.entry(module.clone()).or_default();
        for (number, code) in code_lines(text) {
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let other: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if other != module && modules.contains(&other) {
                    named
                        .entry(other)
                        .or_insert_with(|| format!("src/{path}:{number}"));
                }
            }
        }
    }
    imports
}

/// A circle of `imports`, as the modules on it and where each names the next, if there is one.
fn a_circle(imports: &Imports) -> Option<Vec<String>> {
    /// Depth-first: `path` holds the modules being visited, in order.
    fn visit(
        module: &str,
        imports: &Imports,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == module) {
            let circle = &path[start..];
            return Some(
                circle
                    .iter()
                    .enumerate()
                    .map(|(i, from)| {
                        let to = &circle[(i + 1) % circle.len()];
                        format!("{from} -> {to} ({})", imports[from][to])
                    })
                    .collect(),
            );
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_owned());
        for other in imports.get(module).into_iter().flat_map(BTreeMap::keys) {
            if let Some(circle) = visit(other, imports, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    imports
        .keys()
        .find_map(|module| visit(module, imports, &mut Vec::new(), &mut done))
}

/// Every source file under src/, as its path under src/ and its text.
fn sources() -> Vec<(String, String)> {
    let root = src();
    rust_files(&root)
        .into_iter()
        .map(|file| {
            let path = file
                .strip_prefix(&root)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&file).expect("a readable source file");
            (path, text)
        })
        .collect()
}

#[test]
fn no_circle_between_the_top_level_modules() {
    let imports = imports_of(&sources());
    assert!(
        imports.len() > 10,
        "the top-level modules: {:?}",
        imports.keys()
    );
    if let Some(circle) = a_circle(&imports) {
        panic!(
            "a circle between src/'s top-level modules (ARCHITECTURE.md, layering):\n{}",
            circle.join("\n")
        );
    }
}

#[test]
fn a_planted_circle_is_found() {
    // The control: the check finds a circle when one is there, through a file in a directory,
    // and not through a comment or the crate's roots.
    let files = |extra: &str| {
        vec![
            ("app.rs".to_owned(), "use crate::pages::X;".to_owned()),
            (
                "pages/runs.rs".to_owned(),
                format!("use crate::state::Y;\n{extra}"),
            ),
            (
                "state/mod.rs".to_owned(),
                "// crate::app is named in a comment only\nuse crate::store;".to_owned(),
            ),
            ("store.rs".to_owned(), String::new()),
            ("lib.rs".to_owned(), "pub use crate::app::App;".to_owned()),
        ]
    };
    assert_eq!(a_circle(&imports_of(&files(""))), None);
    let circle = a_circle(&imports_of(&files("fn f() { crate::app::go() }"))).expect("a circle");
    assert_eq!(
        circle,
        [
            "app -> pages (src/app.rs:1)",
            "pages -> app (src/pages/runs.rs:2)"
        ]
    );
    // Today's own source, with a circle planted in it.
    let mut planted = sources();
    planted.push((
        "store/planted.rs".to_owned(),
        "use crate::pages::Planted;".to_owned(),
    ));
    assert!(a_circle(&imports_of(&planted)).is_some());
}

#[test]
fn the_checks_see_the_source() {
    // A check over no files would pass whatever the source says.
    assert!(rust_files(&src().join("state")).len() > 10);
    assert!(!lines_naming("api", &["gloo_net"], &[]).is_empty());
    assert!(!lines_of_file("archive.rs", &["crate::store"]).is_empty());
}
