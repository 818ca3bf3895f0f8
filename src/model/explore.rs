//! Exploring an output: which columns show and in what order (identity first, then the rest;
//! chosen and reordered by the person and remembered per action), sorting by any column,
//! filtering as one types, and the current view as CSV, JSON or JSON Lines.
//!
//! Built for large record sets: each record's searchable text is computed once (a slice at a
//! time after the explorer opens, [`Explorer::prepare_search`], or what is left of it on the
//! first filter) and a sort computes each record's key once, so a sort or a filter over 10,000
//! records is a pass over plain values.

use std::cmp::Ordering;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::bulk::ExportFormat;
use super::output::{CsvText, cell, columns, export_cell, plain, pretty};

/// Who or what a record is, in the order people look for it: name, title, company, URL, ids.
const IDENTITY: [&str; 20] = [
    "name",
    "full_name",
    "first_name",
    "last_name",
    "title",
    "headline",
    "company",
    "current_company",
    "company_name",
    "school",
    "author",
    "profile_url",
    "url",
    "post_url",
    "company_url",
    "school_url",
    "group_url",
    "public_identifier",
    "social_id",
    "id",
];

/// The most records a page holds as values to explore (sorted and filtered at once, in memory).
/// A bulk batch with more is explored from this browser's store (`model::record_order`); a
/// chain's joined rows are read up to this many (its exports hold them all).
pub const HELD_AT_MOST: usize = 10_000;

/// The records' columns, identity columns first (in [`IDENTITY`]'s order), the rest after in
/// their own order.
pub fn identity_first(found: Vec<String>) -> Vec<String> {
    let mut ordered: Vec<String> = IDENTITY
        .iter()
        .filter(|name| found.iter().any(|f| f == *name))
        .map(|name| (*name).to_owned())
        .collect();
    ordered.extend(
        found
            .into_iter()
            .filter(|f| !IDENTITY.contains(&f.as_str())),
    );
    ordered
}

/// The columns a person chose for an action's outputs: their order and the hidden ones. Kept
/// in this browser per action (`components::OutputExplorer`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnChoice {
    /// Columns in the order chosen; columns not in it follow, identity first.
    pub order: Vec<String>,
    pub hidden: Vec<String>,
}

/// A column as the toolbar lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnState {
    pub name: String,
    pub shown: bool,
}

impl ColumnChoice {
    /// Every column of the records, in the chosen order, each shown or not.
    pub fn arrange(&self, found: &[String]) -> Vec<ColumnState> {
        let mut names: Vec<String> = self
            .order
            .iter()
            .filter(|name| found.contains(name))
            .cloned()
            .collect();
        names.extend(identity_first(
            found
                .iter()
                .filter(|f| !self.order.contains(f))
                .cloned()
                .collect(),
        ));
        names
            .into_iter()
            .map(|name| ColumnState {
                shown: !self.hidden.contains(&name),
                name,
            })
            .collect()
    }

    /// Shows or hides `column`.
    pub fn toggle(&mut self, column: &str) {
        if let Some(at) = self.hidden.iter().position(|h| h == column) {
            self.hidden.remove(at);
        } else {
            self.hidden.push(column.to_owned());
        }
    }

    /// Moves `column` one place earlier (`-1`) or later (`1`) among `arranged`.
    pub fn move_column(&mut self, arranged: &[ColumnState], column: &str, by: isize) {
        let mut names: Vec<String> = arranged.iter().map(|c| c.name.clone()).collect();
        let Some(at) = names.iter().position(|n| n == column) else {
            return;
        };
        let to = at as isize + by;
        if to < 0 || to as usize >= names.len() {
            return;
        }
        names.swap(at, to as usize);
        self.order = names;
    }
}

/// Which way a column is sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortBy {
    pub column: String,
    pub descending: bool,
}

/// A value's place in a sort: numbers before text, text without case, empty last.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum SortKey {
    Number(f64),
    Text(String),
    Missing,
}

