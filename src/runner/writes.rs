//! The bulk worker's writes to this browser's store, one transaction at a time: the batch's
//! saves (rows, summary, the runs it made), the runs it saw (into the workspace's history, with
//! its reads of the run list) and its requests (into the request log).
//!
//! Why one writer: IndexedDB runs read-write transactions over the same stores one after the
//! other, so a write started for every answer (as this worker once did: one per status read,
//! one per submission, the request log every second) waits behind all the others, holding what
//! it is to write. With a store slower than the API's answers, that queue grew without bound:
//! 3.9 GB in a 10,000-row batch on a slow computer, and still growing after the batch ended.
//! Here what waits is merged (one sighting per run) and goes with the next transaction, which
//! starts once the one before has finished. The engine's saves go with it, so the room the
//! engine gives its reads (`OUTPUTS_IN_MEMORY_AT_MOST`) bounds the requests logged here too.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

use api_contract::Run;

use crate::archive;
use crate::model::archive::{KeptRun, input_of_body};
use crate::model::bulk::BatchRow;
use crate::model::log_queue::{LogWrite, TrimSchedule};
use crate::model::request_log::{Heard, Origin};
use crate::request_log::{self, TrimPace};
use crate::store::{self, Change, Decided};

/// How long sightings and requests gather before they are written without a save to go with.
const GATHER_MS: u64 = 1_000;
/// The engine's save, as the store's changes, with the rows it writes (without their records)
/// for the other tabs once it is written.
pub struct Save {
    pub changes: Vec<Change>,
    pub rows: Vec<BatchRow>,
}

/// What waits to be written.
#[derive(Default)]
struct Waiting {
    /// The engine's save (it has one on its way at a time).
    save: Option<Save>,
    /// The runs seen, one per run id, merged.
    sightings: HashMap<String, KeptRun>,
    /// Reads of the run list, in order: their runs (without records) and when.
    list_reads: Vec<(Vec<Run>, f64)>,
    /// Requests for the log, by workspace.
    exchanges: Vec<(String, Vec<Heard>)>,
}

impl Waiting {
    /// The save's rows, kept apart for the other tabs: the transaction takes its changes.
    fn without_saved_rows(mut self) -> (Waiting, Option<Vec<BatchRow>>) {
        let rows = self
            .save
            .as_mut()
            .map(|save| std::mem::take(&mut save.rows));
        (self, rows)
    }

    fn is_empty(&self) -> bool {
        self.save.is_none()
            && self.sightings.is_empty()
            && self.list_reads.is_empty()
            && self.exchanges.is_empty()
    }
}

#[derive(Default)]
struct Writer {
    waiting: Waiting,
    /// A transaction is under way.
    writing: bool,
    /// A write of what waits is set for in a moment.
    gathering: bool,
    /// When the request log is trimmed: one trim at a time, the page's own keeper trimming the
    /// same log after its requests (on the main thread).
    trims: TrimSchedule,
}

thread_local! {
    static WRITER: RefCell<Writer> = RefCell::default();
}

/// Writes the engine's save now (or as soon as the write under way has finished).
pub fn save(save: Save) {
    WRITER.with_borrow_mut(|w| w.waiting.save = Some(save));
    write_next();
}

/// A run this batch submitted, with its input and key: into the workspace's history.
pub fn submitted(workspace: &str, run: &Run, body: &str, key: &str) {
    let seen =
        KeptRun::seen(workspace, run, js_sys::Date::now()).made_here(input_of_body(body), key);
    sight(vec![seen]);
}

/// A run read: into the workspace's history (its records are not kept there).
pub fn read(workspace: &str, run: &Run) {
    sight(vec![KeptRun::seen(workspace, run, js_sys::Date::now())]);
}

/// A read of the run list: its runs into the history, and the read itself (whether runs may
/// have been missed since the one before).
pub fn list_read(workspace: &str, runs: &[Run]) {
    let now = js_sys::Date::now();
    let seen = runs
        .iter()
        .map(|run| KeptRun::seen(workspace, run, now))
        .collect();
    // What the read says of missed runs needs their times only: the records stay out.
    let listed = runs
        .iter()
        .map(|run| Run {
            output: Vec::new(),
            ..run.clone()
        })
        .collect();
    WRITER.with_borrow_mut(|w| w.waiting.list_reads.push((listed, now)));
    sight(seen);
}

/// Requests for the workspace's log (the worker's `RequestLogger` hands them here).
pub fn log(write: LogWrite) {
    WRITER.with_borrow_mut(|w| w.waiting.exchanges.push((write.workspace, write.heard)));
    write_soon();
}

fn sight(seen: Vec<KeptRun>) {
    WRITER.with_borrow_mut(|w| {
        for kept in seen {
            let merged = match w.waiting.sightings.remove(&kept.run.id) {
                Some(before) => before.merged(kept),
                None => kept,
            };
            w.waiting.sightings.insert(merged.run.id.clone(), merged);
        }
    });
    write_soon();
}

