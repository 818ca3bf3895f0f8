//! The bulk batch being run, provided at the root so it keeps going while the person looks at
//! other pages: the driver of [`Engine`] (`model::bulk::engine`), which decides everything. The
//! driver feeds it the clock and the answers, and does what it asks: the API requests (through
//! the one transport), the writes to this browser's store (`crate::store`) and the workspace's
//! refresh. The credential is never written.

use std::time::Duration;

use api_contract::ActionId;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::session::Session;
use super::workspace::SharedWorkspace;
use crate::api::{ApiClient, ApiError};
use crate::browser::sleep;
use crate::model::bulk::engine::{
    CancelAnswer, Command, Engine, Event, ReadAnswer, Saving, SubmitAnswer,
};
use crate::model::bulk::{BatchRow, CheckedRow, RowError, SavedBatch};
use crate::model::form::SavedSubmission;
use crate::store::{self, Change};

pub use crate::model::bulk::engine::{Keeping, Phase};

/// The longest the driver's clock sleeps: the engine is asked again at least this often.
const LONGEST_SLEEP_MS: f64 = 1_000.0;

/// The batch and its driver. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Bulk {
    /// The batch. Changed without notifying at every event; notified when the engine says
    /// something the page shows changed.
    pub batch: RwSignal<Option<Engine>>,
    /// The batch whose clock task is running, if any.
    clock_for: StoredValue<Option<String>>,
    session: Session,
    workspace: SharedWorkspace,
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
            clock_for: StoredValue::new(None),
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
        self.batch.set(Some(engine));
        self.handle(Event::Tick);
    }

    /// Takes up a batch kept in this browser, paused (or going on with its cancel). `false`
    /// when the summary names an action this console does not know.
    pub fn restore(&self, summary: SavedBatch, rows: Vec<BatchRow>) -> bool {
        let Some(engine) = Engine::restore(summary, rows, now()) else {
            return false;
        };
        self.batch.set(Some(engine));
        self.handle(Event::Tick);
        true
    }

    /// Forgets the batch, here and in this browser's store; answers still on their way are
    /// dropped (they belong to a batch that is no longer there).
    pub fn clear(&self) {
        let id = self
            .batch
            .with_untracked(|b| b.as_ref().map(|b| b.id.clone()));
        self.batch.set(None);
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

    /// Feeds an event to the current batch and does what it asks.
    fn handle(&self, event: Event) {
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
            }),
            Command::RefreshWorkspace => self.workspace.refresh(),
        }
    }

    /// The batch's clock: asks the engine again when it said something would be due (at least
    /// once a second), tells it about a sign-in after a 401 and the workspace once known, and
    /// stops once the batch is settled or replaced.
    async fn clock(self, batch: String) {
        loop {
            if self.current_id().as_deref() != Some(batch.as_str()) {
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

/// A kept batch's rows, in line order; `None` when they cannot be read back whole.
pub async fn saved_rows(batch: &str) -> Option<Vec<BatchRow>> {
    store::batch_rows(batch)
        .await
        .ok()?
        .iter()
        .map(|json| serde_json::from_str(json).ok())
        .collect()
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
