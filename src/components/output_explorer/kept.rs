//! The explorer over records kept in this browser's store (a batch's: `KeptRecords`): the table
//! holds their places only; the rows near its view are read from the store as they are drawn
//! (at most [`ROWS_HELD`] rows' records held at a time), and a filter or a sort is a pass over
//! every record that keeps going between frames, the table showing the last order until the
//! new one is made.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use serde_json::Value;

use crate::browser::{FileParts, sleep};
use crate::model::bulk::ExportFormat;
use crate::model::explore::ViewWriter;
use crate::model::format::group_thousands;
use crate::model::output::ColumnsFound;
use crate::model::record_order::{OrderAsked, RowsHeld, RowsWanted};
use crate::state::bulk::{KeptRecords, OrderProgress};

/// Rows of the batch whose records the table holds at once: the rows drawn of a sorted view (60
/// at most, overscan included) may each come from another of the batch's rows, and each holds up
/// to a search's 100 records (about 150 KB as values): twice that, about 18 MB at most.
const ROWS_HELD: usize = 120;

/// Neighbouring rows read from the store at once for the table.
const ROWS_READ_AT_ONCE: usize = 10;

/// How long an order waits after the filter changed before its pass starts: a word typed is
/// one pass, not one per letter.
const FILTER_SETTLES: Duration = Duration::from_millis(250);

/// What the explorer keeps of records kept in the store. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub(super) struct KeptView {
    records: StoredValue<KeptRecords>,
    /// The records of the rows read for the table.
    held: RwSignal<RowsHeld>,
    /// Rows the table drew and has not got the records of yet.
    wanted: StoredValue<RowsWanted>,
    /// A read for the table is under way.
    reading: StoredValue<bool>,
    /// Every column met so far, in the records' order.
    pub(super) found: RwSignal<Vec<String>>,
    columns_found: StoredValue<ColumnsFound>,
    /// The places of the records shown, in the order asked last made.
    pub(super) shown: RwSignal<Arc<[usize]>>,
    /// How far the pass of the order being made has come.
    pub(super) progress: RwSignal<Option<OrderProgress>>,
    /// Why the records could not be read.
    pub(super) problem: RwSignal<Option<String>>,
    /// Each order asked is a generation: a pass goes on while its generation is the last.
    generation: StoredValue<u64>,
    /// Every record in its own order (made once: 3.6 MB for 900,000).
    every_record: StoredValue<Arc<[usize]>>,
}

impl KeptView {
    pub(super) fn new(records: KeptRecords, columns: Vec<String>) -> KeptView {
        let every_record: Arc<[usize]> = (0..records.total()).collect();
        let columns_found = ColumnsFound::with_columns(columns.clone());
        KeptView {
            records: StoredValue::new(records),
            held: RwSignal::new(RowsHeld::new(ROWS_HELD)),
            wanted: StoredValue::new(RowsWanted::default()),
            reading: StoredValue::new(false),
            found: RwSignal::new(columns),
            columns_found: StoredValue::new(columns_found),
            shown: RwSignal::new(every_record.clone()),
            progress: RwSignal::new(None),
            problem: RwSignal::new(None),
            generation: StoredValue::new(0),
            every_record: StoredValue::new(every_record),
        }
    }

    pub(super) fn total(self) -> usize {
        self.records.with_value(KeptRecords::total)
    }

    pub(super) fn records(self) -> KeptRecords {
        self.records.get_value()
    }

    /// Makes the order `asked` asks each time it changes (after the filter settles).
    pub(super) fn follow(self, asked: Memo<OrderAsked>) {
        Effect::new(move |was: Option<OrderAsked>| {
            let now = asked.get();
            let filter_changed = was.is_some_and(|was| was.filter != now.filter);
            self.start_order(now.clone(), filter_changed);
            now
        });
    }

    fn start_order(self, asked: OrderAsked, filter_changed: bool) {
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        let current = move || self.generation.try_get_value() == Some(generation);
        // The count line tells the view shown until the new order's pass says how far it is.
        self.progress.set(None);
        if asked.is_every_record() {
            let every_record = self.every_record.get_value();
            if !self.shown.with_untracked(|s| Arc::ptr_eq(s, &every_record)) {
                self.shown.set(every_record);
            }
            return;
        }
        leptos::task::spawn_local(async move {
            if filter_changed {
                sleep(FILTER_SETTLES).await;
                if !current() {
                    return;
                }
            }
            let Some(records) = self.records.try_get_value() else {
                return;
            };
            let mut found = self.columns_found.get_value();
            let made = records
                .order(&asked, &mut found, |progress| {
                    current() && self.progress.try_set(Some(progress)).is_none()
                })
                .await;
            if !current() {
                return;
            }
            self.progress.set(None);
            match made {
                Ok(Some(order)) => {
                    self.shown.set(order);
                    self.take_columns(found);
                }
                Ok(None) => {}
                Err(problem) => self.problem.set(Some(problem)),
            }
        });
    }

