//! `GET /healthz` for load balancers and orchestrators: 200 while this server takes requests,
//! 503 from the moment it is asked to stop, so they send new requests elsewhere while those in
//! flight finish. It never calls the upstream: a health check must not spend the API's capacity,
//! nor take every console-server out of rotation when the API has a bad minute.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

pub const HEALTH_PATH: &str = "/healthz";

/// Whether the server is draining; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Health {
    draining: Arc<AtomicBool>,
}

impl Health {
    /// From now on `/healthz` answers 503.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }
}

pub async fn health(State(health): State<Health>) -> Response {
    let (status, state) = if health.is_draining() {
        (StatusCode::SERVICE_UNAVAILABLE, "draining")
    } else {
        (StatusCode::OK, "serving")
    };
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({ "status": state })),
    )
        .into_response()
}
