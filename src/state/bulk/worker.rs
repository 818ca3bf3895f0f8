//! The worker that runs the batch this tab shows: its start, the messages both ways, the
//! person's commands, and the session it is kept told of.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::{Bulk, exports};
use crate::model::batch_tab::Role;
use crate::model::bulk::engine::{Keeping, Phase};
use crate::model::sign_ins::SignInId;
use crate::runner::{BatchToRun, Credential, FromRunner, ToRunner, WORKER_URL};

/// The worker running the batch this tab shows.
pub(super) struct RunnerHandle {
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

/// What the worker is told of the session: the credential of a sign-in to the batch's
/// workspace, and that workspace once known.
#[derive(Clone, PartialEq)]
struct RunnerSession {
    credential: Option<Credential>,
    workspace: Option<String>,
}

impl Bulk {
    /// What the worker should know of the session now; tracked.
    fn runner_session(&self) -> RunnerSession {
        let sign_in = self.batch_sign_in();
        let credential = sign_in.and_then(|id| self.session.credential_for_runner(id));
        let workspace = self.batch_workspace().or_else(|| {
            sign_in
                .and_then(|id| self.session.workspace_of(id))
                .map(|w| w.id)
        });
        RunnerSession {
            credential,
            workspace,
        }
    }

    /// From the first batch on, the worker hears of every change of the credential of the
    /// batch's workspace, and of that workspace once known: an effect under the root's owner,
    /// so it outlives the page that started the batch (and costs nothing before any batch).
    fn follow_session(&self) {
        if self.following_session.get_value() {
            return;
        }
        self.following_session.set_value(true);
        let bulk = *self;
        let follow = move || {
            let session = Memo::new(move |_| bulk.runner_session());
            Effect::new(move |told: Option<RunnerSession>| {
                let now = session.get();
                let new_credential = told.as_ref().is_none_or(|t| t.credential != now.credential);
                let new_workspace = told.as_ref().is_none_or(|t| t.workspace != now.workspace);
                bulk.runner.update_value(|runner| {
                    let Some(runner) = runner else {
                        return;
                    };
                    if new_credential {
                        runner.send(ToRunner::SignedIn(now.credential.clone()));
                    }
                    // The worker logs a new credential's requests with a new logger, which
                    // learns the workspace again.
                    if let (true, Some(workspace)) =
                        (new_credential || new_workspace, &now.workspace)
                    {
                        runner.send(ToRunner::WorkspaceKnown(workspace.clone()));
                    }
                });
                now
            });
        };
        match self.root.get_value() {
            Some(owner) => owner.with(follow),
            None => follow(),
        }
    }

