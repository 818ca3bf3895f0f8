//! The writes this browser's store refused for the workspace in view (`state::refusals`), each
//! told as what was not kept and the store's sentence (what happened, what to do).

use leptos::prelude::*;

use super::{Notice, NoticeKind};
use crate::state::refusals::use_store_refusals;
use crate::state::workspace::use_workspace;

/// Says what the store refused to keep for the workspace in view, while it stands.
#[component]
pub fn StoreRefusalNotice(
    /// A write the page tells beside what it concerns (its `what`), left out here.
    #[prop(optional)]
    told_elsewhere: Option<&'static str>,
) -> impl IntoView {
    let workspace = use_workspace();
    let refusals = use_store_refusals();
    move || {
        let refusals = workspace
            .id()
            .map(|id| refusals.of(&id))
            .unwrap_or_default();
        refusals
            .into_iter()
            .filter(|refusal| Some(refusal.what) != told_elsewhere)
            .map(|refusal| {
                view! {
                    <Notice kind=NoticeKind::Problem field="store-refused">
                        {format!("{} {}", refusal.what, refusal.error.sentence())}
                    </Notice>
                }
            })
            .collect_view()
    }
}
