//! The bulk engine: a batch as a state machine without I/O. It is fed events (time passed, an
//! answer from the API, the store's answer, the person's pause, resume, cancel, retry and credit
//! budget) and answers with commands (submit this row with this key, read the run list, read
//! this run, cancel this run, save these rows, refresh the workspace), every time as an
//! [`EngineTime`] on the batch's clock. A thin driver (`crate::runner`, in the bulk worker)
//! reads the clock, does the requests and the timers; the page keeps a copy of the batch
//! (`state::bulk`) up to date from the driver's news ([`Engine::absorb`]); the tests drive it
//! with a fake clock, a fake API and a fake store.
//!
//! What it guarantees:
//! - A row's key is fixed by its batch, attempt and line, and the same on every retry, so the
//!   API answers a repeat with the run it already made. Only "Retry failed rows" moves a row to a
//!   new attempt. A row has at most one submission on its way at a time.
//! - Nothing is sent before the batch is saved (or the browser refused to keep it), so a reload
//!   finds every key that may have reached the API.
//! - Submissions keep the learned pace ([`Pacer`]) and at most [`Pacer::window`] are on their way.
//! - Status is read by cost: a running row is read on its own when it is due (at the time runs
//!   have been taking), unless one read of the run list costs less than the due rows' reads.
//!   A finished run's output is read once.
//! - Memory does not depend on how fast the computer is: once the batch is kept, at most
//!   [`OUTPUTS_IN_MEMORY_AT_MOST`] runs' records are held or on their way at once. A request
//!   that may bring records (a status read, the run list, a key sent again) is made only while
//!   there is room, and room comes back when the store has written the records. So a store
//!   slower than the API's answers slows the batch to what it can write
//!   ([`PacedBy::ThisComputer`]) instead of filling memory.
//! - With a budget, charged plus reserved credits ([`Spending`]) never pass it: a row is sent
//!   for the first time only if its worst case fits what is left, and only once a save holds it
//!   as "may have run", so a reload counts it; otherwise the batch pauses and says so.
//!
//! The files follow the engine's concerns: what goes in and out ([`messages`]), what the page is
//! told ([`news`]), a batch started, taken up again or retried ([`start`]), the event loop and
//! its timer ([`schedule`]), sending rows ([`submitting`]), reading their runs ([`reading`]),
//! cancelling ([`cancelling`]), the credit budget ([`credits`]) and this browser's store with
//! the room for records it leaves ([`store`]). The [`Engine`] and its parts are here, with the
//! one place a row changes ([`Engine::change_row`]).

mod cancelling;
mod credits;
mod messages;
mod news;
mod reading;
mod schedule;
mod start;
mod store;
mod submitting;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashMap, HashSet};

use api_contract::ActionId;

use super::budget::{RowShare, Spending};
use super::clock::{EngineTime, Millis};
use super::pacer::Pacer;
use super::{BatchExpiryMarks, BatchRow, RowState, SavedBatch, Tally};

pub use messages::{CancelAnswer, Command, Event, NewRun, ReadAnswer, Saving, SubmitAnswer};
pub use news::{BatchNews, Counters, Keeping, PacedBy, Phase};

/// How long a run is expected to take before its first read, until runs have been measured.
const FIRST_GUESS_RUN: Millis = Millis::from_ms(1_500.0);
/// What a request costs besides its body (headers both ways), in bytes, for choosing reads.
const REQUEST_OVERHEAD_BYTES: f64 = 600.0;
/// Single-run reads on their way at once.
const SINGLE_READS_AT_ONCE: usize = 8;
/// A save at most this often, when something changed.
const SAVE_EVERY: Millis = Millis::from_ms(1_000.0);
/// The workspace's balance is refreshed this often while runs are going.
const REFRESH_EVERY: Millis = Millis::from_ms(10_000.0);
/// Runs whose records may be in memory at once, once the batch is kept: held until the store
/// has them, or on their way in an answer (see the module's documentation). A hundred runs of a
/// hundred records are a few megabytes.
pub const OUTPUTS_IN_MEMORY_AT_MOST: usize = 100;
/// With this many runs' records held, they are saved at once rather than at the next
/// [`SAVE_EVERY`]: the store is the limit, and every moment it idles is lost.
const SAVE_AT_ONCE_HOLDING: usize = OUTPUTS_IN_MEMORY_AT_MOST / 2;
/// What held the batch back is said for this long after it last did.
const PACED_BY_SHOWN: Millis = Millis::from_ms(5_000.0);
/// Without a known workspace after this long, the batch goes on without being kept.
const WORKSPACE_WAIT: Millis = Millis::from_ms(5_000.0);
/// A failed cancel is asked again after this long.
const CANCEL_AGAIN: Millis = Millis::from_ms(1_000.0);
/// With a budget, rows are cleared to be sent (and saved as such) for this long at the learned
/// pace ahead of sending them: several saves, so sends do not wait for the store.
const CLEARED_AHEAD: Millis = Millis::from_ms(5_000.0);
/// Rows cleared ahead before the pace is known: more than the API's burst before its first 429.
const CLEARED_AHEAD_UNPACED: usize = 100;
/// Rows cleared ahead at the slowest and at the fastest pace.
const CLEARED_AHEAD_AT_LEAST: usize = 20;
const CLEARED_AHEAD_AT_MOST: usize = 500;

