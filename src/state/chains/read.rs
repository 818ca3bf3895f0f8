//! A chain's steps read back from this browser's store: each step's kept batch a slice of rows
//! at a time, in line order, the rows of the step after made from it again
//! (`model::chain::steps`, deterministic). The joined dataset is read in `joined`.

use serde_json::Value;
use std::collections::HashMap;

use crate::browser::yield_to_page;
use crate::model::bulk::{BatchRow, RowState};
use crate::model::chain::progress::{SavedChain, StepPart};
use crate::model::chain::steps::NextStepRows;
use crate::store::{BATCH_ROWS, StoreError};

/// Rows read from the store at a time (as a kept batch is opened: `state::bulk`).
pub(super) const SLICE_ROWS: u32 = 50;

/// A row of a step's kept batch with the records it shows: its own, or for a repeat of an
/// earlier row, that row's.
pub struct KeptStepRow {
    pub line: usize,
    pub output: Vec<Value>,
}

/// Goes through the kept rows of step `step` of `chain` in line order, its parts' batches one
/// after the other (their lines follow on), a slice at a time, each row with at most `keep` of
/// its records, until `each` says to stop (`false`).
pub async fn through_step(
    chain: &SavedChain,
    step: usize,
    keep: usize,
    each: &mut dyn FnMut(Vec<KeptStepRow>) -> bool,
) -> Result<(), StoreError> {
    // Only the first step (the spreadsheet) has repeats: a later step has each value once.
    let repeats = step == 0;
    for part in 0..chain.parts_of(step).unwrap_or(1) {
        let batch = chain.batch_id(StepPart { step, part });
        if !through_batch(&batch, keep, repeats, each).await? {
            break;
        }
    }
    Ok(())
}

/// Goes through the kept rows of the batch `batch` in line order, a slice at a time, each row
/// with at most `keep` of its records, until `each` says to stop (`false`; then `false`).
/// With `repeats`, the rows a repeat may point to are remembered (at most `keep` records each).
async fn through_batch(
    batch: &str,
    keep: usize,
    repeats: bool,
    // A `dyn`: one copy of this loop serves every caller (its callers' closures differ).
    each: &mut dyn FnMut(Vec<KeptStepRow>) -> bool,
) -> Result<bool, StoreError> {
    let mut shown: HashMap<usize, Vec<Value>> = HashMap::new();
    let mut next_line = 0;
    loop {
        let slice: Vec<BatchRow> = BATCH_ROWS
            .rows_from(batch, next_line, SLICE_ROWS)
            .await?
            .whole()?;
        let last_slice = slice.len() < SLICE_ROWS as usize;
        let mut rows = Vec::with_capacity(slice.len());
        for row in slice {
            next_line = row.line + 1;
            let output = match (row.state, row.repeat_of) {
                (RowState::Repeat, Some(first)) => shown.get(&first).cloned().unwrap_or_default(),
                (RowState::Completed, _) => row.output.into_iter().take(keep).collect(),
                _ => Vec::new(),
            };
            if repeats && row.state == RowState::Completed {
                shown.insert(row.line, output.clone());
            }
            rows.push(KeptStepRow {
                line: row.line,
                output,
            });
        }
        if !each(rows) {
            return Ok(false);
        }
        if last_slice {
            return Ok(true);
        }
        // Between slices the page draws and answers; in a hidden tab, where the browser holds
        // timers back up to a minute, the next slice comes at once.
        yield_to_page().await;
    }
}

/// The rows of step `step` (≥ 1), made again from the kept runs of the step before: the same
/// runs give the same rows, line for line, so the same keys.
pub async fn next_step_rows(chain: &SavedChain, step: usize) -> Result<NextStepRows, String> {
    let (Some(rule), Some(next)) = (chain.plan.rule_into(step), chain.plan.steps.get(step - 1))
    else {
        return Err(format!("The chain has no step {}.", step + 1));
    };
    let mut rows = NextStepRows::new(rule, next.first_records_of_each);
    through_step(
        chain,
        step - 1,
        next.first_records_of_each as usize,
        &mut |slice| {
            for row in slice {
                rows.take_run(row.line, &row.output);
            }
            true
        },
    )
    .await
    .map_err(|error| format!("Step {step}'s results could not be read back. {error}"))?;
    Ok(rows)
}
