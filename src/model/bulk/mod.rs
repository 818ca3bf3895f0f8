//! Bulk runs as data: a pasted or chosen CSV/TSV file read into a table (the `csv` crate),
//! its columns mapped to an action's fields, every row checked with the form's rules (the
//! shared crate's), each row's idempotency key, the batch's rows and their states, the pace
//! that keeps submissions at the API's rate limit, and the merged export.
//!
//! Pure functions, tested natively. [`engine`] runs a batch as a state machine without I/O,
//! at the pace of [`pacer`] and within its credit [`budget`]; `crate::runner` drives it in the
//! bulk worker, `state/bulk.rs` keeps the page's copy and `pages/bulk.rs` renders it.

pub mod budget;
pub mod engine;
pub mod pacer;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use self::pacer::LearnedPace;

use crate::model::form::{FormError, FormModel, MAX_CREDITS, MAX_RESULTS, Values};
use crate::model::output::{CsvText, cell, plain};

/// The most rows one batch takes.
pub const MAX_ROWS: usize = 10_000;

pub use api_contract::RUN_LIST_LIMIT;

/// A CSV or TSV file: its header and its rows, each with the line it starts on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<TableRow>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow {
    /// The file's line where the row starts (the header is line 1), as a spreadsheet numbers it.
    pub line: usize,
    pub cells: Vec<String>,
}

/// Reads pasted or uploaded text: UTF-8 with or without a byte-order mark, comma- or
/// tab-separated (whichever the header line uses more), quoted fields, CRLF or LF. The first
/// line names the columns; blank lines are skipped.
pub fn read_table(text: &str) -> Result<Table, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first_line.is_empty() {
        return Err("The file is empty: the first line should name the columns.".to_owned());
    }
    let delimiter = if first_line.matches('\t').count() > first_line.matches(',').count() {
        b'\t'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut table = Table::default();
    let (mut counted, mut lines_before) = (0, 0);
    let mut rows_read = 0_usize;
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| match e.position() {
            Some(p) => format!("Line {}: {}", p.line(), csv_reason(&e)),
            None => csv_reason(&e),
        })?;
        // The csv crate places a record at the end of the line before it (its own line count is
        // off by one after a CRLF): step over line ends, then count them.
        let mut start = record
            .position()
            .map_or(text.len(), |p| p.byte() as usize)
            .min(text.len());
        while matches!(text.as_bytes().get(start), Some(b'\r' | b'\n')) {
            start += 1;
        }
        lines_before += text.as_bytes()[counted..start]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        counted = start;
        let line = lines_before + 1;
        let cells: Vec<String> = record.iter().map(|c| c.trim().to_owned()).collect();
        if i == 0 {
            if cells.iter().all(String::is_empty) {
                return Err("The first line should name the columns.".to_owned());
            }
            table.headers = cells;
            continue;
        }
        if cells.iter().all(String::is_empty) {
            continue;
        }
        rows_read += 1;
        if table.rows.len() < MAX_ROWS {
            table.rows.push(TableRow { line, cells });
        }
    }
    if rows_read > MAX_ROWS {
        return Err(format!(
            "The file has {} rows; a batch takes at most {}: split it into batches of at most {}.",
            crate::model::format::group_thousands(rows_read as u64),
            crate::model::format::group_thousands(MAX_ROWS as u64),
            crate::model::format::group_thousands(MAX_ROWS as u64),
        ));
    }
    if table.rows.is_empty() {
        return Err("The file has a header line but no rows.".to_owned());
    }
    Ok(table)
}

fn csv_reason(error: &csv::Error) -> String {
    match error.kind() {
        csv::ErrorKind::Utf8 { .. } => "is not UTF-8 text (save the file as CSV UTF-8)".to_owned(),
        _ => error.to_string(),
    }
}

/// Where a field's value comes from, for every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Left empty.
    Unset,
    /// The column at this index.
    Column(usize),
    /// The same text for every row.
    Constant(String),
}

/// A header or field name compared loosely: case, spaces, `_` and `-` do not matter.
pub fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Where each field of the form (inputs, then `max_results` and `max_credits`) takes its value
/// from, in the form's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnMapping(Vec<FieldSource>);

