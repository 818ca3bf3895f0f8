//! `/runs/{id}`: one run, watched until it is terminal, with cancel, its error for a support
//! ticket, and its output as a table or JSON, exportable, with the actions it chains into.

use api_contract::{ActionId, Run, RunStatus};
use leptos::prelude::*;

use crate::api::{ApiClient, ApiError};
use crate::browser::copy_text;
use crate::components::{
    ApiErrorPanel, CopyAsCode, Notice, OutputExplorer, PollNotice, RunStatusBadge,
    StoreRefusalNotice,
};
use crate::model::archive::KeptRun;
use crate::model::form::{SavedSubmission, Values, idempotency_key, submission_request};
use crate::model::format::{counted, group_thousands, local_time, run_duration};
use crate::model::presenter::body_texts;
use crate::model::urls::action_form_path;
use crate::nav::use_id_param;
use crate::pages::compare::CompareWith;
use crate::state::drafts::{Draft, use_drafts};
use crate::state::polling::{Poll, use_poll};
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;
use crate::store;

/// The page for the id in the URL; a new id (Back between two runs) is a new page.
#[component]
pub fn RunDetailPage() -> impl IntoView {
    let id = use_id_param();
    move || view! { <RunPage id=id.get() /> }
}

/// What the run page shows: decided once, from this browser's copy of the run.
#[derive(Clone, Debug, PartialEq)]
enum Shown {
    /// Reading the kept copy (or waiting for the workspace).
    Deciding,
    /// The run as the API has it, watched.
    Watched,
    /// A run whose kept output this browser forgot by the expiry rule: shown as kept, without
    /// a request, until the person asks the API for its output again.
    Forgotten(Box<KeptRun>),
}

/// The kept run `id` of `workspace` if the expiry rule forgot its output (and it was not kept
/// again since). A store that cannot be read shows the run from the API instead.
async fn forgotten_run(workspace: &str, id: &str) -> Option<KeptRun> {
    let kept = crate::archive::kept_run(workspace, id)
        .await
        .ok()
        .flatten()?;
    kept.output_forgotten?;
    match crate::archive::kept_output(workspace, id).await {
        Ok(None) => Some(kept),
        _ => None,
    }
}

#[component]
fn RunPage(id: String) -> impl IntoView {
    let workspace = use_workspace();
    let shown = RwSignal::new(Shown::Deciding);
    {
        let id = id.clone();
        Effect::new(move |_| {
            if shown.with_untracked(|s| *s != Shown::Deciding) {
                return;
            }
            match workspace.get() {
                None => {}
                Some(Err(_)) => shown.set(Shown::Watched),
                Some(Ok(ws)) => {
                    let id = id.clone();
                    leptos::task::spawn_local_scoped_with_cancellation(async move {
                        let found = forgotten_run(&ws.workspace_id, &id).await;
                        if shown.with_untracked(|s| *s == Shown::Deciding) {
                            shown.set(
                                found.map_or(Shown::Watched, |kept| {
                                    Shown::Forgotten(Box::new(kept))
                                }),
                            );
                        }
                    });
                }
            }
        });
    }
    move || match shown.get() {
        Shown::Deciding => view! {
            <section class="page run-detail"><p class="loading">"Loading the run…"</p></section>
        }
        .into_any(),
        Shown::Watched => view! { <WatchedRun id=id.clone() /> }.into_any(),
        Shown::Forgotten(kept) => view! {
            <ForgottenRun kept=*kept fetch=move || shown.set(Shown::Watched) />
        }
        .into_any(),
    }
}