/// Writes what waits in a moment, gathering what comes meanwhile, unless a write is coming.
fn write_soon() {
    let start = WRITER.with_borrow_mut(|w| !std::mem::replace(&mut w.gathering, true));
    if start {
        wasm_bindgen_futures::spawn_local(async {
            crate::browser::sleep(Duration::from_millis(GATHER_MS)).await;
            WRITER.with_borrow_mut(|w| w.gathering = false);
            write_next();
        });
    }
}

/// Starts the next transaction with everything that waits, unless one is under way (then its
/// end starts the next).
fn write_next() {
    let taken = WRITER.with_borrow_mut(|w| {
        if w.writing || w.waiting.is_empty() {
            return None;
        }
        w.writing = true;
        Some(std::mem::take(&mut w.waiting))
    });
    let Some(waiting) = taken else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let logged = logged_entries(&waiting);
        let (waiting, saved_rows) = waiting.without_saved_rows();
        let written = write(super::workspace(), waiting).await;
        let refused = written.clone().err();
        let written = written.is_ok();
        WRITER.with_borrow_mut(|w| {
            w.writing = false;
            if written {
                for (workspace, count) in logged {
                    w.trims.written(&workspace, count);
                }
            }
        });
        if let Some(rows) = saved_rows {
            super::saved(rows, refused);
        }
        trim_next();
        // What came meanwhile: a save goes at once, the rest after its gathering time.
        if WRITER.with_borrow(|w| w.waiting.save.is_some()) {
            write_next();
        } else if WRITER.with_borrow(|w| !w.waiting.is_empty()) {
            write_soon();
        }
    });
}

/// Trims the request log of the workspace next due, unless a trim is under way (its end
/// starts the next). Beside the writes: a trim's transactions come between them.
fn trim_next() {
    let Some(workspace) = WRITER.with_borrow_mut(|w| w.trims.start_next()) else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let trimmed = request_log::trim(&workspace, TrimPace::Worker).await;
        WRITER.with_borrow_mut(|w| w.trims.finished());
        if let Err(error) = trimmed {
            super::tell_page(&super::FromRunner::LogNotTrimmed { workspace, error });
        }
        trim_next();
    });
}

/// Log entries in what waits, by workspace.
fn logged_entries(waiting: &Waiting) -> Vec<(String, usize)> {
    waiting
        .exchanges
        .iter()
        .map(|(workspace, exchanges)| (workspace.clone(), exchanges.len()))
        .collect()
}

/// One transaction: the save, the history's sightings merged with what it kept, the reads of
/// the run list, the log's entries (unless the person stopped the log). The store's error when
/// it refused it: the engine keeps its rows to save again and pauses with the error's sentence;
/// the history and the log lose these. The sightings go under `workspace`, the batch's
/// (dropped while it is not known).
async fn write(workspace: Option<String>, waiting: Waiting) -> Result<(), store::StoreError> {
    let Waiting {
        save,
        sightings,
        list_reads,
        exchanges,
    } = waiting;
    let history = workspace
        .filter(|workspace| !workspace.is_empty())
        .map(|workspace| (workspace, sightings.into_values().collect::<Vec<_>>()));
    // The reads, in order: the history's, the run list's reads, then each log's switch.
    let mut reads = Vec::new();
    if let Some((workspace, seen)) = &history {
        reads.extend(archive::history_reads(workspace, seen));
        reads.push(archive::list_reads_read(workspace));
    }
    for (workspace, _) in &exchanges {
        reads.push(request_log::paused_read(workspace));
    }
    let decide = move |mut values: Vec<Option<String>>| {
        let mut changes: Vec<Change> = save.map(|save| save.changes).unwrap_or_default();
        let switches = values.split_off(values.len() - exchanges.len());
        if let Some((workspace, seen)) = history {
            let list_reads_kept = values.pop().flatten();
            // A sighting that cannot be written is lost, as a refused write's would be.
            if let Ok((history, _)) = archive::history_changes(&workspace, seen, values) {
                changes.extend(history);
            }
            if !list_reads.is_empty() {
                let reads: Vec<(&[Run], f64)> = list_reads
                    .iter()
                    .map(|(runs, at)| (runs.as_slice(), *at))
                    .collect();
                changes.extend(archive::list_reads_change(
                    &workspace,
                    list_reads_kept,
                    &reads,
                ));
            }
        }
        for ((workspace, exchanges), paused) in exchanges.into_iter().zip(switches) {
            if paused.is_none() {
                changes.extend(request_log::entry_changes(
                    &workspace,
                    exchanges,
                    Origin::BulkWorker,
                ));
            }
        }
        Ok(Decided::to_write(changes))
    };
    store::update(reads, decide).await
}