/// One field of a [`ColumnMapping`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSource {
    pub field: String,
    pub source: Source,
}

impl ColumnMapping {
    /// Every field with the column whose header matches its name or label, else
    /// [`Source::Unset`].
    pub fn by_header(form: &FormModel, headers: &[String]) -> ColumnMapping {
        let find = |names: &[&str]| {
            headers
                .iter()
                .position(|h| names.iter().any(|n| loose(h) == loose(n)))
                .map_or(Source::Unset, Source::Column)
        };
        let mut fields: Vec<FieldSource> = form
            .fields
            .iter()
            .map(|f| FieldSource {
                field: f.name.clone(),
                source: find(&[&f.name, &f.label]),
            })
            .collect();
        for limit in [MAX_RESULTS, MAX_CREDITS] {
            fields.push(FieldSource {
                field: limit.to_owned(),
                source: find(&[limit]),
            });
        }
        ColumnMapping(fields)
    }

    /// The fields' names, in the form's order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|f| f.field.as_str())
    }

    /// Where a field takes its value from ([`Source::Unset`] for a name the form lacks).
    pub fn source(&self, field: &str) -> Source {
        self.0
            .iter()
            .find(|f| f.field == field)
            .map_or(Source::Unset, |f| f.source.clone())
    }

    /// Changes where a field takes its value from; a name the form lacks is ignored.
    pub fn set(&mut self, field: &str, source: Source) {
        if let Some(kept) = self.0.iter_mut().find(|f| f.field == field) {
            kept.source = source;
        }
    }

    /// A row's values by field name, as the form would hold them.
    pub fn row_values(&self, cells: &[String]) -> Values {
        self.0
            .iter()
            .map(|f| {
                let value = match &f.source {
                    Source::Unset => String::new(),
                    Source::Column(i) => cells.get(*i).cloned().unwrap_or_default(),
                    Source::Constant(text) => text.trim().to_owned(),
                };
                (f.field.clone(), value)
            })
            .collect()
    }
}

/// A row ready to send, or the rules it breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedRow {
    pub line: usize,
    pub cells: Vec<String>,
    /// The JSON body sent for this row (every retry sends exactly this).
    pub body: String,
    /// The most it may reserve: credits per record × records asked, capped by `max_credits`.
    pub estimate: u64,
    /// The broken rules; empty when the row may be sent.
    pub errors: Vec<FormError>,
}

/// Checks every row with the form's rules, before anything is sent.
pub fn check_rows(form: &FormModel, mapping: &ColumnMapping, table: &Table) -> Vec<CheckedRow> {
    table
        .rows
        .iter()
        .map(|row| {
            let values = mapping.row_values(&row.cells);
            let mut errors = form.errors(&values);
            if row.cells.len() > table.headers.len() {
                errors.push(FormError::spanning(format!(
                    "has {} cells but the header names {} columns",
                    row.cells.len(),
                    table.headers.len()
                )));
            }
            CheckedRow {
                line: row.line,
                cells: row.cells.clone(),
                body: form.body(&values),
                estimate: form.estimate(&values),
                errors,
            }
        })
        .collect()
}

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
}

impl RowState {
    pub const ALL: [RowState; 8] = [
        RowState::Waiting,
        RowState::Submitting,
        RowState::Queued,
        RowState::Processing,
        RowState::Completed,
        RowState::Failed,
        RowState::Cancelled,
        RowState::Invalid,
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
        }
    }

    /// Nothing more will happen to the row.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            RowState::Invalid | RowState::Completed | RowState::Failed | RowState::Cancelled
        )
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Not to be sent before this time (ms since the epoch): a backoff after an error.
    #[serde(skip)]
    pub not_before: f64,
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
            } else {
                RowState::Waiting
            },
            attempt: 0,
            tries: 0,
            not_before: 0.0,
            run_id: None,
            credits_used: 0,
            output: Vec::new(),
            records: 0,
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
        self.credits_used = run.credits_used;
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
}

