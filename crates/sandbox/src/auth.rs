//! Who is calling: a bearer API key or an account-session JWT, resolved to a workspace.

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

use crate::error::ApiError;
use crate::jwt::{self, JwtError};
use crate::state::{SandboxState, hash_secret};

/// How the caller authenticated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    ApiKey { key_id: String },
    Session { account: String },
}

/// An authenticated caller, scoped to one workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub workspace_id: String,
    pub credential: Credential,
}

impl Principal {
    pub fn is_session(&self) -> bool {
        matches!(self.credential, Credential::Session { .. })
    }
}

/// Resolves an `Authorization` header value against the store.
pub fn authenticate(state: &SandboxState, header: Option<&str>) -> Result<Principal, ApiError> {
    let Some(header) = header else {
        return Err(ApiError::unauthorized(
            "missing_credential",
            "Send Authorization: Bearer <API key or session token>.",
        ));
    };
    let Some(token) = header
        .strip_prefix("Bearer ")
        .or_else(|| header.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
    else {
        return Err(ApiError::unauthorized(
            "missing_credential",
            "The Authorization header must be 'Bearer <API key or session token>'.",
        ));
    };
    if jwt::looks_like_jwt(token) {
        let now = chrono::Utc::now().timestamp();
        return match jwt::verify(token, state.session_secret(), now) {
            Ok(claims) if state.store().workspace(&claims.workspace_id).is_some() => {
                Ok(Principal {
                    workspace_id: claims.workspace_id,
                    credential: Credential::Session {
                        account: claims.sub,
                    },
                })
            }
            Ok(_) | Err(JwtError::Malformed) | Err(JwtError::BadSignature) => Err(
                ApiError::unauthorized("invalid_session", "The session token is not valid."),
            ),
            Err(JwtError::Expired) => Err(ApiError::unauthorized(
                "session_expired",
                "The session has expired; sign in again.",
            )),
        };
    }
    let hash = hash_secret(token);
    let store = state.store();
    match store.keys.iter().find(|k| k.secret_hash == hash) {
        Some(key) if key.revoked_at.is_some() => Err(ApiError::unauthorized(
            "key_revoked",
            format!("The API key {}… has been revoked.", key.prefix),
        )),
        Some(key) => Ok(Principal {
            workspace_id: key.workspace_id.clone(),
            credential: Credential::ApiKey {
                key_id: key.id.clone(),
            },
        }),
        None => Err(ApiError::unauthorized(
            "invalid_api_key",
            "The API key is not valid.",
        )),
    }
}

impl FromRequestParts<SandboxState> for Principal {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &SandboxState,
    ) -> Result<Self, Self::Rejection> {
        let header = parts
            .headers
            .get(AUTHORIZATION)
            .map(|v| v.to_str().unwrap_or(""));
        authenticate(state, header)
    }
}
