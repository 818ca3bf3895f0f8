//! Records explored where they are kept ([`KeptRecords`]): a batch or a chain holds 10,000 to
//! 900,000 records, far more than a page can hold as values, so the explorer holds only their
//! places. It reads the rows near its view from this browser's store, and a sort or a filter is a
//! pass over every record a slice at a time (`model::record_order`), keeping only each match's
//! place and key, then a merge in steps: no task runs long however many records there are.
//!
//! Where the rows come from is a [`RowsKept`]: a batch's rows here ([`Bulk::kept_records`]), a
//! chain's joined rows in `state::chains`. What is explored is the records as they stood when
//! they were opened: each row's count of records then (a row that finishes later adds none until
//! the records are explored again).

use std::collections::HashMap;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::*;
use serde_json::Value;

use super::Bulk;
use super::exports::{BATCH_CLOSED, records_shown};
use crate::browser::yield_to_page;
use crate::model::explore::ViewWriter;
use crate::model::output::ColumnsFound;
use crate::model::presenter::Masker;
use crate::model::record_order::{OrderAsked, OrderPass, RecordPlaces};
use crate::model::slice_pace::{SLICE_BUDGET_MS, SlicePace};

/// Records in a window of an order written out: the window's records are made text as their
/// rows are read (a record's text is about half a kilobyte: 50,000 are about 25 MB), then written
/// in the order's order. A sorted view takes a pass over the rows per window.
const WRITTEN_PER_WINDOW: usize = 50_000;

/// Text handed to the file at a time while a window is written.
const WRITTEN_PART_BYTES: usize = 1 << 20;

/// A future of this thread (the store's reads hold JavaScript values, which stay on it).
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Rows of records kept in this browser's store, read back by their index among the rows: a
/// batch's rows, or a chain's last step's rows with their joined records. Each row's records
/// as they are now, unmasked; [`KeptRecords`] holds each row to the records it had when they
/// were opened, and masks them.
pub trait RowsKept: Send + Sync {
    /// The records of each of the rows at `rows`.
    fn read(&self, rows: Range<usize>) -> LocalFuture<'_, Result<Vec<Vec<Value>>, String>>;

    /// Every row's records in order, a slice of rows at a time (the page drawing and answering
    /// between them), until `each` says to stop (`false`).
    fn through<'a>(
        &'a self,
        each: &'a mut dyn FnMut(Vec<Vec<Value>>) -> bool,
    ) -> LocalFuture<'a, Result<(), String>>;

    /// Why the rows are no longer there to explore (their batch or chain was closed), if so.
    fn gone(&self) -> Option<&'static str>;
}

/// Records in this browser's store, as explored: where each record stands among its rows, and
/// how their values are shown. Cheap to clone.
#[derive(Clone)]
pub struct KeptRecords {
    of: Arc<Explored>,
    masker: Masker,
}

/// The rows whose records are explored, and where each record stood when they were opened.
struct Explored {
    rows: Box<dyn RowsKept>,
    places: RecordPlaces,
}

/// A batch's rows as explored: each row's records (`BatchRow::into_explored_records`).
struct BatchRowsKept {
    bulk: Bulk,
    batch: String,
    headers: Vec<String>,
}

impl RowsKept for BatchRowsKept {
    fn read(&self, rows: Range<usize>) -> LocalFuture<'_, Result<Vec<Vec<Value>>, String>> {
        Box::pin(async move {
            let mut waited = 0.0;
            let read = self
                .bulk
                .export_slice(&self.batch, rows.start, rows.len(), &mut waited)
                .await?;
            Ok(read
                .into_iter()
                .map(|row| row.into_explored_records(&self.headers))
                .collect())
        })
    }

    fn through<'a>(
        &'a self,
        each: &'a mut dyn FnMut(Vec<Vec<Value>>) -> bool,
    ) -> LocalFuture<'a, Result<(), String>> {
        Box::pin(self.bulk.through_rows(&self.batch, move |rows| {
            Ok(each(
                rows.into_iter()
                    .map(|row| row.into_explored_records(&self.headers))
                    .collect(),
            ))
        }))
    }

    fn gone(&self) -> Option<&'static str> {
        let shown = self
            .bulk
            .batch
            .with_untracked(|b| b.as_ref().is_some_and(|e| *e.id == *self.batch));
        (!shown).then_some(BATCH_CLOSED)
    }
}

