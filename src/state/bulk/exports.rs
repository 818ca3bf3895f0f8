//! The batch's merged export and its records to explore, read back a slice at a time, and
//! kept batches read back from this browser's store.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use leptos::prelude::*;

use super::Bulk;
use super::kept_records::KeptRecords;
use crate::browser::{FileParts, yield_to_page};
use crate::model::bulk::{
    BatchRow, ExportFormat, MergedExport, SameRecord, SavedBatch, add_output_columns,
};
use crate::model::bulk_view::row_at_line;
use crate::model::expiry::batch_records_forgotten;
use crate::model::explore::HELD_AT_MOST;
use crate::model::output::ColumnsFound;
use crate::model::presenter::{MaskedRecords, Masker};
use crate::model::slice_pace::SlicePace;
use crate::runner::BatchToRun;
use crate::store::{self, BATCH_ROWS, SAVED_BATCHES, StoreError};

/// Rows a kept batch being opened reads from the store at a time (its rows' records are not
/// known before they are read, so the pace of `SlicePace` cannot size these slices): a slice of
/// 100 rows with 100 records each took 55 to 90 ms to read and write (`bench/bulk.mjs 1000
/// large`); half that keeps each step nearer the 50 ms a page can take without the person
/// feeling it.
const OPENED_SLICE_ROWS: usize = 50;

/// How often an export's progress is shown, in milliseconds.
const PROGRESS_EVERY_MS: f64 = 250.0;

/// Why an export, a reading or an exploration stopped when the batch shown changed under it.
pub(super) const BATCH_CLOSED: &str = "The batch was closed while its records were being read.";

/// The first row of `rows` whose records the expiry rule forgot, as the reason they cannot be
/// read.
fn forgotten_in<'a>(rows: impl IntoIterator<Item = &'a BatchRow>) -> Result<(), String> {
    match rows.into_iter().find_map(|row| row.records_forgotten) {
        Some(forgotten) => Err(batch_records_forgotten(forgotten)),
        None => Ok(()),
    }
}

/// The records `row` shows: its own, or its first row's when it repeats one (a finished row's
/// records may have left memory: `records` counts them).
pub(super) fn records_shown(rows: &[BatchRow], row: &BatchRow) -> usize {
    let shown = row
        .repeat_of
        .and_then(|line| row_at_line(rows, line))
        .unwrap_or(row);
    shown.records.max(shown.output.len())
}

/// How far an export has come, for the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportProgress {
    pub rows_done: usize,
    /// Rows to go through (twice the batch's for CSV: once for the columns, once to write).
    pub rows: usize,
}

/// What a finished export did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportDone {
    /// Records left out because an earlier one was the same record.
    pub duplicates_removed: usize,
}

/// The batches this browser keeps for a workspace, newest first.
pub async fn saved_batches(workspace: &str) -> Result<Vec<SavedBatch>, StoreError> {
    let mut list: Vec<SavedBatch> = SAVED_BATCHES
        .all()
        .await?
        .items
        .into_iter()
        .filter(|b| b.workspace == workspace)
        .collect();
    list.sort_by(|a, b| b.created_at.total_cmp(&a.created_at));
    Ok(list)
}

/// A batch's records as opened to explore them.
#[derive(Clone)]
pub struct ExploredRecords {
    /// The records, held or kept.
    pub records: RecordsToExplore,
    /// Their columns (`output::columns`) as found so far: all of them when held, those of the
    /// first records read when kept (the explorer adds the others as it meets them).
    pub columns: Vec<String>,
    /// How many records the batch holds.
    pub total: usize,
}

/// Where a batch's records are explored from.
#[derive(Clone)]
pub enum RecordsToExplore {
    /// Held in the page, read a slice at a time (a batch of up to `HELD_AT_MOST` records), and
    /// the same records masked when they were read in presenter mode (masked with each slice
    /// read: 10,000 records took 0.8 s in one task with the CPU four times slower).
    Held {
        records: Arc<[serde_json::Value]>,
        masked: Option<MaskedRecords>,
    },
    /// Left in this browser's store (a larger batch): the explorer reads them as it needs them.
    Kept(KeptRecords),
}