/// `field reason; …` for people.
pub fn describe(errors: &[FormError]) -> String {
    errors
        .iter()
        .map(FormError::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// How many rows are in each state, and the credits so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    counts: HashMap<RowState, usize>,
    /// Rows that will be or were sent (all but invalid ones).
    pub to_send: usize,
    /// Rows with nothing more to happen, invalid ones excepted.
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
        if row.state != RowState::Invalid {
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
        if row.state != RowState::Invalid {
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

/// The merged export's formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// One line per output record (a row without records gets one line), each with the row's
    /// line, its input columns, the run id and status, and a failed row's error code and
    /// message; then the records' columns. Every cell is neutralised like the run page's.
    Csv,
    /// One array of objects, one per row, with its line, input, run id, status, error and
    /// records.
    Json,
    /// The same objects as [`ExportFormat::Json`], one per line.
    JsonLines,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
            ExportFormat::JsonLines => "jsonl",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            ExportFormat::Csv => "text/csv",
            ExportFormat::Json => "application/json",
            ExportFormat::JsonLines => "application/jsonl",
        }
    }
}

/// Adds the columns of `rows`' records not yet in `columns`, in the order met (a CSV export
/// needs them all before its first line).
pub fn add_output_columns(columns: &mut Vec<String>, rows: &[BatchRow]) {
    for row in rows {
        for column in crate::model::output::columns(&row.output) {
            if !columns.contains(&column) {
                columns.push(column);
            }
        }
    }
}

/// Writes the merged export a slice of rows at a time, so that a large batch is never one
/// string: [`MergedExport::start`], then [`MergedExport::rows`] for each slice in line order,
/// then [`MergedExport::finish`].
pub struct MergedExport {
    format: ExportFormat,
    headers: Vec<String>,
    /// The records' columns (CSV only).
    output_columns: Vec<String>,
    rows_written: usize,
}

impl MergedExport {
    pub fn new(format: ExportFormat, headers: Vec<String>, output_columns: Vec<String>) -> Self {
        MergedExport {
            format,
            headers,
            output_columns,
            rows_written: 0,
        }
    }

    pub fn start(&self) -> String {
        match self.format {
            ExportFormat::Csv => {
                let fixed = ["line", "run_id", "status", "error_code", "error_message"];
                let mut header: Vec<String> = vec![fixed[0].to_owned()];
                header.extend(self.headers.iter().map(|h| format!("input.{h}")));
                header.extend(fixed[1..].iter().map(|s| (*s).to_owned()));
                header.extend(self.output_columns.iter().cloned());
                let mut csv = CsvText::new();
                csv.line(header);
                csv.into_text()
            }
            ExportFormat::Json => "[".to_owned(),
            ExportFormat::JsonLines => String::new(),
        }
    }

    pub fn rows(&mut self, rows: &[BatchRow]) -> String {
        if self.format == ExportFormat::Csv {
            let mut csv = CsvText::new();
            for row in rows {
                self.csv_row(row, &mut csv);
            }
            self.rows_written += rows.len();
            return csv.into_text();
        }
        let mut out = String::new();
        for row in rows {
            match self.format {
                ExportFormat::Csv => unreachable!("written above"),
                ExportFormat::Json => {
                    out.push_str(if self.rows_written == 0 { "\n" } else { ",\n" });
                    out.push_str(
                        &serde_json::to_string_pretty(&self.json_item(row)).unwrap_or_default(),
                    );
                }
                ExportFormat::JsonLines => {
                    out.push_str(&self.json_item(row).to_string());
                    out.push('\n');
                }
            }
            self.rows_written += 1;
        }
        out
    }

    pub fn finish(&self) -> String {
        match self.format {
            ExportFormat::Json => "\n]\n".to_owned(),
            ExportFormat::Csv | ExportFormat::JsonLines => String::new(),
        }
    }

    fn failure(row: &BatchRow) -> Option<&RowError> {
        row.error
            .as_ref()
            .filter(|_| matches!(row.state, RowState::Failed | RowState::Invalid))
    }

    /// A row's CSV lines: one per record, or one for a row without records.
    fn csv_row(&self, row: &BatchRow, csv: &mut CsvText) {
        let failure = Self::failure(row);
        let mut lead: Vec<String> = vec![row.line.to_string()];
        lead.extend((0..self.headers.len()).map(|i| row.cells.get(i).cloned().unwrap_or_default()));
        lead.push(row.run_id.clone().unwrap_or_default());
        lead.push(row.state.label().to_owned());
        lead.push(failure.map(|e| e.code.clone()).unwrap_or_default());
        lead.push(failure.map(|e| e.message.clone()).unwrap_or_default());
        if row.output.is_empty() {
            let empty = self.output_columns.iter().map(|_| String::new());
            csv.line(lead.iter().cloned().chain(empty));
        }
        for record in &row.output {
            let cells = self
                .output_columns
                .iter()
                .map(|c| cell(record, c).map_or_else(String::new, plain));
            csv.line(lead.iter().cloned().chain(cells));
        }
    }

    fn json_item(&self, row: &BatchRow) -> Value {
        let input: Map<String, Value> = self
            .headers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                (
                    h.clone(),
                    Value::String(row.cells.get(i).cloned().unwrap_or_default()),
                )
            })
            .collect();
        serde_json::json!({
            "line": row.line,
            "input": input,
            "run_id": row.run_id,
            "status": row.state.label(),
            "error": Self::failure(row).map(|e| serde_json::json!({ "code": e.code, "message": e.message })),
            "records": row.output,
        })
    }
}

