//! A chain's steps read back from this browser's store: each step's kept batch a slice of rows
//! at a time, in line order, the rows of the step after made from it again
//! (`model::chain::steps`, deterministic), and the joined dataset (`model::chain::join`) a
//! slice of the last step at a time.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

use crate::browser::yield_to_page;
use crate::model::bulk::{BatchRow, RowState};
use crate::model::chain::join::{ChainJoin, FirstStepRow, LaterStepRow, RowsByLine};
use crate::model::chain::progress::{SavedChain, StepPart};
use crate::model::chain::steps::NextStepRows;
use crate::model::store_table::RowKey;
use crate::store::{BATCH_ROWS, SAVED_BATCHES, StoreError};

/// Rows read from the store at a time (as a kept batch is opened: `state::bulk`).
const SLICE_ROWS: u32 = 50;

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

/// Rows of each step above the last kept in memory while the joined rows are read: the last
/// step's rows come in line order, and so, mostly, do the rows they were reached from.
const ROWS_ABOVE_KEPT: usize = 2_000;

/// Goes through the joined dataset of the chain, up to its step `last` (≥ 1: the last step
/// that has a batch), a slice of that step's rows at a time, until `each` says to stop.
///
/// What it holds does not grow with the records above the last step: each later step's
/// rows are made again first (each value and the records it was reached from, no records),
/// then for each slice of the last step the rows above it that the slice reaches are read
/// from the store by line, at most the records the next step took of each, a bounded number
/// of them kept from one slice to the next.
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
    // made[k]: step k + 1's rows, each with the records of step k it was reached from.
    let mut made: Vec<NextStepRows> = Vec::with_capacity(last);
    for step in 1..=last {
        made.push(next_step_rows(chain, step).await?);
    }
    let mut above = RowsAbove::new(chain, last);
    for part in 0..chain.parts_of(last).unwrap_or(1) {
        let batch = chain.batch_id(StepPart { step: last, part });
        let mut next_line = 0;
        loop {
            let slice: Vec<BatchRow> = BATCH_ROWS
                .rows_from(&batch, next_line, SLICE_ROWS)
                .await
                .and_then(|listed| listed.whole())
                .map_err(|error| unreadable(last, error))?;
            let last_slice = slice.len() < SLICE_ROWS as usize;
            let rows: Vec<LaterStepRow> = slice
                .into_iter()
                .map(|row| {
                    next_line = row.line + 1;
                    LaterStepRow {
                        parents: parents_of(&made[last - 1], row.line),
                        line: row.line,
                        output: match row.state {
                            RowState::Completed => row.output,
                            _ => Vec::new(),
                        },
                        run_id: row.run_id,
                    }
                })
                .collect();
            let join = above
                .join_for(&headers, &made, &rows)
                .await
                .map_err(|(step, error)| unreadable(step, error))?;
            let records: Vec<Value> = rows.iter().flat_map(|row| join.joined(row)).collect();
            if !each(records) {
                return Ok(());
            }
            if last_slice {
                break;
            }
            yield_to_page().await;
        }
    }
    Ok(())
}

/// A row of a step above the last, as the joined rows show it: its cells (the first step's),
/// its run, and the records of it that fed the next step (a repeat: its first row's).
#[derive(Clone)]
struct RowAbove {
    cells: Vec<String>,
    run_id: Option<String>,
    output: Vec<Value>,
}

/// The rows of the steps above the last, read from the store by line as slices of the last
/// step reach them, and kept a while (at most [`ROWS_ABOVE_KEPT`] a step).
struct RowsAbove<'a> {
    chain: &'a SavedChain,
    /// By step (0 to the last's − 1): rows by line, and the order they were read in.
    kept: Vec<RowsByLine<RowAbove>>,
}

