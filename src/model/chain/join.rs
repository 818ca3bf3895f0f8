//! The chain's joined dataset: one record per record of the last step and path to it, with the
//! columns of every record above it (the spreadsheet's row, then each step's record), and the
//! lineage as ids. A record reached from two parents (a post of two profiles' feeds) is written
//! once per path, so each joined record reads as one line of a hand-made spreadsheet join.
//!
//! Columns, flat as the bulk export's: `line` and `input.{header}` (the spreadsheet's row), then
//! for step `n` (from 1) `step{n}.line` (from the second step: the row's line in that step's
//! batch), `step{n}.run_id`, `step{n}.record` (the record's place in its run's output, from 1) and `step{n}.{field}` for each of the record's fields (`step{n}.value` for a
//! record that is not an object).

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use super::steps::RecordRef;

/// A row of the first step, as kept: the spreadsheet's cells and the run it made.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstStepRow {
    pub line: usize,
    pub cells: Vec<String>,
    pub run_id: Option<String>,
    pub output: Vec<Value>,
}

/// A row of a later step, as kept: the run it made, and the records of the step before it was
/// reached from.
#[derive(Clone, Debug, PartialEq)]
pub struct LaterStepRow {
    pub line: usize,
    pub run_id: Option<String>,
    pub output: Vec<Value>,
    pub parents: Vec<RecordRef>,
}

/// The steps above the last, by line, to join the last step's records with.
pub struct ChainJoin {
    headers: Vec<String>,
    first: HashMap<usize, FirstStepRow>,
    /// The steps between the first and the last, in order.
    middle: Vec<HashMap<usize, LaterStepRow>>,
}

impl ChainJoin {
    /// `headers`: the spreadsheet's; `first`: the first step's rows; `middle`: the rows of each
    /// step between the first and the last (none for a chain of two actions).
    pub fn new(
        headers: Vec<String>,
        first: Vec<FirstStepRow>,
        middle: Vec<Vec<LaterStepRow>>,
    ) -> ChainJoin {
        ChainJoin {
            headers,
            first: first.into_iter().map(|row| (row.line, row)).collect(),
            middle: middle
                .into_iter()
                .map(|rows| rows.into_iter().map(|row| (row.line, row)).collect())
                .collect(),
        }
    }

    /// The joined records of one row of the last step: one per record of its run and path
    /// up to the spreadsheet. A row whose run returned nothing joins nothing.
    pub fn joined(&self, last: &LaterStepRow) -> Vec<Value> {
        let last_step = self.middle.len() + 1;
        let mut joined = Vec::new();
        for (place, record) in last.output.iter().enumerate() {
            let at = RecordRef {
                line: last.line,
                record: place,
            };
            let own = step_columns(last_step, at, last.run_id.as_deref(), Some(record));
            for parent in &last.parents {
                for mut path in self.lineage(last_step - 1, *parent) {
                    path.extend(own.clone());
                    joined.push(Value::Object(path));
                }
            }
        }
        joined
    }

    /// The columns of every path from the spreadsheet down to record `at` of step `step`
    /// (0: the first step). A row no longer kept (forgotten, or from a damaged store) gives its
    /// ids alone.
    fn lineage(&self, step: usize, at: RecordRef) -> Vec<Map<String, Value>> {
        if step == 0 {
            let mut columns = Map::new();
            columns.insert("line".to_owned(), Value::from(at.line));
            let row = self.first.get(&at.line);
            if let Some(row) = row {
                for (header, cell) in self.headers.iter().zip(&row.cells) {
                    columns.insert(format!("input.{header}"), Value::from(cell.as_str()));
                }
            }
            let run_id = row.and_then(|row| row.run_id.as_deref());
            let record = row.and_then(|row| row.output.get(at.record));
            columns.extend(step_columns(0, at, run_id, record));
            return vec![columns];
        }
        let Some(row) = self.middle[step - 1].get(&at.line) else {
            return vec![step_columns(step, at, None, None)];
        };
        let own = step_columns(step, at, row.run_id.as_deref(), row.output.get(at.record));
        row.parents
            .iter()
            .flat_map(|parent| self.lineage(step - 1, *parent))
            .map(|mut path| {
                path.extend(own.clone());
                path
            })
            .collect()
    }
}

