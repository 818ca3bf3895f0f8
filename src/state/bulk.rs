//! The bulk batch being run, provided at the root so it keeps going while the person looks at
//! other pages: the driver of [`Engine`] (`model::bulk::engine`), which decides everything. The
//! driver feeds it the clock and the answers, and does what it asks: the API requests (through
//! the one transport), the writes to this browser's store (`crate::store`) and the workspace's
//! refresh. The credential is never written.
//!
//! One tab runs a batch: the tab that runs it holds a Web Lock named after the batch. Another
//! tab that opens the batch shows it read-only, kept up to date by what the running tab
//! broadcasts after each save (a `BroadcastChannel` of the same name), and may take it over,
//! which stops the first tab. When the running tab goes away (closed, reloaded), a tab showing
//! the batch takes it up, paused, from what was saved.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use api_contract::ActionId;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::session::Session;
use super::workspace::SharedWorkspace;
use crate::api::{ApiClient, ApiError};
use crate::browser::{FileParts, HeldLock, LockAnswer, LockRequest, request_lock, sleep};
use crate::model::bulk::engine::{
    BatchNews, CancelAnswer, Command, Engine, Event, ReadAnswer, Saving, SubmitAnswer,
};
use crate::model::bulk::{
    BatchRow, CheckedRow, ExportFormat, MergedExport, RowError, SavedBatch, add_output_columns,
};
use crate::model::form::SavedSubmission;
use crate::store::{self, Change};

pub use crate::model::bulk::engine::{Keeping, Phase};

/// The longest the driver's clock sleeps: the engine is asked again at least this often.
const LONGEST_SLEEP_MS: f64 = 1_000.0;

/// Rows an export (or a batch being opened) reads from the store at a time: a slice of rows
/// with 100 records each is written in about 40 ms, so the page stays responsive meanwhile.
const EXPORT_SLICE_ROWS: usize = 100;

/// How far an export has come, for the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportProgress {
    pub rows_done: usize,
    /// Rows to go through (twice the batch's for CSV: once for the columns, once to write).
    pub rows: usize,
}

/// Whether this tab runs the batch it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// This tab sends the batch's requests (it holds the batch's lock).
    Runs,
    /// Another tab of this browser runs it: this tab shows its progress and sends nothing.
    Watches,
}

/// The batch and its driver. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Bulk {
    /// The batch. Changed without notifying at every event; notified when the engine says
    /// something the page shows changed.
    pub batch: RwSignal<Option<Engine>>,
    pub role: RwSignal<Role>,
    /// The batch whose clock task is running, if any.
    clock_for: StoredValue<Option<String>>,
    /// The phase the other tabs were last told.
    told_phase: StoredValue<Option<Phase>>,
    session: Session,
    workspace: SharedWorkspace,
}

thread_local! {
    /// The lock of the batch this tab shows, while this tab runs it (browser objects, so they
    /// stay on this thread rather than in the reactive arena).
    static BATCH_LOCK: RefCell<Option<Rc<HeldLock>>> = const { RefCell::new(None) };
    /// The channel between the tabs that show the batch.
    static BATCH_CHANNEL: RefCell<Option<web_sys::BroadcastChannel>> = const { RefCell::new(None) };
}

/// The name of a batch's lock and channel.
fn batch_lock_name(batch: &str) -> String {
    format!("console-bulk-{batch}")
}

