//! Answers console-server gives itself, in the contract's error body (section 2.6) with a request
//! id of its own, so the console shows its usual error panel: the upstream unreachable, too slow
//! or not answering HTTP; a body too large; a request that would leave the upstream.

use api_contract::{ErrorBody, ErrorDetail, REQUEST_ID_HEADER};
use axum::Json;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// An answer of console-server's own: status, the contract's `code`, and a sentence for people.
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl Refusal {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Refusal {
            status,
            code,
            message: message.into(),
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
                retry_after: None,
            },
        };
        let mut response = (self.status, Json(body)).into_response();
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            response.headers_mut().insert(REQUEST_ID_HEADER, value);
        }
        response
    }
}