/// A run whose kept output was forgotten: its facts and cost as kept, and "Fetch the output
/// again", which watches it from the API (its answer, or its 404, shown as usual).
#[component]
fn ForgottenRun(kept: KeptRun, fetch: impl Fn() + 'static) -> impl IntoView {
    let run = kept.run;
    let forgotten = kept.output_forgotten;
    let when = forgotten
        .and_then(|f| chrono::DateTime::from_timestamp_millis(f.at as i64))
        .map(local_time)
        .unwrap_or_default();
    let days = forgotten.map(|f| f.after_days).unwrap_or_default();
    let purpose = ActionId::parse(&run.action).map_or("Run", ActionId::purpose);
    view! {
        <section class="page run-detail">
            <p class="breadcrumb"><a href="/runs">"Runs"</a> " / " <code>{run.id.clone()}</code></p>
            <div class="run-head">
                <h1>{purpose}</h1>
                <RunStatusBadge status=run.status />
            </div>
            <Notice field="output-forgotten">
                {format!("Output forgotten after {days} days: this browser forgot this run's output on {when}, as chosen on the ")}
                <a href="/storage">"Storage"</a>
                " page. The run is shown as it was kept, with its cost."
            </Notice>
            <dl class="facts">
                <dt>"Run ID"</dt><dd><code data-field="run-id">{run.id.clone()}</code></dd>
                <dt>"Action"</dt><dd><a href=action_form_path(&run.action)><code>{run.action.clone()}</code></a></dd>
                <dt>"Created"</dt><dd>{local_time(run.created_at)}</dd>
                <dt>"Completed"</dt><dd>{run.completed_at.map_or_else(|| "—".to_owned(), local_time)}</dd>
                <dt>"Credits used"</dt><dd data-field="credits_used">{group_thousands(run.credits_used)}</dd>
                <dt>"Records"</dt><dd data-field="records">{kept.records}</dd>
            </dl>
            <div class="actions-row">
                <button type="button" class="button" data-field="fetch-again" on:click=move |_| fetch()>
                    "Fetch the output again"
                </button>
                <span class="help">"Asks the API for the run: it has the output as long as it keeps the run."</span>
            </div>
            <StoreRefusalNotice />
        </section>
    }
}

/// What a cancel returns: the cancelled run, or the refusal with the run as it is now (a 409
/// means it finished meanwhile).
type CancelResult = Result<Run, (ApiError, Option<Run>)>;

/// State that outlives one poll's re-render of the run.
#[derive(Clone, Copy)]
struct PageState {
    watch: Poll<Run>,
    /// Asking "Cancel this run?".
    confirming: RwSignal<bool>,
    cancel: Action<(ApiClient, String), CancelResult>,
    /// What the last copy or export did, for the status line.
    notice: RwSignal<&'static str>,
    /// The run's submission as this browser kept it (read once per page).
    kept: LocalResource<Option<SavedSubmission>>,
}