pub(super) fn sort_key(value: Option<&Value>) -> SortKey {
    match value {
        None | Some(Value::Null) => SortKey::Missing,
        Some(Value::Number(n)) => n.as_f64().map_or(SortKey::Missing, SortKey::Number),
        Some(Value::Bool(b)) => SortKey::Number(if *b { 1.0 } else { 0.0 }),
        Some(Value::String(s)) if s.is_empty() => SortKey::Missing,
        Some(other) => SortKey::Text(plain(other).to_lowercase()),
    }
}

/// The order of two records' keys in a sort, `descending` or not: empty values stay last
/// either way; equal keys are equal (a stable sort keeps the records' own order).
pub(super) fn sorted_order(a: &SortKey, b: &SortKey, descending: bool) -> Ordering {
    let by = compare(a, b);
    let missing = matches!(a, SortKey::Missing) || matches!(b, SortKey::Missing);
    if descending && !missing {
        by.reverse()
    } else {
        by
    }
}

fn compare(a: &SortKey, b: &SortKey) -> Ordering {
    match (a, b) {
        (SortKey::Number(x), SortKey::Number(y)) => x.total_cmp(y),
        (SortKey::Number(_), SortKey::Text(_)) => Ordering::Less,
        (SortKey::Text(_), SortKey::Number(_)) => Ordering::Greater,
        (SortKey::Text(x), SortKey::Text(y)) => x.cmp(y),
        (SortKey::Missing, SortKey::Missing) => Ordering::Equal,
        (SortKey::Missing, _) => Ordering::Greater,
        (_, SortKey::Missing) => Ordering::Less,
    }
}

/// The words of a filter, each to be found (without case) somewhere in a record.
pub(super) fn filter_words(filter: &str) -> Vec<String> {
    filter.split_whitespace().map(str::to_lowercase).collect()
}

/// A record's search text: its values as lower-case text, apart (a filter's word is found within
/// one value, never across two).
pub(super) fn search_text<'a>(values: impl Iterator<Item = &'a Value>) -> String {
    values
        .map(plain)
        .collect::<Vec<_>>()
        .join("\u{1f}")
        .to_lowercase()
}

/// Records prepared for exploring: their columns and each record's search text.
pub struct Explorer {
    /// The records, shared with whoever handed them over (no copy of a large set).
    pub records: Arc<[Value]>,
    /// Every column, in the records' own order.
    pub found: Vec<String>,
    /// The search text of the first records, in order: each record's values as lower-case
    /// text, for the filter. Made after the first screenful ([`Explorer::prepare_search`]),
    /// finished by the first filter if it comes sooner.
    search: Mutex<Vec<String>>,
}

impl Explorer {
    pub fn new(records: impl Into<Arc<[Value]>>) -> Self {
        let records = records.into();
        Explorer::with_columns(columns(&records), records)
    }

    /// As [`Explorer::new`], with the records' columns already known (`output::columns` of
    /// them, e.g. found while they were read a slice at a time).
    pub fn with_columns(found: Vec<String>, records: impl Into<Arc<[Value]>>) -> Self {
        Explorer {
            found,
            records: records.into(),
            search: Mutex::new(Vec::new()),
        }
    }

    /// Adds the search text of up to `at_most` more records; how many it added (0: all have
    /// theirs).
    pub fn prepare_search(&self, at_most: usize) -> usize {
        let mut search = self.search.lock().unwrap_or_else(PoisonError::into_inner);
        self.extend_search(&mut search, at_most)
    }

    fn extend_search(&self, search: &mut Vec<String>, at_most: usize) -> usize {
        let from = search.len();
        let to = from.saturating_add(at_most).min(self.records.len());
        search.extend(
            self.records[from..to]
                .iter()
                .map(|record| search_text(self.found.iter().filter_map(|c| cell(record, c)))),
        );
        to - from
    }