/// A batch: its rows and everything needed to drive them. See the module's documentation.
#[derive(Clone, Debug)]
pub struct Engine {
    /// 32 hex digits; part of every row's idempotency key.
    pub id: String,
    pub workspace: Option<String>,
    /// When it was first started, ms since the epoch (as [`SavedBatch::created_at`] keeps it;
    /// [`Engine::created`] as an instant).
    pub created_at: f64,
    pub action: ActionId,
    pub headers: Vec<String>,
    rows: Vec<BatchRow>,
    /// The rows counted by state, kept up to date with every change of a row.
    tally: Tally,
    standing: Standing,
    telling: Telling,
    requests: OnTheirWay,
    watching: Watching,
    pacing: Pacing,
    credits: Credits,
    store: Storing,
    balance: BalanceRefresh,
}

/// Where the batch as a whole stands: what the page shows besides the rows.
#[derive(Clone, Debug)]
struct Standing {
    phase: Phase,
    keeping: Keeping,
    /// Cancel was asked (a finished batch says "cancelled" rather than "done").
    cancelled: bool,
    counters: Counters,
    /// The API refused the credential: nothing is sent or read until the person signs in again.
    awaiting_sign_in: bool,
}

/// What the page has not been told yet.
#[derive(Clone, Debug)]
struct Telling {
    /// Set by every change the page shows; the driver clears it when it publishes.
    changed: bool,
    /// Rows changed since the last [`Engine::take_news`].
    unshown: BTreeSet<usize>,
}

/// The requests on their way (or, for cancels, due), so that none is asked twice and records
/// on their way count against the room in memory.
#[derive(Clone, Debug)]
struct OnTheirWay {
    /// Submissions on their way.
    submitting: usize,
    /// Those of rows whose key may have made a run: they take room for records; a first
    /// submission makes a queued run and brings none.
    replaying: BTreeSet<usize>,
    /// Rows whose run is being read on its own.
    reading: HashSet<usize>,
    /// A read of the run list is on its way.
    list_in_flight: bool,
    /// Watched rows the run list on its way may bring records for.
    list_outputs: usize,
    /// Rows whose run is to be cancelled: asked, or to ask (again) at a time.
    cancels: HashMap<usize, CancelState>,
    /// What the save on its way holds.
    save_in_flight: Option<SaveInFlight>,
}

/// The running rows' schedule of status reads, and what the choice between a list read and
/// single reads weighs: moving averages of what answers weigh and runs take.
#[derive(Clone, Debug)]
struct Watching {
    /// Submissions the API accepted in this batch so far: a watch's place in the run list.
    accepted_seq: u64,
    watches: HashMap<usize, Watch>,
    list_bytes: Option<f64>,
    finished_run_bytes: Option<f64>,
    unfinished_run_bytes: f64,
    run_time: Option<Millis>,
}

/// A running row's schedule of status reads.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Watch {
    /// The order in which the API accepted it (counts this batch's acceptances).
    accepted_seq: u64,
    /// When it is next worth reading.
    due_at: EngineTime,
    /// Reads that found it still running.
    early_reads: u32,
    /// A run list read while it was due did not hold it: more than a list's length of runs
    /// were made since, so it is read on its own from now on.
    off_list: bool,
}

/// The pace of submissions, and what last held the batch back.
#[derive(Clone, Debug)]
struct Pacing {
    pacer: Pacer,
    /// When the store (`store_bound_at`) or the rate limit (`rate_bound_at`) last held
    /// something back.
    store_bound_at: EngineTime,
    rate_bound_at: EngineTime,
}

