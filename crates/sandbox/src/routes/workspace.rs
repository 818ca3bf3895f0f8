//! `GET /v1/workspace`: the caller's workspace and its credits.

use api_contract::Workspace;
use axum::Json;
use axum::extract::State;

use crate::auth::Principal;
use crate::error::ApiError;
use crate::state::SandboxState;

pub async fn get_workspace(
    State(state): State<SandboxState>,
    principal: Principal,
) -> Result<Json<Workspace>, ApiError> {
    let store = state.store();
    let record = store.workspace(&principal.workspace_id).ok_or_else(|| {
        ApiError::unauthorized("invalid_credential", "The workspace no longer exists.")
    })?;
    Ok(Json(record.workspace.clone()))
}
