//! `xtask finish-dist`: finishes a release `dist/` after trunk, in this order.
//!
//! 1. esbuild minifies the wasm-bindgen glue: trunk 0.21's own minifier cannot parse it
//!    ("Failed to minify JS") and ships it as is.
//! 2. The second binaryen pass ([`tools::SECOND_PASS`]) over the main module.
//! 3. Short import names ([`imports`]).
//! 4. With a split build (`--split DIR --linked FILE`), the pages' chunk that
//!    crates/wasm-split-link cut out of the main module joins `dist/` ([`add_split`]).
//! 5. index.html's subresource-integrity hashes follow the files that changed.
//! 6. The bulk worker (trunk's `data-type="worker"` asset, named without a hash: the page starts
//!    it by name) gets the minifier and the binaryen pass; its names stay.
//! 7. Precompressed siblings of every text asset ([`precompress`]).
//!
//! Each step that changes bytes was measured to save more than 5 KB gzip
//! (docs/performance.md); each fails the build, rather than guess, when what trunk wrote is not
//! what it expects.

use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine;
use sha2::{Digest, Sha256, Sha384};

use crate::imports::{self, replace_once};
use crate::precompress::precompress;
use crate::tools::{self, SECOND_PASS, ScriptKind};

/// The bulk worker's files (src/bin/bulk-worker.rs and its loader); everything else is the app's.
pub const WORKER_PREFIX: &str = "bulk-worker";

/// What to finish.
#[derive(Clone, Debug)]
pub struct Options {
    pub dist: PathBuf,
    pub split: Option<Split>,
}

/// The split build's chunks: `chunks` holds what crates/wasm-split-link wrote (the chunks,
/// `__wasm_split.js`, a copy of the main module as `main.wasm`); `linked` is the module trunk
/// bound, which the chunks must belong to.
#[derive(Clone, Debug)]
pub struct Split {
    pub chunks: PathBuf,
    pub linked: PathBuf,
}

