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

/// The tab's refusals, the last of each write per workspace, until that write succeeds;
/// provided at the root. `Copy`: handed to the background writers that run without the page's
/// context (the request log's keeper, the balance readings, the history's reads).
#[derive(Clone, Copy)]
pub struct StoreRefusals {
    last: RwSignal<Vec<Refusal>>,
}

/// The tab's [`StoreRefusals`].
pub fn use_store_refusals() -> StoreRefusals {
    expect_context()
}

impl Default for StoreRefusals {
    fn default() -> Self {
        StoreRefusals::new()
    }
}

impl StoreRefusals {
    /// None refused yet; [`StoreRefusals::provide`] makes the tab's.
    pub fn new() -> StoreRefusals {
        StoreRefusals {
            last: RwSignal::new(Vec::new()),
        }
    }

    pub fn provide() -> StoreRefusals {
        let refusals = StoreRefusals::new();
        provide_context(refusals);
        refusals
    }

    /// Records how a write for `workspace` went (`what` says what a refusal leaves unkept): a
    /// refusal is kept for the pages to tell (replacing an earlier one of the same write); a
    /// success of the same write clears it. Hands the value on.
    pub fn record<T>(
        self,
        workspace: &str,
        what: &'static str,
        result: Result<T, StoreError>,
    ) -> Option<T> {
        let same = |refusal: &Refusal| refusal.workspace == workspace && refusal.what == what;
        match result {
            Ok(value) => {
                if self.last.with_untracked(|last| last.iter().any(same)) {
                    self.last
                        .update(|last| last.retain(|refusal| !same(refusal)));
                }
                Some(value)
            }
            Err(error) => {
                let refusal = Refusal {
                    workspace: workspace.to_owned(),
                    what,
                    error,
                };
                if !self.last.with_untracked(|last| last.contains(&refusal)) {
                    self.last.update(|last| {
                        last.retain(|refusal| !same(refusal));
                        last.push(refusal);
                    });
                }
                None
            }
        }
    }

    /// The writes the store refused for `workspace` (the last of each), until each succeeds
    /// again; tracked.
    pub fn of(self, workspace: &str) -> Vec<Refusal> {
        self.last.with(|last| {
            last.iter()
                .filter(|refusal| refusal.workspace == workspace)
                .cloned()
                .collect()
        })
    }
}
