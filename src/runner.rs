//! The bulk runner: what runs a batch, in a dedicated Web Worker of the tab that holds the
//! batch's lock (`src/bin/bulk-worker.rs`), so that the batch keeps its pace when the tab is
//! behind another one (browsers throttle a hidden page's timers to a wake a minute, not a
//! worker's). It drives the batch's [`Engine`] (`model::bulk::engine`), which decides everything:
//! the runner feeds it the clock and the answers, and does what it asks: the API requests
//! (through the one transport, `crate::api`), the writes to this browser's store
//! (`crate::store`), the runs it sees into the workspace's history (`crate::archive`), and what
//! the page and the other tabs are told. The page keeps its own copy of the batch from what it
//! is told (`state::bulk`).
//!
//! The page talks to it with [`ToRunner`] and hears [`FromRunner`], as JSON text. The credential
//! arrives by message ([`ToRunner::SignedIn`]) and lives in the worker's memory only.
//!
//! Nothing here queues without bound, whatever the computer's speed: the store's writes go one
//! transaction at a time (`writes`), the engine reads records only while it has room for them,
//! and the page hears the batch's news one message at a time, coalesced: the next goes once the
//! page said it took the last ([`ToRunner::NewsShown`]), and no more often than
//! [`NEWS_EVERY`].

mod writes;

use std::cell::RefCell;

use api_contract::ActionId;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::spawn_local;

use crate::api::{ApiClient, ApiError};
use crate::browser::sleep;
use crate::model::bulk::clock::{EngineTime, Millis};
use crate::model::bulk::engine::{
    CancelAnswer, Command, Engine, Event, Phase, ReadAnswer, Saving, SubmitAnswer,
};
use crate::model::bulk::pacer::LearnedPace;
use crate::model::bulk::{BatchRow, RowError, SavedBatch};
use crate::model::form::SavedSubmission;
use crate::model::log_queue::{LogWrite, WriteFound, WriteMode};
use crate::model::request_log::Origin;
use crate::model::store_table::RowKey;
use crate::request_log::RequestLogger;
use crate::store::{BATCH_ROWS, Change, SAVED_BATCHES, SAVED_SUBMISSIONS, StoreError};

pub use crate::model::bulk::engine::BatchNews;

/// Where the page starts the worker: a loader (`src/bin/bulk-worker-loader.js`) that loads the
/// worker's wasm-bindgen glue and module, which trunk writes beside it.
pub const WORKER_URL: &str = "/bulk-worker-loader.js";

/// The longest the runner's clock sleeps: the engine is asked again at least this often.
const LONGEST_SLEEP: Millis = Millis::from_ms(1_000.0);
/// The page hears the batch's news at most this often: drawing a change per answer would keep
/// its main thread busy for nothing a person can see.
pub const NEWS_EVERY: Millis = Millis::from_ms(250.0);

/// Where the API is and the credential to send. It reaches the worker by message, and lives in
/// its memory only.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// Without a trailing slash or `/v1`.
    pub base_url: String,
    pub bearer: String,
    /// The page's handle of the sign-in the credential belongs to (`SignInId`), said back with
    /// a 401, so the page ends that sign-in and no other (a 401 may arrive after the page has
    /// sent another credential).
    pub sign_in: u32,
}

impl std::fmt::Debug for Credential {
    // The bearer is a secret: it never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential")
            .field("base_url", &self.base_url)
            .field("sign_in", &self.sign_in)
            .finish_non_exhaustive()
    }
}

/// The batch a runner runs (one per worker, for the worker's life).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BatchToRun {
    /// Started now from a file's checked rows.
    New {
        id: String,
        workspace: Option<String>,
        action: ActionId,
        headers: Vec<String>,
        rows: Vec<BatchRow>,
        created_at: f64,
        /// The most the batch may commit, in credits (`None`: no budget of its own).
        #[serde(default)]
        budget: Option<u64>,
        /// The pace learned by the batch before it against the same API (a chain's step
        /// before), to start at.
        #[serde(default)]
        pace: Option<LearnedPace>,
    },
    /// Kept in this browser and taken up again: paused (or going on with its cancel), and
    /// resumed when `resume`.
    Kept {
        summary: SavedBatch,
        rows: Vec<BatchRow>,
        resume: bool,
    },
}