/// The credit budget, and the rows whose worst case it counts.
#[derive(Clone, Debug)]
struct Credits {
    /// The budget, what ended runs charged and what rows hold back, kept up to date with every
    /// change of a row, of `may_have_run` and of `cleared`.
    spending: Spending,
    /// What runs of earlier attempts charged (part of `spending.charged`).
    charged_before: u64,
    /// Rows whose key may already have made a run (sent without an answer, or waiting when the
    /// batch was taken up again): sent again, the API answers with that run, records and all.
    may_have_run: BTreeSet<usize>,
    /// With a budget: rows whose worst case the budget took in, to be sent for the first time.
    /// Each counts its worst case until its submission is answered with a run or a refusal.
    cleared: BTreeSet<usize>,
    /// With a budget, the rows the store's last written summary lists as "may have run". In a
    /// kept batch a cleared row is sent for the first time only once it is listed there (and in
    /// the save on its way, if any), so a reload counts every row that may have made a run.
    listed_in_store: BTreeSet<usize>,
    /// The next row waits for a save that lists it (see `listed_in_store`).
    sends_wait_for_store: bool,
}

/// What this browser's store has not been given yet.
#[derive(Clone, Debug)]
struct Storing {
    /// Rows changed since the last save.
    dirty: BTreeSet<usize>,
    /// Runs made since the last save, for the store of submissions.
    new_runs: Vec<NewRun>,
    /// Rows whose records are in memory: finished, not yet written to the store.
    holding: BTreeSet<usize>,
    /// The summary as last written.
    saved_summary: Option<SavedBatch>,
    /// The expiry rule's marks as the batch was opened with them, carried into its saves.
    expiry: BatchExpiryMarks,
    /// When the last save was asked.
    last_save_at: EngineTime,
    /// The last save was refused (a full disk): the next waits for [`SAVE_EVERY`] whatever
    /// presses it, so that a store that keeps refusing is not asked again at once, forever.
    last_save_refused: bool,
}

/// When the workspace's balance was last refreshed for the batch.
#[derive(Clone, Debug)]
struct BalanceRefresh {
    /// Refreshed every [`REFRESH_EVERY`] while runs are going.
    last_refresh_at: EngineTime,
    /// Refreshed once at the batch's end.
    refreshed_at_end: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum CancelState {
    InFlight,
    AgainAt(EngineTime),
}

/// What the save on its way holds, so a refusal keeps it unsaved.
#[derive(Clone, Debug)]
struct SaveInFlight {
    rows: Vec<usize>,
    new_runs: Vec<NewRun>,
    summary: SavedBatch,
    /// The rows the summary lists as "may have run".
    listed: BTreeSet<usize>,
}

impl Engine {
    /// Moves the batch to `phase`, telling the page if that is a change.
    fn set_phase(&mut self, phase: Phase) {
        if self.standing.phase != phase {
            self.standing.phase = phase;
            self.telling.changed = true;
        }
    }

    /// Changes one row, keeping the tally, the spending, the save list and the watch list up
    /// to date.
    fn change_row(&mut self, index: usize, change: impl FnOnce(&mut BatchRow)) {
        let held_before = self.held(index);
        let Some(row) = self.rows.get_mut(index) else {
            return;
        };
        let before = row.clone();
        change(row);
        if *row == before {
            return;
        }
        // A clearance lasts until the row's submission is answered with a run or a refusal
        // (a 429 or a 401 sends it again, still cleared).
        if !matches!(row.state, RowState::Waiting | RowState::Submitting) {
            self.credits.cleared.remove(&index);
        }
        let held_after = self.held(index);
        let row = &self.rows[index];
        self.credits
            .spending
            .remove(RowShare::of(&before, held_before));
        self.credits.spending.add(RowShare::of(row, held_after));
        self.tally.remove(&before);
        self.tally.add(row);
        if row.run_id.is_some() && row.run_id != before.run_id {
            self.store.new_runs.push(NewRun {
                run_id: row.run_id.clone().unwrap_or_default(),
                body: row.body.clone(),
            });
        }
        if !row.state.is_running() {
            self.watching.watches.remove(&index);
        }
        if row.output.is_empty() {
            self.store.holding.remove(&index);
        } else {
            self.store.holding.insert(index);
        }
        self.store.dirty.insert(index);
        self.telling.unshown.insert(index);
        self.telling.changed = true;
    }
}
