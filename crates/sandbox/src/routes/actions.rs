//! `GET /v1/actions`: the registry, a public route.

use api_contract::{ActionId, ActionList};
use axum::Json;

pub async fn list_actions() -> Json<ActionList> {
    Json(ActionList {
        actions: ActionId::ALL
            .iter()
            .map(|a| a.sandbox_registry_entry())
            .collect(),
    })
}
