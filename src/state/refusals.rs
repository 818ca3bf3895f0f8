//! The writes to this browser's store that no page waited for (a run kept in the background,
//! the form's submission, the request log, the history's background read, a batch cleared), and
//! the last one the store refused per workspace, so that a page tells it (`StoreRefusalNotice`)
//! rather than drop it: a write that fails always reaches the person, with its sentence.

use leptos::prelude::*;

use crate::store::StoreError;

/// A write the store refused: for which workspace, what it was (a sentence saying what was not
/// kept), and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub workspace: String,
    pub what: &'static str,
    pub error: StoreError,
}

thread_local! {
    /// The last refusal of the tab, until the same write succeeds for its workspace.
    static LAST: ArcRwSignal<Option<Refusal>> = ArcRwSignal::new(None);
}

/// Records how a write for `workspace` went (`what` says what a refusal leaves unkept): a
/// refusal is kept for the pages to tell; a success of the same write clears it. Hands the
/// value on.
pub fn record<T>(workspace: &str, what: &'static str, result: Result<T, StoreError>) -> Option<T> {
    LAST.with(|last| match result {
        Ok(value) => {
            let same = last.with_untracked(|last| {
                last.as_ref()
                    .is_some_and(|last| last.workspace == workspace && last.what == what)
            });
            if same {
                last.set(None);
            }
            Some(value)
        }
        Err(error) => {
            last.set(Some(Refusal {
                workspace: workspace.to_owned(),
                what,
                error,
            }));
            None
        }
    })
}

/// The last write the store refused for `workspace`, until it succeeds again; tracked.
pub fn last_refusal(workspace: &str) -> Option<Refusal> {
    LAST.with(|last| {
        last.with(|last| {
            last.as_ref()
                .filter(|last| last.workspace == workspace)
                .cloned()
        })
    })
}
