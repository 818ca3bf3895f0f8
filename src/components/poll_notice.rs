//! The unobtrusive line a polling page shows while its requests fail: why, and since when the
//! data on screen is.

use leptos::prelude::*;

use crate::format::local_time;
use crate::transport::ApiError;

/// Hidden while polling goes well; after a transient error, says so and when the last good
/// answer arrived, while polling retries.
#[component]
pub fn PollNotice(
    /// The last transient error, cleared by the next good answer.
    transient: RwSignal<Option<ApiError>>,
    /// When the last good answer arrived (ms since the epoch).
    last_update: RwSignal<Option<f64>>,
) -> impl IntoView {
    view! {
        <p class="notice subtle" role="status" hidden=move || transient.with(Option::is_none)>
            // Formatted only when shown: the first date formatting in a page is not free.
            {move || transient.get().map(|e| {
                let when = last_update.get().map(|t| format!(" Last update {}.", local_time(t)));
                format!("Could not refresh ({}); retrying.{}", e.message(), when.unwrap_or_default())
            }).unwrap_or_default()}
        </p>
    }
}
