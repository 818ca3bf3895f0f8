//! Shows an API error in words, with its code and request id for a support ticket.

use leptos::prelude::*;

use crate::api::ApiError;

/// An error box for a failed request. Text only: nothing from the server is parsed as HTML.
#[component]
pub fn ApiErrorPanel(
    /// The error to explain.
    error: ApiError,
    /// What the person was trying to do, e.g. "Loading the workspace".
    #[prop(into)]
    context: String,
) -> impl IntoView {
    let code = error.code().map(str::to_owned);
    let status = error.status();
    let request_id = error.request_id().map(str::to_owned);
    view! {
        <div class="error-panel" role="alert">
            <p class="error-title">{context} " failed"</p>
            <p class="error-message">{error.message()}</p>
            <dl class="error-facts">
                {status.map(|s| view! { <dt>"HTTP status"</dt><dd>{s}</dd> })}
                {code.map(|c| view! { <dt>"Error code"</dt><dd><code>{c}</code></dd> })}
                {request_id.map(|id| view! { <dt>"Request ID"</dt><dd><code class="request-id">{id}</code></dd> })}
            </dl>
        </div>
    }
}
