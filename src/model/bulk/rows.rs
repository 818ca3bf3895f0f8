//! A batch's rows and what became of them: each row's idempotency key ([`row_key`]), its
//! [`RowState`], the [`BatchRow`] and [`SavedBatch`] kept in this browser, and the [`Tally`] of
//! rows by state.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::checks::{CheckedRow, describe};
use super::clock::EngineTime;
use super::pacer::LearnedPace;
use crate::model::archive::ForgottenOutput;

/// The `Idempotency-Key` of a row's `attempt`-th submission in batch `batch` (a 32-digit hex
/// id): fixed before the first try and the same on every retry and after a reload, so the API
/// answers a repeat with the run it already made. "Retry failed rows" moves to a new attempt.
pub fn row_key(batch: &str, attempt: u32, line: usize) -> String {
    format!("bulk-{batch}-{attempt}-{line}")
}

/// Where a row stands. Kept in this browser by its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowState {
    /// Breaks a rule; never sent.
    Invalid,
    /// Not sent yet (or to be sent again with the same key).
    Waiting,
    /// A submission is on its way.
    Submitting,
    Queued,
    Processing,
    Completed,
    /// The run failed, or the API refused the row (400).
    Failed,
    /// Cancelled, or never sent because the batch was cancelled.
    Cancelled,
    /// Asks what an earlier row asks (`model::same_input`): never sent; it shows and exports
    /// the results of that row ([`BatchRow::repeat_of`]).
    Repeat,
}

impl RowState {
    pub const ALL: [RowState; 9] = [
        RowState::Waiting,
        RowState::Submitting,
        RowState::Queued,
        RowState::Processing,
        RowState::Completed,
        RowState::Failed,
        RowState::Cancelled,
        RowState::Invalid,
        RowState::Repeat,
    ];

    pub fn label(self) -> &'static str {
        match self {
            RowState::Invalid => "invalid",
            RowState::Waiting => "waiting",
            RowState::Submitting => "submitting",
            RowState::Queued => "queued",
            RowState::Processing => "processing",
            RowState::Completed => "completed",
            RowState::Failed => "failed",
            RowState::Cancelled => "cancelled",
            RowState::Repeat => "repeat",
        }
    }

    /// Nothing more will happen to the row.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            RowState::Invalid
                | RowState::Completed
                | RowState::Failed
                | RowState::Cancelled
                | RowState::Repeat
        )
    }

    /// The batch sends the row (or sent it): neither invalid nor a repeat of another row.
    pub fn is_sent(self) -> bool {
        !matches!(self, RowState::Invalid | RowState::Repeat)
    }

    /// A run exists and has not finished: the batch watches it.
    pub fn is_running(self) -> bool {
        matches!(self, RowState::Queued | RowState::Processing)
    }

    pub fn from_run(status: api_contract::RunStatus) -> RowState {
        use api_contract::RunStatus as S;
        match status {
            S::Queued => RowState::Queued,
            S::Processing => RowState::Processing,
            S::Completed => RowState::Completed,
            S::Failed => RowState::Failed,
            S::Cancelled => RowState::Cancelled,
        }
    }
}

/// Why a row failed: the API's refusal, the run's error, or the rules an invalid row breaks.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RowError {
    pub code: String,
    pub message: String,
    /// The answer's `x-request-id`, to quote in a support ticket, when an answer refused it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// A row's error as kept: today's object, or the `[code, message]` pair that batches kept
/// before it.
fn kept_row_error<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<RowError>, D::Error> {
    use serde::de::Error;
    match Option::<Value>::deserialize(deserializer)? {
        None => Ok(None),
        Some(Value::Array(pair)) => match <[String; 2]>::deserialize(Value::Array(pair)) {
            Ok([code, message]) => Ok(Some(RowError {
                code,
                message,
                request_id: None,
            })),
            Err(e) => Err(D::Error::custom(e)),
        },
        Some(object) => RowError::deserialize(object)
            .map(Some)
            .map_err(D::Error::custom),
    }
}

