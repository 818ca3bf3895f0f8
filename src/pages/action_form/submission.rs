//! `use_submission`: the form's submission as one hook. The request with its idempotency key,
//! the retry of the same request, the wait a 429 asks for, the time waited for an answer, and
//! what an answer means for the form.

use std::time::Duration;

use api_contract::Run;
use chrono::{TimeDelta, Utc};
use leptos::prelude::*;
use leptos::task::{spawn_local, spawn_local_scoped_with_cancellation};
use leptos_router::hooks::use_navigate;

use super::fields::FormFields;
use crate::api::{ApiClient, ApiError, Submitted};
use crate::browser::{focus_id, sleep};
use crate::model::form::{SavedSubmission, idempotency_key, split_server_errors};
use crate::model::submission::{SentKey, retry_wait_seconds};
use crate::model::urls::run_path;
use crate::state::refusals::{StoreRefusals, use_store_refusals};
use crate::state::workspace::{SharedWorkspace, use_workspace};
use crate::store;

/// One logical submission as sent: retried as is, with the same idempotency key.
#[derive(Clone)]
struct Attempt {
    client: ApiClient,
    action: String,
    live: bool,
    key: String,
    body: String,
}

/// Why the last submission did not lead to a run.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Failure {
    /// Shown with the error panel; submitting again makes a new request.
    Refused(ApiError),
    /// 5xx or no answer: Retry sends the same request with the same key.
    Retryable(ApiError),
}

/// The state of the form's submission, for the view and the submit button.
#[derive(Clone, Copy)]
pub(super) struct Submission {
    submit: Action<Attempt, Result<Submitted, ApiError>>,
    /// The last attempt's body and key: a retry of the same body sends the same key, so it is
    /// never charged twice.
    sent: RwSignal<Option<SentKey>>,
    last_attempt: StoredValue<Option<Attempt>>,
    /// The key the next submission of the body on screen sends: the last attempt's when the
    /// body is the same, else a new one. The request preview shows this key, so a snippet
    /// copied from it and the form's own submission are one run, not two.
    pub next_key: Memo<String>,
    /// A request is on its way.
    pub pending: Memo<bool>,
    /// Why the last submission did not lead to a run.
    pub failure: RwSignal<Option<Failure>>,
    /// Seconds left before a rate-limited retry (0: none).
    pub countdown: RwSignal<u32>,
    /// Time waited so far, while waiting for an answer.
    pub waited: RwSignal<TimeDelta>,
}

impl Submission {
    /// Waiting for an answer or for a rate-limited retry: no other request now.
    pub fn busy(&self) -> bool {
        self.pending.get() || self.countdown.get() > 0
    }

    /// Untracked [`Submission::busy`].
    pub fn busy_untracked(&self) -> bool {
        self.pending.get_untracked() || self.countdown.get_untracked() > 0
    }

    /// Sends the last attempt again, as is.
    pub fn send_again(&self) {
        if let Some(attempt) = self.last_attempt.get_value() {
            self.failure.set(None);
            self.submit.dispatch_local(attempt);
        }
    }

    /// A new logical submission of `body`, with [`Submission::next_key`].
    pub fn send_new(&self, client: ApiClient, action: String, live: bool, body: String) {
        let key = self.next_key.get_untracked();
        self.sent.set(Some(SentKey {
            body: body.clone(),
            key: key.clone(),
        }));
        self.last_attempt.set_value(Some(Attempt {
            client,
            action,
            live,
            key,
            body,
        }));
        self.send_again();
    }
}

/// The submission of the body on screen (`body`) for the form's `fields`. A run opens its page;
/// a 429 waits as told and retries; a 400 puts what it says beside the fields it names.
pub(super) fn use_submission(body: Memo<String>, fields: FormFields) -> Submission {
    let submit = Action::new_local(|attempt: &Attempt| {
        let Attempt {
            client,
            action,
            live,
            key,
            body,
        } = attempt.clone();
        async move { client.submit(&action, live, &key, &body).await }
    });
    let sent = RwSignal::new(None::<SentKey>);
    let next_key = Memo::new(move |_| {
        body.with(|current| {
            sent.with(|sent| {
                sent.as_ref()
                    .and_then(|s| s.reusable_for(current))
                    .map(str::to_owned)
            })
        })
        .unwrap_or_else(idempotency_key)
    });
    let submission = Submission {
        submit,
        sent,
        last_attempt: StoredValue::new(None),
        next_key,
        pending: submit.pending(),
        failure: RwSignal::new(None),
        countdown: RwSignal::new(0),
        waited: RwSignal::new(TimeDelta::zero()),
    };
    answer_effect(submission, fields);
    waited_timer(submission);
    submission
}

