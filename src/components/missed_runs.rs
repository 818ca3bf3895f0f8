//! The notice that runs may be missing from the history kept in this browser: more runs than
//! the API lists were made between two reads of the list (`model::archive::ListReads`).

use leptos::prelude::*;

use super::Notice;

use crate::model::archive::MissedSpan;
use crate::model::format::local_time;

/// One notice per span, the latest first.
#[component]
pub fn MissedRuns(spans: Vec<MissedSpan>) -> impl IntoView {
    spans
        .into_iter()
        .rev()
        .map(|span| {
            view! {
                <Notice field="missed-runs">
                    "Runs made between " {local_time(span.after)} " and " {local_time(span.before)}
                    " may be missing here: more than 100 runs were made between two reads of the list, and the API lists no more."
                </Notice>
            }
        })
        .collect_view()
}
