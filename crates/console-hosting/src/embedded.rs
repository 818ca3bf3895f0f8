//! The console's files as `#[derive(RustEmbed)]` holds them, answered as `ServeDir` answers a
//! folder (`crate::from_dir`): the `.br` or `.gz` sibling the build wrote when the client accepts
//! it, the type of the file asked for, an ETag and 304, and `index.html` for any other path.

use std::borrow::Cow;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::{EmbeddedFile, RustEmbed};

/// The precompressed siblings the build writes, best first, with their `Content-Encoding`.
const ENCODINGS: [Encoding; 2] = [
    Encoding {
        token: "br",
        suffix: ".br",
    },
    Encoding {
        token: "gzip",
        suffix: ".gz",
    },
];

struct Encoding {
    /// As `Accept-Encoding` and `Content-Encoding` write it.
    token: &'static str,
    /// The sibling's file name suffix.
    suffix: &'static str,
}

/// The axum handler: `GET` and `HEAD` of any path.
pub(crate) async fn serve<Files: RustEmbed>(
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
        )
            .into_response();
    }
    let asked = uri.path().trim_start_matches('/');
    // Only a plain relative name reaches the lookup: no `.` or `..` segment, no empty one, no
    // backslash, whatever rust-embed would make of it.
    let plain = !asked.contains('\\')
        && asked
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    // A folder's index, a file, or the app itself for every other path (deep links).
    let name = match asked {
        "" => "index.html",
        _ if !plain => "index.html",
        name if Files::get(name).is_some() => name,
        _ => "index.html",
    };
    let accepted = accept_encoding(&headers);
    let (file, encoding) = ENCODINGS
        .iter()
        .filter(|encoding| accepted.iter().any(|token| token == encoding.token))
        .find_map(|encoding| {
            Files::get(&format!("{name}{}", encoding.suffix)).map(|file| (file, Some(encoding)))
        })
        .or_else(|| Files::get(name).map(|file| (file, None)))
        .expect("the name is a file or index.html, which from_embedded checked");
    answer(&method, &headers, name, file, encoding)
}

fn answer(
    method: &Method,
    request_headers: &HeaderMap,
    name: &str,
    file: EmbeddedFile,
    encoding: Option<&Encoding>,
) -> Response {
    let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()));
    let mut headers = HeaderMap::new();
    // The type of the file asked for, not of its `.br` sibling; guessed as ServeDir guesses it.
    let mime = mime_guess::from_path(name)
        .first_raw()
        .unwrap_or("application/octet-stream");
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    if let Some(encoding) = encoding {
        headers.insert(
            header::CONTENT_ENCODING,
            HeaderValue::from_static(encoding.token),
        );
    }
    let unchanged = request_headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|tag| tag.trim() == etag));
    if unchanged {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(file.data.len()));
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        match file.data {
            Cow::Borrowed(bytes) => Body::from(bytes),
            Cow::Owned(bytes) => Body::from(bytes),
        }
    };
    (StatusCode::OK, headers, body).into_response()
}

/// The encodings `Accept-Encoding` accepts (a `q` of 0 refuses one), lowercased.
fn accept_encoding(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|item| {
            let mut parts = item.split(';');
            let token = parts.next()?.trim().to_ascii_lowercase();
            let refused = parts.any(|param| {
                param
                    .trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            (!token.is_empty() && !refused).then_some(token)
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        headers
    }

    #[test]
    fn accept_encoding_honours_q_zero() {
        assert_eq!(
            accept_encoding(&with("gzip, deflate, br, zstd")),
            ["gzip", "deflate", "br", "zstd"]
        );
        assert_eq!(accept_encoding(&with("br;q=0, GZIP;q=0.5")), ["gzip"]);
        assert!(accept_encoding(&HeaderMap::new()).is_empty());
    }
}
