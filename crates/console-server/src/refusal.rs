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

/// An answer of console-server's own: status, the contract's `code`, and a sentence for people.
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// When to try again, for a 503 of a server at its cap.
    pub retry_after: Option<Duration>,
}

/// Marks an answer console-server gave itself, with its `code`: the metrics count them by it.
#[derive(Clone, Copy, Debug)]
pub struct OwnAnswer {
    pub code: &'static str,
}

impl Refusal {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
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
                code: self.code.to_owned(),
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