#[component]
fn WatchedRun(id: String) -> impl IntoView {
    let session = use_session();
    let workspace = use_workspace();
    let refusals = crate::state::refusals::use_store_refusals();
    let watch = {
        let id = id.clone();
        use_poll(
            move || {
                let (client, id) = (session.client_untracked(), id.clone());
                let workspace_id = workspace.id_untracked();
                async move {
                    let read = client.ok_or(ApiError::SignedOut)?.run(&id).await?;
                    // Every state seen goes into the workspace's history in this browser, and a
                    // final run's output within the outputs' allowance.
                    crate::state::history::keep_in_background(
                        refusals,
                        workspace_id,
                        vec![read.value.clone()],
                    );
                    Ok(read)
                }
            },
            |run| run.status.is_terminal(),
        )
    };
    let cancel = Action::new_local(|(client, id): &(ApiClient, String)| {
        let (client, id) = (client.clone(), id.clone());
        async move {
            match client.cancel(&id).await {
                Ok(run) => Ok(run),
                Err(error) => Err((error, client.run(&id).await.ok().map(|a| a.value))),
            }
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(run) | Err((_, Some(run)))) = cancel.value().get() {
            watch.set(run);
        }
    });
    let kept = {
        let id = id.clone();
        LocalResource::new(move || {
            let id = id.clone();
            async move { store::SAVED_SUBMISSIONS.get(&id).await.ok().flatten() }
        })
    };
    // What this browser kept of the run, read when the API no longer has it (404).
    let archived = {
        let id = id.clone();
        LocalResource::new(move || {
            let gone = watch
                .fatal
                .with(|f| f.as_ref().and_then(ApiError::status) == Some(404));
            let (workspace_id, id) = (workspace.id_untracked(), id.clone());
            async move {
                match (gone, workspace_id) {
                    (true, Some(ws)) => {
                        let mut kept = crate::archive::kept_run(&ws, &id).await.ok().flatten()?;
                        if let Ok(Some(output)) = crate::archive::kept_output(&ws, &id).await {
                            kept.run.output = output;
                        }
                        Some(kept)
                    }
                    _ => None,
                }
            }
        })
    };
    let state = PageState {
        watch,
        confirming: RwSignal::new(false),
        cancel,
        notice: RwSignal::new(""),
        kept,
    };
    // A run seen unfinished and then finished (by itself or cancelled) has changed the
    // workspace's credits: refresh them once. A run already final when opened has not, and
    // the submission that made it refreshed them already.
    Effect::new(move |was_final: Option<Option<bool>>| {
        let is_final = watch
            .value
            .with(|r| r.as_ref().map(|r| r.status.is_terminal()));
        if was_final.flatten() == Some(false) && is_final == Some(true) {
            workspace.refresh();
        }
        is_final
    });
    view! {
        <section class="page run-detail">
            <p class="breadcrumb"><a href="/runs">"Runs"</a> " / " <code>{id.clone()}</code></p>
            {move || match (watch.value.get(), watch.fatal.get()) {
                (_, Some(error)) if error.status() == Some(404) && archived.get().flatten().is_some() => {
                    let kept = archived.get().flatten().expect("checked just above");
                    let seen = chrono::DateTime::from_timestamp_millis(kept.seen_at as i64).map(local_time);
                    let output = if let (true, Some(forgotten)) = (kept.run.output.is_empty(), kept.output_forgotten) {
                        format!(", without its output: this browser forgot it after {} days ({}).", forgotten.after_days, counted(kept.records as u64, "record", "records"))
                    } else if kept.run.output.is_empty() {
                        format!(", without its output ({}).", counted(kept.records as u64, "record", "records"))
                    } else {
                        ", with the output it kept.".to_owned()
                    };
                    view! {
                        <Notice field="kept-run">
                            "The API no longer has this run (it answered 404). Shown as this browser last saw it"
                            {seen.map(|at| format!(", on {at}"))}
                            {output}
                        </Notice>
                        <RunView run=kept.run state kept_records=Some(kept.records) />
                    }.into_any()
                }
                (_, Some(error)) if error.status() == Some(404) => view! {
                    <h1>"Run not found"</h1>
                    <p>"No run with id " <code>{id.clone()}</code> " exists in this workspace. "
                        <a href="/runs">"See the latest runs"</a> "."</p>
                }.into_any(),
                (_, Some(error)) => view! { <ApiErrorPanel error context="Loading the run" /> }.into_any(),
                (Some(run), None) => view! { <RunView run state kept_records=None /> }.into_any(),
                (None, None) => view! { <p class="loading">"Loading the run…"</p> }.into_any(),
            }}
            <PollNotice transient=watch.transient last_update=watch.last_update />
            <StoreRefusalNotice />
            <p class="sr-only" role="status">{move || state.notice.get()}</p>
        </section>
    }
}