    /// The indices of the records that hold every word of `filter`, in `sort`'s order (the
    /// records' own order without one; equal values keep it).
    pub fn view(&self, filter: &str, sort: Option<&SortBy>) -> Vec<usize> {
        let words = filter_words(filter);
        let mut shown: Vec<usize> = if words.is_empty() {
            (0..self.records.len()).collect()
        } else {
            let mut search = self.search.lock().unwrap_or_else(PoisonError::into_inner);
            self.extend_search(&mut search, usize::MAX);
            (0..self.records.len())
                .filter(|&i| words.iter().all(|w| search[i].contains(w.as_str())))
                .collect()
        };
        if let Some(sort) = sort {
            let keys: Vec<SortKey> = shown
                .iter()
                .map(|&i| sort_key(cell(&self.records[i], &sort.column)))
                .collect();
            let mut order: Vec<usize> = (0..shown.len()).collect();
            order.sort_by(|&a, &b| sorted_order(&keys[a], &keys[b], sort.descending));
            shown = order.into_iter().map(|k| shown[k]).collect();
        }
        shown
    }

    /// The shown records with only the shown columns, as CSV (RFC 4180, CRLF, formula
    /// triggers neutralised), in the view's order.
    pub fn csv(&self, shown: &[usize], columns: &[String]) -> String {
        self.written(ExportFormat::Csv, shown, columns)
    }

    /// The view as one JSON array, indented.
    pub fn json(&self, shown: &[usize], columns: &[String]) -> String {
        self.written(ExportFormat::Json, shown, columns)
    }

    /// The view as JSON Lines: a record per line.
    pub fn json_lines(&self, shown: &[usize], columns: &[String]) -> String {
        self.written(ExportFormat::JsonLines, shown, columns)
    }

    fn written(&self, format: ExportFormat, shown: &[usize], columns: &[String]) -> String {
        let mut writer = ViewWriter::new(format, columns.to_vec());
        let mut text = writer.start();
        for &i in shown {
            text.push_str(&writer.record(&self.records[i]));
        }
        text.push_str(&writer.finish());
        text
    }
}

/// Records written out a record at a time, with only the shown columns, in their order: as CSV
/// (RFC 4180, CRLF, formula triggers neutralised), as one JSON array (indented, as `serde_json`'s
/// pretty printer writes it) or as JSON Lines. So a view too large to be one string (an
/// explorer's, a chain's joined rows) is written into a file in parts.
pub struct ViewWriter {
    format: ExportFormat,
    columns: Vec<String>,
    /// JSON and JSON Lines hold each record whole, not only its `columns`.
    whole: bool,
    written: usize,
}

impl ViewWriter {
    pub fn new(format: ExportFormat, columns: Vec<String>) -> Self {
        ViewWriter {
            format,
            columns,
            whole: false,
            written: 0,
        }
    }

    /// The same, with JSON and JSON Lines holding each record whole (a CSV still has the
    /// columns given).
    pub fn whole_records(self) -> Self {
        ViewWriter {
            whole: true,
            ..self
        }
    }

    /// The next records.
    pub fn records(&mut self, records: &[Value]) -> String {
        records.iter().map(|record| self.record(record)).collect()
    }

    /// What comes before the records: the CSV's header line, the JSON array's opening.
    pub fn start(&self) -> String {
        match self.format {
            ExportFormat::Csv => {
                let mut csv = CsvText::new();
                csv.line(&self.columns);
                csv.into_text()
            }
            ExportFormat::Json => "[".to_owned(),
            ExportFormat::JsonLines => String::new(),
        }
    }

    /// The next record.
    pub fn record(&mut self, record: &Value) -> String {
        let text = self.text_of(record);
        self.next(text)
    }

