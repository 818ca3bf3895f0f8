//! The unobtrusive line a polling page shows while its requests fail: why, and since when the
//! data on screen is.

use chrono::{DateTime, Utc};
use leptos::prelude::*;

use super::{Notice, NoticeKind};

use crate::api::ApiError;
use crate::model::format::local_time;

/// Hidden while polling goes well; after a transient error, says so and when the last good
/// answer arrived, while polling retries.
#[component]
pub fn PollNotice(
    /// The last transient error, cleared by the next good answer.
    transient: RwSignal<Option<ApiError>>,
    /// When the last good answer arrived.
    last_update: RwSignal<Option<DateTime<Utc>>>,
) -> impl IntoView {
    let text = move || {
        transient.get().map(|e| {
            let when = last_update
                .get()
                .map(|t| format!(" Last update {}.", local_time(t)))
                .unwrap_or_default();
            format!("Could not refresh ({}); retrying.{when}", e.message())
        })
    };
    view! {
        <Notice kind=NoticeKind::Subtle hidden=move || transient.with(Option::is_none)>
            {text}
        </Notice>
    }
}
