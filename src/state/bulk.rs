//! The bulk batch this tab shows, provided at the root so it keeps going while the person looks
//! at other pages. The batch runs in a dedicated Web Worker (`crate::runner`): this side starts
//! it, sends it the person's commands, the credential and the workspace, and keeps a copy of the
//! batch up to date from what the worker reports ([`Engine::absorb`]) for the page to show. The
//! credential is sent by message and never written.
//!
//! The batch belongs to a workspace, and its worker sends with the credential of a sign-in to
//! that workspace (the one it was started with, while the tab keeps it), whichever workspace
//! the person has in view: switching workspace leaves it running; signing out of its workspace
//! pauses it until the person signs in there again.
//!
//! One tab runs a batch: the tab that runs it holds a Web Lock named after the batch. Another
//! tab that opens the batch shows it read-only, kept up to date by what the running tab's worker
//! broadcasts after each save (a `BroadcastChannel` of the same name), and may take it over,
//! which stops the first tab's worker. When the running tab goes away (closed, reloaded), a tab
//! showing the batch takes it up, paused, from what was saved.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use api_contract::ActionId;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::session::Session;
use super::workspace::SharedWorkspace;
use crate::browser::{FileParts, HeldLock, LockAnswer, LockRequest, request_lock, sleep};
use crate::model::bulk::engine::{BatchNews, Engine};
use crate::model::bulk::{
    BatchRow, CheckedRow, ExportFormat, MergedExport, SavedBatch, add_output_columns,
};
use crate::model::sign_ins::SignInId;
use crate::runner::{BatchToRun, FromRunner, ToRunner, WORKER_URL, batch_lock_name};
use crate::store::{self, Change};

pub use crate::model::bulk::engine::{Keeping, Phase};

/// Rows an export (or a batch being opened) reads from the store at a time: a slice of 100 rows
/// with 100 records each took 55 to 90 ms to read and write (`bench/bulk.mjs 1000 large`); half
/// that keeps each step nearer the 50 ms a page can take without the person feeling it.
const EXPORT_SLICE_ROWS: usize = 50;

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
    /// This tab's worker sends the batch's requests (the tab holds the batch's lock).
    Runs,
    /// Another tab of this browser runs it: this tab shows its progress and sends nothing.
    Watches,
}

/// The batch and its runner. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Bulk {
    /// The batch as its runner last reported it (the page's copy).
    pub batch: RwSignal<Option<Engine>>,
    pub role: RwSignal<Role>,
    /// The sign-in in use when the batch was started or opened: its credential is preferred.
    /// Read when the batch changes, which it does whenever this is set.
    started_with: StoredValue<Option<SignInId>>,
    session: Session,
    workspace: SharedWorkspace,
}

/// The batch this tab runs, when it belongs to a workspace other than the one in view.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchElsewhere {
    /// The name the batch's workspace is known by in this tab, if it is.
    pub workspace_name: Option<String>,
    pub finished: usize,
    pub to_send: usize,
}

/// The worker running the batch this tab shows.
struct RunnerHandle {
    batch: String,
    worker: web_sys::Worker,
    /// Messages for the worker until it says it is ready (`None` since).
    waiting: Option<Vec<ToRunner>>,
    /// The worker's listeners live as long as it does.
    _on_message: Closure<dyn Fn(web_sys::MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::ErrorEvent)>,
}

impl RunnerHandle {
    fn send(&mut self, message: ToRunner) {
        match &mut self.waiting {
            Some(waiting) => waiting.push(message),
            None => post(&self.worker, &message),
        }
    }
}

impl Drop for RunnerHandle {
    fn drop(&mut self) {
        // Nothing more is sent: answers on their way are dropped with the worker, and a row
        // that was on its way goes again with the same key wherever the batch goes on.
        self.worker.terminate();
    }
}