    /// Starts the worker that runs the batch `id`, from `to_run`.
    pub(super) fn start_runner(&self, id: &str, to_run: BatchToRun) {
        self.stop_runner();
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
                let started = bulk.runner.with_value(|r| {
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
        let session = untrack(|| self.runner_session());
        let mut waiting = vec![ToRunner::SignedIn(session.credential)];
        if let Some(workspace) = session.workspace {
            waiting.push(ToRunner::WorkspaceKnown(workspace));
        }
        // A large batch's rows go in pieces before it, posted a task apart (`post_waiting`).
        let mut to_run = to_run;
        waiting.extend(to_run.take_rows_in_pieces().into_iter().map(ToRunner::Rows));
        waiting.push(ToRunner::Run(Box::new(to_run)));
        self.runner.set_value(Some(RunnerHandle {
            batch: id.to_owned(),
            worker,
            waiting: Some(waiting),
            _on_message: on_message,
            _on_error: on_error,
        }));
    }

    /// Stops the worker, if one runs: nothing more is sent.
    pub(super) fn stop_runner(&self) {
        // Dropped outside the store's borrow: its drop terminates the worker.
        let runner = self.runner.try_update_value(Option::take).flatten();
        drop(runner);
    }

    /// Sends `message` to the worker, if one runs; whether it did.
    fn send(&self, message: ToRunner) -> bool {
        self.runner
            .try_update_value(|runner| match runner {
                Some(runner) => {
                    runner.send(message);
                    true
                }
                None => false,
            })
            .unwrap_or(false)
    }

    /// What the worker running the batch `batch` said.
    fn heard(&self, batch: &str, message: FromRunner) {
        let ours = self
            .runner
            .with_value(|r| r.as_ref().is_some_and(|r| r.batch == batch));
        if !ours {
            return;
        }
        match message {
            FromRunner::Ready => self.post_waiting(batch.to_owned()),
            FromRunner::Failed(reason) => self.runner_stopped(batch, reason, false),
            FromRunner::News(news) => {
                self.batch.update(|b| {
                    if let Some(engine) = b {
                        engine.absorb(news);
                    }
                });
                // Taken: the worker may send the next (it sends one at a time, so a page busier
                // than the batch gets its news coalesced instead of queued).
                self.runner.with_value(|runner| {
                    if let Some(runner) = runner {
                        post(&runner.worker, &ToRunner::NewsShown);
                    }
                });
            }
            // The sign-in whose credential was refused, even if the worker has another since.
            FromRunner::Unauthorized { message, sign_in } => {
                self.session.expire(SignInId(sign_in), message);
            }
            FromRunner::LogNotTrimmed { workspace, error } => {
                self.refusals.record::<()>(
                    &workspace,
                    crate::request_log::LOG_NOT_KEPT,
                    Err(error),
                );
            }
            FromRunner::RefreshWorkspace => {
                if untrack(|| self.in_view()) {
                    self.workspace.refresh();
                }
            }
            FromRunner::Settled => {
                self.settled();
                self.settled_batch.set(Some(batch.to_owned()));
            }
        }
    }

    /// Posts the messages that waited for the worker of the batch `batch` to listen, one per
    /// task while the tab is shown (serialising a piece of a large batch's rows is a task's
    /// work); what is sent meanwhile waits behind them, and goes at once after.
    fn post_waiting(&self, batch: String) {
        let bulk = *self;
        spawn_local(async move {
            loop {
                let posted = bulk
                    .runner
                    .try_update_value(|runner| {
                        let runner = runner.as_mut().filter(|r| r.batch == batch)?;
                        let waiting = runner.waiting.as_mut()?;
                        if waiting.is_empty() {
                            runner.waiting = None;
                            return None;
                        }
                        post(&runner.worker, &waiting.remove(0));
                        Some(())
                    })
                    .flatten();
                if posted.is_none() {
                    return;
                }
                // A task each while the page is shown; at once in a hidden tab, where a
                // timer may wait a minute.
                crate::browser::yield_to_page().await;
            }
        });
    }

    /// The worker could not start (`started` false: nothing was sent) or stopped: the batch
    /// pauses and says why; resuming starts a worker again.
    fn runner_stopped(&self, batch: &str, reason: String, started: bool) {
        self.stop_runner();
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
        if !self.route_command() {
            return;
        }
        if self.send(message.clone()) {
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
                        pace: engine.summary().pace,
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
                Some(to_run) => Ok(Some(to_run)),
                None => exports::kept_batch(&workspace.unwrap_or_default(), &id, false).await,
            };
            let still_shown = bulk.current_id().as_deref() == Some(id.as_str())
                && bulk.role.get_untracked() == Role::Runs;
            if !still_shown {
                return;
            }
            let to_run = match to_run {
                Ok(Some(to_run)) => to_run,
                unreadable => {
                    let why = match unreadable {
                        Err(error) => error.sentence(),
                        _ => "It is no longer kept here.".to_owned(),
                    };
                    bulk.show_paused(
                        &id,
                        format!(
                            "Paused: this batch could not be read back from this browser's \
                             storage, so it cannot go on here. {why}"
                        ),
                    );
                    // Nothing will be sent from this tab: the lock goes, as for a batch that
                    // has nothing left to send.
                    bulk.settled();
                    return;
                }
            };
            bulk.start_runner(&id, to_run);
            bulk.send(message);
        });
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
}
