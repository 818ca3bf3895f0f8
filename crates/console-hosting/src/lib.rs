//! How a built console is served: precompressed files, cache rules and security headers. One set
//! of rules for the console in a folder (the sandbox's `--dist`, console-server's `--dist`), the
//! console built into a binary (console-server), and the headers `sandbox headers` prints for
//! other servers.

pub mod csp;
mod embedded;

use std::path::Path;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// For files whose name carries their content's hash: a new build means a new name.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// For `index.html` (and the SPA fallback): revalidated on every visit, so a deploy shows at once.
pub const NO_CACHE: &str = "no-cache";
/// The console sends no credentials in URLs, but API origins need not learn its paths either.
pub const REFERRER_POLICY: &str = "no-referrer";

/// Whether the file at `path` is named with trunk's content hash, like
/// `console-1d7c51c8e9200f3b_bg.wasm` or `main-a75c69fe78433ebb.css`.
pub fn is_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, _extension)) = name.rsplit_once('.') else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    // trunk writes the 64-bit hash as unpadded hex: 16 digits, rarely fewer.
    stem.rsplit_once('-').is_some_and(|(base, hash)| {
        !base.is_empty()
            && (12..=16).contains(&hash.len())
            && hash.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The headers every response of the console carries, whatever serves it: the CSP with the
/// loader's hash (from `index_html`) and `connect_src` origins, nosniff, the referrer policy.
pub fn security_headers(index_html: &str, connect_src: &[String]) -> [(HeaderName, String); 3] {
    [
        (
            header::CONTENT_SECURITY_POLICY,
            csp::content_security_policy(index_html, connect_src),
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        (header::REFERRER_POLICY, REFERRER_POLICY.to_owned()),
    ]
}

/// The console in the folder `dist` as a service: each file as `name.br` or `name.gz` when the
/// client accepts it and the build wrote one (crates/xtask, `finish-dist`), any other path answers
/// `index.html` so deep links like `/runs/abc` load the app; security and cache headers on all.
pub fn from_dir(dist: &Path, connect_src: &[String]) -> Router {
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index).unwrap_or_default();
    let serve = ServeDir::new(dist)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(
            ServeFile::new(index)
                .precompressed_br()
                .precompressed_gzip(),
        );
    with_rules(Router::new().fallback_service(serve), &html, connect_src)
}

/// The console built into this binary by `#[derive(RustEmbed)]` as a service, under the same
/// rules as [`from_dir`]; `None` when it holds no `index.html` (the binary was built before the
/// console was).
pub fn from_embedded<Files: rust_embed::RustEmbed + Send + Sync + 'static>(
    connect_src: &[String],
) -> Option<Router> {
    let index = Files::get("index.html")?;
    let html = String::from_utf8_lossy(&index.data).into_owned();
    let files = Router::new().fallback(embedded::serve::<Files>);
    Some(with_rules(files, &html, connect_src))
}

/// `files` with the cache rules and the security headers.
fn with_rules(files: Router, index_html: &str, connect_src: &[String]) -> Router {
    let mut router = files.layer(axum::middleware::from_fn(cache_rules));
    for (name, value) in security_headers(index_html, connect_src) {
        let value = HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static(""));
        router = router.layer(SetResponseHeaderLayer::overriding(name, value));
    }
    router
}

/// Immutable for a hashed file that was found; no-cache for everything else, above all
/// index.html whichever path answered it. The answer depends on Accept-Encoding.
async fn cache_rules(request: Request, next: Next) -> Response {
    let hashed = is_hashed(request.uri().path());
    let mut response = next.run(request).await;
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
    let found = response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED;
    let rule = if hashed && found && !is_html {
        IMMUTABLE
    } else {
        NO_CACHE
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(rule));
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    response
}

/// What `sandbox headers` prints: the exact headers another server must send with the console
/// in `dist`, when it calls the API at `api_origins`, and which paths get which cache rule.
pub fn hosting_headers(dist: &Path, api_origins: &[String]) -> std::io::Result<String> {
    let html = std::fs::read_to_string(dist.join("index.html"))?;
    let mut hashed: Vec<String> = std::fs::read_dir(dist)?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| is_hashed(name) && !name.ends_with(".br") && !name.ends_with(".gz"))
        .collect();
    hashed.sort();
    let mut out = format!(
        "# Headers for the console in {} (the CSP's hash changes with every build: print again \
         after each).\n# On every response:\n",
        dist.display()
    );
    for (name, value) in security_headers(&html, api_origins) {
        out += &format!("{}: {value}\n", canonical(name.as_str()));
    }
    out += "Vary: Accept-Encoding\n";
    out += &format!(
        "\n# On the hashed assets ({}):\nCache-Control: {IMMUTABLE}\n",
        hashed.join(", ")
    );
    out += &format!(
        "\n# On index.html, and on every path that is not a file, which must answer index.html:\n\
         Cache-Control: {NO_CACHE}\n"
    );
    Ok(out)
}

/// `content-security-policy` as people write it: `Content-Security-Policy`.
fn canonical(name: &str) -> String {
    name.split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunk_hashed_names_are_recognised() {
        for name in [
            "/console-1d7c51c8e9200f3b_bg.wasm",
            "/console-1d7c51c8e9200f3b.js",
            "main-a75c69fe78433ebb.css",
        ] {
            assert!(is_hashed(name), "{name}");
        }
        for name in [
            "/index.html",
            "/",
            "/runs/0b7c8a4e",
            "/runs/run-1d7c51c8e9200f3b",
            "/favicon.ico",
            "/main-notahexhashatall.css",
        ] {
            assert!(!is_hashed(name), "{name}");
        }
    }

    #[test]
    fn header_names_are_written_as_people_write_them() {
        assert_eq!(
            canonical("content-security-policy"),
            "Content-Security-Policy"
        );
        assert_eq!(
            canonical("x-content-type-options"),
            "X-Content-Type-Options"
        );
    }
}
