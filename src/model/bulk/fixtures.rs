//! What the bulk model's tests share: an action's form, a batch's rows read from a file, and a
//! run as the API would answer it.

use api_contract::ActionId;
use serde_json::Value;

use super::checks::check_rows;
use super::mapping::ColumnMapping;
use super::rows::BatchRow;
use super::table::read_table;
use crate::model::form::FormModel;

/// The form of `action` as the sandbox's registry describes it.
pub(super) fn form(action: ActionId) -> FormModel {
    FormModel::from_entry(&action.sandbox_registry_entry())
}

/// A batch's rows as the bulk page makes them from a file: its header and its rows, read,
/// mapped by header and checked.
pub(super) struct SampleBatch {
    pub headers: Vec<String>,
    pub rows: Vec<BatchRow>,
}

/// The rows of `file` (a header line, then the rows) for `action`, each mapped by its header.
pub(super) fn sample_batch(action: ActionId, file: &str) -> SampleBatch {
    let form = form(action);
    let table = read_table(file).unwrap();
    let mapping = ColumnMapping::by_header(&form, &table.headers);
    let rows = check_rows(&form, &mapping, &table)
        .into_iter()
        .map(BatchRow::new)
        .collect();
    SampleBatch {
        headers: table.headers,
        rows,
    }
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
