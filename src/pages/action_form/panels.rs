//! What the form shows below its inputs: the cost estimate, why a submission failed, the
//! rate-limit notice, the submit row with the time waited, and the request preview.

use chrono::TimeDelta;
use leptos::prelude::*;

use super::submission::{Failure, Submission};
use crate::components::{ApiErrorPanel, CopyAsCode, Notice};
use crate::model::format::{duration, group_thousands};
use crate::model::snippets::RequestSpec;
use crate::model::submission::{RETRY_HINT, refusal_hint};
use crate::state::presenter::use_masker;

/// The run's worst-case cost, and the credits available when the workspace is known.
#[component]
pub(super) fn CostEstimate(
    /// Credits the run may cost at most.
    estimate: impl Fn() -> u64 + Copy + Send + Sync + 'static,
    /// Credits the workspace has available, once known.
    available: impl Fn() -> Option<u64> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="estimate" aria-live="polite">
            "Estimated cost: at most " <strong data-field="estimate">{move || group_thousands(estimate())}</strong> " credits"
            {move || available().map(|available| {
                let over = (estimate() > available).then_some(" · more than is available");
                view! {
                    " · available: " <strong data-field="available">{group_thousands(available)}</strong>
                    <span class="field-error">{over}</span>
                }
            })}
        </div>
    }
}

/// Why the last submission did not lead to a run, what to do, and Retry when the same request
/// may be sent again.
#[component]
pub(super) fn SubmitFailure(submission: Submission) -> impl IntoView {
    move || {
        submission.failure.get().map(|failure| {
            let (error, hint, retry) = match failure {
                Failure::Refused(error) => {
                    let hint = refusal_hint(error.code());
                    (error, hint, false)
                }
                Failure::Retryable(error) => (error, RETRY_HINT, true),
            };
            view! {
                <ApiErrorPanel error context="Submitting" />
                <p class="help">{hint}</p>
                {retry.then(|| view! {
                    <button type="button" class="button secondary"
                        on:click=move |_| if !submission.busy() { submission.send_again() }>"Retry"</button>
                })}
            }
        })
    }
}

/// Shown while a rate-limited submission waits to be sent again.
#[component]
pub(super) fn RateLimitNotice(
    /// Seconds left before the retry (0: none, and the notice is hidden).
    countdown: RwSignal<u32>,
) -> impl IntoView {
    view! {
        <Notice hidden=move || countdown.get() == 0>
            "Rate limited by the API. Retrying with the same key in "
            <span data-field="countdown">{move || countdown.get()}</span> " s…"
        </Notice>
    }
}

/// The submit button, its shortcut, and the time waited for an answer.
#[component]
pub(super) fn SubmitRow(
    /// A request is on its way.
    pending: Memo<bool>,
    /// Live mode (wait for the result) rather than async.
    live: impl Fn() -> bool + Copy + Send + Sync + 'static,
    /// Time waited so far for the answer.
    waited: RwSignal<TimeDelta>,
) -> impl IntoView {
    view! {
        <div class="actions-row">
            <button type="submit" id="submit-run" class="button primary" disabled=move || pending.get()>
                {move || if pending.get() { "Submitting…" } else if live() { "Run live" } else { "Queue run" }}
            </button>
            <span class="help">"Ctrl/⌘ + Enter submits"</span>
            <span class="waiting" role="status" hidden=move || !pending.get()>
                {move || if live() { "Waiting for the run… " } else { "Queuing… " }}
                {move || duration(waited.get())}
            </span>
        </div>
    }
}

/// The body as it will be sent, and the same request as code.
#[component]
pub(super) fn RequestPreview(
    /// The request body.
    body: Memo<String>,
    /// The whole request, with the key the next submission sends.
    request: Signal<RequestSpec>,
) -> impl IntoView {
    let masker = use_masker();
    view! {
        <details class="preview">
            <summary>"Request preview"</summary>
            <p class="help">"The body as it will be sent, and the same request as code."</p>
            <pre class="code" tabindex="0" data-field="body-preview">{move || masker.json_text(&body.get()).into_owned()}</pre>
            <CopyAsCode request />
        </details>
    }
}