/// How far an order's pass has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderProgress {
    /// Records read so far.
    pub read: usize,
    /// Records in all.
    pub total: usize,
    /// Every record was read: the matches are being sorted.
    pub sorting: bool,
}

impl Bulk {
    /// The records of the batch shown, to explore from the store as they stand now (`masker`:
    /// how their values are shown); `None` without a batch.
    pub fn kept_records(&self, masker: Masker) -> Option<KeptRecords> {
        self.batch.with_untracked(|b| {
            b.as_ref().map(|engine| {
                let rows = engine.rows();
                let places = RecordPlaces::new(rows.iter().map(|row| records_shown(rows, row)));
                let rows = BatchRowsKept {
                    bulk: *self,
                    batch: engine.id.clone(),
                    headers: engine.headers.clone(),
                };
                KeptRecords::new(rows, places, masker)
            })
        })
    }
}

impl KeptRecords {
    /// The records of `rows`, each row's as many as `places` says it holds, shown by `masker`.
    pub fn new(rows: impl RowsKept + 'static, places: RecordPlaces, masker: Masker) -> KeptRecords {
        KeptRecords {
            of: Arc::new(Explored {
                rows: Box::new(rows),
                places,
            }),
            masker,
        }
    }

    /// Where each record stands among the batch's rows.
    pub fn places(&self) -> &RecordPlaces {
        &self.of.places
    }

    /// How many records there are.
    pub fn total(&self) -> usize {
        self.of.places.len()
    }

    /// How the values are shown (masked in presenter mode).
    pub fn masker(&self) -> Masker {
        self.masker
    }

    /// The records of the rows at `rows` (indices among the rows), each row's as a list,
    /// masked when the masker is on.
    pub async fn read_rows(&self, rows: Range<usize>) -> Result<Vec<Arc<[Value]>>, String> {
        let first = rows.start;
        let read = self.of.rows.read(rows).await?;
        read.into_iter()
            .enumerate()
            .map(|(offset, records)| self.explored(first + offset, records).map(Arc::from))
            .collect()
    }

    /// Goes through every record in order a slice at a time (each slice sized to take about the
    /// same time on any computer), giving each slice to `each` until it says to stop (`false`).
    pub async fn through(&self, mut each: impl FnMut(&[Value]) -> bool) -> Result<(), String> {
        let mut row = 0;
        let mut changed = None;
        self.of
            .rows
            .through(&mut |rows| {
                let mut records = Vec::new();
                for read in rows {
                    match self.explored(row, read) {
                        Ok(explored) => records.extend(explored),
                        Err(problem) => {
                            changed = Some(problem);
                            return false;
                        }
                    }
                    row += 1;
                }
                each(&records)
            })
            .await?;
        changed.map_or(Ok(()), Err)
    }

    /// The places of the records `asked` shows, in its order: every record without a filter or
    /// a sort, else a pass over every record, then the sort's merge a step at a time. `progress`
    /// is told after each slice and each step, and says whether to go on (`Ok(None)`: stopped);
    /// the columns met on the way are added to `found`.
    pub async fn order(
        &self,
        asked: &OrderAsked,
        found: &mut ColumnsFound,
        mut progress: impl FnMut(OrderProgress) -> bool,
    ) -> Result<Option<Arc<[usize]>>, String> {
        let total = self.total();
        if asked.is_every_record() {
            return Ok(Some((0..total).collect()));
        }
        let mut pass = OrderPass::new(asked);
        let mut go_on = true;
        self.through(|records| {
            pass.take(records);
            found.add(records);
            go_on = progress(OrderProgress {
                read: pass.read(),
                total,
                sorting: false,
            });
            go_on
        })
        .await?;
        if !go_on {
            return Ok(None);
        }
        let mut merge = pass.finish();
        while !merge.step_until(js_sys::Date::now() + SLICE_BUDGET_MS, js_sys::Date::now) {
            let go_on = progress(OrderProgress {
                read: total,
                total,
                sorting: true,
            });
            if !go_on {
                return Ok(None);
            }
            yield_to_page().await;
        }
        if let Some(gone) = self.of.rows.gone() {
            return Err(gone.to_owned());
        }
        Ok(Some(merge.into_order().into()))
    }

