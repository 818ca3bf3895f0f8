//! `GET /v1/keys`, `POST /v1/keys`, `DELETE /v1/keys/{id}`: account sessions only.

use api_contract::input::validate_key_name;
use api_contract::{ApiKey, CreatedApiKey, KEY_LIST_LIMIT, KeyList};
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

use crate::auth::Principal;
use crate::error::ApiError;
use crate::routes::body::{RequestBody, bad_request, json_body};
use crate::routes::path::Path;
use crate::state::{KeyRecord, SandboxState, now_millis};

fn require_session(principal: &Principal) -> Result<(), ApiError> {
    if principal.is_session() {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "session_required",
            "Key management needs an account session (a JWT bearer); this request used an API key.",
        ))
    }
}

fn listed(key: &KeyRecord) -> ApiKey {
    ApiKey {
        id: key.id.clone(),
        name: key.name.clone(),
        prefix: key.prefix.clone(),
        created_at: key.created_at,
        revoked_at: key.revoked_at,
    }
}

pub async fn list_keys(
    State(state): State<SandboxState>,
    principal: Principal,
) -> Result<Json<KeyList>, ApiError> {
    require_session(&principal)?;
    let store = state.store();
    let keys = store
        .keys
        .iter()
        .rev()
        .filter(|k| k.workspace_id == principal.workspace_id)
        .take(KEY_LIST_LIMIT)
        .map(listed)
        .collect();
    Ok(Json(KeyList { keys }))
}

pub async fn create_key(
    State(state): State<SandboxState>,
    principal: Principal,
    headers: HeaderMap,
    RequestBody(body): RequestBody,
) -> Result<Json<CreatedApiKey>, ApiError> {
    require_session(&principal)?;
    let body = json_body(&headers, &body)?;
    let name = match body.get("name") {
        Some(Value::String(name)) => name.clone(),
        Some(_) => return Err(bad_request("invalid_request", "name must be a string")),
        None => return Err(bad_request("invalid_request", "name is required")),
    };
    if let Some(Value::Object(obj)) = Some(&body)
        && let Some(extra) = obj.keys().find(|k| k.as_str() != "name")
    {
        return Err(bad_request(
            "invalid_request",
            format!("{extra} is not a field of a new key (expected name)"),
        ));
    }
    validate_key_name(&name).map_err(|e| bad_request("invalid_request", e.to_string()))?;
    let (record, secret) = state.create_key(&principal.workspace_id, &name);
    Ok(Json(CreatedApiKey {
        id: record.id,
        api_key: secret,
        prefix: record.prefix,
        name: record.name,
        created_at: record.created_at,
    }))
}

pub async fn revoke_key(
    State(state): State<SandboxState>,
    principal: Principal,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    require_session(&principal)?;
    let mut store = state.store();
    let key = store
        .keys
        .iter_mut()
        .find(|k| k.id == id && k.workspace_id == principal.workspace_id)
        .ok_or_else(|| {
            ApiError::not_found(
                "key_not_found",
                format!("No API key with id {id} exists in this workspace."),
            )
        })?;
    // Revoking twice keeps the first revocation time.
    if key.revoked_at.is_none() {
        key.revoked_at = Some(now_millis());
    }
    Ok(StatusCode::NO_CONTENT)
}