/// `sha384-…`, as an `integrity` attribute gives it.
pub fn integrity(bytes: &[u8]) -> String {
    let digest = Sha384::digest(bytes);
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The first 16 hex digits of the bytes' SHA-256: a content hash for a file name.
pub fn content_hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_text(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The one app file of `dist` with this extension (the worker's left aside).
fn only(dist: &Path, extension: &str) -> Result<PathBuf, String> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dist).map_err(|e| format!("{}: {e}", dist.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(&format!(".{extension}")) && !name.starts_with(WORKER_PREFIX) {
            found.push(path);
        }
    }
    match <[PathBuf; 1]>::try_from(found) {
        Ok([path]) => Ok(path),
        Err(found) => Err(format!(
            "expected one *.{extension} in {}, found {}",
            dist.display(),
            found.len()
        )),
    }
}

pub fn run(options: &Options) -> Result<(), String> {
    let dist = &options.dist;
    let js_path = only(dist, "js")?;
    let wasm_path = only(dist, "wasm")?;
    let index_path = dist.join("index.html");
    let js_before = read(&js_path)?;
    let wasm_before = read(&wasm_path)?;
    let glue = std::str::from_utf8(&js_before).map_err(|_| "the glue is not UTF-8")?;

    // 1–3.
    let js = tools::minify(glue, ScriptKind::Module)?;
    let wasm = tools::wasm_opt(&wasm_path, &SECOND_PASS)?;
    let renamed = imports::shorten(&wasm, &js)?;
    println!("finish-dist: {} imports renamed", renamed.count);
    let (mut js, wasm) = (renamed.js, renamed.wasm);

    // 4.
    let mut index = read_text(&index_path)?;
    let mut js_out = js_path.clone();
    if let Some(split) = &options.split {
        let glue_name = file_name(&js_path);
        let added = add_split(dist, split, &glue_name, &js, &wasm, &index)?;
        js = added.glue;
        index = added.index;
        js_out = dist.join(added.glue_name);
    }

    // 5.
    for (path, out, before, after) in [
        (&js_path, &js_out, &js_before, js.as_bytes()),
        (&wasm_path, &wasm_path, &wasm_before, wasm.as_slice()),
    ] {
        let old = integrity(before);
        if !index.contains(&old) {
            return Err(format!(
                "index.html has no integrity {old} for {}",
                path.display()
            ));
        }
        index = index.replace(&old, &integrity(after));
        if out != path {
            fs::remove_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        write(out, after)?;
        println!(
            "finish-dist: {} {} -> {} bytes",
            out.display(),
            before.len(),
            after.len()
        );
    }
    write(&index_path, &index)?;

    // 6–7.
    finish_worker(dist)?;
    let count = precompress(dist)?;
    println!("finish-dist: {count} precompressed files (.br quality 11, .gz level 9)");
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned()
}

/// The glue and index.html once the pages' chunk has joined `dist/`.
#[derive(Debug)]
pub struct WithSplit {
    /// The glue, now importing the loader by its final name.
    pub glue: String,
    /// The glue's final file name.
    pub glue_name: String,
    /// index.html, loading the glue by its new name and preloading the loader.
    pub index: String,
}

/// Puts the chunks of `split` and their loader into `dist`: each chunk gets `-Oz` and the second
/// binaryen pass and a content-hashed name; the loader is pointed at the glue and the chunks'
/// names, minified and preloaded from index.html; the glue imports it. The glue and the loader
/// import each other, so neither name can be a hash of its own final text: both are named by
/// one hash over the glue, the loader (which names the chunks by their own hashes) and the main
/// wasm, so a change to any of them renames both, as the immutable cache rule needs (trunk's
/// name for the glue would not change with the chunk alone).
pub fn add_split(
    dist: &Path,
    split: &Split,
    trunk_glue_name: &str,
    glue: &str,
    wasm: &[u8],
    index: &str,
) -> Result<WithSplit, String> {
    let main_module = split.chunks.join("main.wasm");
    if !main_module.exists() {
        return Err(format!(
            "{} has no main.wasm: was the console linked by wasm-split-link?",
            split.chunks.display()
        ));
    }
    if read(&main_module)? != read(&split.linked)? {
        return Err(format!(
            "the chunks in {} belong to another build than {}; rebuild (touch src/main.rs)",
            split.chunks.display(),
            split.linked.display()
        ));
    }
    let mut loader = read_text(&split.chunks.join("__wasm_split.js"))?;
    let mut chunks: Vec<String> = fs::read_dir(&split.chunks)
        .map_err(|e| format!("{}: {e}", split.chunks.display()))?
        .filter_map(|entry| entry.ok().map(|e| file_name(&e.path())))
        .filter(|name| name.ends_with(".wasm") && name != "main.wasm")
        .collect();
    chunks.sort();
    if chunks.is_empty() {
        return Err(format!("{} has no chunks", split.chunks.display()));
    }
    for chunk in &chunks {
        let passes: Vec<&str> = std::iter::once("-Oz").chain(SECOND_PASS).collect();
        let bytes = tools::wasm_opt(&split.chunks.join(chunk), &passes)?;
        let stem = chunk.trim_start_matches("split_").trim_end_matches(".wasm");
        let name = format!("console-{stem}-{}.wasm", content_hash(&bytes));
        write(&dist.join(&name), &bytes)?;
        loader = replace_once(&loader, &format!("\"./{chunk}\""), &format!("\"./{name}\""))
            .map_err(|e| format!("the loader: {e}"))?;
        println!("finish-dist: chunk {name} {} bytes", bytes.len());
    }
    let named = name_glue_and_loader(trunk_glue_name, glue, &loader, wasm, index)?;
    write(&dist.join(&named.loader_name), &named.loader)?;
    println!(
        "finish-dist: loader {} {} bytes, {} chunk(s)",
        named.loader_name,
        named.loader.len(),
        chunks.len()
    );
    Ok(WithSplit {
        glue: named.glue,
        glue_name: named.glue_name,
        index: named.index,
    })
}

/// The glue, the loader and index.html, pointed at each other by their final names.
#[derive(Debug)]
pub struct Named {
    pub glue: String,
    pub glue_name: String,
    pub loader: String,
    pub loader_name: String,
    pub index: String,
}

/// Names the glue and the loader by one hash over both and the main module, and points the
/// loader, the glue and index.html at those names (see [`add_split`]). `loader` already names
/// the chunks by their final names.
pub fn name_glue_and_loader(
    trunk_glue_name: &str,
    glue: &str,
    loader: &str,
    wasm: &[u8],
    index: &str,
) -> Result<Named, String> {
    // The main module exports its table under the name wasm-bindgen keeps
    // (crates/wasm-split-link).
    let loader = replace_once(
        loader,
        "const { __indirect_function_table,",
        "const { __wasm_split_table: __indirect_function_table,",
    )
    .map_err(|e| format!("the loader: {e}"))?;
    let together = content_hash(&[glue.as_bytes(), loader.as_bytes(), wasm].concat());
    let glue_name = format!("console-{together}.js");
    let loader_name = format!("console-split-{together}.js");
    let loader = replace_once(
        &loader,
        "from \"./console.js\"",
        &format!("from \"./{glue_name}\""),
    )
    .map_err(|e| format!("the loader: {e}"))?;
    let loader = tools::minify(&loader, ScriptKind::Module)?;
    let glue = replace_once(
        glue,
        "from\"./__wasm_split.js\"",
        &format!("from\"./{loader_name}\""),
    )
    .map_err(|e| format!("the glue: {e}"))?;
    // index.html names the glue twice: trunk's inline loader imports it, a modulepreload
    // fetches it.
    let trunk_path = format!("/{trunk_glue_name}");
    if index.matches(&trunk_path).count() != 2 {
        return Err(format!("index.html: expected {trunk_path} twice"));
    }
    let index = index.replace(&trunk_path, &format!("/{glue_name}"));
    // Fetched with the glue rather than after it: one round trip less before the app starts.
    let preload = format!(
        "<link crossorigin href=/{loader_name} integrity={} rel=modulepreload>",
        integrity(loader.as_bytes())
    );
    let index = replace_once(&index, "</head>", &format!("{preload}</head>"))
        .map_err(|e| format!("index.html: {e}"))?;
    Ok(Named {
        glue,
        glue_name,
        loader,
        loader_name,
        index,
    })
}

/// Minifies the bulk worker's glue and loader (classic scripts: the worker imports them with
/// `importScripts`) and gives its module the second binaryen pass, in place.
fn finish_worker(dist: &Path) -> Result<(), String> {
    let glue = dist.join(format!("{WORKER_PREFIX}.js"));
    let module = dist.join(format!("{WORKER_PREFIX}_bg.wasm"));
    let loader = dist.join(format!("{WORKER_PREFIX}-loader.js"));
    for path in [&glue, &module, &loader] {
        if !path.exists() {
            return Err(format!(
                "no {}: the bulk worker was not built",
                path.display()
            ));
        }
    }
    for path in [&glue, &loader] {
        let before = read_text(path)?;
        let after = tools::minify(&before, ScriptKind::Classic)?;
        write(path, &after)?;
        println!(
            "finish-dist: {} {} -> {} bytes",
            path.display(),
            before.len(),
            after.len()
        );
    }
    let size = read(&module)?.len();
    let optimized = tools::wasm_opt(&module, &SECOND_PASS)?;
    write(&module, &optimized)?;
    println!(
        "finish-dist: {} {size} -> {} bytes",
        module.display(),
        optimized.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrity_is_base64_sha384() {
        // echo -n abc | openssl dgst -sha384 -binary | base64
        assert_eq!(
            integrity(b"abc"),
            "sha384-ywB1P0WjXou1oD1pmsZQBycsMqsO3tFjGotgWkP/W+2AhgcroefMI1i67KE0yCWn"
        );
        assert_eq!(content_hash(b"abc"), "ba7816bf8f01cfea");
    }

    /// The shapes of the three texts as trunk, wasm-bindgen and wasm_split_cli_support write
    /// them (the glue already minified).
    const GLUE: &str =
        r#"import{load as w}from"./__wasm_split.js";export default function init(){}"#;
    const LOADER: &str = "import { initSync } from \"./console.js\";\nexport function load() {\n  const { __indirect_function_table, memory } = initSync();\n  return fetch(\"./console-pages-0123.wasm\");\n}\n";
    const INDEX: &str = r#"<html><head><link rel=modulepreload href=/console-abc.js><script type=module>import init from '/console-abc.js';init()</script></head></html>"#;

    #[test]
    fn the_glue_and_the_loader_point_at_each_other_by_one_hash() {
        let named = name_glue_and_loader("console-abc.js", GLUE, LOADER, b"\0asm", INDEX).unwrap();
        let hash = named
            .glue_name
            .trim_start_matches("console-")
            .trim_end_matches(".js");
        assert_eq!(hash.len(), 16);
        assert_eq!(named.loader_name, format!("console-split-{hash}.js"));
        assert!(
            named
                .glue
                .contains(&format!("from\"./{}\"", named.loader_name))
        );
        assert!(
            named.loader.contains(&format!("\"./{}\"", named.glue_name)),
            "{}",
            named.loader
        );
        assert!(
            named.loader.contains("__wasm_split_table"),
            "{}",
            named.loader
        );
        assert!(named.loader.contains("console-pages-0123.wasm"));
        assert_eq!(
            named
                .index
                .matches(&format!("/{}", named.glue_name))
                .count(),
            2
        );
        assert!(!named.index.contains("console-abc.js"));
        let preload = format!(
            "<link crossorigin href=/{} integrity={} rel=modulepreload></head>",
            named.loader_name,
            integrity(named.loader.as_bytes())
        );
        assert!(named.index.contains(&preload), "{}", named.index);

        // Another main module renames both.
        let other = name_glue_and_loader("console-abc.js", GLUE, LOADER, b"\0asm2", INDEX).unwrap();
        assert_ne!(other.glue_name, named.glue_name);
    }

    #[test]
    fn texts_of_another_shape_stop_the_step() {
        let no_table = LOADER.replace("__indirect_function_table,", "table,");
        assert!(name_glue_and_loader("console-abc.js", GLUE, &no_table, b"", INDEX).is_err());
        let once = INDEX.replacen("/console-abc.js", "/x.js", 1);
        assert!(name_glue_and_loader("console-abc.js", GLUE, LOADER, b"", &once).is_err());
        let no_import = GLUE.replace("__wasm_split.js", "other.js");
        assert!(name_glue_and_loader("console-abc.js", &no_import, LOADER, b"", INDEX).is_err());
    }
}
