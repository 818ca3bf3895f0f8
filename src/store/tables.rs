//! The store's tables (`model::store_table`): what each holds and under which keys, and their
//! reads and writes. Callers go through these rather than the store's text: a table formats its
//! keys, writes its values as the console always has, and tells a value that does not read
//! back (`StoreError::Damaged`, or counted in a [`Listed`]) from one that is not there.

use std::time::Duration;

use serde_json::Value;

use super::{BATCHES, Change, LOG, LOG_ANSWERS, LOG_WHOLE, META, OUTPUTS, ROWS, RUNS, SUBMISSIONS};
use super::{Read, StoreError};
use crate::model::archive::{KeptRun, ListReads, OutputIndex};
use crate::model::bulk::{BatchRow, SavedBatch};
use crate::model::chain::kept::KeptChains;
use crate::model::form::SavedSubmission;
use crate::model::ledger::BalanceReadings;
use crate::model::request_log::{Entry, KeptBody};
use crate::model::store_table::{
    BrowserKey, Codec, FactKey, Listed, LogKey, RowKey, RunKey, StoreKey, Table, Text, WholeBodyKey,
};

/// The runs this browser saw, by workspace and run.
pub const KEPT_RUNS: Table<RunKey, KeptRun> = Table::new(RUNS);
/// Kept runs' outputs, within an allowance (`crate::archive`).
pub const KEPT_OUTPUTS: Table<RunKey, Vec<Value>> = Table::new(OUTPUTS);
/// Bulk batches' summaries, by batch id.
pub const SAVED_BATCHES: Table<String, SavedBatch> = Table::new(BATCHES);
/// Bulk batches' rows.
pub const BATCH_ROWS: Table<RowKey, BatchRow> = Table::new(ROWS);
/// What the console submitted, by run id.
pub const SAVED_SUBMISSIONS: Table<String, SavedSubmission> = Table::new(SUBMISSIONS);
/// The request log's entries.
pub const LOG_ENTRIES: Table<LogKey, Entry> = Table::new(LOG);
/// Each log entry's answer body (shortened past 64 KB).
pub const LOG_ANSWER_BODIES: Table<LogKey, KeptBody> = Table::new(LOG_ANSWERS);
/// The newest long bodies, whole, as their text.
pub const LOG_WHOLE_BODIES: Table<WholeBodyKey, String, Text> = Table::new(LOG_WHOLE);
/// When this browser started keeping a workspace's history, ms since the epoch
/// (`WorkspaceFact::HistorySince`).
pub const HISTORY_SINCE: Table<FactKey, f64> = Table::new(META);
/// A workspace's reads of the runs list (`WorkspaceFact::ListReads`).
pub const LIST_READS: Table<FactKey, ListReads> = Table::new(META);
/// The balances this browser read for a workspace, coalesced and bounded
/// (`WorkspaceFact::BalanceReadings`, `model::ledger`).
pub const BALANCE_READINGS: Table<FactKey, BalanceReadings> = Table::new(META);
/// A workspace's chains, started and saved by name (`WorkspaceFact::Chains`).
pub const KEPT_CHAINS: Table<FactKey, KeptChains> = Table::new(META);
/// The person's switch to stop keeping a workspace's request log (`WorkspaceFact::LogPaused`):
/// there, it is stopped.
pub const LOG_PAUSED: Table<FactKey, bool> = Table::new(META);
/// The kept outputs' index, for the whole browser ([`OUTPUT_INDEX_KEY`]).
pub const OUTPUT_INDEX: Table<BrowserKey, OutputIndex> = Table::new(META);
pub const OUTPUT_INDEX_KEY: BrowserKey = BrowserKey("outputs-index");
/// The kept outputs' allowance, bytes ([`OUTPUT_ALLOWANCE_KEY`]).
pub const OUTPUT_ALLOWANCE: Table<BrowserKey, u64> = Table::new(META);
pub const OUTPUT_ALLOWANCE_KEY: BrowserKey = BrowserKey("outputs-allowance");
/// Whether this browser was asked to keep the console's data, and its answer
/// ([`PERSISTENCE_ASKED_KEY`]).
pub const PERSISTENCE_ASKED: Table<BrowserKey, bool> = Table::new(META);
pub const PERSISTENCE_ASKED_KEY: BrowserKey = BrowserKey("persistence-asked");