/// One row of a batch and what became of it; kept in this browser as JSON (see `store`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchRow {
    pub line: usize,
    pub cells: Vec<String>,
    pub body: String,
    pub estimate: u64,
    pub state: RowState,
    /// Which submission the key belongs to: 0, then one more per "Retry failed rows".
    pub attempt: u32,
    /// Tries of the current submission (retries with the same key); starts again after a reload.
    #[serde(skip)]
    pub tries: u32,
    /// Not to be sent before this time: a backoff after an error.
    #[serde(skip)]
    pub not_before: EngineTime,
    pub run_id: Option<String>,
    pub credits_used: u64,
    /// The run's records while they are in memory: once a finished row is written to this
    /// browser's store, its records stay there only (exports read them from the store), and
    /// [`BatchRow::records`] says how many there are.
    pub output: Vec<Value>,
    /// How many records the run returned.
    #[serde(default)]
    pub records: usize,
    /// A refusal or a failed run's error; for an invalid row, its broken rules.
    #[serde(default, deserialize_with = "kept_row_error")]
    pub error: Option<RowError>,
    /// For a [`RowState::Repeat`] row, the line of the first row that asks the same question:
    /// this row is never sent, and shows and exports that row's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_of: Option<usize>,
    /// The id of a run made before (kept in this browser, asking the same question) whose
    /// results the person chose to reuse: the row is never sent; the batch reads that run, and
    /// the row shows its results and charges nothing. The API no longer knowing the run sends
    /// the row after all (see the engine's reading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuses: Option<String>,
    /// Its records were forgotten by the expiry rule (`model::expiry::batch_expiry`): when, and
    /// after how many days. The row keeps its state, run, cost and [`BatchRow::records`] count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records_forgotten: Option<ForgottenOutput>,
}

impl BatchRow {
    /// The row's records to explore, each one object: the row's `line`, its input cells as
    /// `input.{header}`, its `run_id`, then the record's own fields (a record that is not an
    /// object under `value`), as the merged CSV export lays them out.
    pub fn into_explored_records(self, headers: &[String]) -> Vec<Value> {
        let mut leading = serde_json::Map::new();
        leading.insert("line".to_owned(), Value::from(self.line));
        for (header, cell) in headers.iter().zip(&self.cells) {
            leading.insert(format!("input.{header}"), Value::from(cell.as_str()));
        }
        if let Some(run_id) = &self.run_id {
            leading.insert("run_id".to_owned(), Value::from(run_id.as_str()));
        }
        self.output
            .into_iter()
            .map(|record| {
                let mut merged = leading.clone();
                match record {
                    Value::Object(fields) => merged.extend(fields),
                    other => {
                        merged.insert("value".to_owned(), other);
                    }
                }
                Value::Object(merged)
            })
            .collect()
    }

    pub fn new(row: CheckedRow) -> BatchRow {
        let invalid = !row.errors.is_empty();
        BatchRow {
            line: row.line,
            cells: row.cells,
            body: row.body,
            estimate: row.estimate,
            state: if invalid {
                RowState::Invalid
            } else if row.repeat_of.is_some() {
                RowState::Repeat
            } else if row.reuses.is_some() {
                // Its run exists already: the batch reads it, as it reads a queued run.
                RowState::Queued
            } else {
                RowState::Waiting
            },
            repeat_of: row.repeat_of,
            reuses: row.reuses.clone(),
            attempt: 0,
            tries: 0,
            not_before: EngineTime::EPOCH,
            run_id: row.reuses,
            credits_used: 0,
            output: Vec::new(),
            records: 0,
            records_forgotten: None,
            error: invalid.then(|| RowError {
                code: "invalid".to_owned(),
                message: describe(&row.errors),
                request_id: None,
            }),
        }
    }