/// The whole merged export of rows held in memory, as one text (tests and small batches).
pub fn merged_export(format: ExportFormat, headers: &[String], rows: &[BatchRow]) -> String {
    let mut columns = Vec::new();
    if format == ExportFormat::Csv {
        add_output_columns(&mut columns, rows);
    }
    let mut export = MergedExport::new(format, headers.to_vec(), columns);
    let mut text = export.start();
    text.push_str(&export.rows(rows));
    text.push_str(&export.finish());
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_contract::ActionId;
    use api_contract::input::validate_idempotency_key;

    fn form(action: ActionId) -> FormModel {
        FormModel::from_entry(&action.sandbox_registry_entry())
    }

    #[test]
    fn reads_quoted_fields_crlf_and_a_byte_order_mark() {
        let t = read_table("\u{feff}first_name,Last Name,company\r\n\"Ada, Countess\",\"Love\"\"lace\",\"Analytical\nEngines\"\r\n\r\nGrace,Hopper,Navy\r\n").unwrap();
        assert_eq!(t.headers, ["first_name", "Last Name", "company"]);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(
            t.rows[0].cells,
            ["Ada, Countess", "Love\"lace", "Analytical\nEngines"]
        );
        assert_eq!(t.rows[0].line, 2);
        // The quoted line break moved the next row down a line; the blank line is skipped.
        assert_eq!((t.rows[1].line, t.rows[1].cells[0].as_str()), (5, "Grace"));
    }

    #[test]
    fn tab_separated_text_is_recognised() {
        let t = read_table("keywords\tmax_results\nrust, wasm\t5\n").unwrap();
        assert_eq!(t.rows[0].cells, ["rust, wasm", "5"]);
    }

    #[test]
    fn empty_headerless_oversized_and_non_utf8_files_are_explained() {
        assert!(read_table("").unwrap_err().contains("empty"));
        assert!(read_table("keywords\n").unwrap_err().contains("no rows"));
        let big = format!("keywords\n{}", "x\n".repeat(MAX_ROWS + 1));
        assert_eq!(
            read_table(&big).unwrap_err(),
            "The file has 10,001 rows; a batch takes at most 10,000: split it into batches of at \
             most 10,000."
        );
        let exactly = format!("keywords\n{}", "x\n".repeat(MAX_ROWS));
        assert_eq!(read_table(&exactly).unwrap().rows.len(), MAX_ROWS);
    }

    #[test]
    fn columns_map_by_name_or_label_loosely() {
        let f = form(ActionId::PremiumSearchPerson);
        let headers: Vec<String> = ["Company", "FIRST NAME", "last-name", "Max Results", "x"]
            .map(String::from)
            .into();
        let m = ColumnMapping::by_header(&f, &headers);
        let source = |name: &str| m.source(name);
        assert_eq!(source("first_name"), Source::Column(1));
        assert_eq!(source("last_name"), Source::Column(2));
        assert_eq!(source("company"), Source::Column(0));
        assert_eq!(source("network_profile_url"), Source::Unset);
        assert_eq!(source(MAX_RESULTS), Source::Column(3));
        assert_eq!(source(MAX_CREDITS), Source::Unset);
    }

    #[test]
    fn rows_are_checked_with_the_form_rules_and_constants_apply_to_every_row() {
        let f = form(ActionId::PremiumSearchPerson);
        let t = read_table("first_name,last_name,max_results\nAda,Lovelace,3\n,Hopper,3\nAlan,Turing,500\nA,B,1,extra\n").unwrap();
        let mut m = ColumnMapping::by_header(&f, &t.headers);
        m.set("company", Source::Constant(" Acme ".into()));
        let rows = check_rows(&f, &m, &t);
        assert!(rows[0].errors.is_empty(), "{:?}", rows[0].errors);
        let body: Value = serde_json::from_str(&rows[0].body).unwrap();
        assert_eq!(body["input"]["company"], "Acme");
        assert_eq!(body["max_results"], 3);
        assert_eq!(rows[0].estimate, 3);
        assert!(rows[1].errors[0].is_for("first_name"));
        assert!(rows[2].errors[0].is_for(MAX_RESULTS));
        assert!(describe(&rows[3].errors).contains("4 cells"));
    }

    #[test]
    fn row_keys_are_valid_distinct_and_stable() {
        let batch = "0123456789abcdef0123456789abcdef";
        let a = row_key(batch, 0, 10_001);
        assert!(validate_idempotency_key(&a).is_ok(), "{a}");
        assert_eq!(a, row_key(batch, 0, 10_001));
        assert_ne!(a, row_key(batch, 1, 10_001));
        assert_ne!(a, row_key(batch, 0, 1_001));
    }

    fn run(status: api_contract::RunStatus, credits: u64, records: usize) -> api_contract::Run {
        serde_json::from_value(serde_json::json!({
            "id": "r1", "action": "premium-search-people", "status": status.as_str(),
            "output": (0..records).map(|i| serde_json::json!({ "name": format!("=p{i}") })).collect::<Vec<_>>(),
            "credits_used": credits, "credits_reserved": 0,
            "created_at": "2026-11-22T10:00:00.000Z", "completed_at": null,
            "completeness": { "has_more": false, "scope": "single_page" },
            "error": if status == api_contract::RunStatus::Failed { serde_json::json!({ "code": "upstream_timeout", "message": "slow" }) } else { Value::Null },
        }))
        .unwrap()
    }

    #[test]
    fn an_older_snapshot_of_the_same_run_does_not_undo_its_end() {
        use api_contract::RunStatus as S;
        let f = form(ActionId::PremiumSearchPeople);
        let t = read_table("keywords\na\n").unwrap();
        let mut row =
            BatchRow::new(check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t).remove(0));
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
        let f = form(ActionId::PremiumSearchPeople);
        let t = read_table("keywords\na\nb\n\nc\n").unwrap();
        let mut rows: Vec<BatchRow> = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t)
            .into_iter()
            .map(BatchRow::new)
            .collect();
        rows.push(BatchRow::new(CheckedRow {
            line: 9,
            cells: vec![],
            body: String::new(),
            estimate: 0,
            errors: vec![FormError::of_field("keywords", "is required")],
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
        let f = form(ActionId::PremiumSearchPeople);
        let t = read_table("keywords,team\nrust,a\n").unwrap();
        let mut rows: Vec<BatchRow> = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t)
            .into_iter()
            .map(BatchRow::new)
            .collect();
        rows[0].take_run(&run(api_contract::RunStatus::Completed, 2, 2));
        let explored = rows[0].clone().into_explored_records(&t.headers);
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
    fn the_merged_csv_has_every_record_with_its_input_and_neutralised_cells() {
        let f = form(ActionId::PremiumSearchPeople);
        let t = read_table("keywords,team\n=cmd,a\nb,b\n").unwrap();
        let mut rows: Vec<BatchRow> = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t)
            .into_iter()
            .map(BatchRow::new)
            .collect();
        rows[0].take_run(&run(api_contract::RunStatus::Completed, 2, 2));
        rows[1].take_run(&run(api_contract::RunStatus::Failed, 0, 0));
        let csv = merged_export(ExportFormat::Csv, &t.headers, &rows);
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines[0],
            "line,input.keywords,input.team,run_id,status,error_code,error_message,name"
        );
        assert_eq!(lines[1], "2,'=cmd,a,r1,completed,,,'=p0");
        assert_eq!(lines[2], "2,'=cmd,a,r1,completed,,,'=p1");
        assert_eq!(lines[3], "3,b,b,r1,failed,upstream_timeout,slow,");
        assert_eq!(lines.len(), 4);
        let json: Value =
            serde_json::from_str(&merged_export(ExportFormat::Json, &t.headers, &rows)).unwrap();
        assert_eq!(json[0]["input"]["keywords"], "=cmd");
        assert_eq!(json[0]["records"].as_array().unwrap().len(), 2);
        assert_eq!(json[1]["error"]["code"], "upstream_timeout");
    }

    #[test]
    fn an_export_written_a_slice_at_a_time_is_the_whole_export() {
        let f = form(ActionId::PremiumSearchPeople);
        let t = read_table("keywords\na\nb\nc\n").unwrap();
        let mut rows: Vec<BatchRow> = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t)
            .into_iter()
            .map(BatchRow::new)
            .collect();
        rows[0].take_run(&run(api_contract::RunStatus::Completed, 2, 2));
        rows[2].take_run(&run(api_contract::RunStatus::Completed, 1, 1));
        for format in [
            ExportFormat::Csv,
            ExportFormat::Json,
            ExportFormat::JsonLines,
        ] {
            let mut columns = Vec::new();
            for slice in rows.chunks(1) {
                add_output_columns(&mut columns, slice);
            }
            let mut export = MergedExport::new(format, t.headers.clone(), columns);
            let mut parts = vec![export.start()];
            parts.extend(rows.chunks(1).map(|slice| export.rows(slice)));
            parts.push(export.finish());
            assert_eq!(
                parts.concat(),
                merged_export(format, &t.headers, &rows),
                "{format:?}"
            );
        }
        let lines = merged_export(ExportFormat::JsonLines, &t.headers, &rows);
        let items: Vec<Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0]["records"].as_array().unwrap().len(), 2);
        assert_eq!(items[1]["status"], "waiting");
        let json: Value =
            serde_json::from_str(&merged_export(ExportFormat::Json, &t.headers, &rows)).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 3);
    }

    #[test]
    fn a_row_read_back_after_a_reload_is_the_row_kept() {
        let f = form(ActionId::PremiumSearchPeople);
        let t = read_table("keywords\n=a\nb\nc\n").unwrap();
        let mut rows: Vec<BatchRow> = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t)
            .into_iter()
            .map(BatchRow::new)
            .collect();
        rows[0].take_run(&run(api_contract::RunStatus::Failed, 2, 2));
        rows[1].tries = 3;
        rows[1].not_before = 9e12;
        rows[2].attempt = 2;
        let restored: Vec<BatchRow> = rows
            .iter()
            .map(|r| serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap())
            .collect();
        assert_eq!(restored[0], rows[0], "JSON keeps every kept field");
        assert_eq!(restored[2], rows[2]);
        assert_eq!(
            (restored[1].tries, restored[1].not_before),
            (0, 0.0),
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

    #[test]
    fn a_max_results_column_above_the_actions_ceiling_is_capped_not_invalid() {
        let f = form(ActionId::NetworkExtractPeople);
        let t = read_table("identifier,max_results\nada,50\nbob,101\n").unwrap();
        let rows = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t);
        assert!(rows[0].errors.is_empty(), "{:?}", rows[0].errors);
        assert_eq!(
            rows[0].estimate,
            f.credits_per_record * u64::from(f.max_results_ceiling)
        );
        let body: Value = serde_json::from_str(&rows[0].body).unwrap();
        assert_eq!(body["max_results"], 50, "sent as written; the API caps it");
        assert_eq!(rows[1].errors.len(), 1, "101 is outside the contract");
    }
}