impl Bulk {
    /// Writes the merged export of the batch shown into a file, a slice of rows at a time: the
    /// records of finished rows are read back from this browser's store (they left memory when
    /// they were saved), so a large batch is never one string; `progress` follows it.
    pub async fn export(
        &self,
        format: ExportFormat,
        // Each record written once, as this tells (`None`: every record).
        same_record: Option<SameRecord>,
        // The environment's file label (`Environment::file_name`), first in the file's name.
        file_prefix: &str,
        progress: RwSignal<Option<ExportProgress>>,
    ) -> Result<ExportDone, String> {
        let Some((id, action, headers, total)) = self.batch.with_untracked(|b| {
            b.as_ref()
                .map(|e| (e.id.clone(), e.action, e.headers.clone(), e.rows().len()))
        }) else {
            return Ok(ExportDone::default());
        };
        let passes = if format == ExportFormat::Csv { 2 } else { 1 };
        let mut done = 0;
        let mut last_shown = f64::NEG_INFINITY;
        // Shown a few times a second, not at every slice: each change is a frame to draw.
        let mut advance = |rows: usize| {
            done += rows;
            let now = js_sys::Date::now();
            if now - last_shown >= PROGRESS_EVERY_MS {
                last_shown = now;
                progress.set(Some(ExportProgress {
                    rows_done: done,
                    rows: total * passes,
                }));
            }
        };
        advance(0);
        let result = async {
            let mut columns = Vec::new();
            if format == ExportFormat::Csv {
                self.through_rows(&id, |rows| {
                    add_output_columns(&mut columns, &rows);
                    advance(rows.len());
                    Ok(true)
                })
                .await?;
            }
            let mut export = MergedExport::new(format, headers, columns);
            if let Some(same_record) = same_record {
                export = export.without_duplicates(same_record);
            }
            let no_room = || "This browser could not hold the export.".to_owned();
            let mut file = FileParts::new(format.mime()).ok_or_else(no_room)?;
            file.push(&export.start()).ok_or_else(no_room)?;
            self.through_rows(&id, |rows| {
                file.push(&export.rows(&rows)).ok_or_else(no_room)?;
                advance(rows.len());
                Ok(true)
            })
            .await?;
            file.push(&export.finish()).ok_or_else(no_room)?;
            file.download(&format!(
                "{file_prefix}bulk-{}-{}.{}",
                action.as_str(),
                &id[..8.min(id.len())],
                format.extension()
            ));
            Ok(ExportDone {
                duplicates_removed: export.duplicates_removed(),
            })
        }
        .await;
        progress.set(None);
        result
    }

    /// The batch's records to explore (`BatchRow::into_explored_records`): up to `HELD_AT_MOST`
    /// records are read into the page a slice of rows at a time (masked as each slice is read
    /// when `masker` is on); a larger batch's are left in the store, and only the first slice
    /// is read, for their columns.
    pub async fn explore_records(&self, masker: Masker) -> Result<ExploredRecords, String> {
        let Some(kept) = self.kept_records(masker) else {
            return Err(BATCH_CLOSED.to_owned());
        };
        let total = kept.total();
        let mut columns = ColumnsFound::default();
        if total > HELD_AT_MOST {
            kept.through(|first| {
                columns.add(first);
                false
            })
            .await?;
            return Ok(ExploredRecords {
                records: RecordsToExplore::Kept(kept),
                columns: columns.columns,
                total,
            });
        }
        // Read as they are, and masked here, slice by slice.
        let mut records = Vec::new();
        let mut masked = Vec::new();
        kept.unmasked()
            .through(|slice| {
                columns.add(slice);
                if masker.is_on() {
                    masked.extend(slice.iter().map(|record| masker.json(record)));
                }
                records.extend_from_slice(slice);
                true
            })
            .await?;
        Ok(ExploredRecords {
            records: RecordsToExplore::Held {
                records: records.into(),
                masked: masker.is_on().then(|| MaskedRecords {
                    by: masker,
                    records: masked.into(),
                }),
            },
            columns: columns.columns,
            total,
        })
    }

