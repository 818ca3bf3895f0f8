//! The balances this browser read (`model::ledger`), kept per workspace in the meta store
//! (`BALANCE_READINGS`), for `/credits`' ledger.

use chrono::Local;

use super::fact_key;
use crate::model::ledger::{BalanceReading, BalanceReadings};
use crate::model::store_table::WorkspaceFact;
use crate::store::{self, BALANCE_READINGS, StoreError};

/// Keeps `reading` of `workspace`'s balance with the others, read and written in one
/// transaction, so readings from several tabs all count; coalesced and bounded as
/// [`BalanceReadings::with`] says. Readings that do not read back (damaged) start again from
/// this one.
pub async fn keep_reading(workspace: &str, reading: BalanceReading) -> Result<(), StoreError> {
    if workspace.is_empty() {
        return Ok(());
    }
    let key = fact_key(workspace, WorkspaceFact::BalanceReadings);
    store::update_one(BALANCE_READINGS.read(&key), |kept| {
        let kept = BALANCE_READINGS
            .decode_read(kept.as_deref())
            .ok()
            .flatten()
            .unwrap_or_default();
        BALANCE_READINGS.put_change(&key, &kept.with([reading], &Local))
    })
    .await
}

/// The readings kept for `workspace`, in time order (none yet: empty). `Err(Damaged)` when
/// they do not read back: the next reading kept starts them again.
pub async fn balance_readings(workspace: &str) -> Result<BalanceReadings, StoreError> {
    let key = fact_key(workspace, WorkspaceFact::BalanceReadings);
    Ok(BALANCE_READINGS.get(&key).await?.unwrap_or_default())
}
