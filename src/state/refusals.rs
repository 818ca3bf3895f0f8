//! The writes to this browser's store that no page waited for (a run kept in the background,
//! the form's submission, the request log, the history's background read, a batch cleared), and
//! the last refusal of each such write per workspace, so that a page tells them (`StoreRefusalNotice`)
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
    /// The tab's refusals, the last of each write per workspace, until that write succeeds.
    static LAST: ArcRwSignal<Vec<Refusal>> = ArcRwSignal::new(Vec::new());
}

/// Records how a write for `workspace` went (`what` says what a refusal leaves unkept): a
/// refusal is kept for the pages to tell (replacing an earlier one of the same write); a
/// success of the same write clears it. Hands the value on.
pub fn record<T>(workspace: &str, what: &'static str, result: Result<T, StoreError>) -> Option<T> {
    let same = |refusal: &Refusal| refusal.workspace == workspace && refusal.what == what;
    LAST.with(|last| match result {
        Ok(value) => {
            if last.with_untracked(|last| last.iter().any(same)) {
                last.update(|last| last.retain(|refusal| !same(refusal)));
            }
            Some(value)
        }
        Err(error) => {
            let refusal = Refusal {
                workspace: workspace.to_owned(),
                what,
                error,
            };
            if !last.with_untracked(|last| last.contains(&refusal)) {
                last.update(|last| {
                    last.retain(|refusal| !same(refusal));
                    last.push(refusal);
                });
            }
            None
        }
    })
}

/// The writes the store refused for `workspace` (the last of each), until each succeeds again;
/// tracked.
pub fn refusals(workspace: &str) -> Vec<Refusal> {
    LAST.with(|last| {
        last.with(|last| {
            last.iter()
                .filter(|refusal| refusal.workspace == workspace)
                .cloned()
                .collect()
        })
    })
}
