//! A chain's joined dataset read back from this browser's store ([`JoinedRows`]): one row per
//! row of its last step, each with one joined record per record of its run and path up to the
//! spreadsheet (`model::chain::join`), gone through in line order or read by line; and the same
//! rows explored where they are kept ([`JoinedRowsKept`], a `state::bulk::RowsKept`), for a
//! chain whose joined records are more than a page holds.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use leptos::prelude::*;
use serde_json::Value;

use super::Chains;
use super::read::{SLICE_ROWS, next_step_rows};
use crate::browser::yield_to_page;
use crate::model::bulk::{BatchRow, RowState};
use crate::model::chain::join::{
    ChainJoin, FirstStepRow, LaterStepRow, RowsByLine, joined_columns,
};
use crate::model::chain::progress::{SavedChain, StepPart};
use crate::model::chain::steps::NextStepRows;
use crate::model::explore::HELD_AT_MOST;
use crate::model::output::ColumnsFound;
use crate::model::presenter::{MaskedRecords, Masker};
use crate::model::record_order::RecordPlaces;
use crate::model::store_table::RowKey;
use crate::state::bulk::{ExploredRecords, KeptRecords, LocalFuture, RecordsToExplore, RowsKept};
use crate::store::{BATCH_ROWS, SAVED_BATCHES, StoreError};

/// Rows of each step above the last kept in memory while the joined rows are read: the last
/// step's rows come in line order, and so, mostly, do the rows they were reached from.
const ROWS_ABOVE_KEPT: usize = 2_000;

/// Said when the chain whose joined rows are explored is no longer the one shown.
const CHAIN_CLOSED: &str = "The chain was closed while its joined rows were being read.";

/// A chain's joined dataset up to its step `last` (≥ 1: the last step that has a batch).
///
/// What it holds does not grow with the records above the last step: each later step's rows
/// are made again once, as it is opened (each value and the records it was reached from, no
/// records); then for each slice of the last step's rows, the rows above that the slice reaches
/// are read from the store by line, at most the records the next step took of each, a bounded
/// number of them kept from one slice to the next.
pub struct JoinedRows {
    chain: SavedChain,
    last: usize,
    /// The spreadsheet's headers.
    headers: Vec<String>,
    /// `made[k]`: step k + 1's rows, each with the records of step k it was reached from.
    made: Vec<NextStepRows>,
}

/// A row of the last step with its joined records (none when its run returned none).
pub struct JoinedRow {
    pub line: usize,
    pub records: Vec<Value>,
}

impl JoinedRows {
    /// The joined dataset of `chain` up to its step `last`: the steps after the first made
    /// again from the kept runs.
    pub async fn open(chain: SavedChain, last: usize) -> Result<JoinedRows, String> {
        let headers = SAVED_BATCHES
            .get(&chain.batch_id(StepPart::first_of(0)))
            .await
            .map_err(|error| unreadable(0, error))?
            .map(|summary| summary.headers)
            .unwrap_or_default();
        let mut made: Vec<NextStepRows> = Vec::with_capacity(last);
        for step in 1..=last {
            made.push(next_step_rows(&chain, step).await?);
        }
        Ok(JoinedRows {
            chain,
            last,
            headers,
            made,
        })
    }

