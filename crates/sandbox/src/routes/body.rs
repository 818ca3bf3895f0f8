//! Reading JSON request bodies with the contract's 400s instead of axum's plain-text rejections.

use axum::http::{HeaderMap, StatusCode, header::CONTENT_TYPE};
use serde_json::Value;

use crate::error::ApiError;

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