/// Rows of a step kept by line, at most about `at_most` of them: those read longest ago go
/// first to make room, but never a row the slice being joined needs (see
/// [`RowsByLine::make_room`]), so a slice reaching more rows than that keeps them all.
#[derive(Clone, Debug)]
pub struct RowsByLine<T> {
    rows: HashMap<usize, T>,
    /// The lines in the order they were read.
    order: VecDeque<usize>,
    at_most: usize,
}

impl<T> RowsByLine<T> {
    pub fn new(at_most: usize) -> RowsByLine<T> {
        RowsByLine {
            rows: HashMap::new(),
            order: VecDeque::new(),
            at_most,
        }
    }

    pub fn get(&self, line: usize) -> Option<&T> {
        self.rows.get(&line)
    }

    pub fn contains(&self, line: usize) -> bool {
        self.rows.contains_key(&line)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Lets go of the rows read longest ago so that `coming` more fit, sparing every line of
    /// `needed`.
    pub fn make_room(&mut self, needed: &[usize], coming: usize) {
        let needed: HashSet<usize> = needed.iter().copied().collect();
        let room_left = self.at_most.saturating_sub(coming);
        let mut spared = Vec::new();
        // Spared rows still count: the others go until all fit, or only spared ones are left.
        while self.order.len() + spared.len() > room_left {
            match self.order.pop_front() {
                Some(line) if needed.contains(&line) => spared.push(line),
                Some(line) => {
                    self.rows.remove(&line);
                }
                None => break,
            }
        }
        self.order.extend(spared);
    }

    pub fn insert(&mut self, line: usize, row: T) {
        if self.rows.insert(line, row).is_none() {
            self.order.push_back(line);
        }
    }
}

/// `step{n}.line` (for a later step: its row's line in its batch), `step{n}.run_id`,
/// `step{n}.record` and the record's fields, for record `at` of step `step` (from 0).
fn step_columns(
    step: usize,
    at: RecordRef,
    run_id: Option<&str>,
    record: Option<&Value>,
) -> Map<String, Value> {
    let prefix = format!("step{}", step + 1);
    let place = at.record;
    let mut columns = Map::new();
    if step > 0 {
        columns.insert(format!("{prefix}.line"), Value::from(at.line));
    }
    if let Some(run_id) = run_id {
        columns.insert(format!("{prefix}.run_id"), Value::from(run_id));
    }
    columns.insert(format!("{prefix}.record"), Value::from(place + 1));
    match record {
        Some(Value::Object(fields)) => {
            for (field, value) in fields {
                columns.insert(format!("{prefix}.{field}"), value.clone());
            }
        }
        Some(other) => {
            columns.insert(format!("{prefix}.value"), other.clone());
        }
        None => {}
    }
    columns
}

/// `step3.name` → (3, "name").
fn step_of(column: &str) -> Option<(usize, &str)> {
    let (step, field) = column.strip_prefix("step")?.split_once('.')?;
    Some((step.parse().ok()?, field))
}

/// The joined dataset's columns in reading order: `line`, the spreadsheet's `input.*`, then each
/// step's (its ids first: `line`, `run_id`, `record`), its fields in the order `found` met them.
pub fn joined_columns(found: &[String]) -> Vec<String> {
    let rank = |column: &str| -> (usize, usize) {
        match column {
            "line" => (0, 0),
            _ if column.starts_with("input.") => (1, 0),
            _ => match step_of(column) {
                Some((step, "line")) => (2 + step, 0),
                Some((step, "run_id")) => (2 + step, 1),
                Some((step, "record")) => (2 + step, 2),
                Some((step, _)) => (2 + step, 3),
                None => (usize::MAX, 0),
            },
        }
    };
    let mut columns = found.to_vec();
    // A stable sort: within a rank, the order met.
    columns.sort_by_key(|column| rank(column));
    columns
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::bulk::ExportFormat;
    use crate::model::explore::ViewWriter;

    fn profile(line: usize, handle: &str) -> FirstStepRow {
        FirstStepRow {
            line,
            cells: vec![format!("https://network.com/in/{handle}")],
            run_id: Some(format!("run-p{line}")),
            output: vec![
                json!({ "network_profile_identifier": format!("ID-{handle}"), "name": handle }),
            ],
        }
    }

    fn later(line: usize, parents: &[(usize, usize)], output: Vec<Value>) -> LaterStepRow {
        LaterStepRow {
            line,
            run_id: Some(format!("run-{line}")),
            output,
            parents: parents
                .iter()
                .map(|&(line, record)| RecordRef { line, record })
                .collect(),
        }
    }

    #[test]
    fn a_comment_carries_its_post_its_profile_and_its_spreadsheet_row() {
        let posts = vec![later(
            2,
            &[(3, 0)],
            vec![
                json!({ "social_id": "urn:1", "text": "hello" }),
                json!({ "social_id": "urn:2" }),
            ],
        )];
        let join = ChainJoin::new(vec!["profile".into()], vec![profile(3, "ada")], vec![posts]);
        let comments = later(2, &[(2, 1)], vec![json!({ "name": "Bob", "text": "hi" })]);
        assert_eq!(
            join.joined(&comments),
            [json!({
                "line": 3,
                "input.profile": "https://network.com/in/ada",
                "step1.run_id": "run-p3",
                "step1.record": 1,
                "step1.network_profile_identifier": "ID-ada",
                "step1.name": "ada",
                "step2.line": 2,
                "step2.run_id": "run-2",
                "step2.record": 2,
                "step2.social_id": "urn:2",
                "step3.line": 2,
                "step3.run_id": "run-2",
                "step3.record": 1,
                "step3.name": "Bob",
                "step3.text": "hi",
            })]
        );
    }

    #[test]
    fn one_joined_record_per_path_and_per_record() {
        // The same post reached from two profiles; its run returned two comments.
        let posts = vec![later(
            2,
            &[(2, 0), (3, 0)],
            vec![json!({ "social_id": "urn:1" })],
        )];
        let join = ChainJoin::new(
            vec!["profile".into()],
            vec![profile(2, "ada"), profile(3, "bob")],
            vec![posts],
        );
        let comments = later(
            2,
            &[(2, 0)],
            vec![json!({ "name": "C1" }), json!({ "name": "C2" })],
        );
        let joined = join.joined(&comments);
        let lines: Vec<(u64, &str)> = joined
            .iter()
            .map(|j| {
                (
                    j["line"].as_u64().unwrap(),
                    j["step3.name"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(lines, [(2, "C1"), (3, "C1"), (2, "C2"), (3, "C2")]);
    }

    #[test]
    fn a_chain_of_two_actions_joins_the_spreadsheet_directly() {
        let search = FirstStepRow {
            line: 2,
            cells: vec!["rust wasm".into()],
            run_id: Some("run-s".into()),
            output: vec![json!({ "social_id": "urn:9" })],
        };
        let join = ChainJoin::new(vec!["keywords".into()], vec![search], vec![]);
        let likers = later(2, &[(2, 0)], vec![json!("not an object")]);
        let joined = join.joined(&likers);
        assert_eq!(joined.len(), 1);
        assert_eq!(joined[0]["input.keywords"], "rust wasm");
        assert_eq!(joined[0]["step1.social_id"], "urn:9");
        assert_eq!(joined[0]["step2.value"], "not an object");
    }

    #[test]
    fn rows_no_longer_kept_leave_their_ids() {
        let join = ChainJoin::new(vec!["profile".into()], vec![], vec![vec![]]);
        let comments = later(4, &[(7, 2)], vec![json!({ "name": "C" })]);
        let joined = join.joined(&comments);
        assert_eq!(
            joined,
            [json!({
                "step2.line": 7,
                "step2.record": 3,
                "step3.line": 4,
                "step3.run_id": "run-4",
                "step3.record": 1,
                "step3.name": "C",
            })]
        );
        assert!(join.joined(&later(5, &[(7, 2)], vec![])).is_empty());
    }

    fn sample() -> Vec<Value> {
        let posts = vec![later(
            2,
            &[(2, 0)],
            vec![json!({ "social_id": "urn:1", "text": "=SUM(A1)" })],
        )];
        let join = ChainJoin::new(vec!["profile".into()], vec![profile(2, "ada")], vec![posts]);
        join.joined(&later(
            2,
            &[(2, 0)],
            vec![
                json!({ "name": "Bob, Jr." }),
                json!({ "name": "Cy", "extra": [1, 2] }),
            ],
        ))
    }

    #[test]
    fn columns_read_from_the_spreadsheet_down_to_the_last_step() {
        let mut found = crate::model::output::ColumnsFound::default();
        found.add(&sample());
        assert_eq!(
            joined_columns(&found.columns),
            [
                "line",
                "input.profile",
                "step1.run_id",
                "step1.record",
                "step1.name",
                "step1.network_profile_identifier",
                "step2.line",
                "step2.run_id",
                "step2.record",
                "step2.social_id",
                "step2.text",
                "step3.line",
                "step3.run_id",
                "step3.record",
                "step3.name",
                "step3.extra",
            ]
        );
    }

    fn whole(format: ExportFormat, records: &[Value]) -> String {
        let mut found = crate::model::output::ColumnsFound::default();
        found.add(records);
        let mut export = ViewWriter::new(format, joined_columns(&found.columns)).whole_records();
        let mut text = export.start();
        // Two slices, as the page writes them.
        text.push_str(&export.records(&records[..1]));
        text.push_str(&export.records(&records[1..]));
        text.push_str(&export.finish());
        text
    }

    #[test]
    fn the_csv_has_a_line_per_joined_record_with_neutralised_cells() {
        let csv = whole(ExportFormat::Csv, &sample());
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let headers = reader.headers().unwrap().clone();
        let lines: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(lines.len(), 2);
        let at = |line: &csv::StringRecord, column: &str| {
            line[headers.iter().position(|h| h == column).unwrap()].to_owned()
        };
        assert_eq!(at(&lines[0], "step3.name"), "Bob, Jr.");
        assert_eq!(at(&lines[0], "step2.text"), "'=SUM(A1)");
        assert_eq!(at(&lines[1], "input.profile"), "https://network.com/in/ada");
        assert_eq!(at(&lines[0], "step3.extra"), "");
    }

    #[test]
    fn json_and_json_lines_hold_the_same_records() {
        let records = sample();
        let json: Vec<Value> = serde_json::from_str(&whole(ExportFormat::Json, &records)).unwrap();
        assert_eq!(json, records);
        let lines: Vec<Value> = whole(ExportFormat::JsonLines, &records)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines, records);
    }

    #[test]
    fn presenter_mode_hides_the_joined_records_people() {
        let masker = crate::model::presenter::Masker::new(true, 7);
        let masked = masker.json(&sample()[0]);
        let text = masked.to_string();
        for personal in ["Bob", "ada", "ID-ada", "=SUM"] {
            assert!(!text.contains(personal), "{personal} in {text}");
        }
        assert_eq!(masked["step3.record"], 1, "numbers are kept");
    }

    /// The rows kept for the join stay within their bound, the oldest going first, but a row
    /// the slice being joined needs is never let go of, whatever the bound.
    #[test]
    fn rows_kept_by_line_make_room_but_keep_what_the_slice_needs() {
        let mut kept = RowsByLine::new(3);
        for line in 2..5 {
            kept.make_room(&[line], 1);
            kept.insert(line, line * 10);
        }
        assert_eq!(kept.len(), 3);
        kept.make_room(&[2, 5], 1);
        kept.insert(5, 50);
        assert!(kept.contains(2), "needed by the slice");
        assert!(!kept.contains(3), "the oldest not needed goes");
        assert_eq!(kept.get(5), Some(&50));
        // A slice that needs more than the bound keeps all it needs.
        let needed: Vec<usize> = (10..20).collect();
        kept.make_room(&[2, 4, 5], needed.len());
        for &line in &needed {
            kept.insert(line, line);
        }
        assert!(needed.iter().all(|&line| kept.contains(line)));
        assert!([2, 4, 5].iter().all(|&line| kept.contains(line)));
        kept.make_room(&needed, 0);
        assert_eq!(kept.len(), 10, "the next slice lets the others go");
        assert!(needed.iter().all(|&line| kept.contains(line)));
    }
}