impl<'a> RowsAbove<'a> {
    fn new(chain: &'a SavedChain, last: usize) -> RowsAbove<'a> {
        RowsAbove {
            chain,
            kept: (0..last)
                .map(|_| RowsByLine::new(ROWS_ABOVE_KEPT))
                .collect(),
        }
    }

    /// The join of the last step's `rows` with every row above that they reach.
    async fn join_for(
        &mut self,
        headers: &[String],
        made: &[NextStepRows],
        rows: &[LaterStepRow],
    ) -> Result<ChainJoin, (usize, StoreError)> {
        let last = self.kept.len();
        let mut reached: BTreeSet<usize> = rows
            .iter()
            .flat_map(|row| row.parents.iter().map(|parent| parent.line))
            .collect();
        let mut middle: Vec<Vec<LaterStepRow>> = Vec::new();
        let mut first: Vec<FirstStepRow> = Vec::new();
        for step in (0..last).rev() {
            let lines: Vec<usize> = reached.iter().copied().collect();
            self.read(step, &lines)
                .await
                .map_err(|error| (step, error))?;
            let kept = &self.kept[step];
            reached = BTreeSet::new();
            if step == 0 {
                first = lines
                    .iter()
                    .filter_map(|line| {
                        let row = kept.get(*line)?;
                        Some(FirstStepRow {
                            line: *line,
                            cells: row.cells.clone(),
                            run_id: row.run_id.clone(),
                            output: row.output.clone(),
                        })
                    })
                    .collect();
            } else {
                let rows: Vec<LaterStepRow> = lines
                    .iter()
                    .filter_map(|line| {
                        let row = kept.get(*line)?;
                        Some(LaterStepRow {
                            parents: parents_of(&made[step - 1], *line),
                            line: *line,
                            run_id: row.run_id.clone(),
                            output: row.output.clone(),
                        })
                    })
                    .collect();
                reached.extend(
                    rows.iter()
                        .flat_map(|row| row.parents.iter().map(|parent| parent.line)),
                );
                middle.insert(0, rows);
            }
        }
        Ok(ChainJoin::new(headers.to_vec(), first, middle))
    }

    /// Reads the rows of step `step` on `lines` that are not kept yet (a repeat of the first
    /// step with its first row's run), keeping at most the records the next step took of each.
    async fn read(&mut self, step: usize, lines: &[usize]) -> Result<(), StoreError> {
        let wanted: Vec<usize> = lines
            .iter()
            .copied()
            .filter(|&line| !self.kept[step].contains(line))
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        self.kept[step].make_room(lines, wanted.len());
        let keep = self.chain.plan.steps[step].first_records_of_each as usize;
        let rows = self.rows_on(step, &wanted).await?;
        // A repeat of the first step shows its first row's records.
        let firsts: Vec<usize> = rows
            .iter()
            .filter(|row| row.state == RowState::Repeat)
            .filter_map(|row| row.repeat_of)
            .collect();
        let firsts: HashMap<usize, BatchRow> = self
            .rows_on(step, &firsts)
            .await?
            .into_iter()
            .map(|row| (row.line, row))
            .collect();
        for row in rows {
            let shown = match (row.state, row.repeat_of) {
                (RowState::Repeat, Some(first)) => firsts.get(&first),
                (RowState::Completed, _) => Some(&row),
                _ => None,
            };
            let above = RowAbove {
                run_id: shown.map_or(row.run_id.clone(), |shown| shown.run_id.clone()),
                output: shown
                    .filter(|shown| shown.state == RowState::Completed)
                    .map(|shown| shown.output.iter().take(keep).cloned().collect())
                    .unwrap_or_default(),
                cells: row.cells,
            };
            self.kept[step].insert(row.line, above);
        }
        Ok(())
    }

    /// The kept rows of step `step` on `lines`, each from the batch of its part.
    async fn rows_on(&self, step: usize, lines: &[usize]) -> Result<Vec<BatchRow>, StoreError> {
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<RowKey> = lines
            .iter()
            .map(|&line| RowKey {
                batch: self.chain.batch_id(self.chain.part_of_line(step, line)),
                line,
            })
            .collect();
        BATCH_ROWS.get_many(&keys).await?.whole()
    }
}

/// The records of the step before that the row on `line` of a later step was reached from (its
/// row `line − 2`, as `NextStepRows::table` numbers them).
fn parents_of(rows: &NextStepRows, line: usize) -> Vec<crate::model::chain::steps::RecordRef> {
    line.checked_sub(2)
        .and_then(|index| rows.rows().get(index))
        .map(|row| row.parents.clone())
        .unwrap_or_default()
}
