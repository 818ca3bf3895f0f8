//! The two outside tools the release steps run: esbuild (JavaScript minifier) and binaryen's
//! wasm-opt, both from npm (the workspace's `node_modules/.bin`, installed by scripts/setup.sh),
//! else from the `PATH`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The wasm features the console's modules use; wasm-opt must be told, or it refuses them.
pub const WASM_FEATURES: [&str; 5] = [
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-sign-ext",
    "--enable-mutable-globals",
];

/// The second binaryen pass, after trunk's `-Oz`: it restructures control flow that a single
/// `-Oz` leaves (measured in docs/performance.md).
pub const SECOND_PASS: [&str; 4] = ["--flatten", "--rereloop", "-Oz", "-Oz"];

fn tool(name: &str) -> PathBuf {
    let local = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../node_modules/.bin")
        .join(name);
    if local.exists() {
        local
    } else {
        PathBuf::from(name)
    }
}

/// How esbuild treats the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptKind {
    /// An ES module (the glue, the split loader).
    Module,
    /// A classic script (the bulk worker's, loaded with `importScripts`).
    Classic,
}

/// The script minified by esbuild.
pub fn minify(script: &str, kind: ScriptKind) -> Result<String, String> {
    let mut command = Command::new(tool("esbuild"));
    command.args([
        "--minify",
        "--target=es2022",
        "--loader=js",
        "--log-level=warning",
    ]);
    if kind == ScriptKind::Module {
        command.arg("--format=esm");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("esbuild could not start ({e}); run scripts/setup.sh"))?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(script.as_bytes())
        .map_err(|e| format!("esbuild: {e}"))?;
    let output = child
        .wait_with_output()
        .map_err(|e| format!("esbuild: {e}"))?;
    if !output.status.success() {
        return Err(format!("esbuild failed ({})", output.status));
    }
    String::from_utf8(output.stdout).map_err(|_| "esbuild wrote text that is not UTF-8".to_owned())
}

/// The module at `input` optimised by wasm-opt with `passes`, as bytes (the file is unchanged).
pub fn wasm_opt(input: &Path, passes: &[&str]) -> Result<Vec<u8>, String> {
    let output = input.with_extension("wasm.opt");
    let status = Command::new(tool("wasm-opt"))
        .args(WASM_FEATURES)
        .args(passes)
        .arg(input)
        .arg("-o")
        .arg(&output)
        .status()
        .map_err(|e| format!("wasm-opt could not start ({e}); run scripts/setup.sh"))?;
    if !status.success() {
        return Err(format!("wasm-opt failed on {} ({status})", input.display()));
    }
    let bytes = std::fs::read(&output).map_err(|e| format!("{}: {e}", output.display()))?;
    let _ = std::fs::remove_file(&output);
    Ok(bytes)
}