fn post(worker: &web_sys::Worker, message: &ToRunner) {
    if let Ok(text) = serde_json::to_string(message) {
        let _ = worker.post_message(&wasm_bindgen::JsValue::from_str(&text));
    }
}

thread_local! {
    /// The lock of the batch this tab shows, while this tab runs it (browser objects, so they
    /// stay on this thread rather than in the reactive arena).
    static BATCH_LOCK: RefCell<Option<Rc<HeldLock>>> = const { RefCell::new(None) };
    /// The channel this tab listens to while another tab runs the batch it shows.
    static BATCH_CHANNEL: RefCell<Option<web_sys::BroadcastChannel>> = const { RefCell::new(None) };
    /// The worker running the batch this tab shows.
    static BATCH_RUNNER: RefCell<Option<RunnerHandle>> = const { RefCell::new(None) };
    /// The owner of the app's root, where [`Bulk::provide`] ran.
    static ROOT_OWNER: RefCell<Option<Owner>> = const { RefCell::new(None) };
    /// Whether the effects that keep a runner told of the session are set up.
    static FOLLOWING_SESSION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn now() -> f64 {
    js_sys::Date::now()
}

impl Bulk {
    pub fn provide(session: Session, workspace: SharedWorkspace) {
        let bulk = Bulk {
            batch: RwSignal::new(None),
            role: RwSignal::new(Role::Runs),
            started_with: StoredValue::new(None),
            session,
            workspace,
        };
        provide_context(bulk);
        ROOT_OWNER.set(Owner::current());
    }

    /// The workspace of the batch this tab shows, once known; tracked.
    fn batch_workspace(&self) -> Option<String> {
        self.batch
            .with(|b| b.as_ref().and_then(|b| b.workspace.clone()))
    }

    /// The sign-in whose credential the batch's requests use: one to the batch's workspace
    /// (preferably the one it was started with), or, before its workspace is known, the one it
    /// was started with. Tracked.
    fn batch_sign_in(&self) -> Option<SignInId> {
        let started_with = self.started_with.get_value();
        match self.batch_workspace() {
            Some(workspace) => self.session.sign_in_to(&workspace, started_with),
            None => started_with.filter(|id| self.session.credential_for_runner(*id).is_some()),
        }
    }

    /// Whether the batch shown belongs to the workspace in view (or nothing is shown); tracked.
    pub fn in_view(&self) -> bool {
        match self.batch.with(|b| b.as_ref().map(|b| b.workspace.clone())) {
            None => true,
            // The workspace a sign-in reached is known at once when the person switches back
            // to it, before its load answers.
            Some(Some(workspace)) => self
                .session
                .current_workspace()
                .map(|w| w.id)
                .or_else(|| self.workspace.id())
                .is_some_and(|id| id == workspace),
            Some(None) => self.started_with.get_value() == self.session.current_id(),
        }
    }

    /// The batch this tab runs while it belongs to another workspace than the one in view and
    /// is not done; tracked.
    pub fn elsewhere(&self) -> Option<BatchElsewhere> {
        if self.in_view() || self.role.get() != Role::Runs {
            return None;
        }
        let workspace_name = self
            .batch_sign_in()
            .and_then(|id| self.session.workspace_of(id))
            .map(|w| w.name);
        self.batch.with(|b| {
            b.as_ref()
                .filter(|b| *b.phase() != Phase::Done)
                .map(|b| BatchElsewhere {
                    workspace_name,
                    finished: b.tally().finished,
                    to_send: b.tally().to_send,
                })
        })
    }

    /// Whether this tab runs a batch of the workspace `workspace` that is not done; tracked.
    pub fn runs_for_workspace(&self, workspace: &str) -> bool {
        self.role.get() == Role::Runs
            && self.batch.with(|b| {
                b.as_ref().is_some_and(|b| {
                    b.workspace.as_deref() == Some(workspace) && *b.phase() != Phase::Done
                })
            })
    }

    /// From the first batch on, the runner hears of every change of the credential of the
    /// batch's workspace, and of that workspace once known: effects under the root's owner, so
    /// they outlive the page that started the batch (and cost nothing before any batch).
    fn follow_session(&self) {
        if FOLLOWING_SESSION.replace(true) {
            return;
        }
        let bulk = *self;
        let follow = move || {
            // The credential names its sign-in.
            let credential = Memo::new(move |_| {
                bulk.batch_sign_in()
                    .and_then(|id| bulk.session.credential_for_runner(id))
            });
            Effect::new(move |_| {
                let credential = credential.get();
                let sign_in = credential.as_ref().map(|c| SignInId(c.sign_in));
                // The worker logs a new credential's requests with a new logger, which learns
                // the workspace again.
                let workspace = untrack(|| {
                    bulk.batch_workspace().or_else(|| {
                        sign_in
                            .and_then(|id| bulk.session.workspace_of(id))
                            .map(|w| w.id)
                    })
                });
                BATCH_RUNNER.with_borrow_mut(|runner| {
                    if let Some(runner) = runner {
                        runner.send(ToRunner::SignedIn(credential));
                        if let Some(workspace) = workspace {
                            runner.send(ToRunner::WorkspaceKnown(workspace));
                        }
                    }
                });
            });
            Effect::new(move |_| {
                let unknown = bulk.batch_workspace().is_none();
                let seen = credential
                    .with(|c| c.as_ref().map(|c| SignInId(c.sign_in)))
                    .and_then(|id| bulk.session.workspace_of(id));
                if let (true, Some(seen)) = (unknown, seen) {
                    BATCH_RUNNER.with_borrow_mut(|runner| {
                        if let Some(runner) = runner {
                            runner.send(ToRunner::WorkspaceKnown(seen.id));
                        }
                    });
                }
            });
        };
        match ROOT_OWNER.with_borrow(Clone::clone) {
            Some(owner) => owner.with(follow),
            None => follow(),
        }
    }

    /// Starts a batch of checked rows for `action` (invalid rows are kept, listed, never sent),
    /// which pauses before a row that would take it past `budget` credits.
    pub fn start(
        &self,
        action: ActionId,
        headers: Vec<String>,
        rows: Vec<CheckedRow>,
        budget: Option<u64>,
    ) {
        let to_run = BatchToRun::New {
            id: uuid::Uuid::new_v4().simple().to_string(),
            workspace: self.workspace.id_untracked(),
            action,
            headers,
            rows: rows.into_iter().map(BatchRow::new).collect(),
            created_at: now(),
            budget,
        };
        let Some(engine) = to_run.clone().engine(now()) else {
            return;
        };
        let id = engine.id.clone();
        self.started_with
            .set_value(self.session.current_id_untracked());
        self.run(engine, to_run, None);
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
        let to_run = BatchToRun::Kept {
            summary,
            rows,
            resume,
        };
        let Some(mut engine) = to_run.clone().engine(now()) else {
            return false;
        };
        if resume && matches!(engine.phase(), Phase::Paused(_)) {
            // The page shows the resume at once; the worker's news follows.
            let mut news = engine.news(Vec::new());
            news.phase = Phase::Running;
            engine.absorb(news);
        }
        self.started_with
            .set_value(self.session.current_id_untracked());
        let bulk = *self;
        spawn_local(async move {
            let name = batch_lock_name(&engine.id);
            match request_lock(&name, LockRequest::IfAvailable).await {
                LockAnswer::HeldElsewhere => bulk.watch(engine),
                answer => {
                    let lock = match answer {
                        LockAnswer::Held(lock) => Some(lock),
                        _ => None,
                    };
                    bulk.run(engine, to_run, lock);
                }
            }
        });
        true
    }

    /// Runs the shown batch in this tab instead of the tab that runs it: takes the lock from
    /// that tab (whose worker then stops) and carries on from what it saved.
    pub fn take_over(&self) {
        let Some((id, workspace)) = self.batch.with_untracked(|b| {
            b.as_ref()
                .map(|b| (b.id.clone(), b.workspace.clone().unwrap_or_default()))
        }) else {
            return;
        };
        self.started_with
            .set_value(self.session.current_id_untracked());
        let bulk = *self;
        spawn_local(async move {
            let LockAnswer::Held(lock) =
                request_lock(&batch_lock_name(&id), LockRequest::Steal).await
            else {
                return;
            };
            bulk.run_kept(lock, &workspace, &id, true).await;
        });
    }

    /// Runs the kept batch `id` in this tab, which holds its lock, from what this browser saved;
    /// releases the lock when it cannot be read back.
    async fn run_kept(&self, lock: HeldLock, workspace: &str, id: &str, resume: bool) {
        let Some(to_run) = kept_batch(workspace, id, resume).await else {
            lock.release();
            return;
        };
        match to_run.clone().engine(now()) {
            Some(engine) => self.run(engine, to_run, Some(lock)),
            None => lock.release(),
        }
    }

    /// Makes `engine` the batch this tab runs, in a new worker that starts from `to_run`.
    fn run(&self, engine: Engine, to_run: BatchToRun, lock: Option<HeldLock>) {
        self.let_go();
        let id = engine.id.clone();
        self.batch.set(Some(engine));
        self.role.set(Role::Runs);
        self.start_runner(&id, to_run);
        if let Some(lock) = lock {
            self.hold(lock, &id);
        }
    }

    /// Starts the worker that runs the batch `id`, from `to_run`.
    fn start_runner(&self, id: &str, to_run: BatchToRun) {
        BATCH_RUNNER.take();
        self.follow_session();
        let options = web_sys::WorkerOptions::new();
        options.set_name("bulk");
        let worker = match web_sys::Worker::new_with_options(WORKER_URL, &options) {
            Ok(worker) => worker,
            Err(refused) => {
                let reason = refused.dyn_ref::<js_sys::Error>().map_or_else(
                    || "refused by this browser".to_owned(),
                    |e| e.message().into(),
                );
                self.runner_stopped(id, reason, false);
                return;
            }
        };
        let bulk = *self;
        let batch = id.to_owned();
        let on_message =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                if let Some(message) = event
                    .data()
                    .as_string()
                    .and_then(|text| serde_json::from_str::<FromRunner>(&text).ok())
                {
                    bulk.heard(&batch, message);
                }
            });
        let batch = id.to_owned();
        let on_error =
            Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
                let started = BATCH_RUNNER.with_borrow(|r| {
                    r.as_ref()
                        .is_some_and(|r| r.batch == batch && r.waiting.is_none())
                });
                let reason = match event.message() {
                    message if message.is_empty() => "its script did not load".to_owned(),
                    message => message,
                };
                bulk.runner_stopped(&batch, reason, started);
            });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The worker listens once its module has loaded: until it says so, messages wait here.
        // It hears the credential and the workspace before the batch, so it never sends a row
        // without them.
        let (sign_in, workspace) = untrack(|| {
            let sign_in = self.batch_sign_in();
            let workspace = self.batch_workspace().or_else(|| {
                sign_in
                    .and_then(|id| self.session.workspace_of(id))
                    .map(|w| w.id)
            });
            (sign_in, workspace)
        });
        let credential = sign_in.and_then(|id| untrack(|| self.session.credential_for_runner(id)));
        let mut waiting = vec![ToRunner::SignedIn(credential)];
        if let Some(workspace) = workspace {
            waiting.push(ToRunner::WorkspaceKnown(workspace));
        }
        waiting.push(ToRunner::Run(to_run));
        BATCH_RUNNER.set(Some(RunnerHandle {
            batch: id.to_owned(),
            worker,
            waiting: Some(waiting),
            _on_message: on_message,
            _on_error: on_error,
        }));
    }

    /// What the worker running the batch `batch` said.
    fn heard(&self, batch: &str, message: FromRunner) {
        let ours = BATCH_RUNNER.with_borrow(|r| r.as_ref().is_some_and(|r| r.batch == batch));
        if !ours {
            return;
        }
        match message {
            FromRunner::Ready => BATCH_RUNNER.with_borrow_mut(|runner| {
                if let Some(runner) = runner {
                    for message in runner.waiting.take().unwrap_or_default() {
                        post(&runner.worker, &message);
                    }
                }
            }),
            FromRunner::Failed(reason) => self.runner_stopped(batch, reason, false),
            FromRunner::News(news) => {
                self.batch.update(|b| {
                    if let Some(engine) = b {
                        engine.absorb(news);
                    }
                });
                // Taken: the worker may send the next (it sends one at a time, so a page busier
                // than the batch gets its news coalesced instead of queued).
                BATCH_RUNNER.with_borrow(|runner| {
                    if let Some(runner) = runner {
                        post(&runner.worker, &ToRunner::NewsShown);
                    }
                });
            }
            // The sign-in whose credential was refused, even if the worker has another since.
            FromRunner::Unauthorized { message, sign_in } => {
                self.session.expire(SignInId(sign_in), message);
            }
            FromRunner::RefreshWorkspace => {
                if untrack(|| self.in_view()) {
                    self.workspace.refresh();
                }
            }
            FromRunner::Settled => {
                // Nothing more to send: another tab may open the batch as its own.
                if let Some(lock) = BATCH_LOCK.take() {
                    lock.release();
                }
            }
        }
    }

    /// The worker could not start (`started` false: nothing was sent) or stopped: the batch
    /// pauses and says why; resuming starts a worker again.
    fn runner_stopped(&self, batch: &str, reason: String, started: bool) {
        BATCH_RUNNER.take();
        let message = if started {
            format!(
                "Paused: the worker running this batch stopped ({reason}). Resume to go on from \
                 what this browser kept; rows that were on their way go again with the same key, \
                 so none runs twice."
            )
        } else {
            format!(
                "Paused: the worker that runs bulk batches could not start in this browser \
                 ({reason}), so nothing was sent. Resume to try again; if it fails again, reload \
                 the page."
            )
        };
        self.show_paused(batch, message);
    }

    /// Shows the batch `batch` paused, with `message` as the reason (no worker runs it).
    fn show_paused(&self, batch: &str, message: String) {
        self.batch.update(|b| {
            if let Some(engine) = b.as_mut().filter(|e| e.id == batch) {
                let mut news = engine.news(Vec::new());
                news.phase = Phase::Paused(Some(message));
                engine.absorb(news);
            }
        });
    }

    /// Sends a command to the batch's worker; when there is none (it could not start, or
    /// stopped), starts one again first, from what this browser kept.
    fn command(&self, message: ToRunner) {
        if self.role.get_untracked() != Role::Runs {
            return;
        }
        let sent = BATCH_RUNNER.with_borrow_mut(|runner| match runner {
            Some(runner) => {
                runner.send(message.clone());
                true
            }
            None => false,
        });
        if sent {
            self.hold_again();
            return;
        }
        // Where a new worker starts from: the store once the batch is kept there, else the
        // page's copy (nothing was sent before the first save; a batch the browser refuses to
        // keep lives in the page's copy only, records included).
        let Some((id, workspace, from_copy)) = self.batch.with_untracked(|b| {
            b.as_ref().map(|engine| {
                let from_copy = match engine.keeping() {
                    Keeping::Kept => None,
                    Keeping::Pending => Some(BatchToRun::New {
                        id: engine.id.clone(),
                        workspace: engine.workspace.clone(),
                        action: engine.action,
                        headers: engine.headers.clone(),
                        rows: engine.rows().to_vec(),
                        created_at: engine.created_at,
                        budget: engine.spending().budget,
                    }),
                    Keeping::Refused => Some(BatchToRun::Kept {
                        summary: engine.summary(),
                        rows: engine.rows().to_vec(),
                        resume: false,
                    }),
                };
                (engine.id.clone(), engine.workspace.clone(), from_copy)
            })
        }) else {
            return;
        };
        let bulk = *self;
        spawn_local(async move {
            let to_run = match from_copy {
                Some(to_run) => Some(to_run),
                None => kept_batch(&workspace.unwrap_or_default(), &id, false).await,
            };
            let still_shown = bulk.current_id().as_deref() == Some(id.as_str())
                && bulk.role.get_untracked() == Role::Runs;
            if !still_shown {
                return;
            }
            let Some(to_run) = to_run else {
                bulk.show_paused(
                    &id,
                    "Paused: this batch could not be read back from this browser's storage \
                     (it may be full, or blocked by the browser's settings), so it cannot go on \
                     here. Reload the page to try again."
                        .to_owned(),
                );
                return;
            };
            bulk.start_runner(&id, to_run);
            BATCH_RUNNER.with_borrow_mut(|runner| {
                if let Some(runner) = runner {
                    runner.send(message);
                }
            });
            bulk.hold_again();
        });
    }

    /// Takes the batch's lock again after it was let go (the batch had settled), unless another
    /// tab has taken the batch up meanwhile: then this tab only shows it.
    fn hold_again(&self) {
        if BATCH_LOCK.with_borrow(Option::is_some) {
            return;
        }
        let Some(id) = self.current_id() else {
            return;
        };
        let bulk = *self;
        spawn_local(async move {
            match request_lock(&batch_lock_name(&id), LockRequest::IfAvailable).await {
                LockAnswer::Held(lock) => bulk.hold(lock, &id),
                LockAnswer::HeldElsewhere => bulk.lost(&id),
                LockAnswer::Unsupported => {}
            }
        });
    }

    /// Shows `engine`, which another tab runs, kept up to date by that tab's news; takes it up
    /// if that tab goes away.
    fn watch(&self, engine: Engine) {
        self.let_go();
        let id = engine.id.clone();
        self.batch.set(Some(engine));
        self.role.set(Role::Watches);
        self.listen(&id);
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
            if still_ours {
                // Taken by another tab: it runs the batch now.
                BATCH_LOCK.set(None);
                bulk.lost(&batch);
            }
        });
    }

    /// Another tab runs the batch now: this tab's worker stops, and the tab shows the batch.
    fn lost(&self, batch: &str) {
        if self.current_id().as_deref() == Some(batch) && self.role.get_untracked() == Role::Runs {
            BATCH_RUNNER.take();
            self.role.set(Role::Watches);
            self.listen(batch);
            self.take_up_when_free(batch.to_owned());
        }
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
            if watching {
                bulk.run_kept(lock, &workspace, &batch, false).await;
            } else {
                lock.release();
            }
        });
    }

    /// Stops the worker, releases the lock and closes the channel of the batch shown so far.
    fn let_go(&self) {
        BATCH_RUNNER.take();
        if let Some(lock) = BATCH_LOCK.take() {
            lock.release();
        }
        if let Some(channel) = BATCH_CHANNEL.take() {
            channel.close();
        }
    }

    /// Listens to the news of the tab that runs the batch.
    fn listen(&self, batch: &str) {
        if let Some(channel) = BATCH_CHANNEL.take() {
            channel.close();
        }
        let Ok(channel) = web_sys::BroadcastChannel::new(&batch_lock_name(batch)) else {
            return;
        };
        let bulk = *self;
        let on_news =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
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
            });
        channel.set_onmessage(Some(on_news.as_ref().unchecked_ref()));
        // The listener lives as long as the channel; the channel is closed when the tab shows
        // another batch or runs this one.
        on_news.forget();
        BATCH_CHANNEL.set(Some(channel));
    }

    /// Forgets the batch, here and in this browser's store; its worker stops, and answers still
    /// on their way are dropped (they belong to a batch that is no longer there).
    pub fn clear(&self) {
        let id = self.current_id();
        self.let_go_of_shown();
        if let Some(id) = id {
            spawn_local(async move {
                let _ = store::write(vec![Change::DeleteBatch(id)]).await;
            });
        }
    }

    /// Stops the batch on screen and leaves it, keeping nothing of it in memory, for a caller
    /// that deletes the store's copy itself (sign-out that forgets the workspace's data).
    pub fn let_go_of_shown(&self) {
        self.let_go();
        self.batch.set(None);
        self.role.set(Role::Runs);
    }

    pub fn pause(&self) {
        self.command(ToRunner::Pause);
    }

    pub fn resume(&self) {
        self.command(ToRunner::Resume);
    }

    /// Stops sending and cancels the batch's runs still queued or processing; rows not sent yet
    /// become cancelled.
    pub fn cancel(&self) {
        self.command(ToRunner::Cancel);
    }

    /// Changes the batch's budget; a batch paused at its budget goes on once resumed.
    pub fn set_budget(&self, budget: Option<u64>) {
        self.command(ToRunner::SetBudget(budget));
    }

    /// Sends the failed rows again as new submissions (new keys, so they may cost again).
    pub fn retry_failed(&self) {
        self.command(ToRunner::RetryFailed);
    }

    fn current_id(&self) -> Option<String> {
        self.batch
            .with_untracked(|b| b.as_ref().map(|b| b.id.clone()))
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

/// A batch's records as read to explore them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExploredRecords {
    pub records: Vec<serde_json::Value>,
    /// How many records the batch holds in all (more than `records` past the limit).
    pub total: usize,
}