/// Values read back at a time before the page gets a turn (a large history is read without
/// one long task).
const READ_SLICE: u32 = 5_000;

/// A value with its key, as a table lists them.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyed<K, T> {
    pub key: K,
    pub value: T,
}

impl<K: StoreKey, T, C: Codec<T>> Table<K, T, C> {
    /// The value under `key`: `None` when there is none, `Err(StoreError::Damaged)` when it
    /// does not read back.
    pub async fn get(&self, key: &K) -> Result<Option<T>, StoreError> {
        let text = super::get(self.store, &key.text()).await?;
        self.decode_read(text.as_deref())
    }

    /// Puts `value` under `key`, alone in its transaction.
    pub async fn put(&self, key: &K, value: &T) -> Result<(), StoreError> {
        super::write(vec![self.put_change(key, value)?]).await
    }

    /// The change that puts `value` under `key`, for a [`super::write`] or an
    /// [`super::update`]; `Err` when the value cannot be written.
    pub fn put_change(&self, key: &K, value: &T) -> Result<Change, StoreError> {
        Ok(Change::Put {
            store: self.store,
            key: key.text(),
            json: self.encode(value)?,
        })
    }

    /// The change that deletes the value under `key`.
    pub fn delete_change(&self, key: &K) -> Change {
        Change::Delete {
            store: self.store,
            key: key.text(),
        }
    }

    /// The change that deletes every value of the store under `{prefix}/` (a workspace's).
    pub fn delete_under_change(&self, prefix: &str) -> Change {
        Change::DeleteUnder {
            store: self.store,
            prefix: prefix.to_owned(),
        }
    }

    /// The values under `keys`, read together: those present and readable, with how many
    /// could not be read back.
    pub async fn get_many(&self, keys: &[K]) -> Result<Listed<T>, StoreError> {
        let texts: Vec<String> = keys.iter().map(StoreKey::text).collect();
        let values = super::get_many(self.store, &texts).await?;
        Ok(self.decode_all(values.into_iter().filter(Option::is_some)))
    }

    /// The read of `key` in an [`super::update`]; its answer reads with
    /// [`Table::decode_read`].
    pub fn read(&self, key: &K) -> Read {
        Read {
            store: self.store,
            key: key.text(),
        }
    }

    /// Every value under `{prefix}/` (a workspace's), in key order, read a slice at a time;
    /// those that do not read back are counted.
    pub async fn all_under(&self, prefix: &str) -> Result<Listed<T>, StoreError> {
        let stored = super::all_under_unread(self.store, prefix).await?;
        let mut listed = Listed::default();
        let mut start = 0;
        while start < stored.length() {
            let end = (start + READ_SLICE).min(stored.length());
            let slice = stored.slice(start, end);
            listed.extend(self.decode_all(slice.iter().map(|text| text.as_string())));
            start = end;
            if start < stored.length() {
                crate::browser::sleep(Duration::ZERO).await;
            }
        }
        Ok(listed)
    }

    /// How many values there are under `{prefix}/`.
    pub async fn count_under(&self, prefix: &str) -> Result<u32, StoreError> {
        super::count_under(self.store, prefix).await
    }

    /// The first `count` keys under `{prefix}/`, in key order (the oldest, where keys sort by
    /// time).
    pub async fn first_keys_under(&self, prefix: &str, count: u32) -> Result<Vec<K>, StoreError> {
        let keys = super::first_keys_under(self.store, prefix, count).await?;
        Ok(keys.iter().filter_map(|key| K::parse(key)).collect())
    }

    /// Every value of the table's store.
    pub async fn all(&self) -> Result<Listed<T>, StoreError> {
        let texts = super::all(self.store).await?;
        Ok(self.decode_all(texts.into_iter().map(Some)))
    }

