//! The expiry rule applied to finished bulk batches (`model::expiry::batch_expiry`): a batch
//! done for longer than the rule's days loses its rows' records, a slice of rows per
//! transaction; its rows, their states, runs and costs stay, and each row and the batch are
//! marked with when and after how many days, so its exports and explorer say the records were
//! forgotten. A chain's steps are left to the chain, forgotten whole on `/chains`.

use std::collections::HashSet;

use crate::model::archive::ForgottenOutput;
use crate::model::bulk::SavedBatch;
use crate::model::expiry::{BatchExpiry, ForgetAfter, Freed, batch_expiry};
use crate::model::store_table::RowKey;
use crate::state::chains::kept_chains;
use crate::store::{self, BATCH_ROWS, Decided, SAVED_BATCHES, StoreError};

/// Rows read and rewritten per transaction.
const ROWS_PER_SLICE: u32 = 200;

/// Applies the rule at `now` to every finished batch this browser keeps (every workspace's):
/// dates the batches done and not dated yet, forgets the records of those done longer than the
/// days. Resolves with the batches and rows it forgot; nothing when off.
pub async fn forget_batch_records_older_than(
    rule: ForgetAfter,
    now: f64,
) -> Result<Freed, StoreError> {
    let mut freed = Freed::default();
    if rule.0.is_none() {
        return Ok(freed);
    }
    let batches = SAVED_BATCHES.all().await?.items;
    let chains = chain_batches(&batches).await?;
    for batch in batches {
        match batch_expiry(&batch, chains.contains(&batch.id), rule, now) {
            BatchExpiry::Keep => {}
            BatchExpiry::Date => {
                mark(&batch.id, |batch| {
                    batch.expiry.done_seen_at.get_or_insert(now);
                })
                .await?
            }
            BatchExpiry::Forget { after_days } => {
                let forgotten = ForgottenOutput {
                    at: now,
                    after_days,
                };
                freed.batch_rows += forget_rows(&batch.id, forgotten).await?;
                mark(&batch.id, |batch| {
                    batch.expiry.records_forgotten = Some(forgotten);
                })
                .await?;
                freed.batches += 1;
            }
        }
    }
    Ok(freed)
}

/// How many finished batches' records the rule would forget at `now`, for `/storage` to say
/// before the rule is saved (their rows are counted as they are forgotten).
pub async fn batches_to_forget(rule: ForgetAfter, now: f64) -> Result<usize, StoreError> {
    if rule.0.is_none() {
        return Ok(0);
    }
    let batches = SAVED_BATCHES.all().await?.items;
    let chains = chain_batches(&batches).await?;
    Ok(batches
        .iter()
        .filter(|batch| {
            matches!(
                batch_expiry(batch, chains.contains(&batch.id), rule, now),
                BatchExpiry::Forget { .. }
            )
        })
        .count())
}

/// The batches that are steps of a kept chain, in the workspaces of `batches`.
async fn chain_batches(batches: &[SavedBatch]) -> Result<HashSet<String>, StoreError> {
    let workspaces: HashSet<&str> = batches.iter().map(|b| b.workspace.as_str()).collect();
    let mut steps = HashSet::new();
    for workspace in workspaces {
        for chain in kept_chains(workspace).await?.started {
            steps.extend(chain.batch_ids());
        }
    }
    Ok(steps)
}

/// Changes the kept summary of `batch` as `change` does, read and written in one transaction,
/// while it is still done (a tab may have run it again meanwhile: then it is left as it is).
async fn mark(batch: &str, change: impl FnOnce(&mut SavedBatch)) -> Result<(), StoreError> {
    let key = batch.to_owned();
    store::update(vec![SAVED_BATCHES.read(&key)], |texts| {
        let text = texts.into_iter().next().flatten();
        let changes = match SAVED_BATCHES.decode_read(text.as_deref())? {
            Some(mut kept) if kept.done => {
                change(&mut kept);
                vec![SAVED_BATCHES.put_change(&key, &kept)?]
            }
            _ => Vec::new(),
        };
        Ok(Decided::to_write(changes))
    })
    .await
}

/// Forgets the records of `batch`'s finished rows, a slice at a time, each row read and written
/// in one transaction; answers how many rows lost records.
async fn forget_rows(batch: &str, forgotten: ForgottenOutput) -> Result<usize, StoreError> {
    let mut rows_forgotten = 0;
    let mut first_line = 0;
    loop {
        let slice = BATCH_ROWS
            .rows_from(batch, first_line, ROWS_PER_SLICE)
            .await?;
        let lines: Vec<usize> = slice.items.iter().map(|row| row.line).collect();
        let Some(&last) = lines.last() else {
            return Ok(rows_forgotten);
        };
        let keys: Vec<RowKey> = lines
            .iter()
            .map(|&line| RowKey {
                batch: batch.to_owned(),
                line,
            })
            .collect();
        let reads = keys.iter().map(|key| BATCH_ROWS.read(key)).collect();
        rows_forgotten += store::update(reads, |texts| {
            let mut changes = Vec::new();
            for (key, text) in keys.iter().zip(texts) {
                // A row that does not read back is left as it is.
                let Ok(Some(mut row)) = BATCH_ROWS.decode_read(text.as_deref()) else {
                    continue;
                };
                let has_records = row.records > 0 || !row.output.is_empty();
                if !row.state.is_final() || !has_records || row.records_forgotten.is_some() {
                    continue;
                }
                row.records = row.records.max(row.output.len());
                row.output = Vec::new();
                row.records_forgotten = Some(forgotten);
                changes.push(BATCH_ROWS.put_change(key, &row)?);
            }
            let count = changes.len();
            Ok(Decided {
                changes,
                answer: count,
            })
        })
        .await?;
        if slice.items.len() + slice.damaged < ROWS_PER_SLICE as usize {
            return Ok(rows_forgotten);
        }
        first_line = last + 1;
    }
}