/// The most rows a [`ToRunner::Rows`] carries: serialising 10,000 rows in one message took the
/// page's main thread over 100 ms at 4× CPU throttling; a piece of this many takes a tenth.
pub const ROWS_AT_ONCE: usize = 1_000;

impl BatchToRun {
    fn rows_mut(&mut self) -> &mut Vec<BatchRow> {
        match self {
            BatchToRun::New { rows, .. } | BatchToRun::Kept { rows, .. } => rows,
        }
    }

    /// Takes the batch's rows out in pieces of at most [`ROWS_AT_ONCE`], in order, for the
    /// [`ToRunner::Rows`] messages that go before its [`ToRunner::Run`].
    pub fn take_rows_in_pieces(&mut self) -> Vec<Vec<BatchRow>> {
        let mut rows = std::mem::take(self.rows_mut()).into_iter().peekable();
        let mut pieces = Vec::new();
        while rows.peek().is_some() {
            pieces.push(rows.by_ref().take(ROWS_AT_ONCE).collect());
        }
        pieces
    }

    /// The batch with `before` (the rows its [`ToRunner::Rows`] brought) in front of its own.
    pub fn with_rows_before(mut self, mut before: Vec<BatchRow>) -> BatchToRun {
        let rows = self.rows_mut();
        before.append(rows);
        *rows = before;
        self
    }

    /// The batch as an engine, as of `now_ms` (ms since the epoch, as `Date.now()` reads it, on
    /// the page or in the worker); `None` for a kept batch whose action this console does not
    /// know.
    pub fn engine(self, now_ms: f64) -> Option<Engine> {
        let now = EngineTime::from_ms(now_ms);
        match self {
            BatchToRun::New {
                id,
                workspace,
                action,
                headers,
                rows,
                created_at,
                budget,
                pace,
            } => {
                let mut engine = Engine::new(id, workspace, action, headers, rows, now)
                    .with_budget(budget)
                    .with_pace(pace);
                engine.created_at = created_at;
                Some(engine)
            }
            BatchToRun::Kept { summary, rows, .. } => Engine::restore(summary, rows, now),
        }
    }
}

/// What the page tells its runner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToRunner {
    /// Who is signed in now: sent before [`ToRunner::Run`] and at every change of the session
    /// (`None` after a sign-out or a refused credential).
    SignedIn(Option<Credential>),
    /// The signed-in workspace, once known (a kept batch belongs to it).
    WorkspaceKnown(String),
    /// Rows of the batch the next [`ToRunner::Run`] brings, which go in front of its own: a
    /// large batch comes in pieces, each serialised in a task of its own.
    Rows(Vec<BatchRow>),
    /// Run this batch (once per worker), after the rows the [`ToRunner::Rows`] before it
    /// brought. Boxed: a kept batch's summary is large beside the other messages.
    Run(Box<BatchToRun>),
    Pause,
    Resume,
    Cancel,
    RetryFailed,
    /// The person changed the batch's budget (it does not resume a paused batch).
    SetBudget(Option<u64>),
    /// The page took the last [`FromRunner::News`]: the next may go.
    NewsShown,
}

/// What the runner tells its page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromRunner {
    /// The worker started and listens.
    Ready,
    /// The worker could not start (its glue or module did not load): nothing was sent. Posted
    /// by the loader.
    Failed(String),
    /// Where the batch stands after a change, with the rows that changed.
    News(BatchNews),
    /// The API refused the credential of the sign-in `sign_in`: the page ends that sign-in, so
    /// the person signs in again; the batch waits, and sends each refused row again with its key
    /// after the next sign-in to its workspace.
    Unauthorized { message: String, sign_in: u32 },
    /// Credits moved: the page refreshes the workspace it shows.
    RefreshWorkspace,
    /// Nothing more to send: another tab may run the batch (a retry or resume here asks again).
    Settled,
    /// The store refused to trim `workspace`'s request log: the page tells it
    /// (`state::refusals`). A refused save pauses the batch with its sentence instead.
    LogNotTrimmed {
        workspace: String,
        error: StoreError,
    },
}

