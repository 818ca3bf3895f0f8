//! The access log: one line per request on stderr (time, method, path, status, milliseconds, the
//! answer's request id), and one for each connection closed before a request could be routed
//! (a head that never finished, one hyper could not parse). Never the query, a header, a
//! credential or a body; a path's bytes that are not printable ASCII are written escaped, so no
//! line can hide or reorder what it says (a right-to-left override, a terminal's escape codes).
//! Load balancers' `/healthz` probes (one every few seconds from each) have no line unless
//! asked for: they would bury the requests of people.

use std::fmt;
use std::time::Duration;

use axum::http;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::trace::{MakeSpan, OnResponse, TraceLayer};

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

/// What the access log writes a line for.
#[derive(Clone, Copy, Debug, Default)]
pub struct AccessLog {
    /// `GET /healthz` too (off by default).
    pub health_checks: bool,
}

impl AccessLog {
    /// tower-http's trace layer, writing the lines above.
    pub fn layer(
        self,
    ) -> TraceLayer<SharedClassifier<ServerErrorsAsFailures>, AccessLog, (), AccessLog, (), (), ()>
    {
        TraceLayer::new_for_http()
            .make_span_with(self)
            .on_request(())
            .on_response(self)
            .on_body_chunk(())
            .on_eos(())
            .on_failure(())
    }
}

impl<B> MakeSpan<B> for AccessLog {
    fn make_span(&mut self, request: &http::Request<B>) -> tracing::Span {
        let path = request.uri().path();
        if !self.health_checks && path == crate::health::HEALTH_PATH {
            // No span, so no line (`on_response`).
            return tracing::Span::none();
        }
        // The path only: never the query, a header or a body.
        tracing::info_span!(
            "request",
            method = %request.method(),
            path = %Escaped(path),
        )
    }
}

impl<B> OnResponse<B> for AccessLog {
    fn on_response(self, response: &http::Response<B>, latency: Duration, span: &tracing::Span) {
        if span.is_none() {
            return;
        }
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
