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

use std::collections::{BTreeSet, HashMap, HashSet};

use api_contract::{ActionId, Run};
use serde::{Deserialize, Serialize};

use super::budget::{RowShare, Spending};
use super::clock::{EngineTime, Millis};
use super::pacer::{LearnedPace, Pacer, retry_delay};
use super::{BatchRow, RUN_LIST_LIMIT, RowError, RowState, SavedBatch, Tally, row_key};

/// Where the batch as a whole stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Running,
    /// Stopped by the person (`None`) or by the engine, with the reason.
    Paused(Option<String>),
    /// Cancel asked: nothing more is sent, the runs still going are being cancelled.
    Cancelling,
    /// Every row is final (or, paused, nothing is left to send).
    Done,
}

/// Whether this browser keeps the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Keeping {
    /// Not written yet: nothing is sent.
    Pending,
    /// Written as of the last save.
    Kept,
    /// The browser keeps nothing (IndexedDB missing or refused at the first write): the batch
    /// lives in this page only.
    Refused,
}

/// How a submission was answered, as the engine needs to know it.
#[derive(Clone, Debug, PartialEq)]
pub enum SubmitAnswer {
    /// 200 or 202 with the run.
    Accepted(Run),
    /// 429, with the seconds the API asked to wait.
    RateLimited { retry_after: Option<f64> },
    /// 401: wait for the person to sign in again, then send the row again with its key.
    Unauthorized,
    /// 409 `insufficient_credits`, with the API's message.
    InsufficientCredits { message: Option<String> },
    /// A 5xx or no answer: try again later with the same key.
    Transient,
    /// Any other refusal (400, 403, an answer that is not the contract's): the row fails.
    Refused(RowError),
}

/// How a status read (the run list or one run) was answered.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadAnswer<T> {
    Read {
        value: T,
        /// The answer's size, for choosing between list and single reads.
        bytes: usize,
    },
    Unauthorized,
    /// 404: the run is gone (the workspace's runs were reset).
    NotFound,
    /// Anything else: try again at the next round.
    Failed,
}

/// How a cancel was answered.
#[derive(Clone, Debug, PartialEq)]
pub enum CancelAnswer {
    Cancelled(Run),
    /// 409: the run finished meanwhile.
    AlreadyFinished,
    Unauthorized,
    Failed,
}

/// Something that happened to the batch.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Time passed (the driver's timer).
    Tick,
    /// The workspace the batch runs in became known.
    WorkspaceKnown(String),
    /// A credential is there again after a 401.
    SignedIn,
    Pause,
    Resume,
    Cancel,
    RetryFailed,
    Submitted {
        row: usize,
        key: String,
        answer: SubmitAnswer,
    },
    RunListRead(ReadAnswer<Vec<Run>>),
    RunRead {
        row: usize,
        answer: ReadAnswer<Run>,
    },
    CancelAnswered {
        row: usize,
        answer: CancelAnswer,
    },
    /// The save asked for last was written (`true`) or refused.
    Saved(bool),
    /// The person set the batch's credit budget (`None`: none). It does not resume a batch
    /// paused at the budget: Resume does, and pauses again at once if it is still too small.
    SetBudget(Option<u64>),
}

/// A run this batch made, for the store of submissions ("Run again with changes").
#[derive(Clone, Debug, PartialEq)]
pub struct NewRun {
    pub run_id: String,
    pub body: String,
}

/// What to write to this browser's store in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct Saving {
    pub summary: SavedBatch,
    pub rows: Vec<BatchRow>,
    pub new_runs: Vec<NewRun>,
}

/// What the driver does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Submit {
        row: usize,
        action: ActionId,
        key: String,
        body: String,
    },
    ReadRunList,
    ReadRun {
        row: usize,
        run_id: String,
    },
    CancelRun {
        row: usize,
        run_id: String,
    },
    Save(Saving),
    RefreshWorkspace,
}

/// What holds the batch back, as the page says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PacedBy {
    /// Submissions wait for the API's rate limit (its tokens, or a 429's wait).
    RateLimit,
    /// Reads and submissions wait for this browser's store to write the records already
    /// received: the computer is slower than the API.
    ThisComputer,
}

impl PacedBy {
    /// What the batch page says while this holds the batch back.
    pub fn sentence(self) -> &'static str {
        match self {
            PacedBy::RateLimit => "paced by the API's rate limit",
            PacedBy::ThisComputer => {
                "paced by this computer: it stores results more slowly than the API sends them"
            }
        }
    }

    /// For `data-paced-by`.
    pub fn as_str(self) -> &'static str {
        match self {
            PacedBy::RateLimit => "rate-limit",
            PacedBy::ThisComputer => "this-computer",
        }
    }
}

/// The measures of a batch's progress that the page shows and the bench reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// When the batch (or its latest resume) started sending, ms since the epoch.
    pub started_at: f64,
    /// Submissions the API accepted since `started_at`.
    pub accepted: usize,
    /// `429` answers so far.
    pub limited: usize,
    /// Status requests so far (list and single runs).
    pub status_requests: usize,
    /// Bytes of those requests' answers.
    pub status_bytes: usize,
    /// Bytes of the finished runs' answers, each counted once: what the results weigh.
    pub result_bytes: usize,
    /// What held the batch back in the last few seconds, if anything did.
    #[serde(default)]
    pub paced_by: Option<PacedBy>,
    /// Time the store spent on the batch's saves (from the save's command to its answer), ms.
    #[serde(default)]
    pub store_busy_ms: f64,
    /// Finished rows whose records those saves wrote.
    #[serde(default)]
    pub outputs_saved: usize,
}