/// What a refused or unanswered submission means for its row.
pub fn submit_answer(error: &ApiError) -> SubmitAnswer {
    match (error.status(), error.code()) {
        (Some(429), _) => SubmitAnswer::RateLimited {
            retry_after: error.retry_after(),
        },
        (Some(401), _) => SubmitAnswer::Unauthorized,
        _ if *error == ApiError::SignedOut => SubmitAnswer::Unauthorized,
        (Some(409), Some("insufficient_credits")) => SubmitAnswer::InsufficientCredits {
            message: error.server_message().map(str::to_owned),
        },
        _ if error.is_transient() => SubmitAnswer::Transient,
        _ => SubmitAnswer::Refused(RowError {
            code: error.code().unwrap_or("refused").to_owned(),
            message: error
                .server_message()
                .map_or_else(|| error.message(), str::to_owned),
            request_id: error.request_id().map(str::to_owned),
        }),
    }
}

fn read_answer<T>(answer: Result<crate::api::WithRequestId<T>, ApiError>) -> ReadAnswer<T> {
    match answer {
        Ok(read) => ReadAnswer::Read {
            value: read.value,
            bytes: read.body_bytes,
        },
        Err(e) if e.is_unauthorized() || e == ApiError::SignedOut => ReadAnswer::Unauthorized,
        Err(e) if e.status() == Some(404) => ReadAnswer::NotFound,
        Err(_) => ReadAnswer::Failed,
    }
}

fn cancel_answer(answer: Result<api_contract::Run, ApiError>) -> CancelAnswer {
    match answer {
        Ok(run) => CancelAnswer::Cancelled(run),
        Err(e) if e.status() == Some(409) => CancelAnswer::AlreadyFinished,
        Err(e) if e.is_unauthorized() || e == ApiError::SignedOut => CancelAnswer::Unauthorized,
        Err(_) => CancelAnswer::Failed,
    }
}

/// The store's changes for one save: the summary, the rows, and the runs made (for "Run again
/// with changes"), in one transaction; `Err` when one of them cannot be written.
fn changes(action: ActionId, saving: &Saving) -> Result<Vec<Change>, StoreError> {
    let batch = &saving.summary;
    let mut changes = Vec::with_capacity(saving.new_runs.len() + saving.rows.len() + 1);
    for run in &saving.new_runs {
        let submission = SavedSubmission {
            workspace: batch.workspace.clone(),
            action: action.as_str().to_owned(),
            live: false,
            body: run.body.clone(),
        };
        changes.push(SAVED_SUBMISSIONS.put_change(&run.run_id, &submission)?);
    }
    for row in &saving.rows {
        let key = RowKey {
            batch: batch.id.clone(),
            line: row.line,
        };
        changes.push(BATCH_ROWS.put_change(&key, row)?);
    }
    changes.push(SAVED_BATCHES.put_change(&batch.id, batch)?);
    Ok(changes)
}

/// The name of a batch's Web Lock and of its channel between tabs.
pub fn batch_lock_name(batch: &str) -> String {
    format!("console-bulk-{batch}")
}

/// The batch's clock: the wall clock, which a worker keeps when its tab is hidden.
fn now() -> EngineTime {
    EngineTime::from_ms(js_sys::Date::now())
}

/// The workspace of the batch being run, once known.
fn workspace() -> Option<String> {
    RUNNER.with_borrow(|r| {
        r.as_ref()
            .and_then(|runner| runner.engine.workspace.clone())
    })
}

/// The store wrote (or refused) a save: the engine hears it, and the other tabs showing the
/// batch are told the rows saved.
fn saved(rows: Vec<BatchRow>, refused: Option<StoreError>) {
    let written = refused.is_none();
    handle(Event::Saved(refused.map_or(Ok(()), Err)));
    if written {
        RUNNER.with_borrow(|runner| {
            if let Some(runner) = runner {
                tell_tabs(runner, rows);
            }
        });
    }
}

