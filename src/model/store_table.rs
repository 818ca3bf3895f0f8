//! The store's tables as types: each table's key (how it is written as the store's key, and read
//! back) and its value (how it is written as text, and read back), so no caller formats a key
//! or runs serde on the store's text itself. The I/O is `crate::store`'s; what is here is pure.
//!
//! The text is what the console has always written (keys `{workspace}/{id}`, JSON values), so a
//! browser's data from an earlier console reads back as it was.

use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::model::store_error::StoreError;

/// A table's key: written as the store's key, and read back from it.
pub trait StoreKey: Sized {
    /// The store's key.
    fn text(&self) -> String;
    /// The key read back from the store's key; `None` for a key of another shape.
    fn parse(text: &str) -> Option<Self>;
}

/// A plain id: a batch's (batch summaries), a run's (submissions).
impl StoreKey for String {
    fn text(&self) -> String {
        self.clone()
    }

    fn parse(text: &str) -> Option<Self> {
        Some(text.to_owned())
    }
}

/// `{first}/{rest}`, with a first part that is not empty.
fn split_workspace(text: &str) -> Option<(&str, &str)> {
    text.split_once('/')
        .filter(|(workspace, _)| !workspace.is_empty())
}

/// The workspace a key of a workspace's entry starts with (`{workspace}/…`); `None` for a
/// browser-wide key.
pub fn workspace_of(key: &str) -> Option<&str> {
    split_workspace(key).map(|(workspace, _)| workspace)
}

/// An entry of a workspace: `{workspace}/{id}`, so a workspace's entries are one key range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceItemKey {
    pub workspace: String,
    pub id: String,
}

/// A workspace's run (its kept run, its kept output), by run id.
pub type RunKey = WorkspaceItemKey;
/// A request log's entry and its answer's body, by entry id (entry ids sort by time, so the
/// oldest come first).
pub type LogKey = WorkspaceItemKey;

impl StoreKey for WorkspaceItemKey {
    fn text(&self) -> String {
        format!("{}/{}", self.workspace, self.id)
    }

    fn parse(text: &str) -> Option<Self> {
        let (workspace, id) = split_workspace(text)?;
        Some(WorkspaceItemKey {
            workspace: workspace.to_owned(),
            id: id.to_owned(),
        })
    }
}

/// Which of a log entry's bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WholeBody {
    Request,
    Answer,
}

impl WholeBody {
    fn as_str(self) -> &'static str {
        match self {
            WholeBody::Request => "request",
            WholeBody::Answer => "answer",
        }
    }
}

/// A log entry's body kept whole: `{workspace}/{entry id}/request` or `/answer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeBodyKey {
    pub entry: LogKey,
    pub which: WholeBody,
}

impl StoreKey for WholeBodyKey {
    fn text(&self) -> String {
        format!("{}/{}", self.entry.text(), self.which.as_str())
    }

    fn parse(text: &str) -> Option<Self> {
        let (entry, name) = text.rsplit_once('/')?;
        let which = [WholeBody::Request, WholeBody::Answer]
            .into_iter()
            .find(|which| which.as_str() == name)?;
        Some(WholeBodyKey {
            entry: LogKey::parse(entry)?,
            which,
        })
    }
}

/// A batch's row: `{batch}/{line, ten digits}`, zero-padded so that a batch's rows are one key
/// range in line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowKey {
    pub batch: String,
    pub line: usize,
}

impl StoreKey for RowKey {
    fn text(&self) -> String {
        format!("{}/{:010}", self.batch, self.line)
    }

    fn parse(text: &str) -> Option<Self> {
        let (batch, line) = text.rsplit_once('/')?;
        Some(RowKey {
            batch: batch.to_owned(),
            line: line.parse().ok()?,
        })
    }
}

/// What the console knows of a workspace besides its entries, one value each:
/// `{workspace}/{what}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkspaceFact {
    /// When this browser started keeping the workspace's history.
    HistorySince,
    /// Its reads of the runs list.
    ListReads,
    /// The person's switch to stop keeping the request log.
    LogPaused,
    /// The balances this browser read (`model::ledger`).
    BalanceReadings,
    /// Its chains, started and saved (`model::chain::kept`).
    Chains,
}

impl WorkspaceFact {
    fn as_str(self) -> &'static str {
        match self {
            WorkspaceFact::HistorySince => "since",
            WorkspaceFact::ListReads => "list-reads",
            WorkspaceFact::LogPaused => "log-paused",
            WorkspaceFact::BalanceReadings => "balance-readings",
            WorkspaceFact::Chains => "chains",
        }
    }
}

/// The meta key of one of a workspace's facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactKey {
    pub workspace: String,
    pub fact: WorkspaceFact,
}

impl StoreKey for FactKey {
    fn text(&self) -> String {
        format!("{}/{}", self.workspace, self.fact.as_str())
    }

