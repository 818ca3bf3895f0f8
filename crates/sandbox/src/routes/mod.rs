//! The `/v1` routes.

mod actions;
mod workspace;

use axum::Router;
use axum::http::Uri;
use axum::routing::get;

use crate::error::ApiError;
use crate::state::SandboxState;

pub fn v1(state: SandboxState) -> Router {
    Router::new()
        .route("/actions", get(actions::list_actions))
        .route("/workspace", get(workspace::get_workspace))
        .fallback(unknown_route)
        .with_state(state)
}

async fn unknown_route(uri: Uri) -> ApiError {
    ApiError::not_found(
        "not_found",
        format!("There is no endpoint at {}.", uri.path()),
    )
}