    /// Takes a run's latest state: status, credits, records and error. A snapshot of the row's
    /// own run older than what the row shows is ignored, since a run's status only moves forward
    /// (queued, processing, then final): a status list asked for before a cancel was answered
    /// must not bring the cancelled run back as processing.
    pub fn take_run(&mut self, run: &api_contract::Run) {
        let stage = |state: RowState| match state {
            RowState::Queued => 0,
            RowState::Processing => 1,
            _ => 2,
        };
        let same_run = self.run_id.as_deref() == Some(run.id.as_str());
        if same_run && stage(RowState::from_run(run.status)) < stage(self.state) {
            return;
        }
        self.run_id = Some(run.id.clone());
        self.state = RowState::from_run(run.status);
        // A reused run was charged when it was made, not by this batch.
        self.credits_used = if self.reuses.is_some() {
            0
        } else {
            run.credits_used
        };
        if run.status.is_terminal() {
            self.output = run.output.clone();
            self.records = run.output.len();
        }
        self.error = run.error.as_ref().map(|e| RowError {
            code: e.code.clone(),
            message: e.message.clone(),
            request_id: None,
        });
    }
}

impl BatchRow {
    /// A repeat row as it is shown and exported: its own line, cells and [`BatchRow::repeat_of`],
    /// with the state, run, records and error of `first`, the row whose question it repeats.
    /// It charged nothing: the credits are the first row's.
    pub fn with_results_of(&self, first: &BatchRow) -> BatchRow {
        BatchRow {
            state: first.state,
            run_id: first.run_id.clone(),
            credits_used: 0,
            output: first.output.clone(),
            records: first.records,
            records_forgotten: first.records_forgotten,
            error: first.error.clone(),
            ..self.clone()
        }
    }
}

/// A batch's summary as kept in this browser: enough to list it and to take it up again. Its
/// rows are kept apart, one entry each (see `store`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedBatch {
    pub id: String,
    /// Only sign-ins to this workspace see the batch.
    pub workspace: String,
    pub action: String,
    pub headers: Vec<String>,
    /// When the batch was started, ms since the epoch.
    pub created_at: f64,
    pub cancelled: bool,
    /// Every row is final.
    pub done: bool,
    pub to_send: usize,
    pub finished: usize,
    /// The rate limit's pace as learned so far (absent in batches kept before it was kept).
    #[serde(default)]
    pub pace: Option<LearnedPace>,
    /// The most the batch may commit, in credits (absent: no budget, as batches kept before
    /// budgets were).
    #[serde(default)]
    pub budget: Option<u64>,
    /// What runs of earlier attempts charged ("Retry failed rows" moved their rows on).
    #[serde(default)]
    pub charged_before: u64,
    /// With a budget, the lines whose key may have made a run the batch has not heard of: sent
    /// without an answer, or cleared to be sent before the next save. A reload counts their
    /// worst case and sends them again with the same key; any other waiting row was never sent.
    /// Without it (no budget), every waiting row may have been sent.
    #[serde(default)]
    pub may_have_run: Option<Vec<usize>>,
    /// What its runs charged and how many rows failed, as this save holds them (absent in
    /// batches kept before it was): a done batch is counted without reading its rows back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<SavedCounts>,
    /// What the expiry rule has done with the batch ([`BatchExpiryMarks`]); absent in batches
    /// it has not met.
    #[serde(default, skip_serializing_if = "BatchExpiryMarks::is_empty")]
    pub expiry: BatchExpiryMarks,
}

/// The expiry rule's marks on a batch: when the rule first found it done (its records' days
/// count from there, as a kept output's count from when it was kept), and when it forgot the
/// records. Carried over by the batch's saves while it stays done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchExpiryMarks {
    /// ms since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done_seen_at: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records_forgotten: Option<ForgottenOutput>,
}

impl BatchExpiryMarks {
    pub fn is_empty(&self) -> bool {
        *self == BatchExpiryMarks::default()
    }
}

/// A batch's counts as saved with its rows (see [`SavedBatch::counts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedCounts {
    /// What its runs charged, every attempt included (as `Spending::charged` counts it).
    pub charged: u64,
    /// Rows whose run failed or that the API refused.
    pub failed: usize,
}

/// How many rows are in each state, and the credits so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    counts: HashMap<RowState, usize>,
    /// Rows that will be or were sent (all but invalid ones and repeats).
    pub to_send: usize,
    /// Rows with nothing more to happen, invalid ones and repeats excepted.
    pub finished: usize,
    pub credits_used: u64,
    pub records: usize,
}

