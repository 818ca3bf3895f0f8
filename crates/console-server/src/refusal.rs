//! Answers console-server gives itself, in the contract's error body (section 2.6) with a request
//! id of its own, so the console shows its usual error panel: the upstream unreachable, too slow
//! or not answering HTTP; a request that is none of the contract's routes, too large, too slow, for
//! another host, or over the server's caps.

use std::time::Duration;

use api_contract::{ErrorBody, ErrorDetail, REQUEST_ID_HEADER};
use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The policy of every `/v1` answer and every refusal: a document that can load, run and frame
/// nothing, opened in a sandbox of an origin of its own, were a browser to open it as a page.
pub const API_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; sandbox";

/// The contract `code` (section 2.6) of each answer console-server gives itself. One name per
/// rule, for the error body and the metrics' `rule` label alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnCode {
    /// A `/v1` path of no contract route.
    NotFound,
    /// A method the route does not have; `CONNECT`, `TRACE`.
    MethodNotAllowed,
    /// An id in a path that is not a plain token, an absolute-form target.
    InvalidPath,
    /// No `Host`, a body that could not be read.
    InvalidRequest,
    /// A `Host` this server is not reached under (DNS rebinding).
    MisdirectedRequest,
    /// A body over [`crate::MAX_REQUEST_BODY_BYTES`].
    RequestTooLarge,
    /// A body that did not arrive in time.
    RequestTimeout,
    /// At the cap of connections or of requests in flight.
    ServerBusy,
    /// The upstream down, refusing TLS, or not answering HTTP.
    UpstreamUnreachable,
    /// The upstream not answering in time.
    UpstreamTimeout,
}

impl OwnCode {
    /// As the error body and the metrics write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            OwnCode::NotFound => "not_found",
            OwnCode::MethodNotAllowed => "method_not_allowed",
            OwnCode::InvalidPath => "invalid_path",
            OwnCode::InvalidRequest => "invalid_request",
            OwnCode::MisdirectedRequest => "misdirected_request",
            OwnCode::RequestTooLarge => "request_too_large",
            OwnCode::RequestTimeout => "request_timeout",
            OwnCode::ServerBusy => "server_busy",
            OwnCode::UpstreamUnreachable => "upstream_unreachable",
            OwnCode::UpstreamTimeout => "upstream_timeout",
        }
    }

    /// The upstream gave no usable answer: a fault of the API (or the way to it), not a request
    /// this server refused.
    pub const fn is_upstream_fault(self) -> bool {
        matches!(
            self,
            OwnCode::UpstreamUnreachable | OwnCode::UpstreamTimeout
        )
    }
}

/// What closed a client's connection before any request on it was routed, as the metrics' `rule`
/// label writes it (the access log has a line for each but the cap's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionRule {
    /// The request's head did not arrive within `--header-timeout-secs`.
    HeaderTimeout,
    /// The head was larger than hyper reads.
    HeadTooLarge,
    /// The head could not be parsed.
    BadRequest,
    /// Over `--max-connections`.
    ConnectionCap,
}

impl ConnectionRule {
    pub const fn as_str(self) -> &'static str {
        match self {
            ConnectionRule::HeaderTimeout => "header_timeout",
            ConnectionRule::HeadTooLarge => "head_too_large",
            ConnectionRule::BadRequest => "bad_request",
            ConnectionRule::ConnectionCap => "connection_cap",
        }
    }
}

/// An answer of console-server's own: status, the contract's `code`, and a sentence for people.
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub code: OwnCode,
    pub message: String,
    /// When to try again, for a 503 of a server at its cap.
    pub retry_after: Option<Duration>,
}

/// Marks an answer console-server gave itself, with its `code`: the metrics count them by it.
#[derive(Clone, Copy, Debug)]
pub struct OwnAnswer {
    pub code: OwnCode,
}

impl Refusal {
    pub fn new(status: StatusCode, code: OwnCode, message: impl Into<String>) -> Self {
        Refusal {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn retry_after(self, wait: Duration) -> Self {
        Refusal {
            retry_after: Some(wait),
            ..self
        }
    }
}

/// `req_` and 32 hex digits, like the sandbox's ids; quoted in the access log and in tickets.
pub fn new_request_id() -> String {
    format!("req_{}", uuid::Uuid::new_v4().simple())
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let request_id = new_request_id();
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.as_str().to_owned(),
                message: self.message,
                request_id: Some(request_id.clone()),
                retry_after: self.retry_after.map(|wait| wait.as_secs_f64()),
            },
        };
        let mut response = (self.status, Json(body)).into_response();
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            headers.insert(REQUEST_ID_HEADER, value);
        }
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(API_CONTENT_SECURITY_POLICY),
        );
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        if let Some(wait) = self.retry_after {
            headers.insert(
                header::RETRY_AFTER,
                HeaderValue::from(wait.as_secs().max(1)),
            );
        }
        response
            .extensions_mut()
            .insert(OwnAnswer { code: self.code });
        response
    }
}
