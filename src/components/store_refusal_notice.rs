//! The last write this browser's store refused for the workspace in view (`state::refusals`),
//! told as what was not kept and the store's sentence (what happened, what to do).

use leptos::prelude::*;

use super::{Notice, NoticeKind};
use crate::state::workspace::use_workspace;

/// Says what the store last refused to keep for the workspace in view, while it stands.
#[component]
pub fn StoreRefusalNotice() -> impl IntoView {
    let workspace = use_workspace();
    move || {
        let id = workspace.id()?;
        let refusal = crate::state::refusals::last_refusal(&id)?;
        Some(view! {
            <Notice kind=NoticeKind::Problem field="store-refused">
                {format!("{} {}", refusal.what, refusal.error.sentence())}
            </Notice>
        })
    }
}
