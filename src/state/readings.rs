//! The balance readings' writes for the credit ledger (`archive::keep_reading`). Reached only
//! through the pages' chunk (the keeper the app gives `SharedWorkspace::provide`), so none of it
//! is in the first load: the workspace resource hands each reading over and goes on. A refusal
//! is recorded as every background write's is (`state::refusals`); `/credits` tells it beside
//! its ledger.

use super::refusals::StoreRefusals;
use crate::model::ledger::BalanceReading;

/// What a refused reading leaves, as `state::refusals` tells it.
pub const READING_NOT_KEPT: &str =
    "This browser did not keep the balance it just read, so the ledger misses it.";

/// Keeps `reading` of `workspace`'s balance, and records how that went in `refusals`.
pub async fn keep(workspace: String, reading: BalanceReading, refusals: StoreRefusals) {
    let kept = crate::archive::keep_reading(&workspace, reading).await;
    refusals.record(&workspace, READING_NOT_KEPT, kept);
}
