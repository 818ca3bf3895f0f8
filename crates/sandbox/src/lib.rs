//! The sandbox: a local implementation of the `/v1` API that demos and tests run against.
//!
//! `app` builds the whole HTTP surface; `main.rs` only parses flags, binds and prints the
//! start-up line. Tests drive `app` directly or through a real socket.

pub mod auth;
pub mod config;
pub mod data;
pub mod engine;
pub mod error;
pub mod faults;
pub mod jwt;
pub mod openapi;
pub mod records;
pub mod request_id;
pub mod routes;
pub mod state;

use std::path::PathBuf;

use axum::Router;

pub use config::SandboxConfig;
pub use routes::ROUTES;
pub use state::{SandboxState, SeededWorkspace};

/// The complete sandbox service: `/v1` plus, when `dist` is given, the built console with an
/// SPA fallback so deep links like `/runs/abc` load the app.
pub fn app(state: SandboxState, dist: Option<PathBuf>) -> Router {
    let latency = state.config().latency;
    let connect_src = state.config().connect_src.clone();
    let v1 = routes::v1(state).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| async move {
            if !latency.is_zero() {
                tokio::time::sleep(latency).await;
            }
            next.run(request).await
        },
    ));
    let mut router = Router::new()
        .merge(v1)
        .route(
            "/openapi.json",
            axum::routing::get(|| async { axum::Json(openapi::document()) }),
        )
        // What the console says it is spending on: play money.
        .route(
            api_contract::ENVIRONMENT_PATH,
            axum::routing::get(|| async {
                (
                    [(axum::http::header::CACHE_CONTROL, "no-cache")],
                    axum::Json(api_contract::ConsoleEnvironment::sandbox()),
                )
            }),
        );
    if let Some(dist) = dist {
        router = router.fallback_service(console_hosting::from_dir(&dist, &connect_src));
    }
    router
        .layer(axum::middleware::from_fn(request_id::stamp_request_id))
        // JSON (and console files the build did not precompress, as in a dev build) gzipped on
        // the fly, as from any real deployment; answers already encoded pass through untouched.
        .layer(tower_http::compression::CompressionLayer::new().gzip(true))
}
