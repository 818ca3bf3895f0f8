//! A run's status as a coloured badge with its name in words (never colour alone).

use api_contract::RunStatus;
use leptos::prelude::*;

#[component]
pub fn RunStatusBadge(
    /// The status to show.
    status: RunStatus,
) -> impl IntoView {
    view! {
        <span class=format!("badge status-{}", status.as_str()) data-status=status.as_str()>
            {status.as_str()}
        </span>
    }
}
