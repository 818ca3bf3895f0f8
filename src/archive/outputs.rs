//! The kept runs' outputs (`model::archive::OutputIndex`), within the browser's allowance: the
//! oldest go first when it is exceeded.

use api_contract::Run;

use super::run_key;
use crate::model::archive::{DEFAULT_OUTPUT_ALLOWANCE, KeptOutput, OutputIndex};
use crate::model::store_table::{RunKey, StoreKey};
use crate::store::{
    self, Change, KEPT_OUTPUTS, OUTPUT_ALLOWANCE, OUTPUT_ALLOWANCE_KEY, OUTPUT_INDEX,
    OUTPUT_INDEX_KEY, StoreError,
};

/// The reads of the outputs' index and allowance, in an update.
pub(super) fn output_reads() -> Vec<store::Read> {
    vec![
        OUTPUT_INDEX.read(&OUTPUT_INDEX_KEY),
        OUTPUT_ALLOWANCE.read(&OUTPUT_ALLOWANCE_KEY),
    ]
}

/// The index and the allowance, as [`output_reads`] read them. An index that does not read
/// back (damaged) starts again empty (its outputs are then dropped only with their workspace);
/// an allowance that does not, at the default.
fn outputs_read(values: &[Option<String>]) -> (OutputIndex, u64) {
    let value = |at: usize| values.get(at).cloned().flatten();
    let index = OUTPUT_INDEX
        .decode_read(value(0).as_deref())
        .ok()
        .flatten()
        .unwrap_or_default();
    let allowance = OUTPUT_ALLOWANCE
        .decode_read(value(1).as_deref())
        .ok()
        .flatten()
        .unwrap_or(DEFAULT_OUTPUT_ALLOWANCE);
    (index, allowance)
}

fn index_put(index: &OutputIndex) -> Result<Change, StoreError> {
    OUTPUT_INDEX.put_change(&OUTPUT_INDEX_KEY, index)
}

/// Keeps the outputs of `runs` that are final and not kept yet, within the browser's allowance
/// (the oldest outputs dropped first), in one transaction with the index.
pub async fn keep_outputs(workspace: &str, runs: &[Run]) -> Result<(), StoreError> {
    let mut finished: Vec<&Run> = runs
        .iter()
        .filter(|run| run.status.is_terminal() && !run.output.is_empty())
        .collect();
    // Oldest first, so that the index's order is the runs' (a list is newest first).
    finished.sort_by_key(|run| run.created_at);
    if workspace.is_empty() || finished.is_empty() {
        return Ok(());
    }
    let decide = |values: Vec<Option<String>>| {
        let (mut index, allowance) = outputs_read(&values);
        let mut texts = std::collections::HashMap::new();
        let new = finished
            .iter()
            .filter_map(|run| {
                let key = run_key(workspace, &run.id).text();
                if index.holds(&key) {
                    return None;
                }
                // An output that cannot be written is not kept (the run page reads it again).
                let text = KEPT_OUTPUTS.encode(&run.output).ok()?;
                let output = KeptOutput {
                    key: key.clone(),
                    bytes: text.len() as u64,
                };
                texts.insert(key, text);
                Some(output)
            })
            .collect();
        let changes = index.keep(new, allowance);
        if changes.added.is_empty() && changes.dropped.is_empty() {
            return Vec::new();
        }
        let mut writes: Vec<Change> = changes
            .added
            .into_iter()
            .filter_map(|added| {
                let json = texts.remove(&added.key)?;
                Some(Change::Put {
                    store: KEPT_OUTPUTS.store,
                    key: added.key,
                    json,
                })
            })
            .collect();
        writes.extend(changes.dropped.into_iter().map(|key| Change::Delete {
            store: KEPT_OUTPUTS.store,
            key,
        }));
        match index_put(&index) {
            Ok(put) => writes.push(put),
            // Without its index, the outputs would never be dropped: none is written.
            Err(_) => return Vec::new(),
        }
        writes
    };
    store::update(output_reads(), decide).await
}

/// What a refused [`keep_outputs`] leaves out, as `state::refusals` tells it.
pub const OUTPUTS_NOT_KEPT: &str =
    "The outputs of the finished runs shown were not kept in this browser.";

/// The output this browser kept of `run_id`, if it did.
pub async fn kept_output(
    workspace: &str,
    run_id: &str,
) -> Result<Option<Vec<serde_json::Value>>, StoreError> {
    KEPT_OUTPUTS.get(&run_key(workspace, run_id)).await
}

/// What the kept outputs take, all workspaces together, and the allowance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputSpace {
    /// Outputs kept, and their bytes.
    pub outputs: usize,
    pub bytes: u64,
    pub allowance: u64,
}

/// What the kept outputs take now.
pub async fn output_space() -> Result<OutputSpace, StoreError> {
    let mut values = Vec::new();
    for read in output_reads() {
        values.push(store::get(read.store, &read.key).await?);
    }
    let (index, allowance) = outputs_read(&values);
    Ok(OutputSpace {
        outputs: index.outputs.len(),
        bytes: index.bytes(),
        allowance,
    })
}

/// Sets the outputs' allowance (bytes), dropping the oldest outputs that no longer fit.
pub async fn set_output_allowance(allowance: u64) -> Result<(), StoreError> {
    let mut refused = Ok(());
    let decide = |values: Vec<Option<String>>| {
        let (mut index, _) = outputs_read(&values);
        let mut changes: Vec<Change> = index
            .fit(allowance)
            .iter()
            .filter_map(|key| RunKey::parse(key))
            .map(|key| KEPT_OUTPUTS.delete_change(&key))
            .collect();
        match (
            index_put(&index),
            OUTPUT_ALLOWANCE.put_change(&OUTPUT_ALLOWANCE_KEY, &allowance),
        ) {
            (Ok(index), Ok(allowance)) => changes.extend([index, allowance]),
            (Err(error), _) | (_, Err(error)) => {
                refused = Err(error);
                return Vec::new();
            }
        }
        changes
    };
    store::update(output_reads(), decide).await?;
    refused
}

/// The changes that forget `workspace`'s kept outputs, decided from the index read in the same
/// transaction.
pub(super) fn output_deletions(workspace: &str, values: &[Option<String>]) -> Vec<Change> {
    let (mut index, _) = outputs_read(values);
    let _ = index.forget_under(workspace);
    let mut changes = vec![KEPT_OUTPUTS.delete_under_change(workspace)];
    // An index that cannot be written is left as it was: its outputs of the workspace are gone,
    // and dropping them again later deletes nothing.
    changes.extend(index_put(&index));
    changes
}
