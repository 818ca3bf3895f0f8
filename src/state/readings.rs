//! The balance readings' writes for the credit ledger (`archive::keep_reading`), and the last
//! one the store refused per workspace, for `/credits` to tell. Reached only through the pages'
//! chunk (the keeper the app gives `SharedWorkspace::provide`), so none of it is in the first
//! load: the workspace resource hands each reading over and goes on.

use leptos::prelude::*;

use crate::model::ledger::BalanceReading;
use crate::store::StoreError;

/// A reading of a workspace's balance that the store refused to keep, and why.
#[derive(Clone, Debug, PartialEq)]
struct ReadingNotKept {
    workspace: String,
    error: StoreError,
}

thread_local! {
    /// The last refusal, until a reading of the same workspace is kept. One for the tab, as the
    /// workspace resource that makes the readings.
    static NOT_KEPT: ArcRwSignal<Option<ReadingNotKept>> = ArcRwSignal::new(None);
}

/// Keeps `reading` of `workspace`'s balance, and records how that went.
pub async fn keep(workspace: String, reading: BalanceReading) {
    let kept = crate::archive::keep_reading(&workspace, reading).await;
    NOT_KEPT.with(|not_kept| match kept {
        Ok(()) => {
            if not_kept.with_untracked(|n| n.as_ref().is_some_and(|n| n.workspace == workspace)) {
                not_kept.set(None);
            }
        }
        Err(error) => not_kept.set(Some(ReadingNotKept { workspace, error })),
    });
}

/// Why the store did not keep the last reading of `workspace`'s balance, until one is kept;
/// tracked.
pub fn not_kept(workspace: &str) -> Option<StoreError> {
    NOT_KEPT.with(|not_kept| {
        not_kept.with(|not_kept| {
            not_kept
                .as_ref()
                .filter(|not_kept| not_kept.workspace == workspace)
                .map(|not_kept| not_kept.error.clone())
        })
    })
}
