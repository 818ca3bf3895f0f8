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
//! One tab runs a batch: the tab that runs it holds a Web Lock named after the batch
//! (`model::batch_tab` decides, `tab` does). Another tab that opens the batch shows it
//! read-only, kept up to date by what the running tab's worker broadcasts after each save (a
//! `BroadcastChannel` of the same name), and may take it over, which stops the first tab's
//! worker. When the running tab goes away (closed, reloaded), a tab showing the batch takes it
//! up, paused, from what was saved.
//!
//! - `worker`: the worker's start, its messages both ways, the person's commands, and the
//!   session it is kept told of.
//! - `tab`: the batch's Web Lock and `BroadcastChannel`, as `model::batch_tab` decides.
//! - `exports`: the merged export, the records to explore, and reading kept batches back.

mod exports;
mod kept_records;
mod tab;
mod worker;

use std::rc::Rc;
use std::time::Duration;

use api_contract::ActionId;
use leptos::prelude::*;
use leptos::task::spawn_local;

use self::worker::RunnerHandle;
use super::refusals::StoreRefusals;
use super::session::Session;
use super::workspace::SharedWorkspace;
use crate::browser::{HeldLock, LockAnswer, LockRequest, request_lock, sleep, yield_to_page};
use crate::model::batch_tab::{BatchTab, LockReply, TabStep};
use crate::model::bulk::engine::Engine;
use crate::model::bulk::pacer::LearnedPace;
use crate::model::bulk::{BatchRow, CheckedRow, SavedBatch};
use crate::model::sign_ins::SignInId;
use crate::runner::{BatchToRun, batch_lock_name};
use crate::store::{self, Change, SAVED_BATCHES};

pub use self::exports::{
    ExploredRecords, ExportDone, ExportProgress, RecordsToExplore, saved_batches, saved_rows,
};
pub use self::kept_records::{KeptRecords, LocalFuture, OrderProgress, RowsKept};
pub use crate::model::batch_tab::Role;
pub use crate::model::bulk::engine::{Keeping, Phase};

/// The batch and its runner. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Bulk {
    /// The batch as its runner last reported it (the page's copy).
    pub batch: RwSignal<Option<Engine>>,
    /// A batch is being started (`start`): its copy is being built, the form still shown.
    pub starting: RwSignal<bool>,
    /// The id of the batch whose worker last said it has nothing more to send, with every
    /// row saved (set again at each such news): a chain goes on to its next step from here.
    pub settled_batch: RwSignal<Option<String>>,
    /// This tab's part in the batch shown: runs it or watches it, and its hold on the lock.
    tab: RwSignal<Option<BatchTab>>,
    /// Whether this tab runs the batch shown (it does when none is shown).
    pub role: Memo<Role>,
    /// The sign-in in use when the batch was started or opened: its credential is preferred.
    /// Read when the batch changes, which it does whenever this is set.
    started_with: StoredValue<Option<SignInId>>,
    /// The worker running the batch, when this tab runs it. Browser objects, so this and the
    /// next two stay on this thread (`LocalStorage`).
    runner: StoredValue<Option<RunnerHandle>, LocalStorage>,
    /// The batch's lock, while this tab holds it.
    lock: StoredValue<Option<Rc<HeldLock>>, LocalStorage>,
    /// The channel this tab listens to while another tab runs the batch.
    channel: StoredValue<Option<web_sys::BroadcastChannel>, LocalStorage>,
    /// The app's root, where the effects that keep a worker told of the session are made once
    /// the first batch starts (`worker::follow_session`), so they outlive the page that started
    /// it and cost nothing before.
    root: StoredValue<Option<Owner>, LocalStorage>,
    following_session: StoredValue<bool>,
    session: Session,
    workspace: SharedWorkspace,
    /// Where a refused write of a batch is told.
    refusals: StoreRefusals,
}

/// Where a batch being started comes from, when not from the bulk page's form alone.
#[derive(Clone, Debug, Default)]
pub struct BatchOrigin {
    /// Its id (a chain's step, whose id is derived from the chain's); `None`: a new one.
    pub id: Option<String>,
    /// The pace the batch before it learned against the same API (a chain's step before).
    pub pace: Option<LearnedPace>,
}

/// The batch this tab runs, when it belongs to a workspace other than the one in view.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchElsewhere {
    /// The name the batch's workspace is known by in this tab, if it is.
    pub workspace_name: Option<String>,
    pub finished: usize,
    pub to_send: usize,
}

fn now() -> f64 {
    js_sys::Date::now()
}