    /// Goes through the rows of `batch` in line order, a slice at a time, each with its records
    /// (`export_slice`), giving each slice to `each` until it says to stop (`false`) or fails.
    /// The slices are sized to take about the same time on any computer (`SlicePace`), and the
    /// page draws and answers between them.
    pub(super) async fn through_rows(
        &self,
        batch: &str,
        mut each: impl FnMut(Vec<BatchRow>) -> Result<bool, String>,
    ) -> Result<(), String> {
        let mut pace = SlicePace::default();
        let mut start = 0;
        loop {
            let began = js_sys::Date::now();
            let Some(take) = self.rows_ahead(batch, start, &pace) else {
                return Err(BATCH_CLOSED.to_owned());
            };
            if take == 0 {
                return Ok(());
            }
            let mut waited = 0.0;
            let rows = self.export_slice(batch, start, take, &mut waited).await?;
            let records = rows.iter().map(|row| row.output.len()).sum();
            let go_on = each(rows)?;
            // The page's own time, without the wait for the store's answer: counting the wait
            // kept the slices small, and a reading took several more store round trips.
            pace.took(records, js_sys::Date::now() - began - waited);
            if !go_on {
                return Ok(());
            }
            start += take;
            // Let the page draw and answer between slices (at once in a hidden tab, where a
            // timer may wait a minute).
            yield_to_page().await;
        }
    }

    /// How many rows from index `start` on the next slice takes at `pace` (0: none left);
    /// `None` when `batch` is no longer the batch shown.
    fn rows_ahead(&self, batch: &str, start: usize, pace: &SlicePace) -> Option<usize> {
        self.batch.with_untracked(|b| {
            b.as_ref().filter(|e| e.id == batch).map(|e| {
                let rows = e.rows();
                pace.rows_to_take(
                    rows[start.min(rows.len())..]
                        .iter()
                        .map(|row| records_shown(rows, row)),
                )
            })
        })
    }

    /// The `count` rows from index `start` on (a slice), with their records: from memory where
    /// they still are, else from this browser's store; adds to `waited` the milliseconds spent
    /// waiting for the store's answer.
    pub(super) async fn export_slice(
        &self,
        batch: &str,
        start: usize,
        count: usize,
        waited: &mut f64,
    ) -> Result<Vec<BatchRow>, String> {
        let mut rows: Vec<BatchRow> = self
            .batch
            .with_untracked(|b| {
                b.as_ref().filter(|e| e.id == batch).map(|e| {
                    let rows = e.rows();
                    rows[start.min(rows.len())..(start + count).min(rows.len())].to_vec()
                })
            })
            .ok_or_else(|| BATCH_CLOSED.to_owned())?;
        forgotten_in(&rows)?;
        let kept_only = |r: &BatchRow| r.output.is_empty() && r.records > 0;
        // A repeat row shows its first row's records, whether or not a row of the slice needs
        // the store (a slice of repeats alone needs none of its own).
        let (Some(first), true) = (rows.first(), rows.iter().any(kept_only)) else {
            return self.with_repeats_resolved(batch, rows).await;
        };
        let unreadable =
            || "Some rows' records could not be read back from this browser's storage.".to_owned();
        let asked = js_sys::Date::now();
        let texts = store::batch_rows_from(batch, first.line, rows.len() as u32)
            .await
            .map_err(|error| format!("{} {error}", unreadable()))?;
        *waited += js_sys::Date::now() - asked;
        let kept = BATCH_ROWS
            .decode_all(texts.into_iter().map(Some))
            .whole()
            .map_err(|error| format!("{} {error}", unreadable()))?;
        // Forgotten by a pass of the rule since the page read the rows.
        forgotten_in(&kept)?;
        for stored in kept {
            if let Ok(i) = rows.binary_search_by_key(&stored.line, |r| r.line)
                && kept_only(&rows[i])
            {
                rows[i].output = stored.output;
            }
        }
        if rows.iter().any(kept_only) {
            return Err(unreadable());
        }
        self.with_repeats_resolved(batch, rows).await
    }