impl Tally {
    pub fn of(rows: &[BatchRow]) -> Tally {
        let mut tally = Tally::default();
        for row in rows {
            tally.add(row);
        }
        tally
    }

    /// Counts one more row.
    pub fn add(&mut self, row: &BatchRow) {
        *self.counts.entry(row.state).or_default() += 1;
        if row.state.is_sent() {
            self.to_send += 1;
            if row.state.is_final() {
                self.finished += 1;
            }
        }
        self.credits_used += row.credits_used;
        self.records += row.records;
    }

    /// Counts one row less (before it changes, then [`Tally::add`] counts it as it is now).
    pub fn remove(&mut self, row: &BatchRow) {
        if let Some(n) = self.counts.get_mut(&row.state) {
            *n = n.saturating_sub(1);
        }
        if row.state.is_sent() {
            self.to_send = self.to_send.saturating_sub(1);
            if row.state.is_final() {
                self.finished = self.finished.saturating_sub(1);
            }
        }
        self.credits_used = self.credits_used.saturating_sub(row.credits_used);
        self.records = self.records.saturating_sub(row.records);
    }

    pub fn count(&self, state: RowState) -> usize {
        self.counts.get(&state).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use api_contract::ActionId;
    use api_contract::input::validate_idempotency_key;

    use super::*;
    use crate::model::bulk::fixtures::{SampleBatch, run, sample_batch};
    use crate::model::form::FormError;

    #[test]
    fn row_keys_are_valid_distinct_and_stable() {
        let batch = "0123456789abcdef0123456789abcdef";
        let a = row_key(batch, 0, 10_001);
        assert!(validate_idempotency_key(&a).is_ok(), "{a}");
        assert_eq!(a, row_key(batch, 0, 10_001));
        assert_ne!(a, row_key(batch, 1, 10_001));
        assert_ne!(a, row_key(batch, 0, 1_001));
    }

    #[test]
    fn an_older_snapshot_of_the_same_run_does_not_undo_its_end() {
        use api_contract::RunStatus as S;
        let mut row = sample_batch(ActionId::PremiumSearchPeople, "keywords\na\n")
            .rows
            .remove(0);
        row.take_run(&run(S::Processing, 0, 0));
        row.take_run(&run(S::Queued, 0, 0));
        assert_eq!(
            row.state,
            RowState::Processing,
            "processing does not go back to queued"
        );
        row.take_run(&run(S::Cancelled, 1, 0));
        row.take_run(&run(S::Processing, 0, 0));
        assert_eq!((row.state, row.credits_used), (RowState::Cancelled, 1));
        // Another run (the row sent again after "Retry failed rows") starts over.
        let mut other = run(S::Queued, 0, 0);
        other.id = "r2".into();
        row.take_run(&other);
        assert_eq!(
            (row.state, row.run_id.as_deref()),
            (RowState::Queued, Some("r2"))
        );
    }

    #[test]
    fn tally_counts_states_credits_and_records() {
        let mut rows = sample_batch(ActionId::PremiumSearchPeople, "keywords\na\nb\n\nc\n").rows;
        rows.push(BatchRow::new(CheckedRow {
            line: 9,
            cells: vec![],
            body: String::new(),
            estimate: 0,
            errors: vec![FormError::of_field("keywords", "is required")],
            repeat_of: None,
            reuses: None,
        }));
        rows[0].take_run(&run(api_contract::RunStatus::Completed, 2, 2));
        rows[1].take_run(&run(api_contract::RunStatus::Processing, 0, 0));
        let tally = Tally::of(&rows);
        assert_eq!(
            (
                tally.to_send,
                tally.finished,
                tally.credits_used,
                tally.records
            ),
            (3, 1, 2, 2)
        );
        assert_eq!(tally.count(RowState::Waiting), 1);
        assert_eq!(tally.count(RowState::Invalid), 1);
        assert_eq!(tally.count(RowState::Processing), 1);
    }

    #[test]
    fn explored_records_carry_their_row_line_input_and_run() {
        let SampleBatch { headers, mut rows } =
            sample_batch(ActionId::PremiumSearchPeople, "keywords,team\nrust,a\n");
        rows[0].take_run(&run(api_contract::RunStatus::Completed, 2, 2));
        let explored = rows[0].clone().into_explored_records(&headers);
        assert_eq!(explored.len(), rows[0].output.len());
        let first = explored[0].as_object().unwrap();
        assert_eq!(first["line"], 2);
        assert_eq!(first["input.keywords"], "rust");
        assert_eq!(first["input.team"], "a");
        assert_eq!(first["run_id"], rows[0].run_id.clone().unwrap().as_str());
        for (name, value) in rows[0].output[0].as_object().unwrap() {
            assert_eq!(&first[name], value);
        }
    }

    #[test]
    fn a_row_read_back_after_a_reload_is_the_row_kept() {
        let mut rows = sample_batch(ActionId::PremiumSearchPeople, "keywords\n=a\nb\nc\n").rows;
        rows[0].take_run(&run(api_contract::RunStatus::Failed, 2, 2));
        rows[1].tries = 3;
        rows[1].not_before = EngineTime::from_ms(9e12);
        rows[2].attempt = 2;
        let restored: Vec<BatchRow> = rows
            .iter()
            .map(|r| serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap())
            .collect();
        assert_eq!(restored[0], rows[0], "JSON keeps every kept field");
        assert_eq!(restored[2], rows[2]);
        assert_eq!(
            (restored[1].tries, restored[1].not_before),
            (0, EngineTime::EPOCH),
            "the backoff starts again"
        );
        assert!(serde_json::from_str::<BatchRow>(r#"{ "line": 2 }"#).is_err());
        let summary = SavedBatch {
            id: "b".into(),
            workspace: "ws".into(),
            action: "a".into(),
            headers: vec!["keywords".into()],
            created_at: 1.7e12,
            cancelled: true,
            done: false,
            to_send: 3,
            finished: 1,
            pace: Some(LearnedPace { interval_ms: 480.0 }),
            budget: Some(12_000),
            charged_before: 40,
            may_have_run: Some(vec![3, 7]),
            counts: Some(SavedCounts {
                charged: 52,
                failed: 1,
            }),
            expiry: BatchExpiryMarks {
                done_seen_at: Some(1.8e12),
                records_forgotten: None,
            },
        };
        let back: SavedBatch =
            serde_json::from_str(&serde_json::to_string(&summary).unwrap()).unwrap();
        assert_eq!(back, summary);
    }

    #[test]
    fn rows_and_batches_kept_by_the_console_before_serde_are_read_back() {
        // As the hand-written codec wrote them (error as a [code, message] pair, no pace).
        let row: BatchRow = serde_json::from_str(
            r#"{"line":3,"cells":["b"],"body":"{}","estimate":5,"state":"failed","attempt":1,
                "run_id":"run_1","credits_used":0,"output":[],"error":["upstream_timeout","slow"]}"#,
        )
        .unwrap();
        assert_eq!(row.state, RowState::Failed);
        assert_eq!(
            row.error,
            Some(RowError {
                code: "upstream_timeout".into(),
                message: "slow".into(),
                request_id: None
            })
        );
        let waiting: BatchRow = serde_json::from_str(
            r#"{"line":4,"cells":[],"body":"{}","estimate":1,"state":"waiting","attempt":0,
                "run_id":null,"credits_used":0,"output":[],"error":null}"#,
        )
        .unwrap();
        assert_eq!(waiting.error, None);
        let summary: SavedBatch = serde_json::from_str(
            r#"{"id":"b","workspace":"ws","action":"network-search-schools","headers":["query"],
                "created_at":1.7e12,"cancelled":false,"done":false,"to_send":90,"finished":15}"#,
        )
        .unwrap();
        assert_eq!((summary.to_send, summary.pace), (90, None));
        assert_eq!(
            (summary.budget, summary.charged_before, summary.may_have_run),
            (None, 0, None),
            "kept before budgets: no budget"
        );
    }
}