fn now() -> f64 {
    js_sys::Date::now()
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
/// with changes"), in one transaction.
fn changes(engine_action: ActionId, saving: &Saving) -> Vec<Change> {
    let batch = &saving.summary;
    let mut changes: Vec<Change> = saving
        .new_runs
        .iter()
        .map(|run| Change::Put {
            store: store::SUBMISSIONS,
            key: run.run_id.clone(),
            json: SavedSubmission {
                workspace: batch.workspace.clone(),
                action: engine_action.as_str().to_owned(),
                live: false,
                body: run.body.clone(),
            }
            .to_json()
            .to_string(),
        })
        .collect();
    changes.extend(saving.rows.iter().map(|row| Change::Put {
        store: store::ROWS,
        key: store::row_key(&batch.id, row.line),
        json: serde_json::to_string(row).unwrap_or_default(),
    }));
    changes.push(Change::Put {
        store: store::BATCHES,
        key: batch.id.clone(),
        json: serde_json::to_string(batch).unwrap_or_default(),
    });
    changes
}

impl Bulk {
    pub fn provide(session: Session, workspace: SharedWorkspace) {
        provide_context(Bulk {
            batch: RwSignal::new(None),
            role: RwSignal::new(Role::Runs),
            clock_for: StoredValue::new(None),
            told_phase: StoredValue::new(None),
            session,
            workspace,
        });
    }

    /// Starts a batch of checked rows for `action` (invalid rows are kept, listed, never sent).
    pub fn start(&self, action: ActionId, headers: Vec<String>, rows: Vec<CheckedRow>) {
        let engine = Engine::new(
            uuid::Uuid::new_v4().simple().to_string(),
            self.workspace_id(),
            action,
            headers,
            rows.into_iter().map(BatchRow::new).collect(),
            now(),
        );
        let id = engine.id.clone();
        self.run(engine, None);
        // A new batch's lock is free: no other tab knows its id yet.
        let bulk = *self;
        spawn_local(async move {
            if let LockAnswer::Held(lock) =
                request_lock(&batch_lock_name(&id), LockRequest::IfAvailable).await
            {
                bulk.hold(lock, &id);
            }
        });
    }

    /// Opens a batch kept in this browser: run here, paused (or going on with its cancel) and
    /// resumed when `resume`, unless another tab runs it; then shown read-only. `false` when the
    /// summary names an action this console does not know.
    pub fn open(&self, summary: SavedBatch, rows: Vec<BatchRow>, resume: bool) -> bool {
        let Some(engine) = Engine::restore(summary, rows, now()) else {
            return false;
        };
        let bulk = *self;
        spawn_local(async move {
            let name = batch_lock_name(&engine.id);
            match request_lock(&name, LockRequest::IfAvailable).await {
                LockAnswer::HeldElsewhere => bulk.watch(engine),
                answer => {
                    let id = engine.id.clone();
                    bulk.run(engine, None);
                    if let LockAnswer::Held(lock) = answer {
                        bulk.hold(lock, &id);
                    }
                    if resume {
                        bulk.resume();
                    }
                }
            }
        });
        true
    }

    /// Runs the shown batch in this tab instead of the tab that runs it: takes the lock from
    /// that tab (which then stops sending) and carries on from what it saved.
    pub fn take_over(&self) {
        let Some((id, workspace)) = self.batch.with_untracked(|b| {
            b.as_ref()
                .map(|b| (b.id.clone(), b.workspace.clone().unwrap_or_default()))
        }) else {
            return;
        };
        let bulk = *self;
        spawn_local(async move {
            let LockAnswer::Held(lock) =
                request_lock(&batch_lock_name(&id), LockRequest::Steal).await
            else {
                return;
            };
            match saved_engine(&workspace, &id).await {
                Some(engine) => {
                    bulk.run(engine, None);
                    bulk.hold(lock, &id);
                    bulk.resume();
                }
                None => lock.release(),
            }
        });
    }

    /// Makes `engine` the batch this tab runs.
    fn run(&self, engine: Engine, lock: Option<HeldLock>) {
        self.let_go();
        let id = engine.id.clone();
        self.batch.set(Some(engine));
        self.role.set(Role::Runs);
        self.open_channel(&id, false);
        if let Some(lock) = lock {
            self.hold(lock, &id);
        }
        self.handle(Event::Tick);
    }

    /// Shows `engine`, which another tab runs, kept up to date by that tab's news; takes it up
    /// if that tab goes away.
    fn watch(&self, engine: Engine) {
        self.let_go();
        let id = engine.id.clone();
        self.batch.set(Some(engine));
        self.role.set(Role::Watches);
        self.open_channel(&id, true);
        self.take_up_when_free(id);
    }

    /// Keeps the batch's lock until it is released here or taken by another tab; then this tab
    /// only shows the batch.
    fn hold(&self, lock: HeldLock, batch: &str) {
        let lock = Rc::new(lock);
        BATCH_LOCK.set(Some(lock.clone()));
        let bulk = *self;
        let batch = batch.to_owned();
        spawn_local(async move {
            lock.ended().await;
            let still_ours = BATCH_LOCK
                .with_borrow(|held| held.as_ref().is_some_and(|held| Rc::ptr_eq(held, &lock)));
            if !still_ours {
                return;
            }
            // Taken by another tab: it runs the batch now.
            BATCH_LOCK.set(None);
            if bulk.current_id().as_deref() == Some(batch.as_str())
                && bulk.role.get_untracked() == Role::Runs
            {
                bulk.role.set(Role::Watches);
                bulk.open_channel(&batch, true);
                bulk.take_up_when_free(batch);
            }
        });
    }

    /// Waits for the batch's lock: when the tab that runs it goes away, this tab takes the
    /// batch up from what was saved (paused, as after a reload).
    fn take_up_when_free(&self, batch: String) {
        let bulk = *self;
        spawn_local(async move {
            let LockAnswer::Held(lock) =
                request_lock(&batch_lock_name(&batch), LockRequest::Wait).await
            else {
                return;
            };
            let watching = bulk.current_id().as_deref() == Some(batch.as_str())
                && bulk.role.get_untracked() == Role::Watches;
            let workspace = bulk
                .batch
                .with_untracked(|b| b.as_ref().and_then(|b| b.workspace.clone()))
                .unwrap_or_default();
            match watching {
                true => match saved_engine(&workspace, &batch).await {
                    Some(engine) => bulk.run(engine, Some(lock)),
                    None => lock.release(),
                },
                false => lock.release(),
            }
        });
    }

    /// Releases the lock and closes the channel of the batch shown so far.
    fn let_go(&self) {
        if let Some(lock) = BATCH_LOCK.take() {
            lock.release();
        }
        if let Some(channel) = BATCH_CHANNEL.take() {
            channel.close();
        }
        self.told_phase.set_value(None);
    }

    /// Opens the batch's channel; a tab that only shows the batch listens to it.
    fn open_channel(&self, batch: &str, listen: bool) {
        if let Some(channel) = BATCH_CHANNEL.take() {
            channel.close();
        }
        let Ok(channel) = web_sys::BroadcastChannel::new(&batch_lock_name(batch)) else {
            return;
        };
        if listen {
            let bulk = *self;
            let on_news = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(
                move |event: web_sys::MessageEvent| {
                    let Some(news) = event
                        .data()
                        .as_string()
                        .and_then(|text| serde_json::from_str::<BatchNews>(&text).ok())
                    else {
                        return;
                    };
                    if bulk.role.get_untracked() == Role::Watches {
                        bulk.batch.update(|b| {
                            if let Some(engine) = b {
                                engine.absorb(news);
                            }
                        });
                    }
                },
            );
            channel.set_onmessage(Some(wasm_bindgen::JsCast::unchecked_ref(on_news.as_ref())));
            // The listener lives as long as the channel; the channel is closed when the tab
            // shows another batch.
            on_news.forget();
        }
        BATCH_CHANNEL.set(Some(channel));
    }

    /// Tells the other tabs showing the batch where it stands, with the rows just saved.
    fn tell(&self, rows: Vec<BatchRow>) {
        if self.role.get_untracked() != Role::Runs {
            return;
        }
        let Some(news) = self
            .batch
            .with_untracked(|b| b.as_ref().map(|engine| engine.news(rows)))
        else {
            return;
        };
        self.told_phase.set_value(Some(news.phase.clone()));
        let text = serde_json::to_string(&news).unwrap_or_default();
        BATCH_CHANNEL.with_borrow(|channel| {
            if let Some(channel) = channel {
                let _ = channel.post_message(&wasm_bindgen::JsValue::from_str(&text));
            }
        });
    }

    /// Forgets the batch, here and in this browser's store; answers still on their way are
    /// dropped (they belong to a batch that is no longer there).
    pub fn clear(&self) {
        let id = self
            .batch
            .with_untracked(|b| b.as_ref().map(|b| b.id.clone()));
        self.let_go();
        self.batch.set(None);
        self.role.set(Role::Runs);
        if let Some(id) = id {
            spawn_local(async move {
                let _ = store::write(vec![Change::DeleteBatch(id)]).await;
            });
        }
    }

    pub fn pause(&self) {
        self.handle(Event::Pause);
    }

    pub fn resume(&self) {
        self.handle(Event::Resume);
    }

    /// Stops sending and cancels the batch's runs still queued or processing; rows not sent yet
    /// become cancelled.
    pub fn cancel(&self) {
        self.handle(Event::Cancel);
    }

    /// Sends the failed rows again as new submissions (new keys, so they may cost again).
    pub fn retry_failed(&self) {
        self.handle(Event::RetryFailed);
    }

    fn workspace_id(&self) -> Option<String> {
        self.workspace
            .resource
            .get_untracked()
            .and_then(Result::ok)
            .map(|w| w.workspace_id)
    }

    fn current_id(&self) -> Option<String> {
        self.batch
            .with_untracked(|b| b.as_ref().map(|b| b.id.clone()))
    }

    /// Feeds an event to the current batch and does what it asks (only in the tab that runs it).
    fn handle(&self, event: Event) {
        if self.role.get_untracked() != Role::Runs {
            return;
        }
        let now = now();
        let Some((id, action, commands, changed)) = self
            .batch
            .try_update_untracked(|b| {
                b.as_mut().map(|engine| {
                    let commands = engine.handle(now, event);
                    (
                        engine.id.clone(),
                        engine.action,
                        commands,
                        engine.take_changed(),
                    )
                })
            })
            .flatten()
        else {
            return;
        };
        if changed {
            self.batch.notify();
            let phase = self
                .batch
                .with_untracked(|b| b.as_ref().map(|b| b.phase().clone()));
            if phase != self.told_phase.get_value() {
                self.tell(Vec::new());
            }
        }
        for command in commands {
            self.execute(&id, action, command);
        }
        if self.clock_for.get_value().as_deref() != Some(id.as_str()) {
            self.clock_for.set_value(Some(id.clone()));
            spawn_local(self.clock(id));
        }
    }

    /// Feeds an answer to the batch it belongs to; dropped if that batch was cleared.
    fn answer(&self, batch: &str, event: Event) {
        if self.current_id().as_deref() == Some(batch) {
            self.handle(event);
        }
    }

    fn execute(&self, batch: &str, action: ActionId, command: Command) {
        let bulk = *self;
        let batch = batch.to_owned();
        let client: Option<ApiClient> = self.session.client_untracked();
        match command {
            Command::Submit { row, key, body, .. } => spawn_local(async move {
                let answer = match client {
                    Some(client) => {
                        match client.submit(action.as_str(), false, &key, &body).await {
                            Ok(submitted) => SubmitAnswer::Accepted(submitted.run),
                            Err(e) => submit_answer(&e),
                        }
                    }
                    None => SubmitAnswer::Unauthorized,
                };
                bulk.answer(&batch, Event::Submitted { row, key, answer });
            }),
            Command::ReadRunList => spawn_local(async move {
                let answer = match client {
                    Some(client) => match read_answer(client.runs().await) {
                        ReadAnswer::Read { value, bytes } => ReadAnswer::Read {
                            value: value.runs,
                            bytes,
                        },
                        ReadAnswer::Unauthorized => ReadAnswer::Unauthorized,
                        ReadAnswer::NotFound => ReadAnswer::NotFound,
                        ReadAnswer::Failed => ReadAnswer::Failed,
                    },
                    None => ReadAnswer::Unauthorized,
                };
                bulk.answer(&batch, Event::RunListRead(answer));
            }),
            Command::ReadRun { row, run_id } => spawn_local(async move {
                let answer = match client {
                    Some(client) => read_answer(client.run(&run_id).await),
                    None => ReadAnswer::Unauthorized,
                };
                bulk.answer(&batch, Event::RunRead { row, answer });
            }),
            Command::CancelRun { row, run_id } => spawn_local(async move {
                let answer = match client {
                    Some(client) => cancel_answer(client.cancel(&run_id).await),
                    None => CancelAnswer::Unauthorized,
                };
                bulk.answer(&batch, Event::CancelAnswered { row, answer });
            }),
            Command::Save(saving) => spawn_local(async move {
                let written = store::write(changes(action, &saving)).await.is_ok();
                bulk.answer(&batch, Event::Saved(written));
                if written && bulk.current_id().as_deref() == Some(batch.as_str()) {
                    bulk.tell(saving.rows);
                }
            }),
            Command::RefreshWorkspace => self.workspace.refresh(),
        }
    }

    /// The batch's clock: asks the engine again when it said something would be due (at least
    /// once a second), tells it about a sign-in after a 401 and the workspace once known, and
    /// stops once the batch is settled or replaced.
    async fn clock(self, batch: String) {
        loop {
            if self.current_id().as_deref() != Some(batch.as_str())
                || self.role.get_untracked() != Role::Runs
            {
                break;
            }
            let (awaiting_sign_in, workspace_known) = self.batch.with_untracked(|b| {
                b.as_ref().map_or((false, true), |e| {
                    (e.awaiting_sign_in(), e.workspace.is_some())
                })
            });
            if awaiting_sign_in && self.session.client_untracked().is_some() {
                self.handle(Event::SignedIn);
            }
            if !workspace_known && let Some(id) = self.workspace_id() {
                self.handle(Event::WorkspaceKnown(id));
            }
            self.handle(Event::Tick);
            let (settled, wake_at) = self.batch.with_untracked(|b| {
                b.as_ref()
                    .map_or((true, None), |e| (e.is_settled(), e.wake_at(now())))
            });
            if settled {
                // Nothing more to send: another tab may open the batch as its own.
                if let Some(lock) = BATCH_LOCK.take() {
                    lock.release();
                }
                break;
            }
            let wait = wake_at.map_or(LONGEST_SLEEP_MS, |at| {
                (at - now()).clamp(1.0, LONGEST_SLEEP_MS)
            });
            sleep(Duration::from_millis(wait.ceil() as u64)).await;
        }
        self.clock_for.update_value(|running| {
            if running.as_deref() == Some(batch.as_str()) {
                *running = None;
            }
        });
    }
}

/// The batches this browser keeps for a workspace, newest first.
pub async fn saved_batches(workspace: &str) -> Result<Vec<SavedBatch>, ()> {
    let mut list: Vec<SavedBatch> = store::all(store::BATCHES)
        .await
        .map_err(|_| ())?
        .iter()
        .filter_map(|json| serde_json::from_str::<SavedBatch>(json).ok())
        .filter(|b| b.workspace == workspace)
        .collect();
    list.sort_by(|a, b| b.created_at.total_cmp(&a.created_at));
    Ok(list)
}

impl Bulk {
    /// Writes the merged export of the batch shown into a file, a slice of rows at a time: the
    /// records of finished rows are read back from this browser's store (they left memory when
    /// they were saved), so a large batch is never one string; `progress` follows it.
    pub async fn export(
        &self,
        format: ExportFormat,
        progress: RwSignal<Option<ExportProgress>>,
    ) -> Result<(), String> {
        let Some((id, action, headers, total)) = self.batch.with_untracked(|b| {
            b.as_ref()
                .map(|e| (e.id.clone(), e.action, e.headers.clone(), e.rows().len()))
        }) else {
            return Ok(());
        };
        let passes = if format == ExportFormat::Csv { 2 } else { 1 };
        let mut done = 0;
        progress.set(Some(ExportProgress {
            rows_done: 0,
            rows: total * passes,
        }));
        let result = async {
            let mut columns = Vec::new();
            if format == ExportFormat::Csv {
                for start in (0..total).step_by(EXPORT_SLICE_ROWS) {
                    let rows = self.export_slice(&id, start).await?;
                    add_output_columns(&mut columns, &rows);
                    done += rows.len();
                    progress.set(Some(ExportProgress {
                        rows_done: done,
                        rows: total * passes,
                    }));
                    sleep(Duration::ZERO).await;
                }
            }
            let mut export = MergedExport::new(format, headers, columns);
            let no_room = || "This browser could not hold the export.".to_owned();
            let mut file = FileParts::new(format.mime()).ok_or_else(no_room)?;
            file.push(&export.start()).ok_or_else(no_room)?;
            for start in (0..total).step_by(EXPORT_SLICE_ROWS) {
                let rows = self.export_slice(&id, start).await?;
                file.push(&export.rows(&rows)).ok_or_else(no_room)?;
                done += rows.len();
                progress.set(Some(ExportProgress {
                    rows_done: done,
                    rows: total * passes,
                }));
                // Let the page draw and answer between slices.
                sleep(Duration::ZERO).await;
            }
            file.push(&export.finish()).ok_or_else(no_room)?;
            file.download(&format!(
                "bulk-{}-{}.{}",
                action.as_str(),
                &id[..8.min(id.len())],
                format.extension()
            ));
            Ok(())
        }
        .await;
        progress.set(None);
        result
    }

    /// The rows from index `start` on (a slice), with their records: from memory where they
    /// still are, else from this browser's store.
    async fn export_slice(&self, batch: &str, start: usize) -> Result<Vec<BatchRow>, String> {
        let gone = || "The batch was closed while it was being exported.".to_owned();
        let mut rows: Vec<BatchRow> = self
            .batch
            .with_untracked(|b| {
                b.as_ref().filter(|e| e.id == batch).map(|e| {
                    let rows = e.rows();
                    rows[start.min(rows.len())..(start + EXPORT_SLICE_ROWS).min(rows.len())]
                        .to_vec()
                })
            })
            .ok_or_else(gone)?;
        let kept_only = |r: &BatchRow| r.output.is_empty() && r.records > 0;
        let (Some(first), true) = (rows.first(), rows.iter().any(kept_only)) else {
            return Ok(rows);
        };
        let unreadable =
            || "Some rows' records could not be read back from this browser's storage.".to_owned();
        let kept = store::batch_rows_from(batch, first.line, rows.len() as u32)
            .await
            .map_err(|_| unreadable())?;
        for text in kept {
            let stored: BatchRow = serde_json::from_str(&text).map_err(|_| unreadable())?;
            if let Ok(i) = rows.binary_search_by_key(&stored.line, |r| r.line)
                && kept_only(&rows[i])
            {
                rows[i].output = stored.output;
            }
        }
        if rows.iter().any(kept_only) {
            return Err(unreadable());
        }
        Ok(rows)
    }
}

/// A kept batch as an engine, from what this browser saved; `None` when it cannot be read back.
async fn saved_engine(workspace: &str, batch: &str) -> Option<Engine> {
    let summary = saved_batches(workspace)
        .await
        .ok()?
        .into_iter()
        .find(|b| b.id == batch)?;
    let rows = saved_rows(batch).await?;
    Engine::restore(summary, rows, now())
}

/// A kept batch's rows, in line order; `None` when they cannot be read back whole.
/// Read a slice at a time; a finished row's records are left in the store (exports read them
/// there), so a large batch's records are never all in memory at once.
pub async fn saved_rows(batch: &str) -> Option<Vec<BatchRow>> {
    let mut rows: Vec<BatchRow> = Vec::new();
    loop {
        let first_line = rows.last().map_or(0, |row| row.line + 1);
        let slice = store::batch_rows_from(batch, first_line, EXPORT_SLICE_ROWS as u32)
            .await
            .ok()?;
        let last_slice = slice.len() < EXPORT_SLICE_ROWS;
        for text in slice {
            let mut row: BatchRow = serde_json::from_str(&text).ok()?;
            if row.records == 0 {
                row.records = row.output.len();
            }
            if row.state.is_final() {
                row.output = Vec::new();
            }
            rows.push(row);
        }
        if last_slice {
            return Some(rows);
        }
    }
}

pub fn use_bulk() -> Bulk {
    expect_context::<Bulk>()
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
}