impl Bulk {
    /// Writes the merged export of the batch shown into a file, a slice of rows at a time: the
    /// records of finished rows are read back from this browser's store (they left memory when
    /// they were saved), so a large batch is never one string; `progress` follows it.
    pub async fn export(
        &self,
        format: ExportFormat,
        // The environment's file label (`Environment::file_name`), first in the file's name.
        file_prefix: &str,
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
                "{file_prefix}bulk-{}-{}.{}",
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

    /// The batch's records to explore (`BatchRow::into_explored_records`), the first `limit` of them
    /// in line order, read a slice of rows at a time, with how many the batch holds in all.
    pub async fn explore_records(&self, limit: usize) -> Result<ExploredRecords, String> {
        let Some((id, headers, total_rows, total_records)) = self.batch.with_untracked(|b| {
            b.as_ref().map(|e| {
                let rows = e.rows();
                (
                    e.id.clone(),
                    e.headers.clone(),
                    rows.len(),
                    rows.iter().map(|r| r.records.max(r.output.len())).sum(),
                )
            })
        }) else {
            return Ok(ExploredRecords::default());
        };
        let mut records = Vec::new();
        for start in (0..total_rows).step_by(EXPORT_SLICE_ROWS) {
            if records.len() >= limit {
                break;
            }
            for row in self.export_slice(&id, start).await? {
                records.extend(row.into_explored_records(&headers));
            }
            // Let the page draw and answer between slices.
            sleep(Duration::ZERO).await;
        }
        records.truncate(limit);
        Ok(ExploredRecords {
            records,
            total: total_records,
        })
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

/// A kept batch for a runner, from what this browser saved; `None` when it cannot be read back.
async fn kept_batch(workspace: &str, batch: &str, resume: bool) -> Option<BatchToRun> {
    let summary = saved_batches(workspace)
        .await
        .ok()?
        .into_iter()
        .find(|b| b.id == batch)?;
    let rows = saved_rows(batch).await?;
    Some(BatchToRun::Kept {
        summary,
        rows,
        resume,
    })
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