    /// The same records with their values as they are (for an export the person said yes to in
    /// presenter mode).
    pub fn unmasked(&self) -> KeptRecords {
        KeptRecords {
            masker: Masker::OFF,
            ..self.clone()
        }
    }

    /// The records at `places` (each place once), in that order, each made into what `make`
    /// makes of it: the rows holding them are read in runs of neighbouring rows, a slice at a
    /// time, and only what `make` made is kept.
    pub async fn made_at<T>(
        &self,
        places: &[usize],
        make: impl Fn(&Value) -> T,
    ) -> Result<Vec<T>, String> {
        let slot_of: HashMap<usize, usize> = places
            .iter()
            .enumerate()
            .map(|(slot, &place)| (place, slot))
            .collect();
        let mut made: Vec<Option<T>> = places.iter().map(|_| None).collect();
        let rows = self.of.places.rows_holding(places.iter().copied());
        let records_in =
            |row: usize| self.of.places.first_of(row + 1) - self.of.places.first_of(row);
        let mut pace = SlicePace::default();
        let mut at = 0;
        while at < rows.len() {
            let neighbours = rows[at..]
                .iter()
                .enumerate()
                .take_while(|&(k, &row)| row == rows[at] + k)
                .count();
            let take = pace.rows_to_take(rows[at..at + neighbours].iter().map(|&r| records_in(r)));
            let first = rows[at];
            let began = js_sys::Date::now();
            let read = self.read_rows(first..first + take).await?;
            let mut records = 0;
            for (k, row_records) in read.iter().enumerate() {
                let start = self.of.places.first_of(first + k);
                records += row_records.len();
                for (offset, record) in row_records.iter().enumerate() {
                    if let Some(&slot) = slot_of.get(&(start + offset)) {
                        made[slot] = Some(make(record));
                    }
                }
            }
            pace.took(records, js_sys::Date::now() - began);
            at += take;
            yield_to_page().await;
        }
        made.into_iter()
            .zip(places)
            .map(|(made, place)| {
                made.ok_or_else(|| format!("Record {} could not be read back.", place + 1))
            })
            .collect()
    }

    /// Writes the records at `order` with `writer` a window at a time (each window's records made
    /// text as their rows are read, then written in the order's), each part given to `write`;
    /// `progress` is told how many are written.
    pub async fn write_order(
        &self,
        order: &[usize],
        writer: &mut ViewWriter,
        mut write: impl FnMut(&str) -> Result<(), String>,
        progress: impl Fn(usize),
    ) -> Result<(), String> {
        let mut written = 0;
        for window in order.chunks(WRITTEN_PER_WINDOW) {
            let texts = self
                .made_at(window, |record| writer.text_of(record))
                .await?;
            let mut part = String::new();
            for text in texts {
                part.push_str(&writer.next(text));
                if part.len() >= WRITTEN_PART_BYTES {
                    write(&part)?;
                    part.clear();
                }
            }
            write(&part)?;
            written += window.len();
            progress(written);
        }
        Ok(())
    }

    /// The records of the row at `row` as explored: as many as it held when the exploring began
    /// (a row finished since adds none), masked when the masker is on.
    fn explored(&self, row: usize, mut records: Vec<Value>) -> Result<Vec<Value>, String> {
        let held = self.of.places.first_of(row + 1) - self.of.places.first_of(row);
        if records.len() < held {
            return Err(format!(
                "The records of row {} changed since they were opened: explore the results again.",
                row + 1
            ));
        }
        records.truncate(held);
        if self.masker.is_on() {
            for record in &mut records {
                *record = self.masker.json(record);
            }
        }
        Ok(records)
    }
}
