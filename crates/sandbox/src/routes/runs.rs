//! `GET /v1/runs`, `GET /v1/runs/{id}`, `GET /v1/runs/{id}/outputs`, `POST /v1/runs/{id}/cancel`.

use api_contract::{Run, RunList, RunOutputs};
use axum::Json;
use axum::extract::State;

use crate::auth::Principal;
use crate::engine::{self, run_not_found};
use crate::error::ApiError;
use crate::routes::path::Path;
use crate::state::SandboxState;

pub use api_contract::RUN_LIST_LIMIT;

pub async fn list_runs(State(state): State<SandboxState>, principal: Principal) -> Json<RunList> {
    let store = state.store();
    let runs = store
        .run_order
        .iter()
        .rev()
        .filter_map(|id| store.run_in(&principal.workspace_id, id))
        .take(RUN_LIST_LIMIT)
        .map(|r| r.run.clone())
        .collect();
    Json(RunList { runs })
}

/// A copy of the workspace's run `id`, or the 404 the API answers for a run it cannot see.
fn find_run(state: &SandboxState, principal: &Principal, id: &str) -> Result<Run, ApiError> {
    state
        .store()
        .run_in(&principal.workspace_id, id)
        .map(|record| record.run.clone())
        .ok_or_else(|| run_not_found(id))
}

pub async fn get_run(
    State(state): State<SandboxState>,
    principal: Principal,
    Path(id): Path<String>,
) -> Result<Json<Run>, ApiError> {
    find_run(&state, &principal, &id).map(Json)
}

pub async fn get_outputs(
    State(state): State<SandboxState>,
    principal: Principal,
    Path(id): Path<String>,
) -> Result<Json<RunOutputs>, ApiError> {
    let Run {
        id: run_id,
        status,
        output,
        completeness,
        ..
    } = find_run(&state, &principal, &id)?;
    Ok(Json(RunOutputs {
        run_id,
        status,
        output,
        completeness,
    }))
}

pub async fn cancel_run(
    State(state): State<SandboxState>,
    principal: Principal,
    Path(id): Path<String>,
) -> Result<Json<Run>, ApiError> {
    engine::cancel(&state, &principal.workspace_id, &id).map(Json)
}
