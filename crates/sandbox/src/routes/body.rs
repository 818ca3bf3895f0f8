//! Reading JSON request bodies with the contract's 400s and 413 instead of axum's plain-text
//! rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, StatusCode, header::CONTENT_TYPE};
use serde_json::Value;

use crate::error::ApiError;

/// The largest request body the sandbox reads: axum's default, named so that the 413 can say it.
pub const MAX_REQUEST_BODY_BYTES: usize = 2 * 1024 * 1024;

/// A request's whole body, refused with the contract's error body when it cannot be read, as
/// one over [`MAX_REQUEST_BODY_BYTES`] cannot; axum's [`Bytes`] would answer in plain text.
pub struct RequestBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RequestBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Bytes::from_request(request, state).await {
            Ok(bytes) => Ok(RequestBody(bytes)),
            Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "request_too_large",
                    format!(
                        "The request's body is over {} KiB.",
                        MAX_REQUEST_BODY_BYTES / 1024
                    ),
                ))
            }
            Err(rejection) => Err(bad_request(
                "invalid_request",
                format!(
                    "The request's body cannot be read: {}.",
                    rejection.body_text()
                ),
            )),
        }
    }
}

pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message)
}

/// Parses a JSON body, requiring `Content-Type: application/json`.
pub fn json_body(headers: &HeaderMap, body: &[u8]) -> Result<Value, ApiError> {
    let content_type = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return Err(bad_request(
            "invalid_content_type",
            format!(
                "Send the body as JSON with Content-Type: application/json (got {}).",
                if content_type.is_empty() {
                    "no Content-Type"
                } else {
                    content_type
                }
            ),
        ));
    }
    serde_json::from_slice(body)
        .map_err(|e| bad_request("invalid_json", format!("The body is not valid JSON: {e}.")))
}
