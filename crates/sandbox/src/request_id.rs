//! Gives every response an `x-request-id` header and puts the same id into error bodies.

use api_contract::{ErrorBody, REQUEST_ID_HEADER};
use axum::Json;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

pub fn new_request_id() -> String {
    format!("req_{}", uuid::Uuid::new_v4().simple())
}

pub async fn stamp_request_id(request: Request, next: Next) -> Response {
    let id = new_request_id();
    let mut response = next.run(request).await;
    if let Some(mut body) = response.extensions_mut().remove::<ErrorBody>() {
        body.error.request_id = Some(id.clone());
        let (mut parts, _) = response.into_parts();
        let fresh = Json(body).into_response();
        parts.headers.remove(axum::http::header::CONTENT_LENGTH);
        response = Response::from_parts(parts, fresh.into_body());
    }
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}