#[component]
fn RunView(
    run: Run,
    state: PageState,
    /// Shown from this browser's history (the API no longer has it), which kept this many
    /// records' count but not the output: nothing to cancel, and its state may be old.
    kept_records: Option<usize>,
) -> impl IntoView {
    let session = use_session();
    let PageState {
        watch,
        confirming,
        cancel,
        ..
    } = state;
    let archived = kept_records.is_some();
    let cancellable = !archived && matches!(run.status, RunStatus::Queued | RunStatus::Processing);
    let cancel_error = move || {
        cancel.value().with(|v| {
            v.as_ref()
                .and_then(|r| r.as_ref().err().map(|(e, _)| e.clone()))
        })
    };
    let run_id = run.id.clone();
    let id_for_copy = run.id.clone();
    let purpose = ActionId::parse(&run.action).map_or("Run", ActionId::purpose);
    let masker = crate::state::presenter::use_masker();
    let failure = run.error.clone().map(|e| {
        // The API's message may quote the input: in presenter mode its personal parts are
        // masked (the input this browser sent, once read, among them), on screen and in the
        // ticket copied.
        let kept = state.kept;
        let message = Memo::new(move |_| {
            let inputs = kept
                .get()
                .flatten()
                .map(|sent| body_texts(&sent.body))
                .unwrap_or_default();
            masker.message(&e.message, &inputs).into_owned()
        });
        let request_id = watch.request_id.get_untracked().unwrap_or_default();
        let (run_id, action, code) = (run.id.clone(), run.action.clone(), e.code.clone());
        let ticket_request_id = request_id.clone();
        let ticket = move || {
            format!(
                "Run ID: {run_id}\nAction: {action}\nError code: {code}\nMessage: {}\nRequest ID: {ticket_request_id}",
                message.get_untracked()
            )
        };
        view! {
            <div class="error-panel" role="alert" data-field="run-error">
                <p class="error-title">"The run failed"</p>
                <p class="error-message">{message}</p>
                <dl class="error-facts">
                    <dt>"Error code"</dt><dd><code data-field="error-code">{e.code}</code></dd>
                    <dt>"Request ID"</dt><dd><code class="request-id" data-field="request-id">{request_id}</code></dd>
                </dl>
                <button type="button" class="button secondary" on:click=move |_| {
                    copy_text(&ticket());
                    state.notice.set("Copied the run's details for a support ticket.");
                }>"Copy for a support ticket"</button>
            </div>
        }
    });
    view! {
        <div class="run-head">
            <h1>{purpose}</h1>
            <RunStatusBadge status=run.status />
            <span class="muted" hidden=!watch.active.get_untracked()>"watching, refreshes by itself"</span>
        </div>
        <dl class="facts">
            <dt>"Run ID"</dt>
            <dd><code data-field="run-id">{run.id.clone()}</code>
                " " <button type="button" class="button link" on:click=move |_| {
                    copy_text(&id_for_copy);
                    state.notice.set("Copied the run ID.");
                }>"Copy"</button></dd>
            <dt>"Action"</dt><dd><a href=action_form_path(&run.action)><code>{run.action.clone()}</code></a></dd>
            <dt>"Created"</dt><dd>{local_time(run.created_at)}</dd>
            <dt>"Completed"</dt><dd>{run.completed_at.map_or_else(|| "—".to_owned(), local_time)}</dd>
            <dt>"Duration"</dt><dd>{run_duration(run.created_at, run.completed_at)}</dd>
            <dt>"Credits used"</dt><dd data-field="credits_used">{group_thousands(run.credits_used)}</dd>
            <dt>"Credits reserved"</dt><dd data-field="credits_reserved">{group_thousands(run.credits_reserved)}</dd>
            <dt>"Records"</dt><dd data-field="records">{kept_records.unwrap_or(run.output.len())}</dd>
            <dt>"Completeness"</dt>
            <dd><span data-field="has_more">{match (run.status.is_terminal(), run.completeness.has_more) {
                    (false, _) => "Known when the run completes",
                    (true, true) => "More records exist",
                    (true, false) => "All records returned",
                }}</span>
                " (scope " <code>{run.completeness.scope.clone()}</code> ")"
                <span class="help block">"has_more is a signal from the data provider that more records exist, not a page cursor: repeating the request returns the same single page."</span></dd>
        </dl>
        <div class="actions-row" hidden=!cancellable>
            <button type="button" class="button secondary" hidden=move || confirming.get()
                on:click=move |_| confirming.set(true)>"Cancel run…"</button>
            <span role="alert" hidden=move || !confirming.get()>"Cancel this run? Its reservation is released."</span>
            <button type="button" class="button danger" hidden=move || !confirming.get()
                disabled=move || cancel.pending().get()
                on:click=move |_| {
                    confirming.set(false);
                    if let Some(client) = session.client_untracked() {
                        cancel.dispatch_local((client, run_id.clone()));
                    }
                }>"Yes, cancel the run"</button>
            <button type="button" class="button secondary" hidden=move || !confirming.get()
                on:click=move |_| confirming.set(false)>"Keep it"</button>
        </div>
        <RunAgain run_id=run.id.clone() action=run.action.clone() kept=state.kept />
        <CompareWith run_id=run.id.clone() />
        {move || cancel_error().map(|error| view! {
            <Notice hidden={error.status() != Some(409)}>
                "The run had already finished, so it could not be cancelled. It is shown as it is now."
            </Notice>
            <ApiErrorPanel error context="Cancelling" />
        })}
        {failure}
        <h2 class="section-title">"Output"</h2>
        {if run.output.is_empty() {
            let why = match (archived, run.status.is_terminal()) {
                (true, _) => "The output was not kept in this browser (or was dropped to stay within the outputs' allowance).",
                (false, true) => "No records.",
                (false, false) => "Records appear when the run completes.",
            };
            view! { <p class="muted" data-field="no-output">{why}</p> }.into_any()
        } else {
            view! { <OutputExplorer name=crate::state::environment::use_environment().file_name(&format!("run-{}", run.id)) action=run.action records=run.output notice=state.notice /> }.into_any()
        }}
    }
}