impl Bulk {
    pub fn provide(session: Session, workspace: SharedWorkspace, refusals: StoreRefusals) {
        let tab = RwSignal::new(None::<BatchTab>);
        let bulk = Bulk {
            batch: RwSignal::new(None),
            starting: RwSignal::new(false),
            settled_batch: RwSignal::new(None),
            tab,
            role: Memo::new(move |_| tab.with(|t| t.as_ref().map_or(Role::Runs, BatchTab::role))),
            started_with: StoredValue::new(None),
            runner: StoredValue::new_local(None),
            lock: StoredValue::new_local(None),
            channel: StoredValue::new_local(None),
            root: StoredValue::new_local(Owner::current()),
            following_session: StoredValue::new(false),
            session,
            workspace,
            refusals,
        };
        provide_context(bulk);
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

    /// Starts a batch of checked rows for `action` (invalid rows are kept, listed, never sent),
    /// which pauses before a row that would take it past `budget` credits; `origin` gives its id
    /// and the pace to start at, when known.
    ///
    /// In four tasks (while the tab is shown: `yield_to_page`), so that no one of them holds the
    /// page for long with 10,000 rows on a slow computer: the click's (which only marks the batch
    /// as starting, `starting`), the one that builds the page's copy of the batch,
    /// `let_go_of_form` (the page drops what its form holds), and the one that shows the batch in
    /// place of the form (the framework removes the form and mounts the batch's view in one
    /// update).
    pub fn start(
        &self,
        origin: BatchOrigin,
        action: ActionId,
        headers: Vec<String>,
        rows: Vec<CheckedRow>,
        budget: Option<u64>,
        let_go_of_form: impl FnOnce() + 'static,
    ) {
        if self.starting.get_untracked() {
            return;
        }
        self.starting.set(true);
        let workspace = self.workspace.id_untracked();
        let sign_in = self.session.current_id_untracked();
        let bulk = *self;
        // A chain's step has an id other tabs showing the chain derive too: whichever asks
        // first runs it, and the others show it.
        let id_known_elsewhere = origin.id.is_some();
        spawn_local(async move {
            yield_to_page().await;
            let to_run = BatchToRun::New {
                id: origin
                    .id
                    .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string()),
                workspace,
                action,
                headers,
                rows: rows.into_iter().map(BatchRow::new).collect(),
                created_at: now(),
                budget,
                pace: origin.pace,
            };
            let engine = to_run.clone().engine(now());
            yield_to_page().await;
            let_go_of_form();
            yield_to_page().await;
            bulk.starting.set(false);
            let Some(engine) = engine else {
                return;
            };
            let id = engine.id.clone();
            bulk.started_with.set_value(sign_in);
            if id_known_elsewhere {
                // The lock before the worker: a tab that did not get it sends nothing, not even
                // with the same keys, and shows the batch once the tab that got it has kept it.
                match request_lock(&batch_lock_name(&id), LockRequest::IfAvailable).await {
                    LockAnswer::Held(lock) => {
                        // Granted after another tab already kept the batch (it ran it, or
                        // some of it, and let go of the lock meanwhile): what that tab kept is
                        // taken up, not made again as new over it.
                        let (engine, to_run) = match SAVED_BATCHES.get(&id).await {
                            Ok(Some(summary)) => match saved_rows(&id).await {
                                Ok(rows) => bulk.taken_up(summary, rows, true),
                                Err(_) => None,
                            },
                            _ => None,
                        }
                        .unwrap_or((engine, to_run));
                        bulk.run(engine, to_run, BatchTab::runs_holding_lock(&id), Some(lock));
                        return;
                    }
                    LockAnswer::HeldElsewhere => {
                        bulk.show_when_kept(id).await;
                        return;
                    }
                    LockAnswer::Unsupported => {}
                }
            }
            // A new batch's lock is free: no other tab knows its id yet. The model waits for
            // the answer from now on, so a command meanwhile does not ask again.
            bulk.run(engine, to_run, BatchTab::runs(&id), None);
            bulk.ask_for_lock(id);
        });
    }

    /// Shows the batch `id` that another tab has just started, once that tab has kept it (it
    /// does before its first request), read-only while that tab runs it (`open`). Gives up
    /// after [`KEPT_ELSEWHERE_WAIT`]: that tab could not keep it, so only that tab shows it.
    async fn show_when_kept(&self, id: String) {
        let tries = (KEPT_ELSEWHERE_WAIT.as_millis() / KEPT_ELSEWHERE_LOOK.as_millis()).max(1);
        for _ in 0..tries {
            if let Ok(Some(summary)) = SAVED_BATCHES.get(&id).await
                && let Ok(rows) = saved_rows(&id).await
            {
                if self.current_id() != Some(id) {
                    self.open(summary, rows, false);
                }
                return;
            }
            sleep(KEPT_ELSEWHERE_LOOK).await;
        }
    }

    /// Opens a batch kept in this browser: run here, paused (or going on with its cancel) and
    /// resumed when `resume`, unless another tab runs it; then shown read-only. `false` when the
    /// summary names an action this console does not know.
    pub fn open(&self, summary: SavedBatch, rows: Vec<BatchRow>, resume: bool) -> bool {
        let Some((engine, to_run)) = self.taken_up(summary, rows, resume) else {
            return false;
        };
        let bulk = *self;
        spawn_local(async move {
            let answer = request_lock(&batch_lock_name(&engine.id), LockRequest::IfAvailable).await;
            let (reply, lock) = lock_reply(answer);
            let (tab, step) = BatchTab::opened(&engine.id, reply);
            match step {
                TabStep::Watch => bulk.watch(engine),
                _ => bulk.run(engine, to_run, tab, lock),
            }
        });
        true
    }