    fn parse(text: &str) -> Option<Self> {
        let (workspace, name) = split_workspace(text)?;
        let fact = [
            WorkspaceFact::HistorySince,
            WorkspaceFact::ListReads,
            WorkspaceFact::LogPaused,
            WorkspaceFact::BalanceReadings,
            WorkspaceFact::Chains,
        ]
        .into_iter()
        .find(|fact| fact.as_str() == name)?;
        Some(FactKey {
            workspace: workspace.to_owned(),
            fact,
        })
    }
}

/// A browser-wide meta key: a name without `/` (the outputs' index, their allowance, whether
/// persistence was asked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrowserKey(pub &'static str);

impl StoreKey for BrowserKey {
    fn text(&self) -> String {
        self.0.to_owned()
    }

    /// Browser-wide keys are named in the code, never read back from the store.
    fn parse(_: &str) -> Option<Self> {
        None
    }
}

/// How a table's values are written as the store's text, and read back.
pub trait Codec<T> {
    fn encode(value: &T) -> Result<String, StoreError>;
    /// `Err(StoreError::Damaged)` for text that is not a value of the table.
    fn decode(text: &str) -> Result<T, StoreError>;
}

/// Values as JSON text (every table but the whole bodies).
pub struct Json;

impl<T: Serialize + DeserializeOwned> Codec<T> for Json {
    fn encode(value: &T) -> Result<String, StoreError> {
        serde_json::to_string(value)
            .map_err(|error| StoreError::Failed(format!("not written as JSON: {error}")))
    }

    fn decode(text: &str) -> Result<T, StoreError> {
        serde_json::from_str(text).map_err(|_| StoreError::Damaged)
    }
}

/// Values as the text itself (the log's whole bodies).
pub struct Text;

impl Codec<String> for Text {
    fn encode(value: &String) -> Result<String, StoreError> {
        Ok(value.clone())
    }

    fn decode(text: &str) -> Result<String, StoreError> {
        Ok(text.to_owned())
    }
}

/// What a [`Table`] is of, in its type only (`fn` so that a table is `Send`, `Sync` and
/// `Copy` whatever its key and value).
type Shape<K, T, C> = PhantomData<fn() -> (K, T, C)>;

/// One table: values of type `T` by keys of type `K`, in the IndexedDB store `store` (a store
/// may hold several tables, as the meta store does, each under its own keys).
pub struct Table<K, T, C = Json> {
    pub store: &'static str,
    shape: Shape<K, T, C>,
}

impl<K, T, C> Clone for Table<K, T, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, T, C> Copy for Table<K, T, C> {}

impl<K, T, C> fmt::Debug for Table<K, T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Table({})", self.store)
    }
}

impl<K: StoreKey, T, C: Codec<T>> Table<K, T, C> {
    pub const fn new(store: &'static str) -> Self {
        Table {
            store,
            shape: PhantomData,
        }
    }

    /// The value as the store's text; `Err` rather than an empty text when it cannot be
    /// written.
    pub fn encode(&self, value: &T) -> Result<String, StoreError> {
        C::encode(value)
    }

    /// The store's text as a value; `Err(StoreError::Damaged)` when it is not one.
    pub fn decode(&self, text: &str) -> Result<T, StoreError> {
        C::decode(text)
    }

    /// What a read answered (`None`: nothing under the key) as a value.
    pub fn decode_read(&self, text: Option<&str>) -> Result<Option<T>, StoreError> {
        text.map(|text| self.decode(text)).transpose()
    }

    /// Values read in a list: those that read, and how many did not.
    pub fn decode_all(&self, texts: impl IntoIterator<Item = Option<String>>) -> Listed<T> {
        let mut listed = Listed::default();
        for text in texts {
            match text.as_deref().map(|text| self.decode(text)) {
                Some(Ok(value)) => listed.items.push(value),
                _ => listed.damaged += 1,
            }
        }
        listed
    }
}

/// Values read back as a list, with how many could not be read (damaged: left out, and told).
#[derive(Clone, Debug, PartialEq)]
pub struct Listed<T> {
    pub items: Vec<T>,
    pub damaged: usize,
}

impl<T> Default for Listed<T> {
    fn default() -> Self {
        Listed {
            items: Vec::new(),
            damaged: 0,
        }
    }
}

impl<T> Listed<T> {
    /// The items, or `Err(StoreError::Damaged)` if any could not be read: for a caller that
    /// needs them all (a batch's rows).
    pub fn whole(self) -> Result<Vec<T>, StoreError> {
        if self.damaged > 0 {
            Err(StoreError::Damaged)
        } else {
            Ok(self.items)
        }
    }

    /// Adds the values of `more` (another slice of the same list).
    pub fn extend(&mut self, more: Listed<T>) {
        self.items.extend(more.items);
        self.damaged += more.damaged;
    }

    /// What the person is told of the values left out, naming them as `one` or `many` ("kept
    /// run", "kept runs"); `None` when none were.
    pub fn left_out(&self, one: &str, many: &str) -> Option<String> {
        left_out(self.damaged, one, many)
    }
}

