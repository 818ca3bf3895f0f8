//! The `/v1` routes, declared once in [`ROUTES`] so the OpenAPI document can be checked against them.

mod actions;
mod body;
mod keys;
mod runs;
mod submit;
mod workspace;

use axum::Router;
use axum::http::{Method, StatusCode, Uri};
use axum::routing::{MethodRouter, delete, get, post};

use crate::error::ApiError;
use crate::state::SandboxState;

/// Every `/v1` route: method and path as axum (and OpenAPI) write them.
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/v1/actions"),
    ("POST", "/v1/actions/{action}/run/live"),
    ("POST", "/v1/actions/{action}/run/async"),
    ("GET", "/v1/runs"),
    ("GET", "/v1/runs/{id}"),
    ("GET", "/v1/runs/{id}/outputs"),
    ("POST", "/v1/runs/{id}/cancel"),
    ("GET", "/v1/workspace"),
    ("GET", "/v1/keys"),
    ("POST", "/v1/keys"),
    ("DELETE", "/v1/keys/{id}"),
];

fn handler(method: &str, path: &str) -> MethodRouter<SandboxState> {
    match (method, path) {
        ("GET", "/v1/actions") => get(actions::list_actions),
        ("POST", "/v1/actions/{action}/run/live") => post(submit::submit_live),
        ("POST", "/v1/actions/{action}/run/async") => post(submit::submit_async),
        ("GET", "/v1/runs") => get(runs::list_runs),
        ("GET", "/v1/runs/{id}") => get(runs::get_run),
        ("GET", "/v1/runs/{id}/outputs") => get(runs::get_outputs),
        ("POST", "/v1/runs/{id}/cancel") => post(runs::cancel_run),
        ("GET", "/v1/workspace") => get(workspace::get_workspace),
        ("GET", "/v1/keys") => get(keys::list_keys),
        ("POST", "/v1/keys") => post(keys::create_key),
        ("DELETE", "/v1/keys/{id}") => delete(keys::revoke_key),
        _ => unreachable!("ROUTES lists a route without a handler: {method} {path}"),
    }
}

/// The `/v1` router, to be nested under `/v1`.
pub fn v1(state: SandboxState) -> Router {
    let mut router = Router::new();
    for (method, path) in ROUTES {
        let relative = path.strip_prefix("/v1").expect("every route is under /v1");
        router = router.route(relative, handler(method, path));
    }
    router
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

async fn unknown_route(uri: Uri) -> ApiError {
    ApiError::not_found(
        "not_found",
        format!("There is no endpoint at {}.", uri.path()),
    )
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not supported on {}.", uri.path()),
    )
}
