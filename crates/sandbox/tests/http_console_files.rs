//! The built console as `--dist` serves it: precompressed files by Accept-Encoding, cache rules,
//! security headers, and `/v1` still compressed beside it; plus `sandbox headers`.

use std::path::PathBuf;
use std::process::Command;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use sandbox::{SandboxState, app};
use tower::ServiceExt;

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

    fn router(&self) -> axum::Router {
        let (state, _) = SandboxState::seeded(sandbox::SandboxConfig::fast());
        app(state, Some(self.0.clone()))
    }
}

impl Drop for Dist {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn get(
    router: &axum::Router,
    path: &str,
    headers: &[(&str, &str)],
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes().to_vec();
    (parts.status, parts.headers, body)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn a_brotli_client_gets_the_br_file() {
    let dist = Dist::new("br");
    let (status, headers, body) = get(
        &dist.router(),
        &format!("/{WASM}"),
        &[("accept-encoding", "gzip, deflate, br, zstd")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-encoding"), Some("br"));
    assert_eq!(header(&headers, "content-type"), Some("application/wasm"));
    assert_eq!(
        body, b"brotli wasm",
        "the .br file as written, not compressed again"
    );
    assert!(
        header(&headers, "vary")
            .unwrap()
            .contains("accept-encoding")
    );
}

#[tokio::test]
async fn a_gzip_client_gets_the_gz_file() {
    let dist = Dist::new("gz");
    let (status, headers, body) = get(
        &dist.router(),
        &format!("/{WASM}"),
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-encoding"), Some("gzip"));
    assert_eq!(body, b"gzip wasm");
}

#[tokio::test]
async fn a_client_without_accept_encoding_gets_the_file_itself() {
    let dist = Dist::new("identity");
    let router = dist.router();
    let (status, headers, body) = get(&router, &format!("/{WASM}"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-encoding"), None);
    assert_eq!(body, std::fs::read(dist.0.join(WASM)).unwrap());
}

#[tokio::test]
async fn hashed_assets_are_cached_for_a_year_and_index_html_revalidated() {
    let dist = Dist::new("cache");
    let router = dist.router();
    for path in [format!("/{WASM}"), format!("/{CSS}")] {
        let (status, headers, _) = get(&router, &path, &[("accept-encoding", "br")]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(
            header(&headers, "cache-control"),
            Some("public, max-age=31536000, immutable"),
            "{path}"
        );
    }
    // index.html by name, at `/`, and as the SPA fallback of a deep link: never kept unasked.
    for path in [
        "/index.html",
        "/",
        "/runs/0b7c8a4e",
        "/main-0123456789abcdef.css",
    ] {
        let (status, headers, body) = get(&router, path, &[("accept-encoding", "br")]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(
            header(&headers, "cache-control"),
            Some("no-cache"),
            "{path}"
        );
        assert_eq!(header(&headers, "content-encoding"), Some("br"), "{path}");
        assert_eq!(body, b"brotli index", "{path}");
        let csp = header(&headers, "content-security-policy").expect("a CSP");
        assert!(csp.contains("'sha256-"), "the loader's hash in {csp}");
        assert_eq!(header(&headers, "x-content-type-options"), Some("nosniff"));
        assert_eq!(header(&headers, "referrer-policy"), Some("no-referrer"));
    }
    let (_, headers, body) = get(&router, "/runs/0b7c8a4e", &[]).await;
    assert_eq!(header(&headers, "cache-control"), Some("no-cache"));
    assert_eq!(body, INDEX.as_bytes());
}

#[tokio::test]
async fn api_json_beside_the_console_is_still_compressed_and_404s_are_json() {
    let dist = Dist::new("api");
    let router = dist.router();
    let (status, headers, body) = get(
        &router,
        "/v1/actions",
        &[("accept-encoding", "gzip, deflate, br, zstd")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(header(&headers, "content-encoding"), Some("gzip"));
    assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
    assert_eq!(header(&headers, "cache-control"), None);
    assert_eq!(header(&headers, "content-security-policy"), None);

    let (status, headers, body) = get(&router, "/v1/nothing-here", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    let error: api_contract::ErrorBody = serde_json::from_slice(&body).unwrap();
    assert_eq!(error.error.code, "not_found");
}

#[test]
fn the_headers_subcommand_prints_the_csp_with_the_loaders_hash_and_the_api_origin() {
    let dist = Dist::new("headers");
    let output = Command::new(env!("CARGO_BIN_EXE_sandbox"))
        .args(["headers", "--dist"])
        .arg(&dist.0)
        .args(["--api-origin", "https://api.example.com"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let hash = &sandbox::console_csp::inline_script_hashes(INDEX)[0];
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

    let refused = Command::new(env!("CARGO_BIN_EXE_sandbox"))
        .args(["headers", "--dist"])
        .arg(&dist.0)
        .args(["--api-origin", "https://api.example.com/v1; script-src *"])
        .output()
        .unwrap();
    assert!(
        !refused.status.success(),
        "a path or a directive is not an origin"
    );
}
