//! `POST /v1/actions/{action}/run/live` and `/run/async`.

use api_contract::input::{describe_errors, validate_idempotency_key};
use api_contract::{ActionId, IDEMPOTENCY_KEY_HEADER, Run, Submission};
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};

use crate::auth::Principal;
use crate::engine;
use crate::error::ApiError;
use crate::routes::body::{RequestBody, bad_request, json_body};
use crate::routes::path::Path;
use crate::state::SandboxState;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Live,
    Async,
}

/// What both submission routes extract, in this order: the credential is checked before the
/// action's name, and the headers before the body is read.
type SubmitRequest = (
    State<SandboxState>,
    Principal,
    Path<String>,
    HeaderMap,
    RequestBody,
);

pub async fn submit_live(request: SubmitRequest) -> Result<(StatusCode, Json<Run>), ApiError> {
    submit(request, Mode::Live).await
}

pub async fn submit_async(request: SubmitRequest) -> Result<(StatusCode, Json<Run>), ApiError> {
    submit(request, Mode::Async).await
}

async fn submit(
    (State(state), principal, Path(action), headers, RequestBody(body)): SubmitRequest,
    mode: Mode,
) -> Result<(StatusCode, Json<Run>), ApiError> {
    let action = ActionId::parse(&action).ok_or_else(|| {
        ApiError::not_found(
            "unknown_action",
            format!("There is no action “{action}”; GET /v1/actions lists them."),
        )
    })?;
    let body = json_body(&headers, &body)?;
    let key = headers
        .get(IDEMPOTENCY_KEY_HEADER)
        .ok_or_else(|| {
            bad_request(
                "missing_idempotency_key",
                "Submissions need an Idempotency-Key header (8 to 128 characters of [a-zA-Z0-9_:-]).",
            )
        })?
        .to_str()
        .map_err(|_| bad_request("invalid_idempotency_key", "Idempotency-Key must be ASCII."))?
        .to_owned();
    validate_idempotency_key(&key).map_err(|m| bad_request("invalid_idempotency_key", m))?;
    let submission = Submission::validate(action, &body)
        .map_err(|errors| bad_request("invalid_request", describe_errors(&errors)))?;

    // What a replay must match: the body as sent (keys sorted), with max_results and max_credits
    // as the integers they were read as, so that `7` and `7.0` are the same request.
    let mut canonical = body;
    if let Some(max_results) = submission.max_results {
        canonical["max_results"] = max_results.into();
    }
    if let Some(max_credits) = submission.max_credits {
        canonical["max_credits"] = max_credits.into();
    }
    let mut run = engine::submit(
        &state,
        &principal.workspace_id,
        &key,
        submission,
        &canonical.to_string(),
    )?;
    if mode == Mode::Live && !run.status.is_terminal() {
        let lease = state.config().live_lease;
        if let Some(latest) = engine::wait_for_terminal(&state, &run.id, lease).await {
            run = latest;
        }
    }
    // 200 carries a terminal run, 202 one still queued or processing, for new runs and
    // idempotent replays alike.
    let status = if run.status.is_terminal() {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    Ok((status, Json(run)))
}