/// What the answer means for the form.
fn answer_effect(submission: Submission, fields: FormFields) {
    let workspace = use_workspace();
    let refusals = use_store_refusals();
    let navigate = use_navigate();
    let Submission {
        submit,
        sent,
        last_attempt,
        failure,
        countdown,
        ..
    } = submission;
    Effect::new(move |_| {
        let Some(result) = submit.value().get() else {
            return;
        };
        untrack(|| match result {
            Ok(Submitted { run, .. }) => {
                sent.set(None);
                remember(workspace, refusals, &run, last_attempt.get_value());
                workspace.refresh();
                navigate(&run_path(&run.id), Default::default());
            }
            Err(error) if error.status() == Some(429) => {
                // Wait as told, then send the same request with the same key. Leaving the page
                // (or a new answer) cancels the wait.
                let seconds = retry_wait_seconds(error.retry_after());
                countdown.set(seconds);
                spawn_local_scoped_with_cancellation(async move {
                    for left in (0..seconds).rev() {
                        sleep(Duration::from_secs(1)).await;
                        countdown.set(left);
                    }
                    submission.send_again();
                });
            }
            Err(error) if error.status() == Some(400) => {
                sent.set(None);
                let message = error.server_message().unwrap_or_default().to_owned();
                let names = fields.names();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let split = split_server_errors(&message, &names);
                fields.show_server_errors(&split);
                if split.needs_panel() {
                    failure.set(Some(Failure::Refused(error)));
                }
                if let Some(first) = split.first_field() {
                    focus_id(&format!("field-{first}"));
                }
            }
            // The session ended: the guard leads to sign-in and back, and the draft stays.
            Err(error) if error.is_unauthorized() => {}
            Err(error) if error.is_transient() => failure.set(Some(Failure::Retryable(error))),
            Err(error) => {
                sent.set(None);
                failure.set(Some(Failure::Refused(error)));
            }
        });
    });
}

/// Counts the time waited for an answer, from each request sent (not from a rate-limited
/// retry's wait).
fn waited_timer(submission: Submission) {
    let Submission {
        pending,
        countdown,
        waited,
        ..
    } = submission;
    Effect::new(move |_| {
        if pending.get() && countdown.get_untracked() == 0 {
            let started = Utc::now();
            waited.set(TimeDelta::zero());
            spawn_local_scoped_with_cancellation(async move {
                loop {
                    sleep(Duration::from_millis(250)).await;
                    waited.set(Utc::now() - started);
                }
            });
        }
    });
}

/// What a refused keep of a submitted run leaves out (`state::refusals`).
const RUN_NOT_KEPT: &str = "The run was made, but this browser did not keep it in the history.";
/// What a refused keep of a submission's input leaves out.
const SUBMISSION_NOT_KEPT: &str = "The run was made, but this browser did not keep what was \
    sent, so its page cannot offer \"Run again with changes\".";

/// Keeps the submission in this browser by run id, for the run page's "Run again with
/// changes", and its run in the workspace's history; a refusal is told (`refusals`).
fn remember(
    workspace: SharedWorkspace,
    refusals: StoreRefusals,
    run: &Run,
    attempt: Option<Attempt>,
) {
    let ws = workspace.get_untracked().and_then(Result::ok);
    let (Some(attempt), Some(ws)) = (attempt, ws) else {
        return;
    };
    let (workspace_id, seen, body, key) = (
        ws.workspace_id.clone(),
        run.clone(),
        attempt.body.clone(),
        attempt.key.clone(),
    );
    let history_of = workspace_id.clone();
    spawn_local(async move {
        let kept = crate::archive::keep_submitted(&workspace_id, &seen, &body, &key).await;
        refusals.record(&history_of, RUN_NOT_KEPT, kept);
    });
    let saved = SavedSubmission {
        workspace: ws.workspace_id,
        action: attempt.action,
        live: attempt.live,
        body: attempt.body,
    };
    let run_id = run.id.to_owned();
    spawn_local(async move {
        let workspace_id = saved.workspace.clone();
        let kept = store::SAVED_SUBMISSIONS.put(&run_id, &saved).await;
        refusals.record(&workspace_id, SUBMISSION_NOT_KEPT, kept);
    });
}
