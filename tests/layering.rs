//! ARCHITECTURE.md's layering invariants, checked on the source: a change that breaks one fails
//! here, with the file and line, rather than waiting for a reviewer to notice.
//! - One transport: only `src/api/` talks HTTP (gloo-net, `fetch`).
//! - `api/` imports nothing from `state/` or `pages/`.
//! - State never names pages: `state/` sits below `pages/` (what it needs from the pages' chunk
//!   is handed to it by `App`; the chunk's plumbing is `src/chunk.rs`).

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
fn the_checks_see_the_source() {
    // A check over no files would pass whatever the source says.
    assert!(rust_files(&src().join("state")).len() > 10);
    assert!(!lines_naming("api", &["gloo_net"], &[]).is_empty());
}
