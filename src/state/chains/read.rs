//! A chain's steps read back from this browser's store: each step's kept batch a slice of rows
//! at a time, in line order, the rows of the step after made from it again
//! (`model::chain::steps`, deterministic), and the joined dataset (`model::chain::join`) a
//! slice of the last step at a time.

use serde_json::Value;
use std::collections::HashMap;

use crate::browser::yield_to_page;
use crate::model::bulk::{BatchRow, RowState};
use crate::model::chain::join::{ChainJoin, FirstStepRow, LaterStepRow};
use crate::model::chain::progress::{SavedChain, StepPart};
use crate::model::chain::steps::NextStepRows;
use crate::store::{BATCH_ROWS, SAVED_BATCHES, StoreError};

/// Rows read from the store at a time (as a kept batch is opened: `state::bulk`).
const SLICE_ROWS: u32 = 50;

/// A row of a step's kept batch with the records it shows: its own, or for a repeat of an
/// earlier row, that row's.
pub struct KeptStepRow {
    pub line: usize,
    pub cells: Vec<String>,
    pub run_id: Option<String>,
    pub output: Vec<Value>,
}

/// What an earlier row showed, for the rows that repeat it.
struct Shown {
    run_id: Option<String>,
    output: Vec<Value>,
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
    for part in 0..chain.parts_of(step).unwrap_or(1) {
        let batch = chain.batch_id(StepPart { step, part });
        if !through_batch(&batch, keep, each).await? {
            break;
        }
    }
    Ok(())
}

/// Goes through the kept rows of the batch `batch` in line order, a slice at a time, each row
/// with at most `keep` of its records, until `each` says to stop (`false`; then `false`).
/// With `keep` bounded, the rows a repeat may point to are remembered (at most `keep` records
/// each); a later step has no repeats (each value once), so its last pass keeps nothing back.
async fn through_batch(
    batch: &str,
    keep: usize,
    // A `dyn`: one copy of this loop serves every caller (its callers' closures differ).
    each: &mut dyn FnMut(Vec<KeptStepRow>) -> bool,
) -> Result<bool, StoreError> {
    let remember = keep != usize::MAX;
    let mut shown: HashMap<usize, Shown> = HashMap::new();
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
            let (run_id, output) = match (row.state, row.repeat_of) {
                (RowState::Repeat, Some(first)) => shown
                    .get(&first)
                    .map(|s| (s.run_id.clone(), s.output.clone()))
                    .unwrap_or_default(),
                (RowState::Completed, _) => {
                    let output: Vec<Value> = row.output.into_iter().take(keep).collect();
                    (row.run_id, output)
                }
                _ => (row.run_id, Vec::new()),
            };
            if remember && row.state == RowState::Completed {
                shown.insert(
                    row.line,
                    Shown {
                        run_id: run_id.clone(),
                        output: output.clone(),
                    },
                );
            }
            rows.push(KeptStepRow {
                line: row.line,
                cells: row.cells,
                run_id,
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

/// Goes through the joined dataset of the chain, up to its step `last` (≥ 1: the last step
/// that has a batch), a slice of that step's rows at a time, until `each` says to stop.
/// The steps above it are read first (at most the records the next step took of each run).
pub async fn through_joined(
    chain: &SavedChain,
    last: usize,
    each: &mut dyn FnMut(Vec<Value>) -> bool,
) -> Result<(), String> {
    let unreadable = |step: usize, error: StoreError| {
        format!(
            "Step {}'s results could not be read back. {error}",
            step + 1
        )
    };
    let headers = SAVED_BATCHES
        .get(&chain.batch_id(StepPart::first_of(0)))
        .await
        .map_err(|error| unreadable(0, error))?
        .map(|summary| summary.headers)
        .unwrap_or_default();
    let mut first: Vec<FirstStepRow> = Vec::new();
    let mut middle: Vec<Vec<LaterStepRow>> = Vec::new();
    let mut feeding: Option<NextStepRows> = None;
    for step in 0..last {
        let fed = chain.plan.steps[step].first_records_of_each;
        let rule = chain
            .plan
            .rule_into(step + 1)
            .ok_or_else(|| format!("The chain has no step {}.", step + 2))?;
        let mut next = NextStepRows::new(rule, fed);
        let parents = feeding.take();
        let mut later = Vec::new();
        through_step(chain, step, fed as usize, &mut |slice| {
            for row in slice {
                next.take_run(row.line, &row.output);
                match &parents {
                    None => first.push(FirstStepRow {
                        line: row.line,
                        cells: row.cells,
                        run_id: row.run_id,
                        output: row.output,
                    }),
                    Some(parents) => later.push(LaterStepRow {
                        parents: parents_of(parents, row.line),
                        line: row.line,
                        run_id: row.run_id,
                        output: row.output,
                    }),
                }
            }
            true
        })
        .await
        .map_err(|error| unreadable(step, error))?;
        if parents.is_some() {
            middle.push(later);
        }
        feeding = Some(next);
    }
    let parents = feeding.expect("a chain joins from its second step on");
    let join = ChainJoin::new(headers, first, middle);
    through_step(chain, last, usize::MAX, &mut |slice| {
        let mut records = Vec::new();
        for row in slice {
            records.extend(join.joined(&LaterStepRow {
                parents: parents_of(&parents, row.line),
                line: row.line,
                run_id: row.run_id,
                output: row.output,
            }));
        }
        each(records)
    })
    .await
    .map_err(|error| unreadable(last, error))
}

/// The records of the step before that the row on `line` of a later step was reached from (its
/// row `line − 2`, as `NextStepRows::table` numbers them).
fn parents_of(rows: &NextStepRows, line: usize) -> Vec<crate::model::chain::steps::RecordRef> {
    line.checked_sub(2)
        .and_then(|index| rows.rows().get(index))
        .map(|row| row.parents.clone())
        .unwrap_or_default()
}