    /// `rows` with each repeated row showing its first row's results (`BatchRow::with_results_of`),
    /// that row read from this slice, the page's copy or the store.
    async fn with_repeats_resolved(
        &self,
        batch: &str,
        mut rows: Vec<BatchRow>,
    ) -> Result<Vec<BatchRow>, String> {
        let mut firsts: HashMap<usize, BatchRow> = HashMap::new();
        for index in 0..rows.len() {
            let Some(first_line) = rows[index].repeat_of else {
                continue;
            };
            let first = match firsts.entry(first_line) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(unknown) => {
                    let first = match rows.binary_search_by_key(&first_line, |row| row.line) {
                        Ok(at) => rows[at].clone(),
                        Err(_) => self.first_row(batch, first_line).await?,
                    };
                    unknown.insert(first)
                }
            };
            rows[index] = rows[index].with_results_of(first);
        }
        Ok(rows)
    }

    /// The row of `line` with its records: from the page's copy, its records from the store
    /// once they left memory.
    async fn first_row(&self, batch: &str, line: usize) -> Result<BatchRow, String> {
        let row = self
            .batch
            .with_untracked(|b| {
                b.as_ref()
                    .filter(|e| e.id == batch)
                    .and_then(|e| row_at_line(e.rows(), line).cloned())
            })
            .ok_or_else(|| BATCH_CLOSED.to_owned())?;
        forgotten_in([&row])?;
        if !(row.output.is_empty() && row.records > 0) {
            return Ok(row);
        }
        let kept = BATCH_ROWS
            .rows_from(batch, line, 1)
            .await
            .and_then(|kept| kept.whole())
            .map_err(|error| {
                format!("The records of line {line} could not be read back from this browser's storage. {error}")
            })?;
        match kept.into_iter().find(|stored| stored.line == line) {
            Some(BatchRow {
                records_forgotten: Some(forgotten),
                ..
            }) => Err(batch_records_forgotten(forgotten)),
            Some(stored) => Ok(BatchRow {
                output: stored.output,
                ..row
            }),
            None => Err(format!(
                "The records of line {line} are missing from this browser's storage."
            )),
        }
    }
}

/// A kept batch for a runner, from what this browser saved; `Ok(None)` when it keeps no such
/// batch, `Err` when it cannot be read back.
pub(super) async fn kept_batch(
    workspace: &str,
    batch: &str,
    resume: bool,
) -> Result<Option<BatchToRun>, StoreError> {
    let summary = saved_batches(workspace)
        .await?
        .into_iter()
        .find(|b| b.id == batch);
    let Some(summary) = summary else {
        return Ok(None);
    };
    let rows = saved_rows(batch).await?;
    Ok(Some(BatchToRun::Kept {
        summary,
        rows,
        resume,
    }))
}

/// A kept batch's rows, in line order; `Err` when they cannot be read back whole (a damaged
/// row: `StoreError::Damaged`).
/// Read a slice at a time; a finished row's records are left in the store (exports read them
/// there), so a large batch's records are never all in memory at once.
pub async fn saved_rows(batch: &str) -> Result<Vec<BatchRow>, StoreError> {
    let mut rows: Vec<BatchRow> = Vec::new();
    loop {
        let first_line = rows.last().map_or(0, |row| row.line + 1);
        let slice = BATCH_ROWS
            .rows_from(batch, first_line, OPENED_SLICE_ROWS as u32)
            .await?
            .whole()?;
        let last_slice = slice.len() < OPENED_SLICE_ROWS;
        for mut row in slice {
            if row.records == 0 {
                row.records = row.output.len();
            }
            if row.state.is_final() {
                row.output = Vec::new();
            }
            rows.push(row);
        }
        if last_slice {
            return Ok(rows);
        }
    }
}