/// "Run again with changes": the action's form, filled with what this browser sent for the run
/// (a new submission, with a new key). The API does not return a run's input, so for a run this
/// browser did not submit it says so.
#[component]
fn RunAgain(
    run_id: String,
    action: String,
    kept: LocalResource<Option<SavedSubmission>>,
) -> impl IntoView {
    let drafts = use_drafts();
    let session = use_session();
    let workspace = use_workspace();
    // The key this console sent the run with, if it made it: the request as code sends it
    // again, so running the code is the same run, not a second one.
    let shared = use_workspace();
    let sent_key = LocalResource::new(move || {
        let workspace_id = shared.id();
        let run_id = run_id.clone();
        async move {
            crate::archive::kept_run(&workspace_id?, &run_id)
                .await
                .ok()
                .flatten()?
                .idempotency_key
        }
    });
    let navigate = leptos_router::hooks::use_navigate();
    let form = action_form_path(&action);
    move || {
        let saved = kept.get()?;
        let workspace_id = workspace.get().and_then(Result::ok).map(|w| w.workspace_id);
        let saved =
            saved.filter(|s| Some(&s.workspace) == workspace_id.as_ref() && s.action == action);
        let how = saved.clone().map(|s| {
            let base_url = untrack(|| session.base_url()).unwrap_or_default();
            Signal::derive(move || {
                let key = sent_key.get().flatten().unwrap_or_else(idempotency_key);
                submission_request(&base_url, &s.action, s.live, &key, &s.body)
            })
        });
        let known = saved.and_then(|s| Some((s.live, s.values()?)));
        Some(match known {
            Some((live, values)) => {
                let (action, form, navigate) = (action.clone(), form.clone(), navigate.clone());
                view! {
                    <div class="actions-row run-again">
                        <button type="button" class="button secondary" data-field="run-again"
                            on:click=move |_| {
                                drafts.save(&action, Draft { values: values.clone(), live, started_from: Values::new() });
                                navigate(&form, Default::default());
                            }>"Run again with changes"</button>
                        <span class="help">"Opens the form with this run's input and limits; submitting makes a new run."</span>
                    </div>
                    {how.map(|request| view! {
                        <details class="preview" data-field="how-made">
                            <summary>"How this run was made"</summary>
                            <p class="help">{move || match sent_key.get().flatten() {
                                Some(_) => "The request this console sent, as code. It carries the run's own Idempotency-Key: running it answers with this run again and charges nothing.",
                                None => "The request this console sent, as code, with a new Idempotency-Key (this browser did not keep the run's): running it makes a new run.",
                            }}</p>
                            <CopyAsCode request />
                        </details>
                    })}
                }
                .into_any()
            }
            None => view! {
                <p class="help run-again" data-field="input-unknown">
                    "This run's input is not known here: the API does not return inputs, and this browser "
                    "did not submit the run. "
                    <a href=form.clone()>"Open the empty form"</a>
                </p>
            }
            .into_any(),
        })
    }
}