    /// Every key and value of the table's store, in key order.
    pub async fn entries(&self) -> Result<Listed<Keyed<K, T>>, StoreError> {
        let mut listed = Listed::default();
        for entry in super::entries(self.store).await? {
            match (K::parse(&entry.key), self.decode(&entry.json)) {
                (Some(key), Ok(value)) => listed.items.push(Keyed { key, value }),
                _ => listed.damaged += 1,
            }
        }
        Ok(listed)
    }
}

impl<T, C: Codec<T>> Table<RowKey, T, C> {
    /// Up to `count` of a batch's rows in line order, from line `first_line` on: a large batch
    /// is read a slice at a time.
    pub async fn rows_from(
        &self,
        batch: &str,
        first_line: usize,
        count: u32,
    ) -> Result<Listed<T>, StoreError> {
        let texts = super::batch_rows_from(batch, first_line, count).await?;
        Ok(self.decode_all(texts.into_iter().map(Some)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept run as the console before the typed tables wrote it (its text, under its key),
    /// with a run's fields in the API's shape.
    const OLD_KEPT_RUN: &str = r#"{"workspace":"ws_1","run":{"id":"run_1","action":"extract_invoice","status":"completed","output":[],"credits_used":1,"credits_reserved":0,"created_at":"2026-01-02T03:04:05.000Z","completed_at":"2026-01-02T03:04:09.000Z","completeness":{"has_more":false,"scope":"single_page"}},"records":2,"seen_at":1767323049000.0,"input":{"document":"a.pdf"},"idempotency_key":"k-1"}"#;

    #[test]
    fn a_kept_run_written_by_the_earlier_console_reads_back() {
        let key = RunKey::parse("ws_1/run_1").unwrap();
        assert_eq!(key.id, "run_1");
        let kept = KEPT_RUNS.decode(OLD_KEPT_RUN).unwrap();
        assert_eq!(kept.workspace, "ws_1");
        assert_eq!(kept.run.id, "run_1");
        assert_eq!(kept.records, 2);
        assert_eq!(kept.idempotency_key.as_deref(), Some("k-1"));
        // Written back, it is the same text: the format did not change.
        let again: serde_json::Value =
            serde_json::from_str(&KEPT_RUNS.encode(&kept).unwrap()).unwrap();
        let old: serde_json::Value = serde_json::from_str(OLD_KEPT_RUN).unwrap();
        assert_eq!(again, old);
    }

    #[test]
    fn the_meta_values_read_as_the_earlier_console_wrote_them() {
        // `allowance.to_string()`, `"true"`, `granted.to_string()`, a time as JSON.
        assert_eq!(OUTPUT_ALLOWANCE.decode("200000000"), Ok(200_000_000));
        assert_eq!(LOG_PAUSED.decode("true"), Ok(true));
        assert_eq!(PERSISTENCE_ASKED.decode("false"), Ok(false));
        assert_eq!(
            HISTORY_SINCE.decode("1767323049000.0"),
            Ok(1_767_323_049_000.0)
        );
        assert_eq!(OUTPUT_INDEX.decode("{"), Err(StoreError::Damaged));
    }

    #[test]
    fn the_tables_are_in_the_stores_they_always_were() {
        assert_eq!(KEPT_RUNS.store, "runs");
        assert_eq!(KEPT_OUTPUTS.store, "outputs");
        assert_eq!(BATCH_ROWS.store, "rows");
        assert_eq!(SAVED_BATCHES.store, "batches");
        assert_eq!(SAVED_SUBMISSIONS.store, "submissions");
        assert_eq!(LOG_ENTRIES.store, "log");
        assert_eq!(LOG_ANSWER_BODIES.store, "log_answers");
        assert_eq!(LOG_WHOLE_BODIES.store, "log_whole");
        for meta in [
            LIST_READS.store,
            HISTORY_SINCE.store,
            BALANCE_READINGS.store,
            LOG_PAUSED.store,
            KEPT_CHAINS.store,
            OUTPUT_INDEX.store,
        ] {
            assert_eq!(meta, "meta");
        }
    }
}
