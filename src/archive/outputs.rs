//! The kept runs' outputs (`model::archive::OutputIndex`), within the browser's allowance: the
//! oldest go first when it is exceeded.

use api_contract::Run;

use super::run_key;
use crate::model::archive::{DEFAULT_OUTPUT_ALLOWANCE, ForgottenOutput, KeptOutput, OutputIndex};
use crate::model::expiry::{ForgetAfter, Freed, expired_outputs};
use crate::model::store_table::{RunKey, StoreKey};
use crate::store::{
    self, Change, Decided, KEPT_OUTPUTS, KEPT_RUNS, OUTPUT_ALLOWANCE, OUTPUT_ALLOWANCE_KEY,
    OUTPUT_INDEX, OUTPUT_INDEX_KEY, StoreError,
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
    let now = js_sys::Date::now();
    // The runs' kept copies too: the output of one the expiry rule forgot is not kept again
    // (the runs list and a run page read it from the API while the API has the run).
    let run_keys: Vec<RunKey> = finished
        .iter()
        .map(|run| run_key(workspace, &run.id))
        .collect();
    let mut reads = output_reads();
    reads.extend(run_keys.iter().map(|key| KEPT_RUNS.read(key)));
    let decide = |mut values: Vec<Option<String>>| {
        let kept_runs = values.split_off(output_reads().len());
        let forgotten: std::collections::HashSet<String> = run_keys
            .iter()
            .zip(kept_runs)
            .filter(|(_, kept)| {
                KEPT_RUNS
                    .decode_read(kept.as_deref())
                    .ok()
                    .flatten()
                    .is_some_and(|run| run.output_forgotten.is_some())
            })
            .map(|(key, _)| key.text())
            .collect();
        let (mut index, allowance) = outputs_read(&values);
        let mut texts = std::collections::HashMap::new();
        let new = finished
            .iter()
            .filter_map(|run| {
                let key = run_key(workspace, &run.id).text();
                if index.holds(&key) || forgotten.contains(&key) {
                    return None;
                }
                // An output that cannot be written is not kept (the run page reads it again).
                let text = KEPT_OUTPUTS.encode(&run.output).ok()?;
                let output = KeptOutput {
                    key: key.clone(),
                    bytes: text.len() as u64,
                    kept_at: Some(now),
                };
                texts.insert(key, text);
                Some(output)
            })
            .collect();
        let changes = index.keep(new, allowance);
        if changes.added.is_empty() && changes.dropped.is_empty() {
            return Ok(Decided::to_write(Vec::new()));
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
        // Without its index, the outputs would never be dropped: none is written.
        writes.push(index_put(&index)?);
        Ok(Decided::to_write(writes))
    };
    store::update(reads, decide).await
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
    let decide = |values: Vec<Option<String>>| {
        let (mut index, _) = outputs_read(&values);
        let mut changes: Vec<Change> = index
            .fit(allowance)
            .iter()
            .filter_map(|key| RunKey::parse(key))
            .map(|key| KEPT_OUTPUTS.delete_change(&key))
            .collect();
        changes.push(index_put(&index)?);
        changes.push(OUTPUT_ALLOWANCE.put_change(&OUTPUT_ALLOWANCE_KEY, &allowance)?);
        Ok(Decided::to_write(changes))
    };
    store::update(output_reads(), decide).await
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

/// What the expiry rule would forget at `now`, read from the index (for `/storage` to say).
pub async fn expiry_preview(rule: ForgetAfter, now: f64) -> Result<Freed, StoreError> {
    let mut values = Vec::new();
    for read in output_reads() {
        values.push(store::get(read.store, &read.key).await?);
    }
    let (index, _) = outputs_read(&values);
    let mut freed = Freed::of_outputs(&expired_outputs(&index, rule, now));
    let log = crate::request_log::bodies_older_than(rule, now).await?;
    freed.log_bodies = log.entries;
    freed.log_bytes = log.bytes;
    Ok(freed)
}

/// Kept outputs forgotten in one transaction, at most.
const FORGET_SLICE: usize = 200;

/// Applies the expiry rule at `now` (`model::expiry`), the one place it is applied: forgets the
/// kept outputs older than the rule's days, a slice of keys per transaction (the outputs, the
/// index, and each kept run marked "output forgotten", its facts and cost kept), dates the
/// outputs of unknown age as kept now, and drops the request log's bodies older than the days
/// (`request_log::forget_bodies_older_than`). Resolves with what it freed; nothing when off.
pub async fn forget_outputs_older_than(rule: ForgetAfter, now: f64) -> Result<Freed, StoreError> {
    let Some(days) = rule.0 else {
        return Ok(Freed::default());
    };
    let mut freed = Freed::default();
    loop {
        // The candidates, read first: the transaction reads their kept runs, and decides again
        // from the index it reads itself (another tab may have changed it meanwhile).
        let mut values = Vec::new();
        for read in output_reads() {
            values.push(store::get(read.store, &read.key).await?);
        }
        let (index, _) = outputs_read(&values);
        let candidates: Vec<KeptOutput> = expired_outputs(&index, rule, now)
            .into_iter()
            .take(FORGET_SLICE)
            .collect();
        let undated = index.outputs.iter().any(|o| o.kept_at.is_none());
        if candidates.is_empty() && !undated {
            break;
        }
        let keys: Vec<RunKey> = candidates
            .iter()
            .filter_map(|o| RunKey::parse(&o.key))
            .collect();
        let mut reads = output_reads();
        reads.extend(keys.iter().map(|key| KEPT_RUNS.read(key)));
        let decide = |mut values: Vec<Option<String>>| {
            let runs = values.split_off(output_reads().len());
            let (mut index, _) = outputs_read(&values);
            index.date_unknown(now);
            let expired: Vec<KeptOutput> = expired_outputs(&index, rule, now)
                .into_iter()
                .filter(|o| keys.iter().any(|key| key.text() == o.key))
                .collect();
            let gone: Vec<String> = expired.iter().map(|o| o.key.clone()).collect();
            index.remove(&gone);
            let mut changes: Vec<Change> = gone
                .iter()
                .map(|key| Change::Delete {
                    store: KEPT_OUTPUTS.store,
                    key: key.clone(),
                })
                .collect();
            for (key, kept) in keys.iter().zip(runs) {
                if !gone.contains(&key.text()) {
                    continue;
                }
                // A run that is not kept (or does not read back) has only its output to forget.
                let Some(mut run) = KEPT_RUNS.decode_read(kept.as_deref()).ok().flatten() else {
                    continue;
                };
                run.output_forgotten = Some(ForgottenOutput {
                    at: now,
                    after_days: days,
                });
                changes.push(KEPT_RUNS.put_change(key, &run)?);
            }
            changes.push(index_put(&index)?);
            Ok(Decided {
                changes,
                answer: Freed::of_outputs(&expired),
            })
        };
        let done = store::update(reads, decide).await?;
        freed.outputs += done.outputs;
        freed.output_bytes += done.output_bytes;
        // A slice that forgot nothing (its keys are not runs' keys) would come back as it is.
        if candidates.len() < FORGET_SLICE || done.outputs == 0 {
            break;
        }
    }
    let log = crate::request_log::forget_bodies_older_than(rule, now).await?;
    freed.log_bodies = log.entries;
    freed.log_bytes = log.bytes;
    Ok(freed)
}