    /// Takes the columns met, if some are new.
    fn take_columns(self, found: ColumnsFound) {
        if self
            .found
            .with_untracked(|f| f.len() != found.columns.len())
        {
            self.found.set(found.columns.clone());
        }
        self.columns_found.set_value(found);
    }

    /// Whether the record at `place` is held, for a row of the table to be drawn: tracked, so
    /// the row is drawn when its records come. When it is not, its row is asked for (asking
    /// again for a row wanted or being read changes nothing).
    pub(super) fn is_held(self, place: usize) -> bool {
        let Some(at) = self.records.with_value(|r| r.places().place(place)) else {
            return false;
        };
        let held = self.held.with(|h| h.holds(at.row));
        if !held {
            self.wanted.update_value(|w| w.want(at.row));
            self.read_wanted();
        }
        held
    }

    /// The record at `place` if its row is held (a Copy of a row drawn).
    pub(super) fn held_record(self, place: usize) -> Option<Value> {
        let at = self.records.with_value(|r| r.places().place(place))?;
        self.held.with_untracked(|h| h.record(at).cloned())
    }

    /// Reads the next rows wanted, unless a read is under way; then the next, until none is.
    fn read_wanted(self) {
        if self.reading.get_value() {
            return;
        }
        let next = loop {
            match self
                .wanted
                .try_update_value(|w| w.next_read(ROWS_READ_AT_ONCE))
            {
                Some(Some(rows))
                    if self
                        .held
                        .with_untracked(|h| rows.clone().all(|r| h.holds(r))) => {}
                Some(Some(rows)) => break rows,
                _ => return,
            }
        };
        self.reading.set_value(true);
        let records = self.records.get_value();
        leptos::task::spawn_local(async move {
            let read = records.read_rows(next.clone()).await;
            // `Some`: the explorer went while the rows were read.
            if self.reading.try_set_value(false).is_some() {
                return;
            }
            match read {
                Ok(rows) => {
                    let mut found = self.columns_found.get_value();
                    for records in &rows {
                        found.add(records);
                    }
                    self.take_columns(found);
                    self.held.update(|held| {
                        for (row, records) in next.zip(rows) {
                            held.hold(row, records);
                        }
                    });
                    self.read_wanted();
                }
                Err(problem) => self.problem.set(Some(problem)),
            }
        });
    }

    /// The count line while an order is being made.
    pub(super) fn progress_line(progress: OrderProgress, asked: &OrderAsked) -> String {
        let total = group_thousands(progress.total as u64);
        if progress.sorting {
            return format!("Sorting the records that match, of {total}…");
        }
        let doing = match (asked.sort.is_some(), asked.filter.trim().is_empty()) {
            (true, true) => "Sorting",
            (true, false) => "Filtering and sorting",
            (false, _) => "Filtering",
        };
        format!(
            "{doing}: {} of {total} records read…",
            group_thousands(progress.read as u64)
        )
    }
}

/// Writes the records at `order` (with `columns`, in `format`) into a file named `file`, a
/// window at a time; `exporting` says how far it has come.
pub(super) async fn export(
    records: KeptRecords,
    order: Arc<[usize]>,
    columns: Vec<String>,
    format: ExportFormat,
    file: String,
    exporting: RwSignal<Option<String>>,
) -> Result<(), String> {
    let no_room = || "This browser could not hold the export.".to_owned();
    let mut parts = FileParts::new(format.mime()).ok_or_else(no_room)?;
    let mut writer = ViewWriter::new(format, columns);
    let start = writer.start();
    let start = match format {
        // A byte-order mark, so spreadsheet programs read the UTF-8 correctly.
        ExportFormat::Csv => format!("\u{feff}{start}"),
        _ => start,
    };
    parts.push(&start).ok_or_else(no_room)?;
    let total = group_thousands(order.len() as u64);
    exporting.set(Some(format!("Exporting: 0 of {total} records written…")));
    records
        .write_order(
            &order,
            &mut writer,
            |part| parts.push(part).ok_or_else(no_room),
            |written| {
                exporting.try_set(Some(format!(
                    "Exporting: {} of {total} records written…",
                    group_thousands(written as u64)
                )));
            },
        )
        .await?;
    parts.push(&writer.finish()).ok_or_else(no_room)?;
    parts.download(&file);
    Ok(())
}