    /// A record's own text (made in any order: [`ViewWriter::next`] puts it in its place).
    pub fn text_of(&self, record: &Value) -> String {
        match self.format {
            ExportFormat::Csv => {
                let mut csv = CsvText::new();
                csv.line(self.columns.iter().map(|c| export_cell(record, c)));
                csv.into_text()
            }
            ExportFormat::Json if self.whole => pretty(record).replace('\n', "\n  "),
            ExportFormat::Json => pretty(&self.projected(record)).replace('\n', "\n  "),
            ExportFormat::JsonLines if self.whole => format!("{record}\n"),
            ExportFormat::JsonLines => format!("{}\n", self.projected(record)),
        }
    }

    /// The next record's text ([`ViewWriter::text_of`]) as the file holds it after the ones
    /// before.
    pub fn next(&mut self, text: String) -> String {
        let first = self.written == 0;
        self.written += 1;
        match self.format {
            ExportFormat::Json => format!("{}  {text}", if first { "\n" } else { ",\n" }),
            ExportFormat::Csv | ExportFormat::JsonLines => text,
        }
    }

    /// What comes after the records.
    pub fn finish(&self) -> String {
        match self.format {
            ExportFormat::Json if self.written > 0 => "\n]".to_owned(),
            ExportFormat::Json => "]".to_owned(),
            ExportFormat::Csv | ExportFormat::JsonLines => String::new(),
        }
    }