    /// A kept batch's copy for this page and what its worker takes up (resumed when `resume`),
    /// under this tab's sign-in; `None` when the summary names an action this console does not
    /// know.
    fn taken_up(
        &self,
        summary: SavedBatch,
        rows: Vec<BatchRow>,
        resume: bool,
    ) -> Option<(Engine, BatchToRun)> {
        let to_run = BatchToRun::Kept {
            summary,
            rows,
            resume,
        };
        let mut engine = to_run.clone().engine(now())?;
        if resume && matches!(engine.phase(), Phase::Paused(_)) {
            // The page shows the resume at once; the worker's news follows.
            let mut news = engine.news(Vec::new());
            news.phase = Phase::Running;
            engine.absorb(news);
        }
        self.started_with
            .set_value(self.session.current_id_untracked());
        Some((engine, to_run))
    }

    /// Runs the shown batch in this tab instead of the tab that runs it: takes the lock from
    /// that tab (whose worker then stops) and carries on from what it saved.
    pub fn take_over(&self) {
        let Some(id) = self.current_id() else {
            return;
        };
        self.started_with
            .set_value(self.session.current_id_untracked());
        self.when_granted(id, LockRequest::Steal, BatchTab::took_over);
    }

    /// Forgets the batch, here and in this browser's store; its worker stops, and answers still
    /// on their way are dropped (they belong to a batch that is no longer there).
    pub fn clear(&self) {
        let id = self.current_id();
        let workspace = untrack(|| self.batch_workspace())
            .or_else(|| self.workspace.id_untracked())
            .unwrap_or_default();
        self.let_go_of_shown();
        let refusals = self.refusals;
        if let Some(id) = id {
            spawn_local(async move {
                let cleared = store::write(vec![Change::DeleteBatch(id)]).await;
                refusals.record(&workspace, BATCH_NOT_CLEARED, cleared);
            });
        }
    }

    /// Stops the batch on screen and leaves it, keeping nothing of it in memory, for a caller
    /// that deletes the store's copy itself (sign-out that forgets the workspace's data).
    pub fn let_go_of_shown(&self) {
        self.let_go();
        self.batch.set(None);
        self.tab.set(None);
    }

    /// Makes `engine` the batch this tab runs, in a new worker that starts from `to_run`, with
    /// `tab` its part (and `lock` the lock it was granted).
    fn run(&self, engine: Engine, to_run: BatchToRun, tab: BatchTab, lock: Option<HeldLock>) {
        self.let_go();
        let id = engine.id.clone();
        self.batch.set(Some(engine));
        self.tab.set(Some(tab));
        self.start_runner(&id, to_run);
        if let Some(lock) = lock {
            self.hold(lock, &id);
        }
    }

    /// Shows `engine`, which another tab runs, kept up to date by that tab's news; takes it up
    /// if that tab goes away.
    fn watch(&self, engine: Engine) {
        self.let_go();
        let id = engine.id.clone();
        self.batch.set(Some(engine));
        self.tab.set(Some(BatchTab::watches(&id)));
        self.listen(&id);
        self.take_up_when_free(id);
    }

    /// Runs the kept batch `id` in this tab, which holds its lock, from what this browser saved;
    /// releases the lock when it cannot be read back.
    async fn run_kept(&self, lock: HeldLock, workspace: &str, id: &str, resume: bool) {
        let Ok(Some(to_run)) = exports::kept_batch(workspace, id, resume).await else {
            lock.release();
            return;
        };
        match to_run.clone().engine(now()) {
            Some(engine) => self.run(engine, to_run, BatchTab::runs_holding_lock(id), Some(lock)),
            None => lock.release(),
        }
    }

    /// The id of the batch shown.
    pub(crate) fn current_id(&self) -> Option<String> {
        self.batch
            .with_untracked(|b| b.as_ref().map(|b| b.id.clone()))
    }
}

/// The browser's answer for a lock as the model sees it, and the lock when it was granted.
fn lock_reply(answer: LockAnswer) -> (LockReply, Option<HeldLock>) {
    match answer {
        LockAnswer::Held(lock) => (LockReply::Granted, Some(lock)),
        LockAnswer::HeldElsewhere => (LockReply::HeldElsewhere, None),
        LockAnswer::Unsupported => (LockReply::Unsupported, None),
    }
}

pub fn use_bulk() -> Bulk {
    expect_context::<Bulk>()
}

/// How long a tab that found a batch started by another waits for that tab to keep it, and how
/// often it looks.
const KEPT_ELSEWHERE_WAIT: Duration = Duration::from_secs(10);
const KEPT_ELSEWHERE_LOOK: Duration = Duration::from_millis(250);

/// What a refused clear leaves, as `state::refusals` tells it.
const BATCH_NOT_CLEARED: &str = "The batch was cleared from this page, but this browser still \
    keeps it (it is listed among the saved batches).";
