//! The access log: one line per request on stderr (time, method, path, status, milliseconds, the
//! answer's request id), and one for each connection closed before a request could be routed
//! (a head that never finished, one hyper could not parse). Never the query, a header, a
//! credential or a body; a path's bytes that are not printable ASCII are written escaped, so no
//! line can hide or reorder what it says (a right-to-left override, a terminal's escape codes).

use std::fmt;
use std::time::Duration;

use axum::extract::Request;
use axum::response::Response;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::trace::TraceLayer;

/// A path as the log writes it: printable ASCII as it is, anything else as `\u{…}`.
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let printable = |c: char| c.is_ascii_graphic() && c != '\\';
        if self.0.chars().all(printable) {
            return f.write_str(self.0);
        }
        for c in self.0.chars() {
            if printable(c) {
                fmt::Write::write_char(f, c)?;
            } else {
                write!(f, "{}", c.escape_unicode())?;
            }
        }
        Ok(())
    }
}

type MakeSpan = fn(&Request) -> tracing::Span;
type OnResponse = fn(&Response, Duration, &tracing::Span);

/// tower-http's trace layer, writing the lines above.
pub fn layer()
-> TraceLayer<SharedClassifier<ServerErrorsAsFailures>, MakeSpan, (), OnResponse, (), (), ()> {
    TraceLayer::new_for_http()
        .make_span_with(request_span as MakeSpan)
        .on_request(())
        .on_response(log_answer as OnResponse)
        .on_body_chunk(())
        .on_eos(())
        .on_failure(())
}

fn request_span(request: &Request) -> tracing::Span {
    // The path only: never the query, a header or a body.
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %Escaped(request.uri().path()),
    )
}

fn log_answer(response: &Response, latency: Duration, _span: &tracing::Span) {
    let request_id = response
        .headers()
        .get(api_contract::REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    tracing::info!(
        status = response.status().as_u16(),
        ms = latency.as_millis() as u64,
        request_id = %Escaped(request_id),
    );
}

/// The line for a connection closed before its request was routed: `status` is what hyper
/// answered (400, 431), or what nginx logs for the same case when nothing could be sent (408).
pub fn connection_closed(status: u16, reason: &str) {
    let span = tracing::info_span!("request", method = %"-", path = %"-");
    let _inside = span.enter();
    tracing::info!(status, reason);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_printable_ascii_is_escaped() {
        assert_eq!(Escaped("/v1/runs/r1").to_string(), "/v1/runs/r1");
        assert_eq!(
            Escaped("/v1/runs/\u{202e}fdp.exe").to_string(),
            "/v1/runs/\\u{202e}fdp.exe"
        );
        assert_eq!(Escaped("/a\u{1b}[31m").to_string(), "/a\\u{1b}[31m");
        assert_eq!(Escaped("/a\\b c").to_string(), "/a\\u{5c}b\\u{20}c");
        assert_eq!(Escaped("/é").to_string(), "/\\u{e9}");
    }
}
