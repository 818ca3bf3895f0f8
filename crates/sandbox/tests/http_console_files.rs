//! The built console as `--dist` serves it (the rules themselves are tested in
//! crates/console-hosting), `/v1` still compressed beside it, and `sandbox headers`.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use axum::http::StatusCode;
use common::{Reply, Sandbox};

const WASM: &str = "console-1d7c51c8e9200f3b_bg.wasm";
const CSS: &str = "main-a75c69fe78433ebb.css";
const INDEX: &str = "<!doctype html><title>console</title>\
    <script type=module>import init from '/console-1d7c51c8e9200f3b.js';</script>";

/// A dist folder as scripts/build-console.sh leaves it, with recognisable bytes in each variant.
struct Dist(PathBuf);

impl Dist {
    fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sandbox-files-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
        write("index.html", INDEX.as_bytes());
        write("index.html.br", b"brotli index");
        write("index.html.gz", b"gzip index");
        write(WASM, &[0, b'a', b's', b'm', 1, 0, 0, 0].repeat(64));
        write(&format!("{WASM}.br"), b"brotli wasm");
        write(&format!("{WASM}.gz"), b"gzip wasm");
        write(CSS, "body { color: black; }\n".repeat(20).as_bytes());
        Dist(dir)
    }

    fn sandbox(&self) -> Sandbox {
        Sandbox::serving_console(self.0.clone())
    }

    /// What `sandbox headers --dist <this> --api-origin <api_origin>` prints.
    fn headers_command(&self, api_origin: &str) -> Output {
        Command::new(env!("CARGO_BIN_EXE_sandbox"))
            .args(["headers", "--dist"])
            .arg(&self.0)
            .args(["--api-origin", api_origin])
            .output()
            .unwrap()
    }
}

impl Drop for Dist {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A GET without a credential, as a browser loading the console sends it.
async fn get(sb: &Sandbox, path: &str, headers: &[(&str, &str)]) -> Reply {
    sb.send("GET", path, None, headers, None).await
}

#[tokio::test]
async fn the_console_is_served_under_the_shared_rules() {
    // crates/console-hosting's tests hold the rules themselves, for a folder and an embedded
    // build alike; here, that `--dist` serves through them.
    let dist = Dist::new("console");
    let sb = dist.sandbox();
    let index = get(&sb, "/runs/0b7c8a4e", &[("accept-encoding", "br")]).await;
    assert_eq!(index.status, StatusCode::OK);
    assert_eq!(index.body, b"brotli index");
    assert_eq!(index.header("cache-control"), Some("no-cache"));
    assert!(
        index
            .header("content-security-policy")
            .is_some_and(|csp| csp.contains("'sha256-"))
    );
    let wasm = get(&sb, &format!("/{WASM}"), &[]).await;
    assert_eq!(
        wasm.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
}

#[tokio::test]
async fn api_json_beside_the_console_is_still_compressed_and_404s_are_json() {
    let dist = Dist::new("api");
    let sb = dist.sandbox();
    let actions = get(
        &sb,
        "/v1/actions",
        &[("accept-encoding", "gzip, deflate, br, zstd")],
    )
    .await;
    assert_eq!(actions.status, StatusCode::OK);
    assert_eq!(actions.header("content-encoding"), Some("gzip"));
    assert_eq!(&actions.body[..2], &[0x1f, 0x8b], "a gzip stream");
    assert_eq!(actions.header("cache-control"), None);
    assert_eq!(actions.header("content-security-policy"), None);

    let missing = get(&sb, "/v1/nothing-here", &[]).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.header("content-type"), Some("application/json"));
    let error: api_contract::ErrorBody = missing.json();
    assert_eq!(error.error.code, "not_found");
}

#[test]
fn the_headers_subcommand_prints_the_csp_with_the_loaders_hash_and_the_api_origin() {
    let dist = Dist::new("headers");
    let output = dist.headers_command("https://api.example.com");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let hash = &console_hosting::csp::inline_script_hashes(INDEX)[0];
    let csp = text
        .lines()
        .find(|l| l.starts_with("Content-Security-Policy: "))
        .unwrap_or_else(|| panic!("no CSP line in {text}"));
    assert!(
        csp.contains(&format!("script-src 'self' 'wasm-unsafe-eval' {hash}")),
        "{csp}"
    );
    assert!(
        csp.contains("connect-src 'self' https://api.example.com;"),
        "{csp}"
    );
    for line in [
        "X-Content-Type-Options: nosniff",
        "Referrer-Policy: no-referrer",
        "Cache-Control: public, max-age=31536000, immutable",
        "Cache-Control: no-cache",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in {text}");
    }
    assert!(
        text.contains(WASM) && text.contains(CSS),
        "the hashed files named: {text}"
    );

    let refused = dist.headers_command("https://api.example.com/v1; script-src *");
    assert!(
        !refused.status.success(),
        "a path or a directive is not an origin"
    );
}