/// Where a batch stands, with the rows that changed since it was last said: what the worker
/// running a batch tells its page (after every change), and what the running tab tells the
/// other tabs showing the batch (after every save).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchNews {
    pub batch: String,
    pub phase: Phase,
    pub keeping: Keeping,
    pub cancelled: bool,
    pub counters: Counters,
    pub rows: Vec<BatchRow>,
    /// The credits against the budget (absent from news of workers before budgets).
    #[serde(default)]
    pub spending: Spending,
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
/// [`SAVE_EVERY_MS`]: the store is the limit, and every moment it idles is lost.
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
    /// When the last save was asked.
    last_save_at: EngineTime,
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
    /// A new batch of checked rows (invalid rows are kept and listed, never sent).
    pub fn new(
        id: String,
        workspace: Option<String>,
        action: ActionId,
        headers: Vec<String>,
        rows: Vec<BatchRow>,
        now: EngineTime,
    ) -> Engine {
        let dirty = (0..rows.len()).collect();
        let spending = Spending::of(None, 0, &rows, |_| false);
        let mut engine = Engine {
            id,
            workspace,
            created_at: now.as_ms(),
            action,
            headers,
            tally: Tally::of(&rows),
            rows,
            standing: Standing {
                phase: Phase::Running,
                keeping: Keeping::Pending,
                cancelled: false,
                counters: Counters {
                    started_at: now.as_ms(),
                    ..Counters::default()
                },
                awaiting_sign_in: false,
            },
            telling: Telling {
                changed: true,
                unshown: BTreeSet::new(),
            },
            requests: OnTheirWay {
                submitting: 0,
                replaying: BTreeSet::new(),
                reading: HashSet::new(),
                list_in_flight: false,
                list_outputs: 0,
                cancels: HashMap::new(),
                save_in_flight: None,
            },
            watching: Watching {
                accepted_seq: 0,
                watches: HashMap::new(),
                list_bytes: None,
                finished_run_bytes: None,
                unfinished_run_bytes: 600.0,
                run_time: None,
            },
            pacing: Pacing {
                pacer: Pacer::default(),
                store_bound_at: EngineTime::LONG_AGO,
                rate_bound_at: EngineTime::LONG_AGO,
            },
            credits: Credits {
                spending,
                charged_before: 0,
                may_have_run: BTreeSet::new(),
                cleared: BTreeSet::new(),
                listed_in_store: BTreeSet::new(),
                sends_wait_for_store: false,
            },
            store: Storing {
                dirty,
                new_runs: Vec::new(),
                holding: BTreeSet::new(),
                saved_summary: None,
                last_save_at: EngineTime::LONG_AGO,
            },
            balance: BalanceRefresh {
                last_refresh_at: now,
                refreshed_at_end: false,
            },
        };
        engine.store.holding = (0..engine.rows.len())
            .filter(|&i| !engine.rows[i].output.is_empty())
            .collect();
        engine.finish_if_done();
        engine
    }

    /// The batch with a credit budget (`None`: none), for a batch being created.
    pub fn with_budget(mut self, budget: Option<u64>) -> Engine {
        self.credits.spending.budget = budget;
        self
    }

    /// A batch kept in this browser, taken up again after a reload: paused (or going on with
    /// its cancel). A row that was on its way goes again with the same key once resumed: the API
    /// answers with the run it made, if it made one, so nothing runs twice.
    pub fn restore(
        summary: SavedBatch,
        mut rows: Vec<BatchRow>,
        now: EngineTime,
    ) -> Option<Engine> {
        let action = ActionId::parse(&summary.action)?;
        // Without a budget, a row kept as waiting may have been sent after the last save: any of
        // them may answer with a run. With one, the summary lists the rows that may have run
        // (no row is sent for the first time before a save lists it).
        let listed: Option<HashSet<usize>> = summary
            .may_have_run
            .as_ref()
            .map(|lines| lines.iter().copied().collect());
        let mut may_have_run = BTreeSet::new();
        for (index, row) in rows.iter_mut().enumerate() {
            let was_on_its_way = row.state == RowState::Submitting;
            if was_on_its_way {
                row.state = RowState::Waiting;
            }
            let may = match &listed {
                None => row.state == RowState::Waiting,
                Some(lines) => {
                    row.run_id.is_none() && (was_on_its_way || lines.contains(&row.line))
                }
            };
            if may {
                may_have_run.insert(index);
            }
            // Kept before the count was: count the records kept with the row.
            if row.records == 0 {
                row.records = row.output.len();
            }
            // A finished row's records stay in the store (exports read them there).
            if row.state.is_final() {
                row.output = Vec::new();
            }
        }
        let mut engine = Engine::new(
            summary.id.clone(),
            Some(summary.workspace.clone()),
            action,
            summary.headers.clone(),
            rows,
            now,
        );
        engine.created_at = summary.created_at;
        engine.standing.keeping = Keeping::Kept;
        engine.store.dirty.clear();
        if summary.may_have_run.is_some() {
            engine.credits.listed_in_store = may_have_run.clone();
        }
        engine.credits.may_have_run = may_have_run;
        engine.credits.charged_before = summary.charged_before;
        engine.credits.spending.budget = summary.budget;
        engine.count_spending();
        // Whoever shows the batch hears every row once, as kept: a page whose copy missed a
        // row's last change (told once stored, and the worker before this one stopped in
        // between) shows it as it is.
        engine.telling.unshown = (0..engine.rows.len()).collect();
        engine.standing.cancelled = summary.cancelled;
        if let Some(pace) = summary.pace {
            engine.pacing.pacer = Pacer::learned_before(pace);
        }
        engine.store.saved_summary = Some(summary);
        engine.balance.refreshed_at_end = true;
        let mut order = 0;
        for (index, row) in engine.rows.iter().enumerate() {
            if row.state.is_running() {
                order += 1;
                engine.watching.watches.insert(
                    index,
                    Watch {
                        accepted_seq: order,
                        due_at: now,
                        early_reads: 0,
                        off_list: false,
                    },
                );
            }
        }
        engine.watching.accepted_seq = order;
        if engine.rows.iter().all(|r| r.state.is_final()) {
            engine.standing.phase = Phase::Done;
        } else if engine.standing.cancelled {
            engine.start_cancel();
        } else {
            engine.standing.phase = Phase::Paused(Some(
                "Paused: this batch was taken up again from this browser. Resume to send the \
                 rest; rows that were on their way go again with the same key, so none runs twice."
                    .to_owned(),
            ));
        }
        Some(engine)
    }

    /// When the batch was first started, on the batch's clock.
    fn created(&self) -> EngineTime {
        EngineTime::from_ms(self.created_at)
    }

    pub fn rows(&self) -> &[BatchRow] {
        &self.rows
    }

    pub fn phase(&self) -> &Phase {
        &self.standing.phase
    }

    pub fn keeping(&self) -> Keeping {
        self.standing.keeping
    }

    /// Whether cancel was asked (a finished batch says "cancelled" rather than "done").
    pub fn cancelled(&self) -> bool {
        self.standing.cancelled
    }

    pub fn counters(&self) -> &Counters {
        &self.standing.counters
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    pub fn pace(&self) -> Option<LearnedPace> {
        self.pacing.pacer.learned()
    }

    /// The credits against the budget.
    pub fn spending(&self) -> &Spending {
        &self.credits.spending
    }

    /// A row waits but counts its worst case (see [`RowShare::of`]).
    fn held(&self, index: usize) -> bool {
        self.credits.may_have_run.contains(&index) || self.credits.cleared.contains(&index)
    }

    /// Counts the spending from scratch, after a change of the budget or of many rows at once.
    fn count_spending(&mut self) {
        self.credits.spending = Spending::of(
            self.credits.spending.budget,
            self.credits.charged_before,
            &self.rows,
            |index| self.held(index),
        );
    }

    /// Waiting for the person to sign in again after a 401.
    pub fn awaiting_sign_in(&self) -> bool {
        self.standing.awaiting_sign_in
    }

    /// Whether the engine has nothing more to do: every row final and everything saved.
    pub fn is_settled(&self) -> bool {
        self.standing.phase == Phase::Done
            && self.requests.save_in_flight.is_none()
            && (self.standing.keeping == Keeping::Refused || !self.has_unsaved())
    }

    /// What to tell the tabs that show this batch, with `rows` (as just saved).
    pub fn news(&self, rows: Vec<BatchRow>) -> BatchNews {
        let rows = rows
            .into_iter()
            .map(|row| self.without_kept_records(row))
            .collect();
        self.news_of(rows)
    }

    /// The batch's state with these rows, as they are.
    fn news_of(&self, rows: Vec<BatchRow>) -> BatchNews {
        BatchNews {
            batch: self.id.clone(),
            phase: self.standing.phase.clone(),
            keeping: self.standing.keeping,
            cancelled: self.standing.cancelled,
            counters: self.standing.counters.clone(),
            rows,
            spending: self.credits.spending,
        }
    }

    /// Where the batch stands, with the rows changed since the last call: what the page that
    /// shows a batch run by its worker needs after a change. Once the batch is kept, a finished
    /// row is told once the store has its records (`saved` marks it unshown again then), and
    /// without them: the page never holds records, and an export reads every finished row it
    /// was told of from the store. A batch this browser does not keep lives in memory only, so
    /// its rows go with their records.
    pub fn take_news(&mut self) -> BatchNews {
        let (waiting_for_store, told): (BTreeSet<usize>, BTreeSet<usize>) =
            std::mem::take(&mut self.telling.unshown)
                .into_iter()
                .partition(|&index| {
                    self.standing.keeping == Keeping::Kept && !self.rows[index].output.is_empty()
                });
        self.telling.unshown = waiting_for_store;
        let rows = told
            .into_iter()
            .map(|index| self.rows[index].clone())
            .collect();
        self.news_of(rows)
    }

    /// Runs whose records are in memory or may arrive in an answer on its way (bounded by
    /// [`OUTPUTS_IN_MEMORY_AT_MOST`] once the batch is kept).
    fn outputs_in_memory(&self) -> usize {
        self.store.holding.len()
            + self.requests.reading.len()
            + self.requests.list_outputs
            + self.requests.replaying.len()
    }

    /// A request waits for room for records: when records wait for the store, the store (this
    /// computer) is what holds the batch back; otherwise the room is taken by answers on their
    /// way, which is neither the store nor the rate limit.
    fn held_back_for_room(&mut self, now: EngineTime) {
        if self.store.holding.len() >= SAVE_AT_ONCE_HOLDING {
            self.pacing.store_bound_at = now;
        }
    }

    /// How many more runs' records may come into memory now.
    fn output_room(&self) -> usize {
        match self.standing.keeping {
            // The store is where records go: they may not wait for it without bound.
            Keeping::Kept => OUTPUTS_IN_MEMORY_AT_MOST.saturating_sub(self.outputs_in_memory()),
            // Not written yet (nothing is sent), or never: memory is the only place there is.
            Keeping::Pending | Keeping::Refused => usize::MAX,
        }
    }

    /// A row as told to other tabs after a save: once the batch is kept, records are read from
    /// the store (where exports read them), so they are not sent around; until then they go
    /// with the row, as a batch the browser does not keep lives in memory only.
    fn without_kept_records(&self, row: BatchRow) -> BatchRow {
        match self.standing.keeping {
            Keeping::Kept => BatchRow {
                output: Vec::new(),
                ..row
            },
            Keeping::Pending | Keeping::Refused => row,
        }
    }

    /// Takes what the tab running this batch reported: a tab that only shows the batch keeps its
    /// copy up to date this way, and sends nothing.
    pub fn absorb(&mut self, news: BatchNews) {
        if news.batch != self.id {
            return;
        }
        for row in news.rows {
            if let Ok(index) = self.rows.binary_search_by_key(&row.line, |r| r.line) {
                self.tally.remove(&self.rows[index]);
                self.tally.add(&row);
                self.rows[index] = row;
            }
        }
        self.standing.phase = news.phase;
        self.standing.keeping = news.keeping;
        self.standing.cancelled = news.cancelled;
        self.standing.counters = news.counters;
        self.credits.spending = news.spending;
        self.telling.changed = true;
    }

    /// Whether anything the page shows changed since the last call.
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.telling.changed)
    }

    /// Feeds one event at `now` and answers what to do.
    pub fn handle(&mut self, now: EngineTime, event: Event) -> Vec<Command> {
        let mut commands = Vec::new();
        match event {
            Event::Tick => {}
            Event::WorkspaceKnown(id) => {
                if self.workspace.is_none() {
                    self.workspace = Some(id);
                }
            }
            Event::SignedIn => self.standing.awaiting_sign_in = false,
            Event::Pause => {
                if self.standing.phase == Phase::Running {
                    self.set_phase(Phase::Paused(None));
                }
            }
            Event::Resume => {
                if matches!(self.standing.phase, Phase::Paused(_)) {
                    self.set_phase(Phase::Running);
                    self.standing.counters.started_at = now.as_ms();
                    self.standing.counters.accepted = 0;
                    self.finish_if_done();
                }
            }
            Event::Cancel => {
                if matches!(self.standing.phase, Phase::Running | Phase::Paused(_)) {
                    self.start_cancel();
                }
            }
            Event::RetryFailed => self.retry_failed(now),
            Event::Submitted { row, key, answer } => {
                self.submitted(now, row, &key, answer, &mut commands)
            }
            Event::RunListRead(answer) => self.list_read(now, answer),
            Event::RunRead { row, answer } => self.run_read(now, row, answer),
            Event::CancelAnswered { row, answer } => {
                self.cancel_answered(now, row, answer, &mut commands)
            }
            Event::Saved(written) => self.saved(now, written),
            Event::SetBudget(budget) => self.set_budget(budget),
        }
        self.due(now, &mut commands);
        commands
    }

    /// The next time something is due (a submission, a read, a save), for the driver's timer.
    pub fn wake_at(&self, now: EngineTime) -> Option<EngineTime> {
        let mut at = EngineTime::NEVER;
        // Without room for records, reads and submissions wait for the store's answer (an
        // event), not for a time.
        let room = self.output_room() > 0;
        if self.may_send() && room && !self.credits.sends_wait_for_store {
            let earliest_row = self
                .rows
                .iter()
                .filter(|r| r.state == RowState::Waiting)
                .map(|r| r.not_before)
                .fold(EngineTime::NEVER, EngineTime::min);
            if earliest_row.is_finite() && self.requests.submitting < self.pacing.pacer.window() {
                at = at.min(earliest_row.max(self.pacing.pacer.ready_at(now)));
            }
        }
        if !self.standing.awaiting_sign_in {
            if room
                && !self.requests.list_in_flight
                && let Some(due) = self
                    .watching
                    .watches
                    .iter()
                    .filter(|(row, _)| !self.requests.reading.contains(row))
                    .map(|(_, w)| w.due_at)
                    .reduce(EngineTime::min)
            {
                at = at.min(due);
            }
            for state in self.requests.cancels.values() {
                if let CancelState::AgainAt(t) = state {
                    at = at.min(*t);
                }
            }
            if !self.watching.watches.is_empty() {
                at = at.min(self.balance.last_refresh_at + REFRESH_EVERY);
            }
        }
        if self.requests.save_in_flight.is_none()
            && self.standing.keeping != Keeping::Refused
            && self.has_unsaved()
        {
            at = at.min(if self.workspace.is_none() {
                self.created() + WORKSPACE_WAIT
            } else if self.store.holding.len() >= SAVE_AT_ONCE_HOLDING
                || self.credits.sends_wait_for_store
            {
                now
            } else {
                self.store.last_save_at + SAVE_EVERY
            });
        }
        // What held the batch back stops being said a while after it last did.
        if self.standing.counters.paced_by.is_some() {
            at = at.min(self.pacing.store_bound_at.max(self.pacing.rate_bound_at) + PACED_BY_SHOWN);
        }
        at.is_finite().then_some(at)
    }

    fn may_send(&self) -> bool {
        self.standing.phase == Phase::Running
            && self.standing.keeping != Keeping::Pending
            && !self.standing.awaiting_sign_in
    }

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

    /// Marks whether a row's key may have made a run, keeping the spending up to date.
    fn set_may_have_run(&mut self, index: usize, may: bool) {
        let Some(row) = self.rows.get(index) else {
            return;
        };
        let before = RowShare::of(row, self.held(index));
        if may {
            self.credits.may_have_run.insert(index);
        } else {
            self.credits.may_have_run.remove(&index);
        }
        let after = RowShare::of(row, self.held(index));
        self.credits.spending.remove(before);
        self.credits.spending.add(after);
    }

    /// A new budget. Rows cleared under the old one and not sent yet are cleared again under
    /// the new one. A running batch that no longer fits pauses before its next row; a paused
    /// one waits for the person's Resume.
    fn set_budget(&mut self, budget: Option<u64>) {
        let had_budget = self.credits.spending.budget.is_some();
        self.credits.spending.budget = budget;
        let not_sent: Vec<usize> = self
            .credits
            .cleared
            .iter()
            .copied()
            .filter(|&index| {
                self.rows[index].state == RowState::Waiting
                    && !self.credits.may_have_run.contains(&index)
            })
            .collect();
        for index in not_sent {
            self.credits.cleared.remove(&index);
        }
        if budget.is_none() {
            self.credits.cleared.clear();
        } else if !had_budget {
            // Sent before there was a budget: the summary lists them from now on.
            let on_their_way: Vec<usize> = (0..self.rows.len())
                .filter(|&index| self.rows[index].state == RowState::Submitting)
                .collect();
            self.credits.cleared.extend(on_their_way);
        }
        self.count_spending();
        self.telling.changed = true;
    }

    /// How many rows to keep cleared ahead of sending: a few seconds at the learned pace.
    fn cleared_ahead(&self) -> usize {
        match self.pacing.pacer.interval() {
            Some(interval) => ((CLEARED_AHEAD / interval).ceil() as usize)
                .clamp(CLEARED_AHEAD_AT_LEAST, CLEARED_AHEAD_AT_MOST),
            None => CLEARED_AHEAD_UNPACED,
        }
    }

    /// With a budget, clears the next rows never sent, in order, while their worst case fits
    /// what is left, up to [`Engine::cleared_ahead`] waiting (and at least through
    /// `through`); the first that does not fit stops it, so no row is skipped. Refilled once
    /// half are sent, so the summary changes once every few saves.
    fn clear_ahead(&mut self, through: Option<usize>) {
        if self.credits.spending.budget.is_none() {
            return;
        }
        let ahead = self.cleared_ahead();
        let mut waiting = self
            .credits
            .cleared
            .iter()
            .filter(|&&index| {
                self.rows[index].state == RowState::Waiting
                    && !self.credits.may_have_run.contains(&index)
            })
            .count();
        if waiting >= ahead / 2 && through.is_none() {
            return;
        }
        for index in 0..self.rows.len() {
            if waiting >= ahead && through.is_none_or(|through| index > through) {
                return;
            }
            let row = &self.rows[index];
            if row.state != RowState::Waiting || self.held(index) {
                continue;
            }
            if !self.credits.spending.fits(row.estimate) {
                return;
            }
            let before = RowShare::of(row, false);
            self.credits.cleared.insert(index);
            let after = RowShare::of(row, true);
            self.credits.spending.remove(before);
            self.credits.spending.add(after);
            waiting += 1;
        }
    }

    /// What every due thing asks for now.
    fn due(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        if self.standing.phase == Phase::Running {
            self.clear_ahead(None);
        }
        self.due_saves(now, commands);
        if self.standing.awaiting_sign_in {
            return;
        }
        self.due_cancels(now, commands);
        // Reads first: when room for records is short, finished runs are read before more are
        // made.
        self.due_reads(now, commands);
        self.due_submissions(now, commands);
        if self.credits.sends_wait_for_store {
            self.due_saves(now, commands);
        }
        if !self.watching.watches.is_empty() && now - self.balance.last_refresh_at >= REFRESH_EVERY
        {
            self.balance.last_refresh_at = now;
            commands.push(Command::RefreshWorkspace);
        }
        self.finish_if_done();
        self.update_paced_by(now);
        // The balance moves with the batch's end: the workspace is refreshed once then.
        if self.standing.phase == Phase::Done && !self.balance.refreshed_at_end {
            self.balance.refreshed_at_end = true;
            commands.push(Command::RefreshWorkspace);
        }
    }

    /// Says what held the running batch back in the last [`PACED_BY_SHOWN_MS`]: the store
    /// before the rate limit, since a computer that cannot keep up is the news.
    fn update_paced_by(&mut self, now: EngineTime) {
        let paced_by = if self.standing.phase != Phase::Running {
            None
        } else if now - self.pacing.store_bound_at < PACED_BY_SHOWN {
            Some(PacedBy::ThisComputer)
        } else if now - self.pacing.rate_bound_at < PACED_BY_SHOWN {
            Some(PacedBy::RateLimit)
        } else {
            None
        };
        if self.standing.counters.paced_by != paced_by {
            self.standing.counters.paced_by = paced_by;
            self.telling.changed = true;
        }
    }

    fn has_unsaved(&self) -> bool {
        !self.store.dirty.is_empty()
            || !self.store.new_runs.is_empty()
            || self.store.saved_summary.as_ref() != Some(&self.summary())
    }

    /// The batch's summary as kept in this browser.
    pub fn summary(&self) -> SavedBatch {
        SavedBatch {
            id: self.id.clone(),
            workspace: self.workspace.clone().unwrap_or_default(),
            action: self.action.as_str().to_owned(),
            headers: self.headers.clone(),
            created_at: self.created_at,
            cancelled: self.standing.cancelled,
            done: self.standing.phase == Phase::Done,
            to_send: self.tally.to_send,
            finished: self.tally.finished,
            pace: self.pacing.pacer.learned(),
            budget: self.credits.spending.budget,
            charged_before: self.credits.charged_before,
            may_have_run: self.credits.spending.budget.map(|_| {
                self.listed()
                    .into_iter()
                    .map(|index| self.rows[index].line)
                    .collect()
            }),
        }
    }

    /// With a budget, the rows the summary lists as "may have run": sent without an answer, or
    /// cleared to be sent.
    fn listed(&self) -> BTreeSet<usize> {
        match self.credits.spending.budget {
            Some(_) => self
                .credits
                .may_have_run
                .union(&self.credits.cleared)
                .copied()
                .collect(),
            None => BTreeSet::new(),
        }
    }

    fn due_saves(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        let pressed =
            self.store.holding.len() >= SAVE_AT_ONCE_HOLDING || self.credits.sends_wait_for_store;
        if self.requests.save_in_flight.is_some()
            || self.standing.keeping == Keeping::Refused
            || !self.has_unsaved()
            || (now - self.store.last_save_at < SAVE_EVERY && !pressed)
        {
            return;
        }
        if self.workspace.is_none() {
            // Only the workspace's sign-ins may see a kept batch: without it, after a few
            // seconds the batch goes on in this page only, and says so.
            if now - self.created() >= WORKSPACE_WAIT && self.standing.keeping == Keeping::Pending {
                self.standing.keeping = Keeping::Refused;
                self.telling.changed = true;
            }
            return;
        }
        let rows: Vec<usize> = std::mem::take(&mut self.store.dirty).into_iter().collect();
        let new_runs = std::mem::take(&mut self.store.new_runs);
        let summary = self.summary();
        commands.push(Command::Save(Saving {
            summary: summary.clone(),
            rows: rows.iter().map(|&i| self.rows[i].clone()).collect(),
            new_runs: new_runs.clone(),
        }));
        self.requests.save_in_flight = Some(SaveInFlight {
            rows,
            new_runs,
            summary,
            listed: self.listed(),
        });
        self.store.last_save_at = now;
    }

    fn saved(&mut self, now: EngineTime, written: bool) {
        let Some(save) = self.requests.save_in_flight.take() else {
            return;
        };
        self.standing.counters.store_busy_ms +=
            (now - self.store.last_save_at).max(Millis::ZERO).as_ms();
        self.telling.changed = true;
        if written {
            self.store.saved_summary = Some(save.summary);
            // The store lists these rows as "may have run" now: cleared, they may go.
            self.credits.listed_in_store = save.listed;
            if self.standing.keeping != Keeping::Kept {
                self.standing.keeping = Keeping::Kept;
                self.telling.changed = true;
            }
            // A finished row written as it is now keeps its records in the store only, and the
            // page's copy lets them go too.
            for index in save.rows {
                let row = &mut self.rows[index];
                if row.state.is_final()
                    && !self.store.dirty.contains(&index)
                    && !row.output.is_empty()
                {
                    row.output = Vec::new();
                    self.store.holding.remove(&index);
                    self.standing.counters.outputs_saved += 1;
                    self.telling.unshown.insert(index);
                    self.telling.changed = true;
                }
            }
            return;
        }
        // Nothing of it is kept: it stays unsaved for the next try.
        self.store.dirty.extend(save.rows);
        let mut new_runs = save.new_runs;
        new_runs.append(&mut self.store.new_runs);
        self.store.new_runs = new_runs;
        match self.standing.keeping {
            Keeping::Pending => {
                // The browser keeps nothing at all: the batch goes on in this page.
                self.standing.keeping = Keeping::Refused;
                self.telling.changed = true;
            }
            Keeping::Kept => {
                // Kept so far, refused now (a full disk): stop sending, so that no key is sent
                // that a reload could not find. What was received stays in this page.
                if matches!(self.standing.phase, Phase::Running) {
                    self.set_phase(Phase::Paused(Some(
                        "Paused: this browser's storage refused to save the batch (it may be \
                         full). Nothing received is lost while this page stays open; free some \
                         space, then resume."
                            .to_owned(),
                    )));
                }
            }
            Keeping::Refused => {}
        }
    }

    fn due_submissions(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        self.credits.sends_wait_for_store = false;
        if !self.may_send() {
            return;
        }
        loop {
            let Some(index) = self
                .rows
                .iter()
                .position(|r| r.state == RowState::Waiting && r.not_before <= now)
            else {
                return;
            };
            // A key sent before may answer with the run it made, records and all: that
            // submission takes room for them.
            let replay = self.credits.may_have_run.contains(&index);
            if replay && self.output_room() == 0 {
                self.held_back_for_room(now);
                return;
            }
            // A row sent for the first time must fit the budget; a key sent before is counted
            // already.
            if !replay && self.credits.spending.budget.is_some() {
                if !self.credits.cleared.contains(&index) {
                    self.clear_ahead(Some(index));
                }
                if !self.credits.cleared.contains(&index) {
                    let row = &self.rows[index];
                    let reason = self.credits.spending.pause_reason(row.line, row.estimate);
                    self.set_phase(Phase::Paused(Some(reason)));
                    return;
                }
                let listed = self.credits.listed_in_store.contains(&index)
                    && self
                        .requests
                        .save_in_flight
                        .as_ref()
                        .is_none_or(|save| save.listed.contains(&index));
                if self.standing.keeping == Keeping::Kept && !listed {
                    self.credits.sends_wait_for_store = true;
                    return;
                }
            }
            if self.requests.submitting >= self.pacing.pacer.window()
                || self.pacing.pacer.ready_at(now) > now
            {
                self.pacing.rate_bound_at = now;
                return;
            }
            self.pacing.pacer.sent(now);
            self.requests.submitting += 1;
            if replay {
                self.requests.replaying.insert(index);
            }
            self.change_row(index, |row| {
                row.state = RowState::Submitting;
                row.tries += 1;
            });
            let row = &self.rows[index];
            commands.push(Command::Submit {
                row: index,
                action: self.action,
                key: row_key(&self.id, row.attempt, row.line),
                body: row.body.clone(),
            });
        }
    }

    fn submitted(
        &mut self,
        now: EngineTime,
        index: usize,
        key: &str,
        answer: SubmitAnswer,
        commands: &mut Vec<Command>,
    ) {
        let current = self.rows.get(index).is_some_and(|row| {
            row.state == RowState::Submitting && row_key(&self.id, row.attempt, row.line) == key
        });
        if !current {
            return;
        }
        self.requests.submitting = self.requests.submitting.saturating_sub(1);
        self.requests.replaying.remove(&index);
        match &answer {
            // The run may have been made, its answer lost.
            SubmitAnswer::Transient => self.set_may_have_run(index, true),
            SubmitAnswer::Accepted(_) | SubmitAnswer::Refused(_) => {
                self.set_may_have_run(index, false)
            }
            SubmitAnswer::RateLimited { .. }
            | SubmitAnswer::Unauthorized
            | SubmitAnswer::InsufficientCredits { .. } => {}
        }
        let again = |not_before: EngineTime| {
            move |row: &mut BatchRow| {
                row.state = RowState::Waiting;
                row.not_before = not_before;
            }
        };
        match answer {
            SubmitAnswer::Accepted(run) => {
                self.pacing.pacer.accepted();
                self.standing.counters.accepted += 1;
                self.watching.accepted_seq += 1;
                let terminal = run.status.is_terminal();
                if terminal {
                    self.learn_run_time(&run);
                }
                self.change_row(index, |row| row.take_run(&run));
                if !terminal && self.rows[index].state.is_running() {
                    let expected = self.watching.run_time.unwrap_or(FIRST_GUESS_RUN);
                    self.watching.watches.insert(
                        index,
                        Watch {
                            accepted_seq: self.watching.accepted_seq,
                            due_at: now + expected * 1.1 + Millis::from_ms(100.0),
                            early_reads: 0,
                            off_list: false,
                        },
                    );
                    if self.standing.phase == Phase::Cancelling {
                        self.requests
                            .cancels
                            .insert(index, CancelState::AgainAt(now));
                    }
                }
            }
            SubmitAnswer::RateLimited { retry_after } => {
                self.pacing.pacer.limited(now, retry_after.unwrap_or(1.0));
                self.standing.counters.limited += 1;
                self.telling.changed = true;
                self.change_row(index, again(EngineTime::EPOCH));
            }
            SubmitAnswer::Unauthorized => {
                self.standing.awaiting_sign_in = true;
                self.change_row(index, again(EngineTime::EPOCH));
            }
            SubmitAnswer::InsufficientCredits { message } => {
                self.change_row(index, again(EngineTime::EPOCH));
                if self.standing.phase == Phase::Running {
                    self.set_phase(Phase::Paused(Some(format!(
                        "Paused: {} Resume once credits are available.",
                        message
                            .as_deref()
                            .unwrap_or("Not enough credits for the next row.")
                    ))));
                }
                commands.push(Command::RefreshWorkspace);
            }
            SubmitAnswer::Transient => {
                let tries = self.rows[index].tries;
                self.change_row(index, again(now + retry_delay(tries)));
            }
            SubmitAnswer::Refused(error) => self.change_row(index, |row| {
                row.state = RowState::Failed;
                row.error = Some(error);
            }),
        }
        if self.standing.phase == Phase::Cancelling {
            self.not_sent_rows();
        }
    }

    fn learn_run_time(&mut self, run: &Run) {
        if let Some(done) = run.completed_at {
            let took = Millis::from_ms((done - run.created_at).num_milliseconds().max(0) as f64);
            self.watching.run_time = Some(match self.watching.run_time {
                None => took,
                Some(before) => before * 0.8 + took * 0.2,
            });
        }
    }

    fn learn_bytes(average: &mut Option<f64>, bytes: usize) {
        let bytes = bytes as f64;
        *average = Some(match *average {
            None => bytes,
            Some(before) => before * 0.7 + bytes * 0.3,
        });
    }

    /// Reads due now: the run list when it costs less than the due rows' single reads.
    fn due_reads(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        if self.requests.list_in_flight {
            return;
        }
        let mut due: Vec<(usize, Watch)> = self
            .watching
            .watches
            .iter()
            .filter(|(row, w)| w.due_at <= now && !self.requests.reading.contains(*row))
            .map(|(row, w)| (*row, *w))
            .collect();
        if due.is_empty() {
            return;
        }
        due.sort_by(|a, b| a.1.due_at.total_cmp(&b.1.due_at));
        // A run accepted more than a list's length before the latest is not in the list.
        let in_list = |w: &Watch| {
            !w.off_list && self.watching.accepted_seq - w.accepted_seq < RUN_LIST_LIMIT as u64
        };
        let single_cost = REQUEST_OVERHEAD_BYTES
            + self
                .watching
                .finished_run_bytes
                .unwrap_or(self.watching.unfinished_run_bytes);
        let covered = due.iter().filter(|(_, w)| in_list(w)).count();
        let list_cost = REQUEST_OVERHEAD_BYTES
            // Not read yet: as many runs as the list holds, weighing what runs weigh.
            + self
                .watching.list_bytes
                .unwrap_or(RUN_LIST_LIMIT as f64 * single_cost);
        let room = self.output_room();
        if covered > 1 && list_cost < covered as f64 * single_cost {
            // The list may finish every watched run it holds.
            let outputs = self
                .watching
                .watches
                .values()
                .filter(|w| in_list(w))
                .count()
                .min(RUN_LIST_LIMIT);
            if outputs <= room {
                self.requests.list_in_flight = true;
                self.requests.list_outputs = outputs;
                self.standing.counters.status_requests += 1;
                self.telling.changed = true;
                commands.push(Command::ReadRunList);
                return;
            }
        }
        for (row, _) in due {
            if self.requests.reading.len() >= SINGLE_READS_AT_ONCE {
                break;
            }
            if self.output_room() == 0 {
                self.held_back_for_room(now);
                break;
            }
            let Some(run_id) = self.rows[row].run_id.clone() else {
                continue;
            };
            self.requests.reading.insert(row);
            self.standing.counters.status_requests += 1;
            self.telling.changed = true;
            commands.push(Command::ReadRun { row, run_id });
        }
    }

    /// A running row found still running: read it again later, a little later each time.
    fn read_again_later(&mut self, now: EngineTime, index: usize) {
        let expected = self.watching.run_time.unwrap_or(FIRST_GUESS_RUN);
        if let Some(watch) = self.watching.watches.get_mut(&index) {
            watch.early_reads += 1;
            let wait = (expected / 2.0).max(Millis::from_ms(1_000.0))
                * 1.5f64.powi(watch.early_reads.saturating_sub(1).min(6) as i32);
            watch.due_at = now + wait.min(Millis::from_ms(10_000.0));
        }
    }

    /// Takes a run's answer for a row; counts a finished run's bytes as results the first time.
    fn take_read_run(&mut self, now: EngineTime, index: usize, run: &Run, bytes: Option<usize>) {
        let was_running = self.rows[index].state.is_running();
        if run.status.is_terminal() && was_running {
            self.learn_run_time(run);
            if let Some(bytes) = bytes {
                self.standing.counters.result_bytes += bytes;
                Self::learn_bytes(&mut self.watching.finished_run_bytes, bytes);
            }
        } else if let Some(bytes) = bytes {
            self.watching.unfinished_run_bytes =
                self.watching.unfinished_run_bytes * 0.7 + bytes as f64 * 0.3;
        }
        self.change_row(index, |row| row.take_run(run));
        if self.rows[index].state.is_running() {
            self.read_again_later(now, index);
        }
    }

    fn run_read(&mut self, now: EngineTime, index: usize, answer: ReadAnswer<Run>) {
        self.requests.reading.remove(&index);
        match answer {
            ReadAnswer::Read { value, bytes } => {
                self.standing.counters.status_bytes += bytes;
                if self.rows.get(index).and_then(|r| r.run_id.as_deref()) == Some(&value.id) {
                    self.take_read_run(now, index, &value, Some(bytes));
                }
                // A read asked after a cancel's 409: if the run still shows as going, cancel
                // again.
                if self.standing.phase == Phase::Cancelling
                    && self.rows[index].state.is_running()
                    && !self.requests.cancels.contains_key(&index)
                {
                    self.requests
                        .cancels
                        .insert(index, CancelState::AgainAt(now));
                }
            }
            ReadAnswer::Unauthorized => self.standing.awaiting_sign_in = true,
            ReadAnswer::NotFound => self.change_row(index, |row| {
                row.state = RowState::Failed;
                row.error = Some(RowError {
                    code: "not_found".to_owned(),
                    message: "The API no longer knows this run.".to_owned(),
                    request_id: None,
                });
            }),
            ReadAnswer::Failed => self.read_again_later(now, index),
        }
    }

    fn list_read(&mut self, now: EngineTime, answer: ReadAnswer<Vec<Run>>) {
        self.requests.list_in_flight = false;
        self.requests.list_outputs = 0;
        match answer {
            ReadAnswer::Read { value, bytes } => {
                self.standing.counters.status_bytes += bytes;
                Self::learn_bytes(&mut self.watching.list_bytes, bytes);
                let by_run: HashMap<&str, usize> = self
                    .watching
                    .watches
                    .keys()
                    .filter_map(|&i| Some((self.rows[i].run_id.as_deref()?, i)))
                    .collect();
                let found: Vec<(usize, Run)> = value
                    .into_iter()
                    .filter_map(|run| Some((*by_run.get(run.id.as_str())?, run)))
                    .collect();
                let listed: HashSet<usize> = found.iter().map(|(i, _)| *i).collect();
                for (index, run) in found {
                    // The list's bytes are status; a finished run's share is its result.
                    let share = serde_json::to_string(&run).map_or(0, |s| s.len());
                    if run.status.is_terminal() {
                        self.standing.counters.result_bytes += share;
                        Self::learn_bytes(&mut self.watching.finished_run_bytes, share);
                    }
                    self.take_read_run(now, index, &run, None);
                }
                // A due run missing from the list left it (over a hundred runs since): read it on
                // its own.
                let missing: Vec<usize> = self
                    .watching
                    .watches
                    .iter()
                    .filter(|(i, w)| w.due_at <= now && !listed.contains(*i))
                    .map(|(i, _)| *i)
                    .collect();
                for index in missing {
                    if let Some(w) = self.watching.watches.get_mut(&index) {
                        w.off_list = true;
                    }
                }
            }
            ReadAnswer::Unauthorized => self.standing.awaiting_sign_in = true,
            ReadAnswer::NotFound | ReadAnswer::Failed => {}
        }
    }

    fn start_cancel(&mut self) {
        self.standing.cancelled = true;
        self.set_phase(Phase::Cancelling);
        self.telling.changed = true;
        self.not_sent_rows();
        let running: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].state.is_running() && self.rows[i].run_id.is_some())
            .collect();
        for index in running {
            self.requests
                .cancels
                .entry(index)
                .or_insert(CancelState::AgainAt(EngineTime::LONG_AGO));
        }
    }

    /// During a cancel, a row not on its way is not sent.
    fn not_sent_rows(&mut self) {
        let waiting: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].state == RowState::Waiting)
            .collect();
        for index in waiting {
            self.change_row(index, |row| {
                row.state = RowState::Cancelled;
                row.error = Some(RowError {
                    code: "not_sent".to_owned(),
                    message: "The batch was cancelled before this row was sent.".to_owned(),
                    request_id: None,
                });
            });
        }
    }

    fn due_cancels(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        let due: Vec<usize> = self
            .requests
            .cancels
            .iter()
            .filter(|(_, s)| matches!(s, CancelState::AgainAt(t) if *t <= now))
            .map(|(i, _)| *i)
            .collect();
        for index in due {
            let row = &self.rows[index];
            match (&row.run_id, row.state.is_running()) {
                (Some(run_id), true) => {
                    commands.push(Command::CancelRun {
                        row: index,
                        run_id: run_id.clone(),
                    });
                    self.requests.cancels.insert(index, CancelState::InFlight);
                }
                _ => {
                    self.requests.cancels.remove(&index);
                }
            }
        }
    }

    fn cancel_answered(
        &mut self,
        now: EngineTime,
        index: usize,
        answer: CancelAnswer,
        commands: &mut Vec<Command>,
    ) {
        self.requests.cancels.remove(&index);
        match answer {
            CancelAnswer::Cancelled(run) => self.take_read_run(now, index, &run, None),
            CancelAnswer::AlreadyFinished => {
                if let Some(run_id) = self.rows.get(index).and_then(|r| r.run_id.clone()) {
                    self.requests.reading.insert(index);
                    self.standing.counters.status_requests += 1;
                    commands.push(Command::ReadRun { row: index, run_id });
                }
            }
            CancelAnswer::Unauthorized => {
                self.standing.awaiting_sign_in = true;
                self.requests
                    .cancels
                    .insert(index, CancelState::AgainAt(now + CANCEL_AGAIN));
            }
            CancelAnswer::Failed => {
                self.requests
                    .cancels
                    .insert(index, CancelState::AgainAt(now + CANCEL_AGAIN));
            }
        }
    }

    fn retry_failed(&mut self, now: EngineTime) {
        if self.standing.phase != Phase::Done {
            return;
        }
        let failed: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].state == RowState::Failed)
            .collect();
        if failed.is_empty() {
            return;
        }
        for index in failed {
            // A new attempt is a new key: nothing was made with it. The old attempt's run still
            // counts against the budget.
            self.set_may_have_run(index, false);
            let charged = self.rows[index].credits_used;
            self.credits.charged_before = self.credits.charged_before.saturating_add(charged);
            self.credits.spending.charged = self.credits.spending.charged.saturating_add(charged);
            self.change_row(index, |row| {
                row.attempt += 1;
                row.tries = 0;
                row.not_before = EngineTime::EPOCH;
                row.state = RowState::Waiting;
                row.run_id = None;
                row.error = None;
                row.output.clear();
                row.records = 0;
                row.credits_used = 0;
            });
        }
        self.standing.cancelled = false;
        self.set_phase(Phase::Running);
        self.standing.counters.started_at = now.as_ms();
        self.standing.counters.accepted = 0;
        self.balance.refreshed_at_end = false;
    }

    /// Running with nothing left to send, follow or store: done. Cancelling with nothing on its
    /// way: done. A kept batch is done once the store has every row's records, so the page, told
    /// of a finished row once it is stored, shows every row final when it shows "done".
    fn finish_if_done(&mut self) {
        let storing = self.standing.keeping == Keeping::Kept && !self.store.holding.is_empty();
        let going = storing
            || self.requests.submitting > 0
            || self.rows.iter().any(|r| !r.state.is_final());
        match self.standing.phase {
            Phase::Running if !going => self.set_phase(Phase::Done),
            Phase::Cancelling => {
                let busy = storing
                    || self.requests.submitting > 0
                    || !self.requests.cancels.is_empty()
                    || !self.requests.reading.is_empty()
                    || self.rows.iter().any(|r| r.state.is_running());
                if !busy {
                    self.not_sent_rows();
                    self.set_phase(Phase::Done);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    //! The engine against a fake API on a fake clock: answers arrive in any order and any of the
    //! contract's ways, a page is reloaded (the engine dropped and restored from what it saved)
    //! or cancelled at any point.

    use std::collections::{BTreeMap, HashMap, HashSet};

    use api_contract::{ActionId, Run, RunStatus};
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::model::bulk::{CheckedRow, row_key};

    /// When the simulations start, in ms since the epoch: the fake API and the fake store keep
    /// their times as plain milliseconds, and the engine takes them as [`EngineTime`].
    const START: f64 = 1.7e12;

    /// A tiny deterministic generator, so a proptest case is replayed exactly.
    struct Dice(u64);

    impl Dice {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// `true` with probability `share`.
        fn chance(&mut self, share: f64) -> bool {
            (self.next() % 10_000) as f64 / 10_000.0 < share
        }
        fn between(&mut self, low: f64, high: f64) -> f64 {
            low + (self.next() % 10_000) as f64 / 10_000.0 * (high - low)
        }
    }

    /// Faults the fake API makes, as shares of requests.
    #[derive(Clone, Copy, Debug)]
    struct Faults {
        /// A 5xx before any run is made.
        server_error: f64,
        /// The run is made but the answer is lost (the client sees no answer).
        lost_answer: f64,
        /// 400 for a row.
        refused: f64,
        /// 401, then the person signs in again a moment later.
        unauthorized: f64,
        /// 429 without `retry_after`.
        no_retry_after: f64,
        /// A status read or cancel fails.
        read_failure: f64,
        /// Runs that fail.
        failed_run: f64,
    }

    const NO_FAULTS: Faults = Faults {
        server_error: 0.0,
        lost_answer: 0.0,
        refused: 0.0,
        unauthorized: 0.0,
        no_retry_after: 0.0,
        read_failure: 0.0,
        failed_run: 0.0,
    };

    struct FakeRun {
        id: String,
        created_at: f64,
        ends_at: f64,
        fails: bool,
        cancelled_at: Option<f64>,
        records: usize,
        /// The body's `max_credits`: the API never charges a run more.
        max_credits: u64,
        /// What the run charges if it completes (a failed or cancelled one charges part of it).
        charge: u64,
    }

    /// The API as the contract describes it: one run per idempotency key, a token bucket per
    /// workspace, runs that take a while, the latest 100 in the list.
    struct FakeApi {
        burst: f64,
        per_ms: f64,
        tokens: f64,
        refilled_at: f64,
        runs: Vec<FakeRun>,
        by_key: HashMap<String, usize>,
        run_ms: f64,
        credits: u64,
        /// Every key a submission carried, with its row.
        keys_sent: Vec<(usize, String)>,
        limited: usize,
        accepted_submissions: usize,
        /// Draws what each run charges, apart from `Dice` so the other draws stay as they were.
        charges: Dice,
        /// Every run charges its `max_credits`, even a failed or cancelled one.
        full_charge: bool,
    }

    impl FakeApi {
        fn new(burst: f64, per_sec: f64, run_ms: f64) -> FakeApi {
            FakeApi {
                burst,
                per_ms: per_sec / 1000.0,
                tokens: burst,
                refilled_at: START,
                runs: Vec::new(),
                by_key: HashMap::new(),
                run_ms,
                credits: u64::MAX,
                keys_sent: Vec::new(),
                limited: 0,
                accepted_submissions: 0,
                charges: Dice(0x9e37_79b9_7f4a_7c15),
                full_charge: false,
            }
        }

        /// What this batch's runs may still cost: what an ended run charged, a going run's
        /// `max_credits`.
        fn committed(&self, now: f64) -> u64 {
            self.by_key
                .values()
                .map(|&index| match self.status(index, now) {
                    (status, _) if status.is_terminal() => self.credits_used(index, status),
                    _ => self.runs[index].max_credits,
                })
                .sum()
        }

        /// A run's status at `now`, and when it ended.
        fn status(&self, index: usize, now: f64) -> (RunStatus, Option<f64>) {
            let r = &self.runs[index];
            match r.cancelled_at {
                Some(at) => (RunStatus::Cancelled, Some(at)),
                None if now >= r.ends_at && r.fails => (RunStatus::Failed, Some(r.ends_at)),
                None if now >= r.ends_at => (RunStatus::Completed, Some(r.ends_at)),
                None if now >= r.created_at + 100.0 => (RunStatus::Processing, None),
                None => (RunStatus::Queued, None),
            }
        }

        /// What a run of this status has charged so far: never more than its `max_credits`.
        fn credits_used(&self, index: usize, status: RunStatus) -> u64 {
            let charge = self.runs[index].charge;
            match status {
                RunStatus::Completed => charge,
                _ if self.full_charge && status.is_terminal() => charge,
                RunStatus::Failed | RunStatus::Cancelled => charge / 2,
                RunStatus::Processing => charge / 3,
                RunStatus::Queued => 0,
            }
        }

        fn run(&self, index: usize, now: f64) -> Run {
            let r = &self.runs[index];
            let (status, completed_at) = self.status(index, now);
            let records = if status == RunStatus::Completed {
                r.records
            } else {
                0
            };
            let credits_used = self.credits_used(index, status);
            let time = |ms: f64| {
                chrono::DateTime::from_timestamp_millis(ms as i64)
                    .unwrap()
                    .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
            };
            serde_json::from_value(json!({
                "id": r.id, "action": "premium-search-people", "status": status.as_str(),
                "output": (0..records).map(|i| json!({ "name": format!("person {i}") })).collect::<Vec<_>>(),
                "credits_used": credits_used, "credits_reserved": 0,
                "created_at": time(r.created_at), "completed_at": completed_at.map(time),
                "completeness": { "has_more": false, "scope": "single_page" },
                "error": if status == RunStatus::Failed { json!({ "code": "provider_error", "message": "no" }) } else { serde_json::Value::Null },
            }))
            .unwrap()
        }

        fn submit(
            &mut self,
            now: f64,
            row: usize,
            key: &str,
            body: &str,
            dice: &mut Dice,
            faults: Faults,
        ) -> Option<SubmitAnswer> {
            self.keys_sent.push((row, key.to_owned()));
            self.tokens = (self.tokens + (now - self.refilled_at) * self.per_ms).min(self.burst);
            self.refilled_at = now;
            if dice.chance(faults.unauthorized) {
                return Some(SubmitAnswer::Unauthorized);
            }
            if dice.chance(faults.server_error) {
                return Some(SubmitAnswer::Transient);
            }
            if let Some(&index) = self.by_key.get(key) {
                // A repeat of a key: the run it made, not a new one (and no token).
                return Some(SubmitAnswer::Accepted(self.run(index, now)));
            }
            if dice.chance(faults.refused) {
                return Some(SubmitAnswer::Refused(RowError {
                    code: "invalid_input".into(),
                    message: "no".into(),
                    request_id: Some("req".into()),
                }));
            }
            if self.tokens < 1.0 {
                self.limited += 1;
                let retry_after = if dice.chance(faults.no_retry_after) {
                    None
                } else {
                    Some(((1.0 - self.tokens) / self.per_ms / 1000.0).max(0.05))
                };
                return Some(SubmitAnswer::RateLimited { retry_after });
            }
            if self.credits == 0 {
                return Some(SubmitAnswer::InsufficientCredits {
                    message: Some("none left".into()),
                });
            }
            self.credits -= 1;
            self.tokens -= 1.0;
            self.accepted_submissions += 1;
            let index = self.runs.len();
            let max_credits = serde_json::from_str::<serde_json::Value>(body)
                .ok()
                .and_then(|body| body["max_credits"].as_u64())
                .unwrap_or(5);
            let charge = if self.full_charge {
                max_credits
            } else {
                self.charges.next() % max_credits.saturating_add(1)
            };
            self.runs.push(FakeRun {
                id: format!("run_{index}"),
                created_at: now,
                ends_at: now + self.run_ms * dice.between(0.5, 1.5),
                fails: dice.chance(faults.failed_run),
                cancelled_at: None,
                records: 1 + (dice.next() % 5) as usize,
                max_credits,
                charge,
            });
            self.by_key.insert(key.to_owned(), index);
            if dice.chance(faults.lost_answer) {
                return None;
            }
            Some(SubmitAnswer::Accepted(self.run(index, now)))
        }

        fn index_of(&self, run_id: &str) -> Option<usize> {
            self.runs.iter().position(|r| r.id == run_id)
        }

        fn bytes(&self, run: &Run) -> usize {
            serde_json::to_string(run).unwrap().len()
        }
    }

    /// What the fake store holds: the last saved summary and rows.
    #[derive(Default)]
    struct FakeStore {
        summary: Option<SavedBatch>,
        rows: BTreeMap<usize, BatchRow>,
    }

    /// A driver on a fake clock: each command's answer arrives after a random latency.
    struct Sim {
        /// The fake clock, in ms since the epoch ([`Sim::clock`] for the engine).
        now: f64,
        engine: Engine,
        api: FakeApi,
        store: FakeStore,
        dice: Dice,
        faults: Faults,
        save_failure: f64,
        /// How long the store takes to commit a save, for each finished row's records in it
        /// (0: as fast as any other answer). A store slower than the API's answers.
        store_ms_per_output: f64,
        /// The most runs' records seen in memory or on their way at once, counted from the rows
        /// and the answers themselves (not from the engine's own count).
        most_outputs_in_memory: usize,
        /// Answers on their way: (arrival, order, event).
        arriving: Vec<(f64, u64, Event)>,
        order: u64,
        /// Rows with a submission on its way, to check there is never a second.
        submitting: HashSet<usize>,
        /// The engine was never asked to send before its first save answered.
        sent_before_kept: bool,
        sign_in_at: Option<f64>,
        /// The page's copy, told only what [`Engine::take_news`] says after each change (as the
        /// worker running a batch tells its page).
        page: Engine,
        /// Every key the engine ever sent, reloads included: a key not in it goes for the first
        /// time.
        keys_ever_sent: HashSet<String>,
        /// The budget seen last, and whether it was ever lowered (a lower budget may leave the
        /// batch above it, by what was committed before).
        budget_seen: Option<u64>,
        budget_lowered: bool,
    }

    fn rows(n: usize) -> Vec<BatchRow> {
        rows_costing(&vec![5; n])
    }

    /// A row per worst case, sent with it as `max_credits`, from line 2 on.
    fn rows_costing(estimates: &[u64]) -> Vec<BatchRow> {
        estimates
            .iter()
            .enumerate()
            .map(|(i, &estimate)| {
                BatchRow::new(CheckedRow {
                    line: i + 2,
                    cells: vec![format!("row {i}")],
                    body: format!(
                        r#"{{"input":{{"keywords":"row {i}"}},"max_credits":{estimate}}}"#
                    ),
                    estimate,
                    errors: Vec::new(),
                })
            })
            .collect()
    }

    impl Sim {
        /// The fake clock's time, as the engine takes it.
        fn clock(&self) -> EngineTime {
            EngineTime::from_ms(self.now)
        }

        fn new(n: usize, api: FakeApi, faults: Faults, seed: u64) -> Sim {
            Sim::with_rows(rows(n), None, api, faults, seed)
        }

        fn with_rows(
            rows: Vec<BatchRow>,
            budget: Option<u64>,
            api: FakeApi,
            faults: Faults,
            seed: u64,
        ) -> Sim {
            let engine = Engine::new(
                "0123456789abcdef0123456789abcdef".into(),
                Some("ws".into()),
                ActionId::PremiumSearchPeople,
                vec!["keywords".into()],
                rows,
                EngineTime::from_ms(START),
            )
            .with_budget(budget);
            Sim {
                now: START,
                page: engine.clone(),
                engine,
                api,
                store: FakeStore::default(),
                dice: Dice(seed | 1),
                faults,
                save_failure: 0.0,
                store_ms_per_output: 0.0,
                most_outputs_in_memory: 0,
                arriving: Vec::new(),
                order: 0,
                submitting: HashSet::new(),
                sent_before_kept: false,
                sign_in_at: None,
                keys_ever_sent: HashSet::new(),
                budget_seen: budget,
                budget_lowered: false,
            }
        }

        fn deliver_later(&mut self, event: Event) {
            let at = self.now + self.dice.between(1.0, 60.0);
            self.order += 1;
            self.arriving.push((at, self.order, event));
        }

        fn execute(&mut self, commands: Vec<Command>) {
            for command in commands {
                match command {
                    Command::Submit {
                        row,
                        key,
                        action,
                        body,
                    } => {
                        assert_eq!(action, ActionId::PremiumSearchPeople);
                        if self.engine.keeping() == Keeping::Pending {
                            self.sent_before_kept = true;
                        }
                        assert!(self.submitting.insert(row), "row {row} sent twice at once");
                        // A row the engine sends as new (not again with a key that may have
                        // made a run) goes only if its worst case fit what the budget left: the
                        // engine counts it now, and the whole still fits. A key sent again after
                        // a reload may never have gone (the store lists every row that may have),
                        // but it was counted before the reload.
                        let spending = *self.engine.spending();
                        let first_time = self.keys_ever_sent.insert(key.clone());
                        let replay = self.engine.requests.replaying.contains(&row);
                        if first_time
                            && !replay
                            && let Some(budget) = spending.budget
                        {
                            assert!(
                                spending.committed() <= budget,
                                "line {} sent for the first time past the budget: {spending:?}",
                                row + 2
                            );
                        }
                        let answer = self.api.submit(
                            self.now,
                            row,
                            &key,
                            &body,
                            &mut self.dice,
                            self.faults,
                        );
                        if answer == Some(SubmitAnswer::Unauthorized) {
                            self.sign_in_at = Some(self.now + 500.0);
                        }
                        // A lost answer is what the client sees as no answer: a transient error.
                        let answer = answer.unwrap_or(SubmitAnswer::Transient);
                        self.deliver_later(Event::Submitted { row, key, answer });
                    }
                    Command::ReadRunList => {
                        let answer = if self.dice.chance(self.faults.read_failure) {
                            ReadAnswer::Failed
                        } else {
                            let runs: Vec<Run> = (0..self.api.runs.len())
                                .rev()
                                .take(RUN_LIST_LIMIT)
                                .map(|i| self.api.run(i, self.now))
                                .collect();
                            let bytes = serde_json::to_string(&runs).unwrap().len();
                            ReadAnswer::Read { value: runs, bytes }
                        };
                        self.deliver_later(Event::RunListRead(answer));
                    }
                    Command::ReadRun { row, run_id } => {
                        let answer = match self.api.index_of(&run_id) {
                            _ if self.dice.chance(self.faults.read_failure) => ReadAnswer::Failed,
                            Some(i) => {
                                let run = self.api.run(i, self.now);
                                let bytes = self.api.bytes(&run);
                                ReadAnswer::Read { value: run, bytes }
                            }
                            None => ReadAnswer::NotFound,
                        };
                        self.deliver_later(Event::RunRead { row, answer });
                    }
                    Command::CancelRun { row, run_id } => {
                        let answer = match self.api.index_of(&run_id) {
                            _ if self.dice.chance(self.faults.read_failure) => CancelAnswer::Failed,
                            Some(i) => {
                                let run = self.api.run(i, self.now);
                                if run.status.is_terminal() {
                                    CancelAnswer::AlreadyFinished
                                } else {
                                    self.api.runs[i].cancelled_at = Some(self.now);
                                    CancelAnswer::Cancelled(self.api.run(i, self.now))
                                }
                            }
                            None => CancelAnswer::Failed,
                        };
                        self.deliver_later(Event::CancelAnswered { row, answer });
                    }
                    Command::Save(saving) => {
                        let written = !self.dice.chance(self.save_failure);
                        let outputs = saving.rows.iter().filter(|r| !r.output.is_empty()).count();
                        let commit_ms = outputs as f64 * self.store_ms_per_output;
                        if written {
                            self.store.summary = Some(saving.summary.clone());
                            for row in saving.rows {
                                self.store.rows.insert(row.line, row);
                            }
                        }
                        if commit_ms > 0.0 {
                            self.order += 1;
                            let at = self.now + commit_ms;
                            self.arriving.push((at, self.order, Event::Saved(written)));
                        } else {
                            self.deliver_later(Event::Saved(written));
                        }
                    }
                    Command::RefreshWorkspace => {}
                }
            }
        }

        fn handle(&mut self, event: Event) {
            if let Event::Submitted { row, .. } = &event {
                self.submitting.remove(row);
            }
            let resume = event == Event::Resume;
            let phase_before = self.engine.phase().clone();
            let commands = self.engine.handle(self.clock(), event);
            self.check_spending();
            if resume || self.engine.phase() != &phase_before {
                self.check_pause_at_budget();
            }
            self.count_outputs_in_memory();
            if self.engine.take_changed() {
                self.page.absorb(self.engine.take_news());
                // The page says "done" with every row final, as the person reads it.
                if self.page.phase() == &Phase::Done {
                    let going = self.page.rows().iter().find(|r| !r.state.is_final());
                    assert!(going.is_none(), "done, but {going:?}");
                }
                // What an export reads: a row the page holds without its records has them in
                // the store.
                for row in self.page.rows() {
                    if row.records > 0 && row.output.is_empty() {
                        assert!(
                            self.store
                                .rows
                                .get(&row.line)
                                .is_some_and(|kept| kept.output.len() == row.records),
                            "line {}: the page let its {} records go before the store had them",
                            row.line,
                            row.records
                        );
                    }
                }
            }
            self.execute(commands);
        }

        /// The spending the engine keeps is the spending counted from its rows; with a budget,
        /// what the API may still charge is within it, and both are within the budget unless it
        /// was lowered.
        fn check_spending(&mut self) {
            let engine = &self.engine;
            let counted = Spending::of(
                engine.credits.spending.budget,
                engine.credits.charged_before,
                &engine.rows,
                |index| engine.held(index),
            );
            assert_eq!(
                engine.credits.spending, counted,
                "the spending kept is the spending counted"
            );
            let budget = engine.credits.spending.budget;
            if budget != self.budget_seen {
                if budget.is_some_and(|b| self.budget_seen.is_none_or(|seen| b < seen)) {
                    self.budget_lowered = true;
                }
                self.budget_seen = budget;
            }
            let Some(budget) = budget else {
                return;
            };
            let committed = engine.credits.spending.committed();
            let at_the_api = self.api.committed(self.now);
            assert!(
                at_the_api <= committed,
                "the API may charge {at_the_api}, the batch counts {committed}"
            );
            if !self.budget_lowered {
                assert!(
                    committed <= budget,
                    "{committed} committed, budget {budget}"
                );
            }
        }

        /// A batch that has just paused at its budget paused before the first row never sent,
        /// which does not fit what is left, and says which.
        fn check_pause_at_budget(&self) {
            let Some(reason) = self.paused_at_budget() else {
                return;
            };
            let engine = &self.engine;
            let next = (0..engine.rows.len())
                .find(|&i| engine.rows[i].state == RowState::Waiting && !engine.held(i));
            let Some(next) = next else {
                panic!("paused at the budget with no row to send: {reason}");
            };
            let row = &engine.rows[next];
            assert!(
                !engine.credits.spending.fits(row.estimate),
                "paused before line {}, which fits: {:?}",
                row.line,
                engine.credits.spending
            );
            assert!(reason.contains(&format!("line {} ", row.line)), "{reason}");
        }

        /// The batch is paused at its budget, with this reason.
        fn paused_at_budget(&self) -> Option<&str> {
            match self.engine.phase() {
                Phase::Paused(Some(reason)) if reason.starts_with("Paused at the budget") => {
                    Some(reason)
                }
                _ => None,
            }
        }

        /// Counts the runs whose records are in the engine's rows or in an answer on its way to
        /// it, and keeps the most.
        fn count_outputs_in_memory(&mut self) {
            let rows = self.engine.rows();
            let running = |id: &str| {
                rows.iter()
                    .any(|r| r.state.is_running() && r.run_id.as_deref() == Some(id))
            };
            let held = rows.iter().filter(|r| !r.output.is_empty()).count();
            let arriving: usize = self
                .arriving
                .iter()
                .map(|(_, _, event)| match event {
                    Event::Submitted {
                        answer: SubmitAnswer::Accepted(run),
                        ..
                    } => usize::from(!run.output.is_empty()),
                    Event::RunRead {
                        answer: ReadAnswer::Read { value, .. },
                        ..
                    } => usize::from(!value.output.is_empty()),
                    Event::RunListRead(ReadAnswer::Read { value, .. }) => value
                        .iter()
                        .filter(|run| !run.output.is_empty() && running(&run.id))
                        .count(),
                    _ => 0,
                })
                .sum();
            self.most_outputs_in_memory = self.most_outputs_in_memory.max(held + arriving);
        }

        /// Runs until the engine is settled or `until` (ms after the start) has passed; `true`
        /// when settled.
        fn run_until(&mut self, until: f64) -> bool {
            self.run_while(until, Sim::settled)
        }

        /// Runs until the engine is settled or stopped (paused, with nothing going that it
        /// waits for), or `until` has passed; `true` when settled or stopped.
        fn run_until_stopped(&mut self, until: f64) -> bool {
            self.run_while(until, |sim| sim.settled() || sim.stopped())
        }

        fn settled(&self) -> bool {
            self.engine.is_settled() && self.arriving.is_empty()
        }

        fn stopped(&self) -> bool {
            matches!(self.engine.phase(), Phase::Paused(_))
                && self.arriving.is_empty()
                && self.sign_in_at.is_none()
                && self.engine.requests.save_in_flight.is_none()
                && !self.engine.has_unsaved()
                && self
                    .engine
                    .rows()
                    .iter()
                    .all(|r| !r.state.is_running() && r.state != RowState::Submitting)
        }

        /// Runs until `done` holds or `until` (ms after the start) has passed; `true` when it
        /// holds.
        fn run_while(&mut self, until: f64, done: impl Fn(&Sim) -> bool) -> bool {
            self.handle(Event::Tick);
            loop {
                if done(self) {
                    return true;
                }
                if let Some(at) = self.sign_in_at
                    && at <= self.now
                {
                    self.sign_in_at = None;
                    self.handle(Event::SignedIn);
                }
                let next_answer = self
                    .arriving
                    .iter()
                    .enumerate()
                    .min_by(|a, b| a.1.0.total_cmp(&b.1.0).then(a.1.1.cmp(&b.1.1)))
                    .map(|(i, a)| (i, a.0));
                let wake = self
                    .engine
                    .wake_at(self.clock())
                    .map_or(f64::INFINITY, EngineTime::as_ms);
                let wake = wake.min(self.sign_in_at.unwrap_or(f64::INFINITY));
                // Like a browser timer, the driver wakes at least once a second.
                let wake = wake.min(self.now + 1_000.0).max(self.now + 1.0);
                match next_answer {
                    Some((i, at)) if at <= wake => {
                        self.now = self.now.max(at);
                        let (_, _, event) = self.arriving.swap_remove(i);
                        self.handle(event);
                    }
                    _ => {
                        self.now = wake;
                        self.handle(Event::Tick);
                    }
                }
                if self.now - START > until {
                    return false;
                }
            }
        }

        /// A reload: the page and every answer on its way are gone; the batch comes back from
        /// the store (paused, or going on with its cancel).
        fn restore_from_store(&mut self) {
            self.arriving.clear();
            self.submitting.clear();
            let summary = self
                .store
                .summary
                .clone()
                .expect("saved before anything was sent");
            let rows: Vec<BatchRow> = self.store.rows.values().cloned().collect();
            self.engine = Engine::restore(summary, rows, self.clock()).unwrap();
            self.check_spending();
        }

        /// Runs until `at` (ms after the start), if given, then reloads, unless the batch was
        /// settled by then.
        fn reload_at(&mut self, at: Option<f64>) {
            if let Some(at) = at
                && !self.run_until(at)
            {
                self.reload();
            }
        }

        /// A reload, then Resume.
        fn reload(&mut self) {
            self.restore_from_store();
            self.handle(Event::Resume);
        }

        /// Every key a row was sent with is its one key of its attempt; one run per key.
        fn check_keys_and_runs(&self) {
            for (row, key) in &self.api.keys_sent {
                let line = row + 2;
                let attempt = self.engine.rows()[*row].attempt;
                let allowed: Vec<String> = (0..=attempt)
                    .map(|a| row_key(&self.engine.id, a, line))
                    .collect();
                assert!(allowed.contains(key), "row {row} sent with {key}");
            }
            assert_eq!(
                self.api.by_key.len(),
                self.api.runs.len(),
                "one run per key"
            );
            for row in self.engine.rows() {
                if let Some(run) = &row.run_id {
                    let key = row_key(&self.engine.id, row.attempt, row.line);
                    assert_eq!(
                        self.api.by_key.get(&key).map(|&i| &self.api.runs[i].id),
                        Some(run),
                        "line {} shows the run its key made",
                        row.line
                    );
                }
            }
        }
    }

    #[test]
    fn a_batch_runs_at_the_api_rate_with_few_429s_and_reads_status_cheaply() {
        let mut sim = Sim::new(300, FakeApi::new(5.0, 10.0, 3_000.0), NO_FAULTS, 7);
        assert!(sim.run_until(120_000.0), "settled");
        assert_eq!(sim.engine.phase(), &Phase::Done);
        assert_eq!(sim.engine.tally().count(RowState::Completed), 300);
        sim.check_keys_and_runs();
        assert!(!sim.sent_before_kept);
        // 300 rows at 10/s after a burst of 5: about 30 s, plus the last run's time.
        let took = sim.now - START;
        assert!(took < 38_000.0, "{took} ms");
        assert!(sim.api.limited <= 10, "{} 429s", sim.api.limited);
        let c = sim.engine.counters();
        assert!(
            (c.status_requests as f64) < 2.0 * 300.0,
            "{} status requests",
            c.status_requests
        );
        assert!(
            c.status_bytes <= 2 * c.result_bytes,
            "status {} bytes for {} of results",
            c.status_bytes,
            c.result_bytes
        );
        // Everything final is saved.
        assert!(
            sim.store
                .rows
                .values()
                .all(|r| r.state == RowState::Completed)
        );
        // The records are kept with their rows, and left memory.
        assert!(
            sim.store
                .rows
                .values()
                .all(|r| r.records > 0 && r.output.len() == r.records)
        );
        assert!(sim.engine.rows().iter().all(|r| r.output.is_empty()));
        assert_eq!(
            sim.engine.tally().records,
            sim.store.rows.values().map(|r| r.records).sum::<usize>()
        );
        assert_eq!(sim.store.summary.as_ref().map(|s| s.done), Some(true));
        assert!(
            sim.store.summary.as_ref().unwrap().pace.is_some(),
            "the pace is kept"
        );
    }

    #[test]
    fn the_pages_copy_told_only_the_news_shows_the_batch_as_it_is() {
        let faults = Faults {
            lost_answer: 0.1,
            server_error: 0.1,
            refused: 0.05,
            failed_run: 0.1,
            ..NO_FAULTS
        };
        let mut sim = Sim::new(120, FakeApi::new(5.0, 10.0, 2_000.0), faults, 5);
        assert!(sim.run_until(300_000.0), "settled");
        let (page, engine) = (&sim.page, &sim.engine);
        assert_eq!(page.phase(), engine.phase());
        assert_eq!(page.keeping(), Keeping::Kept);
        assert_eq!(page.counters(), engine.counters());
        assert_eq!(page.tally(), engine.tally());
        assert_eq!(page.spending(), engine.spending());
        for (shown, row) in page.rows().iter().zip(engine.rows()) {
            // Records of a kept batch are read from the store, not sent to the page.
            assert!(shown.output.is_empty());
            assert_eq!(
                shown,
                &BatchRow {
                    output: Vec::new(),
                    ..row.clone()
                }
            );
        }
    }

    #[test]
    fn at_fifty_a_second_with_slow_answers_the_pace_is_learned_and_kept() {
        // Answers take up to 60 ms: one submission at a time could not reach the API's limit
        // (nor learn it); two can.
        let mut sim = Sim::new(2000, FakeApi::new(50.0, 50.0, 1_000.0), NO_FAULTS, 1);
        assert!(sim.run_until(600_000.0));
        let took = sim.now - START;
        let ideal = (2000.0 - 50.0) / 50.0 * 1000.0;
        assert!(took < ideal * 1.15, "{took} ms against {ideal}");
        assert!(sim.api.limited <= 10, "{} 429s", sim.api.limited);
        assert!(sim.engine.pace().is_some());
    }

    #[test]
    fn a_reloaded_batch_starts_at_its_learned_pace() {
        let mut sim = Sim::new(200, FakeApi::new(5.0, 4.0, 1_000.0), NO_FAULTS, 11);
        sim.run_until(15_000.0);
        let limited_before = sim.api.limited;
        assert!(sim.store.summary.as_ref().unwrap().pace.is_some());
        sim.reload();
        assert!(sim.run_until(120_000.0));
        sim.check_keys_and_runs();
        assert_eq!(sim.engine.tally().count(RowState::Completed), 200);
        let after_reload = sim.api.limited - limited_before;
        assert!(after_reload <= 4, "{after_reload} 429s after the reload");
    }

    #[test]
    fn nothing_is_sent_before_the_first_save_and_a_refusing_store_keeps_it_in_the_page() {
        let mut sim = Sim::new(5, FakeApi::new(5.0, 10.0, 500.0), NO_FAULTS, 3);
        let commands = sim.engine.handle(EngineTime::from_ms(START), Event::Tick);
        assert!(
            matches!(commands.as_slice(), [Command::Save(_)]),
            "{commands:?}"
        );
        assert!(
            sim.engine
                .handle(EngineTime::from_ms(START + 500.0), Event::Tick)
                .is_empty()
        );
        let commands = sim
            .engine
            .handle(EngineTime::from_ms(START + 600.0), Event::Saved(false));
        assert_eq!(sim.engine.keeping(), Keeping::Refused);
        assert!(
            commands.iter().all(|c| matches!(c, Command::Submit { .. })) && !commands.is_empty()
        );
    }

    #[test]
    fn a_store_that_refuses_later_pauses_the_batch_and_keeps_what_was_not_saved() {
        let mut sim = Sim::new(50, FakeApi::new(5.0, 10.0, 500.0), NO_FAULTS, 5);
        sim.run_until(1_500.0);
        assert_eq!(sim.engine.keeping(), Keeping::Kept);
        sim.save_failure = 1.0;
        sim.run_until(4_000.0);
        assert!(
            matches!(sim.engine.phase(), Phase::Paused(Some(reason)) if reason.contains("storage")),
            "{:?}",
            sim.engine.phase()
        );
        // The disk has room again (the save already refused arrives first): what was not saved
        // is written, and resume sends the rest.
        sim.save_failure = 0.0;
        sim.run_until(6_000.0);
        assert!(!sim.engine.has_unsaved());
        sim.handle(Event::Resume);
        assert!(sim.run_until(60_000.0));
        assert_eq!(sim.store.rows.len(), 50);
        assert!(sim.store.rows.values().all(|r| r.state.is_final()));
    }

    #[test]
    fn a_lack_of_credits_pauses_with_the_api_message_and_resume_goes_on() {
        let mut api = FakeApi::new(5.0, 10.0, 500.0);
        api.credits = 10;
        let mut sim = Sim::new(20, api, NO_FAULTS, 9);
        sim.run_until(10_000.0);
        assert!(
            matches!(sim.engine.phase(), Phase::Paused(Some(reason)) if reason.contains("none left")),
            "{:?}",
            sim.engine.phase()
        );
        assert_eq!(sim.engine.tally().count(RowState::Waiting), 10);
        sim.api.credits = 100;
        sim.handle(Event::Resume);
        assert!(sim.run_until(60_000.0));
        assert_eq!(sim.engine.tally().count(RowState::Completed), 20);
        sim.check_keys_and_runs();
    }

    #[test]
    fn a_refused_row_fails_with_its_request_id_and_retry_failed_sends_it_with_a_new_key() {
        let faults = Faults {
            refused: 0.3,
            ..NO_FAULTS
        };
        let mut sim = Sim::new(30, FakeApi::new(5.0, 10.0, 500.0), faults, 13);
        assert!(sim.run_until(60_000.0));
        let failed = sim.engine.tally().count(RowState::Failed);
        assert!(failed > 0);
        let row = sim
            .engine
            .rows()
            .iter()
            .find(|r| r.state == RowState::Failed)
            .unwrap();
        assert_eq!(
            row.error.as_ref().unwrap().request_id.as_deref(),
            Some("req")
        );
        sim.faults = NO_FAULTS;
        sim.handle(Event::RetryFailed);
        assert!(sim.run_until(120_000.0));
        assert_eq!(sim.engine.tally().count(RowState::Completed), 30);
        assert!(sim.engine.rows().iter().any(|r| r.attempt == 1));
        sim.check_keys_and_runs();
    }

    #[test]
    fn a_run_that_left_the_list_is_read_on_its_own() {
        let mut sim = Sim::new(3, FakeApi::new(5.0, 10.0, 2_000.0), NO_FAULTS, 17);
        sim.run_until(300.0);
        // Another client makes 150 runs: this batch's runs leave the latest 100.
        for i in 0..150 {
            let run = FakeRun {
                id: format!("other_{i}"),
                created_at: sim.now,
                ends_at: sim.now,
                fails: false,
                cancelled_at: None,
                records: 1,
                max_credits: 1,
                charge: 1,
            };
            sim.api.runs.push(run);
        }
        assert!(sim.run_until(30_000.0));
        assert_eq!(sim.engine.tally().count(RowState::Completed), 3);
    }

    #[test]
    fn a_store_slower_than_the_api_slows_the_batch_and_holds_memory_flat() {
        // 2,000 rows at 50/s (40 s at the rate limit), and a store that takes 100 ms to write
        // each finished row's records: 10 rows a second, so about 200 s at the store's pace.
        let mut sim = Sim::new(2_000, FakeApi::new(50.0, 50.0, 800.0), NO_FAULTS, 3);
        sim.store_ms_per_output = 100.0;
        let mut said = HashSet::new();
        while !sim.run_until(sim.now - START + 5_000.0) {
            said.extend(sim.engine.counters().paced_by);
            assert!(sim.now - START < 600_000.0, "not settled in 10 minutes");
        }
        assert_eq!(sim.engine.tally().count(RowState::Completed), 2_000);
        sim.check_keys_and_runs();
        assert!(
            sim.most_outputs_in_memory <= OUTPUTS_IN_MEMORY_AT_MOST,
            "{} runs' records in memory at once",
            sim.most_outputs_in_memory
        );
        assert!(said.contains(&PacedBy::ThisComputer), "{said:?}");
        // At the store's pace, give or take: it is kept busy.
        let c = sim.engine.counters();
        let store_pace = c.outputs_saved as f64 / (c.store_busy_ms / 1000.0);
        let took = (sim.now - START) / 1000.0;
        assert!(
            took < 2_000.0 / store_pace * 1.15,
            "{took} s at {store_pace} rows/s"
        );
        assert!(sim.store.rows.values().all(|r| r.output.len() == r.records));
    }

    #[test]
    fn with_a_fast_store_the_rate_limit_paces_the_batch() {
        let mut sim = Sim::new(600, FakeApi::new(10.0, 20.0, 800.0), NO_FAULTS, 5);
        let mut said = HashSet::new();
        while !sim.run_until(sim.now - START + 5_000.0) {
            said.extend(sim.engine.counters().paced_by);
        }
        assert_eq!(said, HashSet::from([PacedBy::RateLimit]));
        // Said while it held; nothing held the finished batch.
        assert_eq!(sim.engine.counters().paced_by, None);
        assert!(sim.most_outputs_in_memory <= OUTPUTS_IN_MEMORY_AT_MOST);
    }

    /// A fake API whose runs charge their `max_credits`, so what a batch charges is known.
    fn charging_in_full(burst: f64, per_sec: f64, run_ms: f64) -> FakeApi {
        let mut api = FakeApi::new(burst, per_sec, run_ms);
        api.full_charge = true;
        api
    }

    #[test]
    fn a_budget_pauses_before_the_row_that_would_pass_it_until_it_is_raised_and_resumed() {
        let api = charging_in_full(5.0, 10.0, 500.0);
        let mut sim = Sim::with_rows(rows_costing(&[2_000; 10]), Some(11_500), api, NO_FAULTS, 21);
        assert!(sim.run_until_stopped(60_000.0));
        let reason = "Paused at the budget: line 7 may cost up to 2,000 credits and 1,500 of the \
                      11,500-credit budget is left. Raise the budget to go on.";
        assert_eq!(sim.engine.phase(), &Phase::Paused(Some(reason.to_owned())));
        assert_eq!(sim.api.runs.len(), 5, "nothing is sent past the budget");
        assert_eq!(
            sim.engine.spending(),
            &Spending {
                budget: Some(11_500),
                charged: 10_000,
                reserved: 0
            }
        );
        assert_eq!(sim.engine.take_news().spending, *sim.engine.spending());
        // Resumed with the same budget: paused again at once, for the same reason.
        sim.handle(Event::Resume);
        assert_eq!(sim.engine.phase(), &Phase::Paused(Some(reason.to_owned())));
        // Raised: the batch waits for the person's Resume.
        sim.handle(Event::SetBudget(Some(20_000)));
        sim.run_until(sim.now - START + 5_000.0);
        assert!(sim.paused_at_budget().is_some());
        assert_eq!(sim.api.runs.len(), 5);
        assert_eq!(
            sim.store.summary.as_ref().and_then(|s| s.budget),
            Some(20_000)
        );
        sim.handle(Event::Resume);
        assert!(sim.run_until(120_000.0));
        assert_eq!(sim.engine.tally().count(RowState::Completed), 10);
        assert_eq!(sim.api.runs.len(), 10);
        assert_eq!(
            sim.engine.spending(),
            &Spending {
                budget: Some(20_000),
                charged: 20_000,
                reserved: 0
            }
        );
        sim.check_keys_and_runs();
    }

    #[test]
    fn a_row_whose_worst_case_alone_passes_the_budget_pauses_the_batch_and_is_not_skipped() {
        let api = charging_in_full(5.0, 10.0, 500.0);
        let estimates = [100, 100, 5_000, 100];
        let mut sim = Sim::with_rows(rows_costing(&estimates), Some(1_000), api, NO_FAULTS, 3);
        assert!(sim.run_until_stopped(60_000.0));
        assert_eq!(
            sim.paused_at_budget(),
            Some(
                "Paused at the budget: line 4 may cost up to 5,000 credits and 800 of the \
                 1,000-credit budget is left. Raise the budget to go on."
            )
        );
        assert_eq!(sim.api.runs.len(), 2, "the row after it waits too");
        assert_eq!(sim.engine.rows()[3].state, RowState::Waiting);
    }

    #[test]
    fn a_budget_lowered_below_what_is_committed_pauses_before_the_next_row() {
        // Runs take 5 s: rows sent in the first 2 s are all going when the budget comes.
        let api = charging_in_full(5.0, 5.0, 5_000.0);
        let mut sim = Sim::with_rows(rows_costing(&[100; 40]), Some(4_000), api, NO_FAULTS, 5);
        sim.run_until(2_000.0);
        let sent = sim.api.runs.len();
        assert!(sent > 1, "{sent} sent");
        sim.handle(Event::SetBudget(Some(50 * sent as u64)));
        assert!(
            sim.paused_at_budget()
                .is_some_and(|reason| reason.contains("none of the")),
            "{:?}",
            sim.engine.phase()
        );
        assert!(sim.run_until_stopped(60_000.0));
        assert_eq!(sim.api.runs.len(), sent, "nothing more is sent");
        // What was on its way ends: charged in full, past the lowered budget, and no more.
        assert_eq!(sim.engine.spending().charged, 100 * sent as u64);
        assert_eq!(sim.engine.spending().reserved, 0);
    }

    #[test]
    fn retried_rows_count_their_old_runs_and_a_reload_keeps_the_budget_and_that_charge() {
        let faults = Faults {
            failed_run: 0.4,
            ..NO_FAULTS
        };
        let api = charging_in_full(5.0, 10.0, 500.0);
        let mut sim = Sim::with_rows(rows_costing(&[100; 8]), Some(800), api, faults, 23);
        assert!(sim.run_until(60_000.0));
        let failed = sim.engine.tally().count(RowState::Failed) as u64;
        assert!(failed >= 2, "{failed} failed");
        assert_eq!(sim.engine.spending().committed(), 800);
        // Room for all but one of them, counting what their first runs charged.
        sim.faults = NO_FAULTS;
        sim.handle(Event::SetBudget(Some(800 + 100 * (failed - 1))));
        sim.handle(Event::RetryFailed);
        assert!(sim.run_until_stopped(60_000.0));
        assert!(sim.paused_at_budget().is_some(), "{:?}", sim.engine.phase());
        assert_eq!(sim.engine.tally().count(RowState::Waiting), 1);
        let paused = *sim.engine.spending();
        assert_eq!(paused.charged, 800 + 100 * (failed - 1));
        assert_eq!(paused.reserved, 0);
        let summary = sim.store.summary.clone().unwrap();
        assert_eq!(
            (summary.budget, summary.charged_before),
            (Some(800 + 100 * (failed - 1)), 100 * failed)
        );
        // A reload: the same budget and spending, and still too little of it.
        sim.restore_from_store();
        assert_eq!(sim.engine.spending(), &paused);
        sim.handle(Event::Resume);
        assert!(sim.paused_at_budget().is_some(), "{:?}", sim.engine.phase());
        sim.handle(Event::SetBudget(Some(800 + 100 * failed)));
        sim.handle(Event::Resume);
        assert!(sim.run_until(120_000.0));
        assert_eq!(sim.engine.tally().count(RowState::Completed), 8);
        assert_eq!(sim.engine.spending().charged, 800 + 100 * failed);
        sim.check_keys_and_runs();
    }

    #[test]
    fn rows_a_raised_budget_lets_go_count_after_a_reload_however_soon() {
        // Paused at a budget of 30, raised and resumed between two saves, then reloaded a tenth
        // of a second to a second later: a row the new budget lets go is sent only once a save
        // shows it, so whatever the store kept (the old budget or the new), the batch taken up
        // again counts every run the API may charge (checked after every event and at the
        // reload).
        for tenths in 1..10 {
            let api = charging_in_full(10.0, 20.0, 3_000.0);
            let mut sim = Sim::with_rows(rows_costing(&[1; 400]), Some(30), api, NO_FAULTS, 31);
            sim.run_until(2_050.0);
            assert!(sim.paused_at_budget().is_some());
            sim.handle(Event::SetBudget(Some(300)));
            sim.handle(Event::Resume);
            sim.run_until(2_050.0 + f64::from(tenths) * 100.0);
            sim.restore_from_store();
            sim.handle(Event::Resume);
            assert!(sim.run_until_stopped(600_000.0));
            let budget = sim.engine.spending().budget.unwrap_or(0);
            assert!(sim.paused_at_budget().is_some(), "{:?}", sim.engine.phase());
            assert!(
                sim.api.runs.len() as u64 <= budget,
                "{} runs",
                sim.api.runs.len()
            );
            sim.check_keys_and_runs();
        }
    }

    #[test]
    fn a_budget_the_batch_fits_in_costs_it_no_time() {
        let api = FakeApi::new(50.0, 50.0, 1_000.0);
        let mut sim = Sim::with_rows(rows_costing(&[5; 2000]), Some(10_000), api, NO_FAULTS, 1);
        assert!(sim.run_until(600_000.0));
        let took = sim.now - START;
        let ideal = (2000.0 - 50.0) / 50.0 * 1000.0;
        assert!(took < ideal * 1.15, "{took} ms against {ideal}");
        assert_eq!(sim.engine.tally().count(RowState::Completed), 2000);
        assert_eq!(sim.engine.spending().reserved, 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// However slowly the store commits, the records in memory stay bounded, every row
        /// ends with one run, and the store has every row's records at the end.
        #[test]
        fn any_store_speed_keeps_outputs_in_memory_bounded_and_one_run_per_row(
            seed in any::<u64>(),
            rows in 1usize..400,
            store_ms_per_output in 0.0f64..200.0,
            per_sec in 5.0f64..100.0,
            run_ms in 100.0f64..3_000.0,
            read_failure in 0.0f64..0.2,
            reload_after in proptest::option::of(0.0f64..20_000.0),
        ) {
            let faults = Faults { read_failure, failed_run: 0.05, ..NO_FAULTS };
            let mut sim = Sim::new(rows, FakeApi::new(per_sec, per_sec, run_ms), faults, seed);
            sim.store_ms_per_output = store_ms_per_output;
            sim.reload_at(reload_after);
            prop_assert!(sim.run_until(3_600_000.0), "settled within an hour");
            prop_assert!(sim.most_outputs_in_memory <= OUTPUTS_IN_MEMORY_AT_MOST,
                "{} runs' records in memory", sim.most_outputs_in_memory);
            sim.check_keys_and_runs();
            prop_assert_eq!(sim.api.runs.len(), rows, "one run per row");
            prop_assert!(sim.store.rows.values().all(|r| r.state.is_final() && r.output.len() == r.records));
        }

        /// Whatever the API answers and in whatever order, each row has one key per attempt,
        /// each key one run, and the batch ends with every row final; a reload at any point
        /// changes none of that.
        #[test]
        fn any_interleaving_of_answers_makes_one_run_per_row(
            seed in any::<u64>(),
            rows in 1usize..60,
            server_error in 0.0f64..0.3,
            lost_answer in 0.0f64..0.3,
            unauthorized in 0.0f64..0.05,
            no_retry_after in 0.0f64..1.0,
            read_failure in 0.0f64..0.3,
            burst in 1.0f64..10.0,
            per_sec in 1.0f64..50.0,
            reload_after in proptest::option::of(0.0f64..20_000.0),
        ) {
            let faults = Faults { server_error, lost_answer, refused: 0.0, unauthorized, no_retry_after, read_failure, failed_run: 0.1 };
            let mut sim = Sim::new(rows, FakeApi::new(burst, per_sec, 800.0), faults, seed);
            sim.reload_at(reload_after);
            prop_assert!(sim.run_until(3_600_000.0), "settled within an hour");
            prop_assert!(!sim.sent_before_kept);
            sim.check_keys_and_runs();
            prop_assert!(sim.engine.rows().iter().all(|r| matches!(r.state, RowState::Completed | RowState::Failed)));
            prop_assert_eq!(sim.api.runs.len(), rows, "one run per row");
        }

        /// A cancel at any point ends with every row final and no run left going.
        #[test]
        fn a_cancel_at_any_point_ends_with_every_row_final(
            seed in any::<u64>(),
            rows in 1usize..60,
            cancel_after in 0.0f64..10_000.0,
            server_error in 0.0f64..0.2,
            read_failure in 0.0f64..0.3,
            reload_during_cancel in any::<bool>(),
        ) {
            let faults = Faults { server_error, read_failure, ..NO_FAULTS };
            let mut sim = Sim::new(rows, FakeApi::new(5.0, 5.0, 3_000.0), faults, seed);
            if !sim.run_until(cancel_after) {
                sim.handle(Event::Cancel);
                if reload_during_cancel {
                    sim.run_until(cancel_after + 50.0);
                    if sim.store.summary.as_ref().is_some_and(|s| s.cancelled) {
                        sim.restore_from_store();
                    }
                }
            }
            prop_assert!(sim.run_until(3_600_000.0));
            prop_assert!(sim.engine.rows().iter().all(|r| r.state.is_final()));
            let now = sim.now;
            for row in sim.engine.rows() {
                if let Some(run) = &row.run_id {
                    let i = sim.api.index_of(run).unwrap();
                    prop_assert!(sim.api.run(i, now).status.is_terminal());
                }
            }
            sim.check_keys_and_runs();
        }
        /// For any budget and worst cases, whatever the API answers and in whatever order,
        /// reloads and a changed budget included, the batch never commits past its budget (what
        /// the API may still charge included) unless the budget was lowered, sends no row for
        /// the first time past it, pauses only before a row that does not fit, and still makes
        /// one run per row and attempt.
        #[test]
        fn no_sequence_of_answers_takes_a_batch_past_its_budget(
            seed in any::<u64>(),
            estimates in proptest::collection::vec(0u64..40, 1..50),
            budget_share in 0.0f64..1.2,
            server_error in 0.0f64..0.3,
            lost_answer in 0.0f64..0.3,
            unauthorized in 0.0f64..0.05,
            read_failure in 0.0f64..0.3,
            failed_run in 0.0f64..0.3,
            burst in 1.0f64..10.0,
            per_sec in 1.0f64..50.0,
            reload_after in proptest::option::of(0.0f64..20_000.0),
            budget_change in proptest::option::of((0.0f64..20_000.0, 0.0f64..1.5)),
            retry_failed in any::<bool>(),
        ) {
            let worst_case: u64 = estimates.iter().sum();
            let share_of = |share: f64| (worst_case as f64 * share) as u64;
            let faults = Faults { server_error, lost_answer, refused: 0.0, unauthorized, no_retry_after: 0.5, read_failure, failed_run };
            let api = FakeApi::new(burst, per_sec, 800.0);
            let mut sim = Sim::with_rows(rows_costing(&estimates), Some(share_of(budget_share)), api, faults, seed);
            sim.reload_at(reload_after);
            if let Some((at, share)) = budget_change
                && !sim.run_until(at)
            {
                sim.handle(Event::SetBudget(Some(share_of(share))));
            }
            let mut retried = !retry_failed;
            loop {
                prop_assert!(sim.run_until_stopped(3_600_000.0), "settled or stopped within an hour");
                // Stopped only at the budget (each pause is checked when it happens).
                if sim.paused_at_budget().is_some() {
                    let raised = sim.engine.spending().committed() + worst_case;
                    sim.handle(Event::SetBudget(Some(raised)));
                    sim.handle(Event::Resume);
                    continue;
                }
                prop_assert_eq!(sim.engine.phase(), &Phase::Done);
                if retried {
                    break;
                }
                retried = true;
                sim.handle(Event::RetryFailed);
            }
            prop_assert!(!sim.sent_before_kept);
            sim.check_keys_and_runs();
            prop_assert!(sim.engine.rows().iter().all(|r| matches!(r.state, RowState::Completed | RowState::Failed)));
            let attempts: usize = sim.engine.rows().iter().map(|r| r.attempt as usize + 1).sum();
            prop_assert_eq!(sim.api.runs.len(), attempts, "one run per row and attempt");
            prop_assert_eq!(sim.engine.spending().reserved, 0);
            prop_assert_eq!(sim.engine.spending().charged, sim.api.committed(sim.now));
        }
    }
}