    /// The record with only the shown columns, as one object.
    fn projected(&self, record: &Value) -> Value {
        let fields: Map<String, Value> = self
            .columns
            .iter()
            .filter_map(|c| cell(record, c).map(|v| (c.clone(), v.clone())))
            .collect();
        Value::Object(fields)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn people() -> Vec<Value> {
        vec![
            json!({"current_company": "Initech", "headline": "Engineer", "name": "Ada", "connections": 500, "profile_url": "https://x/ada"}),
            json!({"current_company": "Globex", "headline": "Analyst", "name": "bob", "connections": 42}),
            json!({"current_company": "Acme", "headline": "CEO", "name": "Cy", "connections": null, "profile_url": "https://x/cy"}),
        ]
    }

    fn names(explorer: &Explorer, shown: &[usize]) -> Vec<String> {
        shown
            .iter()
            .map(|&i| explorer.records[i]["name"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn identity_columns_come_first_then_the_rest() {
        let explorer = Explorer::new(people());
        assert_eq!(
            identity_first(explorer.found.clone()),
            [
                "name",
                "headline",
                "current_company",
                "profile_url",
                "connections"
            ]
        );
    }

    #[test]
    fn the_choice_hides_and_reorders_and_new_columns_join_at_the_end() {
        let found: Vec<String> = ["name", "headline", "extra"].map(String::from).to_vec();
        let mut choice = ColumnChoice::default();
        let arranged = choice.arrange(&found);
        choice.move_column(&arranged, "extra", -1);
        choice.toggle("headline");
        let arranged = choice.arrange(&found);
        assert_eq!(
            arranged
                .iter()
                .map(|c| (c.name.as_str(), c.shown))
                .collect::<Vec<_>>(),
            [("name", true), ("extra", true), ("headline", false)]
        );
        let more: Vec<String> = ["name", "headline", "extra", "title"]
            .map(String::from)
            .to_vec();
        assert_eq!(choice.arrange(&more).last().unwrap().name, "title");
        choice.toggle("headline");
        assert!(choice.arrange(&found).iter().all(|c| c.shown));
        // Moving past either end does nothing.
        let before = choice.clone();
        choice.move_column(&choice.arrange(&found), "name", -1);
        assert_eq!(choice, before);
    }

    #[test]
    fn sorts_numbers_as_numbers_text_without_case_and_empty_last() {
        let explorer = Explorer::new(people());
        let by = |column: &str, descending| SortBy {
            column: column.into(),
            descending,
        };
        assert_eq!(
            names(
                &explorer,
                &explorer.view("", Some(&by("connections", false)))
            ),
            ["bob", "Ada", "Cy"]
        );
        assert_eq!(
            names(
                &explorer,
                &explorer.view("", Some(&by("connections", true)))
            ),
            ["Ada", "bob", "Cy"]
        );
        assert_eq!(
            names(&explorer, &explorer.view("", Some(&by("name", false)))),
            ["Ada", "bob", "Cy"]
        );
        assert_eq!(
            names(
                &explorer,
                &explorer.view("", Some(&by("profile_url", true)))
            ),
            ["Cy", "Ada", "bob"]
        );
    }

    #[test]
    fn filters_by_every_word_in_any_column() {
        let explorer = Explorer::new(people());
        assert_eq!(names(&explorer, &explorer.view("ENGINEER", None)), ["Ada"]);
        assert_eq!(names(&explorer, &explorer.view("x/ cy", None)), ["Cy"]);
        assert_eq!(
            names(&explorer, &explorer.view("", None)),
            ["Ada", "bob", "Cy"]
        );
        assert!(explorer.view("nobody", None).is_empty());
    }

    #[test]
    fn the_search_text_prepared_a_slice_at_a_time_filters_as_one_made_at_once() {
        let explorer = Explorer::new(people());
        assert_eq!(explorer.prepare_search(2), 2);
        // A filter before the preparation is done finishes it.
        assert_eq!(names(&explorer, &explorer.view("cy", None)), ["Cy"]);
        assert_eq!(explorer.prepare_search(2), 0, "all prepared by the filter");
        let sliced = Explorer::new(people());
        while sliced.prepare_search(1) > 0 {}
        for filter in ["engineer", "x/", "globex 42", "nobody"] {
            assert_eq!(
                sliced.view(filter, None),
                Explorer::new(people()).view(filter, None),
                "{filter}"
            );
        }
    }

    #[test]
    fn csv_neutralises_formulas_and_keeps_nested_values_as_json() {
        let explorer = Explorer::new(vec![
            json!({"name": "=1+1", "n": 2}),
            json!({"name": "Ann", "tags": ["x"]}),
        ]);
        let columns = identity_first(explorer.found.clone());
        let csv = explorer.csv(&explorer.view("", None), &columns);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], "name,n,tags");
        assert_eq!(lines[1], "'=1+1,2,");
        assert_eq!(lines[2], "Ann,,\"[\n  \"\"x\"\"\n]\"");
        assert_eq!(lines[3], "");
        for field in csv.split([',', '\n']) {
            assert!(!field.starts_with(['=', '+', '-', '@']), "{field:?}");
        }
    }

    #[test]
    fn a_view_written_a_record_at_a_time_is_the_json_serde_writes() {
        let records = people();
        let columns: Vec<String> = ["name", "connections", "missing"]
            .map(String::from)
            .to_vec();
        for count in [0, 1, 3] {
            let explorer = Explorer::new(records[..count].to_vec());
            let shown: Vec<usize> = (0..count).collect();
            let projected: Vec<Value> = records[..count]
                .iter()
                .map(|r| json!({"name": r["name"], "connections": r["connections"]}))
                .collect();
            assert_eq!(
                explorer.json(&shown, &columns),
                serde_json::to_string_pretty(&projected).unwrap(),
                "{count} records"
            );
        }
    }

    #[test]
    fn exports_the_view_with_its_columns() {
        let explorer = Explorer::new(people());
        let shown = explorer.view(
            "",
            Some(&SortBy {
                column: "connections".into(),
                descending: false,
            }),
        );
        let columns: Vec<String> = ["name", "connections"].map(String::from).to_vec();
        assert_eq!(
            explorer.csv(&shown, &columns),
            "name,connections\r\nbob,42\r\nAda,500\r\nCy,\r\n"
        );
        let lines = explorer.json_lines(&shown, &columns);
        assert_eq!(
            lines.lines().next(),
            Some(r#"{"connections":42,"name":"bob"}"#)
        );
        let array: Vec<Value> = serde_json::from_str(&explorer.json(&shown, &columns)).unwrap();
        assert_eq!(array.len(), 3);
        assert_eq!(array[2], json!({"name": "Cy", "connections": null}));
    }
}
