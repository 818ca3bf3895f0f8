//! One set of rules whoever serves the console: every check here runs against the console in a
//! folder (`from_dir`, the sandbox's and console-server's `--dist`) and against the same files
//! built into the binary (`from_embedded`, console-server's default).

use std::path::PathBuf;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use rust_embed::RustEmbed;
use tower::ServiceExt;

const WASM: &str = "console-1d7c51c8e9200f3b_bg.wasm";
const CSS: &str = "main-a75c69fe78433ebb.css";

/// tests/fixture-dist: a dist folder as scripts/build-console.sh leaves it, with recognisable
/// bytes in each variant.
#[derive(RustEmbed)]
#[folder = "tests/fixture-dist/"]
struct Fixture;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixture-dist")
}

/// Both services, named for the failure messages.
fn sources() -> [(&'static str, Router); 2] {
    let connect_src = ["https://api.example.com".to_owned()];
    [
        (
            "folder",
            console_hosting::from_dir(&fixture_dir(), &connect_src),
        ),
        (
            "embedded",
            console_hosting::from_embedded::<Fixture>(&connect_src).expect("an index.html"),
        ),
    ]
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }
}

async fn send(router: &Router, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.unwrap().to_bytes().to_vec(),
    }
}

async fn get(router: &Router, path: &str, headers: &[(&str, &str)]) -> Answer {
    send(router, "GET", path, headers).await
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture_dir().join(name)).unwrap()
}

#[tokio::test]
async fn a_brotli_client_gets_the_br_file_with_the_type_of_the_file_asked_for() {
    for (source, router) in sources() {
        let answer = get(
            &router,
            &format!("/{WASM}"),
            &[("accept-encoding", "gzip, deflate, br, zstd")],
        )
        .await;
        assert_eq!(answer.status, StatusCode::OK, "{source}");
        assert_eq!(answer.header("content-encoding"), Some("br"), "{source}");
        assert_eq!(
            answer.header("content-type"),
            Some("application/wasm"),
            "{source}"
        );
        assert_eq!(
            answer.body, b"brotli wasm",
            "{source}: the .br file as written"
        );
        assert!(
            answer.header("vary").unwrap().contains("accept-encoding"),
            "{source}"
        );
    }
}

#[tokio::test]
async fn a_gzip_client_gets_the_gz_file_and_a_client_refusing_both_the_file_itself() {
    for (source, router) in sources() {
        let gzip = get(&router, &format!("/{WASM}"), &[("accept-encoding", "gzip")]).await;
        assert_eq!(gzip.header("content-encoding"), Some("gzip"), "{source}");
        assert_eq!(gzip.body, b"gzip wasm", "{source}");

        for accept in [None, Some("br;q=0, gzip;q=0"), Some("identity")] {
            let headers: Vec<_> = accept.map(|a| ("accept-encoding", a)).into_iter().collect();
            let plain = get(&router, &format!("/{WASM}"), &headers).await;
            assert_eq!(plain.status, StatusCode::OK, "{source} {accept:?}");
            assert_eq!(
                plain.header("content-encoding"),
                None,
                "{source} {accept:?}"
            );
            assert_eq!(plain.body, fixture(WASM), "{source} {accept:?}");
        }
    }
}

#[tokio::test]
async fn hashed_assets_are_cached_for_a_year_and_index_html_revalidated() {
    for (source, router) in sources() {
        for path in [format!("/{WASM}"), format!("/{CSS}")] {
            let answer = get(&router, &path, &[("accept-encoding", "br")]).await;
            assert_eq!(answer.status, StatusCode::OK, "{source} {path}");
            assert_eq!(
                answer.header("cache-control"),
                Some("public, max-age=31536000, immutable"),
                "{source} {path}"
            );
        }
        // index.html by name, at `/`, and as the SPA fallback of a deep link or of a hashed name
        // that is not there: never kept unasked.
        for path in [
            "/index.html",
            "/",
            "/runs/0b7c8a4e",
            "/main-0123456789abcdef.css",
        ] {
            let answer = get(&router, path, &[("accept-encoding", "br")]).await;
            assert_eq!(answer.status, StatusCode::OK, "{source} {path}");
            assert_eq!(
                answer.header("cache-control"),
                Some("no-cache"),
                "{source} {path}"
            );
            assert_eq!(
                answer.header("content-encoding"),
                Some("br"),
                "{source} {path}"
            );
            assert_eq!(answer.body, b"brotli index", "{source} {path}");
            let csp = answer.header("content-security-policy").expect("a CSP");
            assert!(
                csp.contains("'sha256-"),
                "{source}: the loader's hash in {csp}"
            );
            assert!(
                csp.contains("connect-src 'self' https://api.example.com;"),
                "{source}: {csp}"
            );
            assert_eq!(answer.header("x-content-type-options"), Some("nosniff"));
            assert_eq!(answer.header("referrer-policy"), Some("no-referrer"));
        }
        let deep = get(&router, "/runs/0b7c8a4e", &[]).await;
        assert_eq!(deep.header("cache-control"), Some("no-cache"), "{source}");
        assert_eq!(
            deep.header("content-type")
                .map(|t| t.starts_with("text/html")),
            Some(true),
            "{source}"
        );
        assert_eq!(deep.body, fixture("index.html"), "{source}");
    }
}

#[tokio::test]
async fn a_file_seen_before_answers_304_and_head_has_no_body() {
    for (source, router) in sources() {
        let first = get(&router, &format!("/{CSS}"), &[]).await;
        let tag = first
            .header("etag")
            .or(first.header("last-modified"))
            .unwrap_or_else(|| panic!("{source}: an ETag or Last-Modified"))
            .to_owned();
        let condition = if first.header("etag").is_some() {
            "if-none-match"
        } else {
            "if-modified-since"
        };
        let again = get(&router, &format!("/{CSS}"), &[(condition, &tag)]).await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{source}");
        assert!(again.body.is_empty(), "{source}");

        let head = send(&router, "HEAD", &format!("/{CSS}"), &[]).await;
        assert_eq!(head.status, StatusCode::OK, "{source}");
        assert!(head.body.is_empty(), "{source}");
        assert_eq!(
            head.header("content-length"),
            Some(fixture(CSS).len().to_string().as_str()),
            "{source}"
        );
    }
}

#[tokio::test]
async fn a_binary_built_before_the_console_says_so() {
    #[derive(RustEmbed)]
    #[folder = "tests/no-such-folder/"]
    #[allow_missing = true]
    struct Missing;
    assert!(console_hosting::from_embedded::<Missing>(&[]).is_none());
}

#[tokio::test]
async fn a_path_that_climbs_out_of_the_build_gets_the_app_not_a_file_beside_it() {
    // tests/fixture-dist/../both_sources.rs is this file.
    let index = fixture("index.html");
    for (source, router) in sources() {
        for path in [
            "/../both_sources.rs",
            "/%2e%2e/both_sources.rs",
            "/..%2fboth_sources.rs",
            "/./../both_sources.rs",
            "/assets/../../both_sources.rs",
            "//both_sources.rs",
        ] {
            let answer = get(&router, path, &[]).await;
            assert_eq!(answer.status, StatusCode::OK, "{source} {path}");
            assert_eq!(answer.body, index, "{source} {path}: the app, not a file");
        }
    }
}