    /// Goes through the last step's rows in line order (its parts' batches one after the
    /// other), a slice at a time, each with its joined records, until `each` says to stop.
    pub async fn through(
        &self,
        each: &mut dyn FnMut(Vec<JoinedRow>) -> bool,
    ) -> Result<(), String> {
        let mut above = RowsAbove::new(&self.chain, self.last);
        for part in 0..self.chain.parts_of(self.last).unwrap_or(1) {
            let batch = self.chain.batch_id(StepPart {
                step: self.last,
                part,
            });
            let mut next_line = 0;
            loop {
                let slice: Vec<BatchRow> = BATCH_ROWS
                    .rows_from(&batch, next_line, SLICE_ROWS)
                    .await
                    .and_then(|listed| listed.whole())
                    .map_err(|error| unreadable(self.last, error))?;
                let last_slice = slice.len() < SLICE_ROWS as usize;
                if let Some(row) = slice.last() {
                    next_line = row.line + 1;
                }
                let rows: Vec<LaterStepRow> = slice
                    .into_iter()
                    .map(|row| self.last_step_row(row))
                    .collect();
                if !each(self.joined(&mut above, &rows).await?) {
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

    /// The joined rows to explore, gone through once: up to `HELD_AT_MOST` records are held in
    /// the page (masked as they are read when `masker` is on); more are left in the store and
    /// explored there by their places (the columns those of the first records), while `chains`
    /// shows the chain.
    pub async fn explore(self, chains: Chains, masker: Masker) -> Result<ExploredRecords, String> {
        let mut held: Vec<Value> = Vec::new();
        let mut masked: Vec<Value> = Vec::new();
        let mut columns = ColumnsFound::default();
        let mut lines: Vec<usize> = Vec::new();
        let mut records_per_row: Vec<usize> = Vec::new();
        let mut total = 0;
        self.through(&mut |slice| {
            for row in slice {
                lines.push(row.line);
                records_per_row.push(row.records.len());
                total += row.records.len();
                if total <= HELD_AT_MOST {
                    columns.add(&row.records);
                    if masker.is_on() {
                        masked.extend(row.records.iter().map(|record| masker.json(record)));
                    }
                    held.extend(row.records);
                } else if !held.is_empty() || columns.columns.is_empty() {
                    // Too many to hold: the records go back to the store; the first ones'
                    // columns stay.
                    columns.add(&row.records);
                    held = Vec::new();
                    masked = Vec::new();
                }
            }
            true
        })
        .await?;
        let records = if total <= HELD_AT_MOST {
            RecordsToExplore::Held {
                records: held.into(),
                masked: masker.is_on().then(|| MaskedRecords {
                    by: masker,
                    records: masked.into(),
                }),
            }
        } else {
            let places = RecordPlaces::new(records_per_row);
            let rows = JoinedRowsKept {
                rows: self,
                lines,
                chains,
            };
            RecordsToExplore::Kept(KeptRecords::new(rows, places, masker))
        };
        Ok(ExploredRecords {
            records,
            columns: joined_columns(&columns.columns),
            total,
        })
    }

    /// The joined records of the last step's rows on `lines`, in that order.
    pub async fn on_lines(&self, lines: &[usize]) -> Result<Vec<Vec<Value>>, String> {
        let keys: Vec<RowKey> = lines
            .iter()
            .map(|&line| RowKey {
                batch: self
                    .chain
                    .batch_id(self.chain.part_of_line(self.last, line)),
                line,
            })
            .collect();
        let mut read: HashMap<usize, BatchRow> = BATCH_ROWS
            .get_many(&keys)
            .await
            .and_then(|listed| listed.whole())
            .map_err(|error| unreadable(self.last, error))?
            .into_iter()
            .map(|row| (row.line, row))
            .collect();
        let rows = lines
            .iter()
            .map(|line| {
                read.remove(line)
                    .map(|row| self.last_step_row(row))
                    .ok_or_else(|| {
                        format!(
                            "Line {line} of step {} is no longer kept in this browser.",
                            self.last + 1
                        )
                    })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut above = RowsAbove::new(&self.chain, self.last);
        let joined = self.joined(&mut above, &rows).await?;
        Ok(joined.into_iter().map(|row| row.records).collect())
    }

    /// A kept row of the last step as the join reads it: a row that did not complete has no
    /// records.
    fn last_step_row(&self, row: BatchRow) -> LaterStepRow {
        LaterStepRow {
            parents: parents_of(&self.made[self.last - 1], row.line),
            line: row.line,
            output: match row.state {
                RowState::Completed => row.output,
                _ => Vec::new(),
            },
            run_id: row.run_id,
        }
    }

    /// `rows` of the last step joined with every row above that they reach.
    async fn joined(
        &self,
        above: &mut RowsAbove<'_>,
        rows: &[LaterStepRow],
    ) -> Result<Vec<JoinedRow>, String> {
        let join = above
            .join_for(&self.headers, &self.made, rows)
            .await
            .map_err(|(step, error)| unreadable(step, error))?;
        Ok(rows
            .iter()
            .map(|row| JoinedRow {
                line: row.line,
                records: join.joined(row),
            })
            .collect())
    }
}

/// A chain's joined rows explored where they are kept: the last step's rows by their index in
/// line order (`lines`: each one's line, as the pass that opened them met them).
pub struct JoinedRowsKept {
    rows: JoinedRows,
    lines: Vec<usize>,
    chains: Chains,
}

impl RowsKept for JoinedRowsKept {
    fn read(&self, rows: Range<usize>) -> LocalFuture<'_, Result<Vec<Vec<Value>>, String>> {
        let lines = &self.lines[rows.start.min(self.lines.len())..rows.end.min(self.lines.len())];
        Box::pin(self.rows.on_lines(lines))
    }

    fn through<'a>(
        &'a self,
        each: &'a mut dyn FnMut(Vec<Vec<Value>>) -> bool,
    ) -> LocalFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.rows
                .through(&mut |slice| each(slice.into_iter().map(|row| row.records).collect()))
                .await
        })
    }

    fn gone(&self) -> Option<&'static str> {
        let id = &self.rows.chain.id;
        let shown = self
            .chains
            .shown
            .try_with_untracked(|s| s.as_ref().is_some_and(|s| s.chain.id == *id))
            .unwrap_or(false);
        (!shown).then_some(CHAIN_CLOSED)
    }
}

fn unreadable(step: usize, error: StoreError) -> String {
    format!(
        "Step {}'s results could not be read back. {error}",
        step + 1
    )
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
