//! `/runs/{id}`: one run, watched until it is terminal, with cancel, its error and its output.

use api_contract::{Run, RunStatus};
use leptos::prelude::*;

use crate::browser::copy_text;
use crate::components::{ApiErrorPanel, RunStatusBadge};
use crate::format::{group_thousands, local_time, millis_between};
use crate::polling::{RunWatch, watch_run};
use crate::session::use_session;
use crate::shared_state::use_shared_state;
use crate::transport::ApiError;

#[component]
pub fn RunDetailPage(id: String) -> impl IntoView {
    // The router rebuilds this page for a new id (a link from one run to another): a new watch.
    view! { <RunDetail id /> }
}

#[component]
fn RunDetail(id: String) -> impl IntoView {
    let session = use_session();
    let watch = watch_run(session, id.clone());
    // Owned here, not by RunView, so a poll's re-render keeps an open confirmation.
    let cancel = CancelState {
        confirming: RwSignal::new(false),
        error: RwSignal::new(None),
    };
    view! {
        <section class="page run-detail">
            <p class="breadcrumb"><a href="/runs">"Runs"</a> " / " <code>{id.clone()}</code></p>
            {move || match (watch.run.get(), watch.fatal.get()) {
                (_, Some(error)) if error.status() == Some(404) => view! {
                    <h1>"Run not found"</h1>
                    <p>"No run with id " <code>{id.clone()}</code> " exists in this workspace."</p>
                }.into_any(),
                (_, Some(error)) => view! { <ApiErrorPanel error context="Loading the run" /> }.into_any(),
                (Some(run), None) => view! { <RunView run watch cancel /> }.into_any(),
                (None, None) => view! { <p class="loading">"Loading the run…"</p> }.into_any(),
            }}
            {move || watch.transient.get().map(|error| view! {
                <p class="notice subtle" role="status">
                    "Could not refresh (" {error.message()} "); retrying. "
                    {watch.last_update.get().map(|t| format!("Last update {}.", local_time(t)))}
                </p>
            })}
        </section>
    }
}

#[derive(Clone, Copy)]
struct CancelState {
    confirming: RwSignal<bool>,
    error: RwSignal<Option<ApiError>>,
}

#[component]
fn RunView(run: Run, watch: RunWatch, cancel: CancelState) -> impl IntoView {
    let session = use_session();
    let shared = use_shared_state();
    let CancelState {
        confirming,
        error: cancel_error,
    } = cancel;
    let cancellable = matches!(run.status, RunStatus::Queued | RunStatus::Processing);
    let run_id = run.id.clone();
    let cancel = move |_| {
        let Some(client) = session.client_untracked() else {
            return;
        };
        let id = run_id.clone();
        confirming.set(false);
        leptos::task::spawn_local(async move {
            match client.cancel(&id).await {
                Ok(run) => {
                    cancel_error.set(None);
                    watch.set_run(run);
                    shared.workspace_changed();
                }
                Err(error) => {
                    // 409: it finished meanwhile; show why and the run as it now is.
                    if let Ok(run) = client.run(&id).await {
                        watch.set_run(run);
                    }
                    cancel_error.set(Some(error));
                }
            }
        });
    };
    let duration = run
        .completed_at
        .as_deref()
        .and_then(|done| millis_between(&run.created_at, done));
    let id_for_copy = run.id.clone();
    let output_json = serde_json::to_string_pretty(&run.output).unwrap_or_default();
    let count = run.output.len();
    view! {
        <div class="run-head">
            <h1><code>{run.action.clone()}</code></h1>
            <RunStatusBadge status=run.status />
        </div>
        <dl class="facts">
            <dt>"Run ID"</dt>
            <dd><code data-field="run-id">{run.id.clone()}</code>
                " " <button type="button" class="button link" on:click=move |_| copy_text(&id_for_copy)>"Copy"</button></dd>
            <dt>"Created"</dt><dd>{local_time_iso(&run.created_at)}</dd>
            <dt>"Completed"</dt><dd>{run.completed_at.as_deref().map_or_else(|| "—".to_owned(), local_time_iso)}</dd>
            <dt>"Duration"</dt><dd>{duration.map_or_else(|| "—".to_owned(), crate::format::duration)}</dd>
            <dt>"Credits used"</dt><dd data-field="credits_used">{group_thousands(run.credits_used)}</dd>
            <dt>"Credits reserved"</dt><dd data-field="credits_reserved">{group_thousands(run.credits_reserved)}</dd>
            <dt>"Records"</dt><dd data-field="records">{count}</dd>
            <dt>"More available"</dt>
            <dd>{if run.completeness.has_more { "yes" } else { "no" }} " (" {run.completeness.scope.clone()} ")"
                <span class="help block">"has_more is a signal from the data provider that more records exist. It is not a page cursor: repeating the request returns the same page."</span></dd>
        </dl>
        {cancellable.then(|| view! {
            <div class="actions-row">
                {move || if confirming.get() {
                    view! {
                        <span role="alert">"Cancel this run? Its reservation is released."</span>
                        <button type="button" class="button danger" on:click=cancel.clone()>"Yes, cancel the run"</button>
                        <button type="button" class="button secondary" on:click=move |_| confirming.set(false)>"Keep it"</button>
                    }.into_any()
                } else {
                    view! { <button type="button" class="button secondary" on:click=move |_| confirming.set(true)>"Cancel run…"</button> }.into_any()
                }}
            </div>
        })}
        {move || cancel_error.get().map(|error| {
            let finished = error.status() == Some(409);
            view! {
                {finished.then(|| view! { <p class="notice" role="status">"The run had already finished, so it could not be cancelled. It is shown as it is now."</p> })}
                <ApiErrorPanel error context="Cancelling" />
            }
        })}
        {run.error.clone().map(|e| view! {
            <div class="error-panel" role="alert" data-field="run-error">
                <p class="error-title">"The run failed"</p>
                <p class="error-message">{e.message}</p>
                <dl class="error-facts"><dt>"Error code"</dt><dd><code>{e.code}</code></dd></dl>
            </div>
        })}
        <h2 class="section-title">"Output"</h2>
        {if count == 0 {
            view! { <p class="muted">{if run.status.is_terminal() { "No records." } else { "Records appear when the run completes." }}</p> }.into_any()
        } else {
            view! { <pre class="code output-json" data-field="output-json">{output_json}</pre> }.into_any()
        }}
    }
}

fn local_time_iso(iso: &str) -> String {
    let ms = js_sys::Date::parse(iso);
    if ms.is_nan() {
        iso.to_owned()
    } else {
        local_time(ms)
    }
}
