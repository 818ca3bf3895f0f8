//! The contract's error body (section 2.6) as an axum response.

use api_contract::{ErrorBody, ErrorDetail};
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// An error the API reports to a client: an HTTP status, a stable `code` and a message for people.
/// The request id is added by [`crate::request_id::stamp_request_id`] on the way out.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub retry_after: Option<f64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn unauthorized(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::UNAUTHORIZED, code, message)
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, code, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.to_owned(),
                message: self.message,
                request_id: None,
                retry_after: self.retry_after,
            },
        };
        let mut response = (self.status, Json(body.clone())).into_response();
        if let Some(seconds) = self.retry_after
            && let Ok(value) =
                axum::http::HeaderValue::from_str(&(seconds.ceil() as u64).to_string())
        {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, value);
        }
        // The middleware re-renders the body with the request id it assigned.
        response.extensions_mut().insert(body);
        response
    }
}