/// The batch being run, in the worker.
struct Runner {
    engine: Engine,
    /// To the other tabs showing the batch (read-only): told after each save.
    channel: Option<web_sys::BroadcastChannel>,
    /// The phase the other tabs were last told.
    told_phase: Option<Phase>,
    clock: ClockState,
    /// The page's news: one message on its way at a time.
    news: NewsFlow,
}

/// Whether the batch's clock runs, and which: a clock that finds a later generation (or none
/// running) stops, so that one settled by an event and started again by the next never has two.
#[derive(Default)]
struct ClockState {
    running: bool,
    generation: u64,
}

/// Where the page's news stands.
#[derive(Default)]
struct NewsFlow {
    /// Something changed that the page was not told yet.
    waiting: bool,
    /// A message went and the page did not say it took it yet.
    on_its_way: bool,
    /// When the last message went.
    last_sent_at: EngineTime,
}

impl Runner {
    /// Tells the page the batch's news, if there is any, the page took the last, and the last
    /// went long enough ago; `settling` sends what waits regardless (the last news before
    /// [`FromRunner::Settled`]).
    fn tell_page_news(&mut self, now: EngineTime, settling: bool) {
        let news = &mut self.news;
        let due = !news.on_its_way && now - news.last_sent_at >= NEWS_EVERY;
        if !news.waiting || !(due || settling) {
            return;
        }
        news.waiting = false;
        news.on_its_way = true;
        news.last_sent_at = now;
        tell_page(&FromRunner::News(self.engine.take_news()));
    }

    /// The batch is settled: its clock stops and the page has its last news now (the caller
    /// then tells it the batch settled).
    fn settle(&mut self, now: EngineTime) {
        self.clock.running = false;
        self.clock.generation += 1;
        self.tell_page_news(now, true);
    }

    /// When the news waiting is due, if it is waiting for time rather than for the page.
    fn news_due_at(&self) -> Option<EngineTime> {
        (self.news.waiting && !self.news.on_its_way).then_some(self.news.last_sent_at + NEWS_EVERY)
    }
}

// The worker's state is reached from callbacks that the browser and wasm-bindgen-futures call
// with no context of ours: the `onmessage` closure, each request's spawned future, the clock's
// loop, the store writer's end of a transaction (`writes`, which keeps its own queue for the
// same reason) and the request logger's keeper, which `crate::request_log` takes as a plain
// `fn` pointer, so it cannot capture a handle. Owned state would be an `Rc<RefCell<..>>` cloned
// into every one of them (and a `fn` could still not reach it): the same one shared cell per
// worker, with more plumbing. So it stays in thread-locals, one worker thread, one batch.
thread_local! {
    static RUNNER: RefCell<Option<Runner>> = const { RefCell::new(None) };
    /// The rows [`ToRunner::Rows`] brought, until the [`ToRunner::Run`] they go before.
    static ROWS_BROUGHT: RefCell<Vec<BatchRow>> = const { RefCell::new(Vec::new()) };
    /// A client for the credential the page sent last, if any.
    static CLIENT: RefCell<Option<ApiClient>> = const { RefCell::new(None) };
    /// The worker's requests, for the request log: a new logger for each credential, so a
    /// request made before the page says which workspace it is for waits for it.
    static LOG: RefCell<RequestLogger> =
        RefCell::new(RequestLogger::new(Origin::BulkWorker, keep_in_log));
}

