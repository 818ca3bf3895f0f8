//! Reading a route's path parameters with the contract's 400 instead of axum's plain-text
//! rejection, which a path such as `/v1/runs/%FF` (not UTF-8 once decoded) would otherwise get.

use axum::extract::FromRequestParts;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::PathRejection;
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// axum's [`Path`](axum::extract::Path) with [`ApiError`] as its rejection, as in axum's
/// `customize-path-rejection` example. The routes use this one, never axum's.
pub struct Path<T>(pub T);

impl<S, T> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(parameters)) => Ok(Path(parameters)),
            Err(rejection) => Err(refusal(&rejection)),
        }
    }
}

fn refusal(rejection: &PathRejection) -> ApiError {
    // axum answers 500 when a route's template and its extractor disagree: the sandbox's bug,
    // which no request can cause.
    if rejection.status().is_server_error() {
        return ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "The sandbox could not read this route's path parameters.",
        );
    }
    let message = match rejection {
        PathRejection::FailedToDeserializePathParams(error) => match error.kind() {
            ErrorKind::InvalidUtf8InPathParam { key } => {
                format!("The path's `{key}` is not UTF-8 text once its %-escapes are decoded.")
            }
            kind => format!("The path cannot be read: {kind}."),
        },
        _ => "The path cannot be read.".to_owned(),
    };
    ApiError::new(StatusCode::BAD_REQUEST, "invalid_path", message)
}
