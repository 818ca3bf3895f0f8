//! What the bulk model's tests share: an action's form, and a run as the API would answer it.

use api_contract::ActionId;
use serde_json::Value;

use crate::model::form::FormModel;

/// The form of `action` as the sandbox's registry describes it.
pub(super) fn form(action: ActionId) -> FormModel {
    FormModel::from_entry(&action.sandbox_registry_entry())
}

/// A run of `status` that charged `credits` and returned `records` records (each with a `name`
/// that a spreadsheet would read as a formula), as the API answers it.
pub(super) fn run(
    status: api_contract::RunStatus,
    credits: u64,
    records: usize,
) -> api_contract::Run {
    serde_json::from_value(serde_json::json!({
        "id": "r1", "action": "premium-search-people", "status": status.as_str(),
        "output": (0..records).map(|i| serde_json::json!({ "name": format!("=p{i}") })).collect::<Vec<_>>(),
        "credits_used": credits, "credits_reserved": 0,
        "created_at": "2026-11-22T10:00:00.000Z", "completed_at": null,
        "completeness": { "has_more": false, "scope": "single_page" },
        "error": if status == api_contract::RunStatus::Failed { serde_json::json!({ "code": "upstream_timeout", "message": "slow" }) } else { Value::Null },
    }))
    .unwrap()
}