/// The worker's logger hands its requests to the worker's one writer, which writes them with
/// the batch's next save (reading the log's switch in that transaction). A worker hears no
/// `pagehide`, so every write is [`WriteMode::Checked`], and handed over is as far as the
/// logger follows it.
fn keep_in_log(
    write: LogWrite,
    _origin: Origin,
    _mode: WriteMode,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<WriteFound, StoreError>>>> {
    writes::log(write);
    Box::pin(std::future::ready(Ok(WriteFound::Kept)))
}

#[wasm_bindgen]
extern "C" {
    /// The worker's `postMessage` (to the page that started it).
    #[wasm_bindgen(js_name = postMessage)]
    fn post_to_page(message: &JsValue);
}

fn tell_page(message: &FromRunner) {
    if let Ok(text) = serde_json::to_string(message) {
        post_to_page(&JsValue::from_str(&text));
    }
}

/// The worker's entry point (`src/bin/bulk-worker.rs`): listens to the page, and says it does.
pub fn start_in_worker() {
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(|event: web_sys::MessageEvent| {
            if let Some(message) = event
                .data()
                .as_string()
                .and_then(|text| serde_json::from_str::<ToRunner>(&text).ok())
            {
                hear(message);
            }
        });
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // Listens for the worker's life.
    on_message.forget();
    tell_page(&FromRunner::Ready);
}

fn hear(message: ToRunner) {
    match message {
        ToRunner::SignedIn(credential) => {
            let client = credential.map(|c| {
                let sign_in = c.sign_in;
                ApiClient::new(c.base_url, c.bearer)
                    .on_unauthorized(move |error| {
                        tell_page(&FromRunner::Unauthorized {
                            message: error.message(),
                            sign_in,
                        });
                    })
                    .on_exchange(LOG.with_borrow_mut(|log| {
                        // What the previous logger holds is for its own workspace: it writes
                        // it there.
                        *log = RequestLogger::new(Origin::BulkWorker, keep_in_log);
                        log.observer()
                    }))
            });
            let signed_in = client.is_some();
            CLIENT.set(client);
            let awaiting = RUNNER.with_borrow(|r| {
                r.as_ref()
                    .is_some_and(|runner| runner.engine.awaiting_sign_in())
            });
            if signed_in && awaiting {
                handle(Event::SignedIn);
            }
        }
        ToRunner::WorkspaceKnown(id) => {
            LOG.with_borrow(|log| log.workspace_known(id.clone()));
            handle(Event::WorkspaceKnown(id));
        }
        ToRunner::Rows(rows) => ROWS_BROUGHT.with_borrow_mut(|brought| brought.extend(rows)),
        ToRunner::Run(batch) => {
            let batch = (*batch).with_rows_before(ROWS_BROUGHT.take());
            if RUNNER.with_borrow(Option::is_some) {
                return;
            }
            let resume = matches!(batch, BatchToRun::Kept { resume: true, .. });
            let Some(engine) = batch.engine(now().as_ms()) else {
                return;
            };
            let channel = web_sys::BroadcastChannel::new(&batch_lock_name(&engine.id)).ok();
            RUNNER.set(Some(Runner {
                engine,
                channel,
                told_phase: None,
                clock: ClockState::default(),
                news: NewsFlow::default(),
            }));
            // A batch resumed as it is opened is told to the page as running from its first
            // news: a tick first told it as paused ("taken up again"), for as long as the page
            // took to show that news and ask for the next.
            handle(if resume { Event::Resume } else { Event::Tick });
        }
        ToRunner::Pause => handle(Event::Pause),
        ToRunner::Resume => handle(Event::Resume),
        ToRunner::Cancel => handle(Event::Cancel),
        ToRunner::RetryFailed => handle(Event::RetryFailed),
        ToRunner::SetBudget(budget) => handle(Event::SetBudget(budget)),
        ToRunner::NewsShown => RUNNER.with_borrow_mut(|runner| {
            if let Some(runner) = runner {
                runner.news.on_its_way = false;
                runner.tell_page_news(now(), false);
            }
        }),
    }
}

/// Feeds an event to the batch and does what it asks. A batch that the event settled (every
/// row final and saved) is told settled at once, not at the clock's next wake: a chain's next
/// step waits on it.
fn handle(event: Event) {
    let now = now();
    let Some((action, commands, next)) = RUNNER.with_borrow_mut(|runner| {
        let runner = runner.as_mut()?;
        let commands = runner.engine.handle(now, event);
        if runner.engine.take_changed() {
            if runner.told_phase.as_ref() != Some(runner.engine.phase()) {
                runner.told_phase = Some(runner.engine.phase().clone());
                tell_tabs(runner, Vec::new());
            }
            runner.news.waiting = true;
            runner.tell_page_news(now, false);
        }
        let next = if runner.engine.is_settled() {
            runner.settle(now);
            AfterEvent::TellSettled
        } else if runner.clock.running {
            AfterEvent::Nothing
        } else {
            runner.clock.running = true;
            runner.clock.generation += 1;
            AfterEvent::StartClock(runner.clock.generation)
        };
        Some((runner.engine.action, commands, next))
    }) else {
        return;
    };
    for command in commands {
        execute(action, command);
    }
    match next {
        AfterEvent::TellSettled => tell_page(&FromRunner::Settled),
        AfterEvent::StartClock(generation) => spawn_local(clock(generation)),
        AfterEvent::Nothing => {}
    }
}

/// What an event leaves to do once the engine has had it.
enum AfterEvent {
    Nothing,
    /// The batch is settled: the page hears it.
    TellSettled,
    /// The batch has something to do later and no clock: one starts, of this generation.
    StartClock(u64),
}

/// Tells the other tabs showing the batch where it stands, with the rows just saved.
fn tell_tabs(runner: &Runner, rows: Vec<BatchRow>) {
    if let Some(channel) = &runner.channel
        && let Ok(text) = serde_json::to_string(&runner.engine.news(rows))
    {
        let _ = channel.post_message(&JsValue::from_str(&text));
    }
}

fn execute(action: ActionId, command: Command) {
    let client = CLIENT.with_borrow(Clone::clone);
    match command {
        Command::Submit { row, key, body, .. } => spawn_local(async move {
            let answer = match client {
                Some(client) => match client.submit(action.as_str(), false, &key, &body).await {
                    Ok(submitted) => {
                        if let Some(workspace) = workspace() {
                            writes::submitted(&workspace, &submitted.run, &body, &key);
                        }
                        SubmitAnswer::Accepted(submitted.run)
                    }
                    Err(e) => submit_answer(&e),
                },
                None => SubmitAnswer::Unauthorized,
            };
            handle(Event::Submitted { row, key, answer });
        }),
        Command::ReadRunList => spawn_local(async move {
            let answer = match client {
                Some(client) => match read_answer(client.runs().await) {
                    ReadAnswer::Read { value, bytes } => {
                        // The list holds the workspace's other runs too: all go into its history.
                        if let Some(workspace) = workspace() {
                            writes::list_read(&workspace, &value.runs);
                        }
                        ReadAnswer::Read {
                            value: value.runs,
                            bytes,
                        }
                    }
                    ReadAnswer::Unauthorized => ReadAnswer::Unauthorized,
                    ReadAnswer::NotFound => ReadAnswer::NotFound,
                    ReadAnswer::Failed => ReadAnswer::Failed,
                },
                None => ReadAnswer::Unauthorized,
            };
            handle(Event::RunListRead(answer));
        }),
        Command::ReadRun { row, run_id } => spawn_local(async move {
            let answer = match client {
                Some(client) => read_answer(client.run(&run_id).await),
                None => ReadAnswer::Unauthorized,
            };
            if let ReadAnswer::Read { value, .. } = &answer
                && let Some(workspace) = workspace()
            {
                writes::read(&workspace, value);
            }
            handle(Event::RunRead { row, answer });
        }),
        Command::CancelRun { row, run_id } => spawn_local(async move {
            let answer = match client {
                Some(client) => cancel_answer(client.cancel(&run_id).await),
                None => CancelAnswer::Unauthorized,
            };
            handle(Event::CancelAnswered { row, answer });
        }),
        // The save's records leave as the store's JSON at once; the other tabs get its rows
        // without them (they read records from the store).
        Command::Save(saving) => {
            let saving = *saving;
            let written = changes(action, &saving);
            let rows = saving
                .rows
                .into_iter()
                .map(|row| BatchRow {
                    output: Vec::new(),
                    ..row
                })
                .collect();
            match written {
                Ok(changes) => writes::save(writes::Save { changes, rows }),
                // A save that cannot be written is refused, as one the store refuses: the
                // engine keeps its rows to save again (after the command's handling ends).
                Err(error) => spawn_local(async move { saved(rows, Some(error)) }),
            }
        }
        Command::RefreshWorkspace => tell_page(&FromRunner::RefreshWorkspace),
    }
}

/// The batch's clock: asks the engine again when it said something would be due (at least once
/// a second), and stops once the batch is settled (a later retry or resume starts another) or
/// another clock took over (`generation`). A worker's timers keep their time when the tab is
/// hidden.
async fn clock(generation: u64) {
    let current = |runner: &Runner| runner.clock.running && runner.clock.generation == generation;
    loop {
        // A clock that slept past its batch's settling, or past a newer clock's start, stops
        // before it ticks: the batch is not told settled again for it.
        if !RUNNER.with_borrow(|r| r.as_ref().is_some_and(current)) {
            return;
        }
        let signed_in = CLIENT.with_borrow(Option::is_some);
        let awaiting_sign_in = RUNNER.with_borrow(|r| {
            r.as_ref()
                .is_some_and(|runner| runner.engine.awaiting_sign_in())
        });
        if awaiting_sign_in && signed_in {
            handle(Event::SignedIn);
        }
        // Settling is `handle`'s: a tick that settles the batch ends this clock.
        handle(Event::Tick);
        let now = now();
        let wake_at = RUNNER.with_borrow_mut(|r| {
            let runner = r.as_mut().filter(|runner| current(runner))?;
            runner.tell_page_news(now, false);
            Some(
                [runner.engine.wake_at(now), runner.news_due_at()]
                    .into_iter()
                    .flatten()
                    .reduce(EngineTime::min),
            )
        });
        let Some(wake_at) = wake_at else {
            return;
        };
        let wait = wake_at.map_or(LONGEST_SLEEP, |at| {
            (at - now).clamp(Millis::from_ms(1.0), LONGEST_SLEEP)
        });
        sleep(wait.to_duration()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::ErrorDetail;

    fn api_error(status: u16, code: &str, retry_after: Option<f64>) -> ApiError {
        ApiError::Api {
            status,
            detail: ErrorDetail {
                code: code.to_owned(),
                message: format!("{code} said"),
                request_id: Some("req_1".to_owned()),
                retry_after,
            },
        }
    }

    #[test]
    fn each_refusal_of_a_submission_means_what_it_meant() {
        assert_eq!(
            submit_answer(&api_error(429, "rate_limited", Some(2.0))),
            SubmitAnswer::RateLimited {
                retry_after: Some(2.0)
            }
        );
        assert_eq!(
            submit_answer(&api_error(401, "unauthorized", None)),
            SubmitAnswer::Unauthorized
        );
        assert_eq!(
            submit_answer(&ApiError::SignedOut),
            SubmitAnswer::Unauthorized
        );
        assert_eq!(
            submit_answer(&api_error(409, "insufficient_credits", None)),
            SubmitAnswer::InsufficientCredits {
                message: Some("insufficient_credits said".to_owned())
            }
        );
        assert_eq!(
            submit_answer(&api_error(503, "unavailable", None)),
            SubmitAnswer::Transient
        );
        assert_eq!(
            submit_answer(&ApiError::Network("reset".into())),
            SubmitAnswer::Transient
        );
        assert_eq!(
            submit_answer(&api_error(400, "invalid_input", None)),
            SubmitAnswer::Refused(RowError {
                code: "invalid_input".into(),
                message: "invalid_input said".into(),
                request_id: Some("req_1".into()),
            })
        );
        // An answer that is not the contract's fails the row with its request id.
        let foreign = ApiError::Decode {
            status: 202,
            request_id: Some("req_2".into()),
            detail: "missing field `id`".into(),
        };
        match submit_answer(&foreign) {
            SubmitAnswer::Refused(error) => {
                assert_eq!(error.request_id.as_deref(), Some("req_2"));
                assert!(error.message.contains("missing field"), "{}", error.message);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_the_page_and_the_runner_say_reads_back_as_said() {
        let credential = Credential {
            base_url: "http://127.0.0.1:8787".into(),
            bearer: "sk_live_secret".into(),
            sign_in: 2,
        };
        assert!(!format!("{credential:?}").contains("sk_live_secret"));
        let messages = [
            ToRunner::SignedIn(Some(credential)),
            ToRunner::SignedIn(None),
            ToRunner::WorkspaceKnown("ws_1".into()),
            ToRunner::Run(Box::new(BatchToRun::New {
                id: "b".into(),
                workspace: None,
                action: ActionId::PremiumSearchPeople,
                headers: vec!["keywords".into()],
                rows: Vec::new(),
                created_at: 1.7e12,
                budget: Some(2_000),
                pace: None,
            })),
            ToRunner::SetBudget(Some(5_000)),
            ToRunner::Pause,
            ToRunner::RetryFailed,
        ];
        for message in messages {
            let text = serde_json::to_string(&message).unwrap();
            assert_eq!(serde_json::from_str::<ToRunner>(&text).unwrap(), message);
        }
        // The loader writes this one by hand (src/bin/bulk-worker-loader.js).
        assert_eq!(
            serde_json::from_str::<FromRunner>(r#"{"Failed":"TypeError: failed to fetch"}"#)
                .unwrap(),
            FromRunner::Failed("TypeError: failed to fetch".into())
        );
    }

    /// A large batch reaches the worker in pieces (`ToRunner::Rows`, then `ToRunner::Run`), and
    /// the worker runs the very batch the page started, its rows in their order.
    #[test]
    fn a_batch_sent_in_pieces_arrives_whole() {
        let form = crate::model::form::FormModel::from_entry(
            &ActionId::PremiumSearchPeople.sandbox_registry_entry(),
        );
        let file = std::iter::once("keywords,max_results".to_owned())
            .chain((1..=2_500).map(|i| format!("person {i},10")))
            .collect::<Vec<_>>()
            .join("\n");
        let table = crate::model::bulk::read_table(&file).unwrap();
        let mapping = crate::model::bulk::ColumnMapping::by_header(&form, &table.headers);
        let rows: Vec<BatchRow> = crate::model::bulk::check_rows(&form, &mapping, &table)
            .into_iter()
            .map(BatchRow::new)
            .collect();
        let started = BatchToRun::New {
            id: "b".into(),
            workspace: Some("ws_1".into()),
            action: ActionId::PremiumSearchPeople,
            headers: table.headers.clone(),
            rows,
            created_at: 1.7e12,
            budget: None,
            pace: None,
        };
        let mut to_run = started.clone();
        let pieces = to_run.take_rows_in_pieces();
        assert_eq!(
            pieces.iter().map(Vec::len).collect::<Vec<_>>(),
            [ROWS_AT_ONCE, ROWS_AT_ONCE, 500]
        );
        // As the worker hears them: each message through its text.
        let mut messages: Vec<ToRunner> = pieces.into_iter().map(ToRunner::Rows).collect();
        messages.push(ToRunner::Run(Box::new(to_run)));
        let mut brought = Vec::new();
        let mut ran = None;
        for message in messages {
            let text = serde_json::to_string(&message).unwrap();
            match serde_json::from_str::<ToRunner>(&text).unwrap() {
                ToRunner::Rows(rows) => brought.extend(rows),
                ToRunner::Run(batch) => {
                    ran = Some((*batch).with_rows_before(std::mem::take(&mut brought)))
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(ran, Some(started));
        // A small batch is one piece; an empty one none, and runs as it came.
        let mut empty = BatchToRun::New {
            id: "e".into(),
            workspace: None,
            action: ActionId::PremiumSearchPeople,
            headers: Vec::new(),
            rows: Vec::new(),
            created_at: 1.7e12,
            budget: None,
            pace: None,
        };
        assert!(empty.take_rows_in_pieces().is_empty());
        assert_eq!(empty.clone().with_rows_before(Vec::new()), empty);
    }
}
