//! The batch's merged export: every row with its input, its run and its records, as CSV, JSON or
//! JSON Lines, written a slice of rows at a time ([`MergedExport`]).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::rows::{BatchRow, RowError, RowState};
use crate::model::output::{CsvText, cell, plain};

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

/// The fields of the contract that name a record for good: an enriched profile's
/// `network_profile_identifier` and a post's `social_id` (section 2.2).
pub const CONTRACT_RECORD_IDS: [&str; 2] = [
    api_contract::chain::NETWORK_PROFILE_IDENTIFIER,
    api_contract::chain::SOCIAL_ID,
];

/// How the merged export tells that two records are the same, to write each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SameRecord {
    /// By the ids the contract names ([`CONTRACT_RECORD_IDS`]).
    ContractIds,
    /// By the text of a column the person picked (a record's field, `a.b` for a nested one).
    Column(String),
}

impl SameRecord {
    /// What names `record`; `None` (never a duplicate) when it has no such value.
    fn identity(&self, record: &Value) -> Option<String> {
        let named = |column: &str| {
            cell(record, column)
                .map(plain)
                .filter(|text| !text.is_empty())
                .map(|text| format!("{column}\u{0}{text}"))
        };
        match self {
            SameRecord::ContractIds => CONTRACT_RECORD_IDS.iter().find_map(|id| named(id)),
            SameRecord::Column(column) => named(column),
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
    /// With [`MergedExport::without_duplicates`]: how records are told apart, the identities
    /// written so far (one string per record written: bounded by the batch's records) and how
    /// many were left out.
    same_record: Option<SameRecord>,
    seen: HashSet<String>,
    duplicates_removed: usize,
}

impl MergedExport {
    pub fn new(format: ExportFormat, headers: Vec<String>, output_columns: Vec<String>) -> Self {
        MergedExport {
            format,
            headers,
            output_columns,
            rows_written: 0,
            same_record: None,
            seen: HashSet::new(),
            duplicates_removed: 0,
        }
    }

    /// Writes a record met before (as `same_record` tells) only the first time.
    pub fn without_duplicates(mut self, same_record: SameRecord) -> Self {
        self.same_record = Some(same_record);
        self
    }

    /// Records left out as duplicates so far.
    pub fn duplicates_removed(&self) -> usize {
        self.duplicates_removed
    }

    /// `row`'s records to write: all of them, or those not met before.
    fn new_records(&mut self, row: &BatchRow) -> Vec<Value> {
        let Some(same_record) = &self.same_record else {
            return row.output.clone();
        };
        let mut kept = Vec::with_capacity(row.output.len());
        for record in &row.output {
            let met_before = same_record
                .identity(record)
                .is_some_and(|identity| !self.seen.insert(identity));
            if met_before {
                self.duplicates_removed += 1;
            } else {
                kept.push(record.clone());
            }
        }
        kept
    }

    pub fn start(&self) -> String {
        match self.format {
            ExportFormat::Csv => {
                let fixed = [
                    "line",
                    "run_id",
                    "status",
                    "error_code",
                    "error_message",
                    "same_as_line",
                    "reused",
                ];
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
                    let item = self.json_item(row);
                    out.push_str(&serde_json::to_string_pretty(&item).unwrap_or_default());
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
    fn csv_row(&mut self, row: &BatchRow, csv: &mut CsvText) {
        let failure = Self::failure(row);
        let mut lead: Vec<String> = vec![row.line.to_string()];
        lead.extend((0..self.headers.len()).map(|i| row.cells.get(i).cloned().unwrap_or_default()));
        lead.push(row.run_id.clone().unwrap_or_default());
        lead.push(row.state.label().to_owned());
        lead.push(failure.map(|e| e.code.clone()).unwrap_or_default());
        lead.push(failure.map(|e| e.message.clone()).unwrap_or_default());
        lead.push(
            row.repeat_of
                .map(|line| line.to_string())
                .unwrap_or_default(),
        );
        lead.push(if row.reuses.is_some() { "yes" } else { "" }.to_owned());
        let records = self.new_records(row);
        if records.is_empty() {
            let empty = self.output_columns.iter().map(|_| String::new());
            csv.line(lead.iter().cloned().chain(empty));
        }
        for record in &records {
            let cells = self
                .output_columns
                .iter()
                .map(|c| cell(record, c).map_or_else(String::new, plain));
            csv.line(lead.iter().cloned().chain(cells));
        }
    }

    fn json_item(&mut self, row: &BatchRow) -> Value {
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
            "same_as_line": row.repeat_of,
            "reused": row.reuses.is_some(),
            "records": self.new_records(row),
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
    use api_contract::ActionId;

    use super::*;
    use crate::model::bulk::fixtures::{SampleBatch, run, sample_batch};

    #[test]
    fn the_merged_csv_has_every_record_with_its_input_and_neutralised_cells() {
        let SampleBatch { headers, mut rows } = sample_batch(
            ActionId::PremiumSearchPeople,
            "keywords,team\n=cmd,a\nb,b\n",
        );
        rows[0].take_run(&run(api_contract::RunStatus::Completed, 2, 2));
        rows[1].take_run(&run(api_contract::RunStatus::Failed, 0, 0));
        let csv = merged_export(ExportFormat::Csv, &headers, &rows);
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines[0],
            "line,input.keywords,input.team,run_id,status,error_code,error_message,same_as_line,reused,name"
        );
        assert_eq!(lines[1], "2,'=cmd,a,r1,completed,,,,,'=p0");
        assert_eq!(lines[2], "2,'=cmd,a,r1,completed,,,,,'=p1");
        assert_eq!(lines[3], "3,b,b,r1,failed,upstream_timeout,slow,,,");
        assert_eq!(lines.len(), 4);
        let json: Value =
            serde_json::from_str(&merged_export(ExportFormat::Json, &headers, &rows)).unwrap();
        assert_eq!(json[0]["input"]["keywords"], "=cmd");
        assert_eq!(json[0]["records"].as_array().unwrap().len(), 2);
        assert_eq!(json[1]["error"]["code"], "upstream_timeout");
    }

    #[test]
    fn records_met_before_are_left_out_on_request_and_repeats_are_marked() {
        let SampleBatch { headers, mut rows } = sample_batch(
            ActionId::NetworkExtractPeoplePostActivity,
            "identifier\nada\nbob\nada\n",
        );
        let post = |social_id: &str, text: &str| serde_json::json!({ "social_id": social_id, "text": text });
        let mut first = run(api_contract::RunStatus::Completed, 3, 0);
        first.output = vec![post("s1", "a"), post("s2", "b"), post("", "no id")];
        rows[0].take_run(&first);
        let mut second = run(api_contract::RunStatus::Completed, 2, 0);
        second.id = "r2".into();
        second.output = vec![post("s2", "b again"), post("s3", "c")];
        rows[1].take_run(&second);
        assert_eq!(rows[2].repeat_of, Some(2));
        let repeat = rows[2].with_results_of(&rows[0]);
        let rows = vec![rows[0].clone(), rows[1].clone(), repeat];

        let all = merged_export(ExportFormat::JsonLines, &headers, &rows);
        let items: Vec<Value> = all
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(items[2]["same_as_line"], 2);
        assert_eq!(items[2]["run_id"], "r1");
        assert_eq!(items[2]["records"].as_array().unwrap().len(), 3);
        assert_eq!(items[0]["same_as_line"], Value::Null);

        let mut columns = Vec::new();
        add_output_columns(&mut columns, &rows);
        let mut export = MergedExport::new(ExportFormat::Csv, headers.clone(), columns)
            .without_duplicates(SameRecord::ContractIds);
        let csv = [export.start(), export.rows(&rows), export.finish()].concat();
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        // s2 once; the record without an id kept both times; line 4 keeps its line, marked,
        // with only its record that has no id.
        assert_eq!(
            lines[1..],
            [
                "2,ada,r1,completed,,,,,s1,a",
                "2,ada,r1,completed,,,,,s2,b",
                "2,ada,r1,completed,,,,,,no id",
                "3,bob,r2,completed,,,,,s3,c",
                "4,ada,r1,completed,,,2,,,no id",
            ]
        );
        assert_eq!(export.duplicates_removed(), 3);

        let mut by_text = MergedExport::new(ExportFormat::Json, headers, Vec::new())
            .without_duplicates(SameRecord::Column("text".into()));
        let _ = [by_text.start(), by_text.rows(&rows), by_text.finish()].concat();
        assert_eq!(by_text.duplicates_removed(), 3, "line 4's three texts");
    }

    #[test]
    fn an_export_written_a_slice_at_a_time_is_the_whole_export() {
        let SampleBatch { headers, mut rows } =
            sample_batch(ActionId::PremiumSearchPeople, "keywords\na\nb\nc\n");
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
            let mut export = MergedExport::new(format, headers.clone(), columns);
            let mut parts = vec![export.start()];
            parts.extend(rows.chunks(1).map(|slice| export.rows(slice)));
            parts.push(export.finish());
            assert_eq!(
                parts.concat(),
                merged_export(format, &headers, &rows),
                "{format:?}"
            );
        }
        let lines = merged_export(ExportFormat::JsonLines, &headers, &rows);
        let items: Vec<Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0]["records"].as_array().unwrap().len(), 2);
        assert_eq!(items[1]["status"], "waiting");
        let json: Value =
            serde_json::from_str(&merged_export(ExportFormat::Json, &headers, &rows)).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 3);
    }
}