/// The sentence that says `damaged` entries (`one` of them, or `many`) could not be read and
/// were left out; `None` when none was.
pub fn left_out(damaged: usize, one: &str, many: &str) -> Option<String> {
    match damaged {
        0 => None,
        1 => Some(format!(
            "1 {one} could not be read (damaged) and was left out."
        )),
        n => Some(format!(
            "{n} {many} could not be read (damaged) and were left out."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<K: StoreKey + PartialEq + fmt::Debug>(key: K, text: &str) {
        assert_eq!(key.text(), text);
        assert_eq!(K::parse(text), Some(key));
    }

    #[test]
    fn keys_are_written_as_the_console_always_wrote_them() {
        round_trip(
            RunKey {
                workspace: "ws_1".into(),
                id: "run_9".into(),
            },
            "ws_1/run_9",
        );
        round_trip(
            LogKey {
                workspace: "ws_1".into(),
                id: "0001700000000000-0000abcd".into(),
            },
            "ws_1/0001700000000000-0000abcd",
        );
        round_trip(
            WholeBodyKey {
                entry: LogKey {
                    workspace: "ws_1".into(),
                    id: "e1".into(),
                },
                which: WholeBody::Answer,
            },
            "ws_1/e1/answer",
        );
        round_trip(
            RowKey {
                batch: "b-1".into(),
                line: 42,
            },
            "b-1/0000000042",
        );
        round_trip(
            FactKey {
                workspace: "ws_1".into(),
                fact: WorkspaceFact::ListReads,
            },
            "ws_1/list-reads",
        );
        round_trip(
            FactKey {
                workspace: "ws_1".into(),
                fact: WorkspaceFact::HistorySince,
            },
            "ws_1/since",
        );
        round_trip(
            FactKey {
                workspace: "ws_1".into(),
                fact: WorkspaceFact::LogPaused,
            },
            "ws_1/log-paused",
        );
        round_trip(
            FactKey {
                workspace: "ws_1".into(),
                fact: WorkspaceFact::BalanceReadings,
            },
            "ws_1/balance-readings",
        );
        assert_eq!(BrowserKey("outputs-index").text(), "outputs-index");
    }

    #[test]
    fn keys_of_another_shape_are_not_read() {
        assert_eq!(RunKey::parse("no-slash"), None);
        assert_eq!(RunKey::parse("/run"), None);
        assert_eq!(RowKey::parse("b/not-a-line"), None);
        assert_eq!(FactKey::parse("ws/unknown"), None);
        assert_eq!(WholeBodyKey::parse("ws/e1/other"), None);
        assert_eq!(workspace_of("outputs-index"), None);
        assert_eq!(workspace_of("ws_1/since"), Some("ws_1"));
    }

    #[test]
    fn rows_keys_sort_as_their_lines() {
        let key = |line| {
            RowKey {
                batch: "b".into(),
                line,
            }
            .text()
        };
        assert!(key(9) < key(10));
        assert!(key(99) < key(100_000));
    }

    const NUMBERS: Table<String, Vec<u32>> = Table::new("numbers");

    #[test]
    fn a_damaged_value_is_an_error_and_counted_in_a_list() {
        assert_eq!(NUMBERS.decode("[1,2]"), Ok(vec![1, 2]));
        assert_eq!(NUMBERS.decode("{not json"), Err(StoreError::Damaged));
        assert_eq!(NUMBERS.decode_read(None), Ok(None));
        assert_eq!(NUMBERS.decode_read(Some("[3]")), Ok(Some(vec![3])));
        let listed = NUMBERS.decode_all([
            Some("[1]".to_owned()),
            Some("oops".to_owned()),
            None,
            Some("[2]".to_owned()),
        ]);
        assert_eq!(listed.items, vec![vec![1], vec![2]]);
        assert_eq!(listed.damaged, 2);
        assert_eq!(
            listed.left_out("kept run", "kept runs").as_deref(),
            Some("2 kept runs could not be read (damaged) and were left out.")
        );
        assert_eq!(listed.clone().whole(), Err(StoreError::Damaged));
        let whole = NUMBERS.decode_all([Some("[1]".to_owned())]);
        assert_eq!(whole.left_out("row", "rows"), None);
        assert_eq!(whole.whole(), Ok(vec![vec![1]]));
    }

    #[test]
    fn a_value_that_cannot_be_json_is_an_error_not_an_empty_text() {
        // JSON objects have text keys only: a map keyed by pairs has no JSON.
        let table: Table<String, std::collections::HashMap<(u8, u8), u8>> = Table::new("t");
        let value = std::collections::HashMap::from([((1, 2), 3)]);
        assert!(matches!(table.encode(&value), Err(StoreError::Failed(_))));
    }

    #[test]
    fn text_values_are_kept_as_they_are() {
        let bodies: Table<WholeBodyKey, String, Text> = Table::new("log_whole");
        assert_eq!(bodies.encode(&"{not json".to_owned()).unwrap(), "{not json");
        assert_eq!(bodies.decode("plain").unwrap(), "plain");
    }
}
