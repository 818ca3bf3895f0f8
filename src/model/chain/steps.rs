//! A step's rows, made from the finished runs of the step before (docs/decisions/chains.md):
//! each distinct value of the contract's field once, at its first place (the parent's line, then
//! the record's place in its output), keeping every record it was reached from. The same runs
//! in the same order always make the same rows, so a step made again after a reload has the same
//! lines, and so the same idempotency keys.

use std::collections::HashMap;
use std::ops::Range;

use api_contract::ChainRule;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use api_contract::ActionEntry;

use super::NextStep;
use crate::model::bulk::{
    CheckedRow, ColumnMapping, Table, TableRow, check_row, with_repeats_marked,
};
use crate::model::form::{FormModel, MAX_RESULTS};
use crate::model::same_input::canonical_value;

/// A record of a step's run: the row's line in that step's batch, and the record's place in
/// the run's output (from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RecordRef {
    pub line: usize,
    pub record: usize,
}

/// One row of a step after the first: the value sent, exactly as the first record carrying it
/// returned it, and every record it was reached from, in the order met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRow {
    pub value: String,
    pub parents: Vec<RecordRef>,
}

/// The rows of the step that `rule` feeds, gathered from the runs of the step before.
#[derive(Clone, Debug)]
pub struct NextStepRows {
    rule: ChainRule,
    first_records_of_each: usize,
    rows: Vec<StepRow>,
    /// A row's place by its value's same-input form (`model::same_input::canonical_value`).
    by_question: HashMap<String, usize>,
    last_line: Option<usize>,
}

impl NextStepRows {
    pub fn new(rule: ChainRule, first_records_of_each: u32) -> NextStepRows {
        NextStepRows {
            rule,
            first_records_of_each: first_records_of_each as usize,
            rows: Vec::new(),
            by_question: HashMap::new(),
            last_line: None,
        }
    }

    /// Takes the records of the run of the step before's row `line`. Runs are taken in the
    /// order of their lines, each once, which is what makes the rows the same every time.
    pub fn take_run(&mut self, line: usize, output: &[Value]) {
        assert!(
            self.last_line.is_none_or(|last| last < line),
            "runs are taken in the order of their lines ({line} after {:?})",
            self.last_line
        );
        self.last_line = Some(line);
        let carried = self.rule.records_per_run(output.len() as u32) as usize;
        let fed = output.iter().take(carried.min(self.first_records_of_each));
        for (record, fields) in fed.enumerate() {
            let Some(value) = self.rule.value_in(fields) else {
                continue;
            };
            let parent = RecordRef { line, record };
            let question = canonical_value(self.rule.input_spec().kind, value);
            match self.by_question.get(&question) {
                Some(&row) => self.rows[row].parents.push(parent),
                None => {
                    self.by_question.insert(question, self.rows.len());
                    self.rows.push(StepRow {
                        value: value.to_owned(),
                        parents: vec![parent],
                    });
                }
            }
        }
    }

    pub fn rows(&self) -> &[StepRow] {
        &self.rows
    }

    /// The step's rows `part` (indexes into [`NextStepRows::rows`]: all of them, or one
    /// part's, `SavedChain::rows_of_part`) as the spreadsheet a bulk batch is made from: the
    /// input field, the step's `max_results`, and where each value came from. Row `i` is on
    /// line `i + 2` (the header is line 1) in whichever part it runs, as in the spreadsheet of
    /// the whole step: a line names the same row in every part, the joined dataset and the
    /// "from" column of the step after.
    pub fn table(&self, max_results: u32, part: Range<usize>) -> Table {
        Table {
            headers: vec![
                self.rule.input_field().to_owned(),
                MAX_RESULTS.to_owned(),
                FROM_COLUMN.to_owned(),
            ],
            rows: self.rows[part.start.min(self.rows.len())..part.end.min(self.rows.len())]
                .iter()
                .zip(part.start..)
                .map(|(row, index)| TableRow {
                    line: index + 2,
                    cells: vec![row.value.clone(), max_results.to_string(), from_cell(row)],
                })
                .collect(),
        }
    }
}

/// The checked rows of step `step`'s batch, made from the runs of the step before as
/// [`NextStepRows`] gathered them, with `entry` the step's action in the API's registry: the
/// bulk page's own checks, so each body carries `max_credits` = its worst case. The same runs
/// give the same rows, line for line.
pub fn checked_step_rows(
    rows: &NextStepRows,
    step: &NextStep,
    entry: &ActionEntry,
) -> Vec<CheckedRow> {
    let mut checking = StepRowsCheck::new(rows, 0..rows.rows().len(), step, entry);
    checking.check_next(usize::MAX);
    checking.finish().rows
}

/// A step's rows checked a slice at a time ([`StepRowsCheck::check_next`]), so that a step of
/// thousands of rows does not hold the page in one task; [`checked_step_rows`] in one go.
pub struct StepRowsCheck {
    form: FormModel,
    mapping: ColumnMapping,
    table: Table,
    checked: Vec<CheckedRow>,
}

/// A step's rows, checked: the batch's headers and rows, and the step's form (what its rows
/// ask: `model::same_input`).
pub struct CheckedStep {
    pub headers: Vec<String>,
    pub rows: Vec<CheckedRow>,
    pub form: FormModel,
}

impl StepRowsCheck {
    /// Checks the rows `part` of a step (all of them, or one part's).
    pub fn new(
        rows: &NextStepRows,
        part: Range<usize>,
        step: &NextStep,
        entry: &ActionEntry,
    ) -> StepRowsCheck {
        let table = rows.table(step.max_results, part);
        let form = FormModel::from_entry(entry);
        let mapping = ColumnMapping::by_header(&form, &table.headers);
        StepRowsCheck {
            checked: Vec::with_capacity(table.rows.len()),
            form,
            mapping,
            table,
        }
    }

    /// Rows not checked yet.
    pub fn remaining(&self) -> usize {
        self.table.rows.len() - self.checked.len()
    }

    /// Checks up to `count` more rows.
    pub fn check_next(&mut self, count: usize) {
        let start = self.checked.len();
        let end = start.saturating_add(count).min(self.table.rows.len());
        let columns = self.table.headers.len();
        for row in &self.table.rows[start..end] {
            self.checked
                .push(check_row(&self.form, &self.mapping, columns, row));
        }
    }

    /// The rows checked so far, their repeats marked (`with_repeats_marked`).
    pub fn finish(self) -> CheckedStep {
        CheckedStep {
            rows: with_repeats_marked(&self.form, self.checked),
            headers: self.table.headers,
            form: self.form,
        }
    }
}

/// The column that says which records of the step before a row was reached from.
pub const FROM_COLUMN: &str = "from";

/// "line 2 #1, line 5 #3": the parents' lines in the step before and the records' places
/// there (from 1, as people count).
fn from_cell(row: &StepRow) -> String {
    let parents: Vec<String> = row
        .parents
        .iter()
        .map(|parent| format!("line {} #{}", parent.line, parent.record + 1))
        .collect();
    parents.join(", ")
}

#[cfg(test)]
mod tests {
    use api_contract::{ActionId, CHAIN_RULES};
    use serde_json::json;

    use super::*;
    use crate::model::bulk::{BatchRow, check_rows, row_key};
    use crate::model::chain::cost::ChainWorstCase;
    use crate::model::chain::tests::{profile_posts_comments, registry};

    fn posts_to_comments() -> ChainRule {
        ChainRule::between(
            ActionId::NetworkExtractPeoplePostActivity,
            ActionId::NetworkExtractPostCommenters,
        )
        .unwrap()
    }

    fn posts(ids: &[&str]) -> Vec<Value> {
        ids.iter()
            .map(|id| json!({ "social_id": id, "text": "…" }))
            .collect()
    }

    #[test]
    fn each_value_once_with_every_parent_in_order() {
        let mut rows = NextStepRows::new(posts_to_comments(), 2);
        rows.take_run(2, &posts(&["urn:a", "urn:b", "urn:c"]));
        rows.take_run(4, &posts(&["urn:b", "urn:d"]));
        rows.take_run(
            5,
            &[json!({ "text": "no id" }), json!({ "social_id": "urn:a" })],
        );
        assert_eq!(
            rows.rows(),
            [
                StepRow {
                    value: "urn:a".into(),
                    parents: vec![
                        RecordRef { line: 2, record: 0 },
                        RecordRef { line: 5, record: 1 }
                    ],
                },
                StepRow {
                    value: "urn:b".into(),
                    parents: vec![
                        RecordRef { line: 2, record: 1 },
                        RecordRef { line: 4, record: 0 }
                    ],
                },
                StepRow {
                    value: "urn:d".into(),
                    parents: vec![RecordRef { line: 4, record: 1 }],
                },
            ],
            "urn:c is past the first 2 of its run"
        );
    }

    #[test]
    fn an_enrichment_gives_its_first_record_only() {
        let rule = CHAIN_RULES[0];
        let mut rows = NextStepRows::new(rule, 1);
        rows.take_run(
            2,
            &[
                json!({ "network_profile_identifier": "ACoAA1" }),
                json!({ "network_profile_identifier": "ACoAA2" }),
            ],
        );
        let values: Vec<&str> = rows.rows().iter().map(|r| r.value.as_str()).collect();
        assert_eq!(values, ["ACoAA1"]);
    }

    #[test]
    fn repeats_follow_the_same_input_rule_and_the_first_value_is_sent_as_returned() {
        let mut rows = NextStepRows::new(CHAIN_RULES[0], 1);
        rows.take_run(
            2,
            &[json!({ "network_profile_identifier": "https://www.network.com/in/ada/" })],
        );
        rows.take_run(
            3,
            &[json!({ "network_profile_identifier": "https://network.com/in/ada" })],
        );
        assert_eq!(rows.rows().len(), 1);
        assert_eq!(rows.rows()[0].value, "https://www.network.com/in/ada/");
        // Social ids are compared exactly (only trimmed): two kinds are two posts.
        let mut rows = NextStepRows::new(posts_to_comments(), 5);
        rows.take_run(
            2,
            &posts(&["urn:network:share:1", "urn:network:activity:1"]),
        );
        assert_eq!(rows.rows().len(), 2);
    }

    #[test]
    #[should_panic(expected = "in the order of their lines")]
    fn runs_taken_out_of_order_are_a_bug() {
        let mut rows = NextStepRows::new(posts_to_comments(), 5);
        rows.take_run(4, &[]);
        rows.take_run(2, &[]);
    }

    /// The step's table goes through the bulk page's own checks: every row is valid, sends the
    /// value exactly as returned, and carries as `max_credits` the per-run worst case the chain's
    /// preview counted, so no run can charge more than the screen said.
    #[test]
    fn the_steps_batch_sends_what_the_worst_case_counted() {
        let plan = profile_posts_comments(3, 5);
        let worst = ChainWorstCase::of(&plan, 1, &registry()).unwrap();
        let rule = plan.rule_into(2).unwrap();
        let mut rows = NextStepRows::new(rule, plan.steps[1].first_records_of_each);
        rows.take_run(2, &posts(&["urn:network:activity:7 x", "urn:b"]));
        let table = rows.table(plan.steps[1].max_results, 0..rows.rows().len());
        let entry = ActionId::NetworkExtractPostCommenters.sandbox_registry_entry();
        let form = FormModel::from_entry(&entry);
        let checked = check_rows(
            &form,
            &ColumnMapping::by_header(&form, &table.headers),
            &table,
        );
        assert_eq!(checked.len(), 2);
        for row in &checked {
            assert_eq!(row.errors, [], "line {}", row.line);
            assert_eq!(row.estimate, worst.steps[2].credits_per_run);
        }
        let body: Value = serde_json::from_str(&checked[0].body).unwrap();
        assert_eq!(
            body,
            json!({
                "input": { "social_id": "urn:network:activity:7 x" },
                "max_results": 5,
                "max_credits": worst.steps[2].credits_per_run,
            })
        );
        assert_eq!(checked[1].cells[2], "line 2 #2");
    }

    /// A step made again from the same kept runs (after a reload) has the same rows on the same
    /// lines, so the same idempotency keys: the API answers them with the runs it made.
    #[test]
    fn a_step_made_again_has_the_same_keys() {
        let plan = profile_posts_comments(3, 5);
        let entry = ActionId::NetworkExtractPostCommenters.sandbox_registry_entry();
        let made = || {
            let mut rows = NextStepRows::new(plan.rule_into(2).unwrap(), 3);
            rows.take_run(2, &posts(&["urn:a", "urn:b", "urn:c"]));
            rows.take_run(3, &posts(&["urn:c", "urn:d"]));
            checked_step_rows(&rows, &plan.steps[1], &entry)
                .into_iter()
                .map(BatchRow::new)
                .map(|row| {
                    (
                        row_key("00112233445566778899aabbccddee02", row.attempt, row.line),
                        row.body,
                    )
                })
                .collect::<Vec<_>>()
        };
        let first = made();
        assert_eq!(first.len(), 4);
        assert_eq!(first, made());
    }

    /// A step checked a slice at a time (as the page does, so that no task holds it long) has
    /// exactly the rows of one check in one go, repeats marked across the slices included.
    #[test]
    fn a_step_checked_in_slices_is_the_step_checked_at_once() {
        let plan = profile_posts_comments(3, 5);
        let entry = ActionId::NetworkExtractPostCommenters.sandbox_registry_entry();
        let mut rows = NextStepRows::new(plan.rule_into(2).unwrap(), 3);
        rows.take_run(2, &posts(&["urn:a", "urn:b", "", "urn:c"]));
        rows.take_run(3, &posts(&["urn:c", "urn:d", "urn:a "]));
        let at_once = checked_step_rows(&rows, &plan.steps[1], &entry);
        for slice in [1, 2, 3, 100] {
            let mut checking =
                StepRowsCheck::new(&rows, 0..rows.rows().len(), &plan.steps[1], &entry);
            let mut slices = 0;
            while checking.remaining() > 0 {
                checking.check_next(slice);
                slices += 1;
            }
            assert_eq!(slices, at_once.len().div_ceil(slice), "slices of {slice}");
            assert_eq!(checking.finish().rows, at_once, "slices of {slice}");
        }
    }

    /// A step run in parts (batches of at most the plan's `rows_per_batch` rows) runs exactly
    /// the step's rows: the parts' rows, one after another, are the whole step's, on the same
    /// lines, with the same bodies; no row is in two parts and none is left out.
    #[test]
    fn a_step_in_parts_runs_each_of_its_rows_once_on_its_own_line() {
        use crate::model::chain::progress::{SavedChain, StepPart};
        let mut plan = profile_posts_comments(3, 5);
        plan.rows_per_batch = 3;
        let entry = ActionId::NetworkExtractPostCommenters.sandbox_registry_entry();
        let mut rows = NextStepRows::new(plan.rule_into(2).unwrap(), 3);
        rows.take_run(2, &posts(&["urn:a", "urn:b", "urn:c"]));
        rows.take_run(3, &posts(&["urn:c", "urn:d", "urn:e"]));
        rows.take_run(4, &posts(&["urn:f", "urn:g"]));
        let whole = checked_step_rows(&rows, &plan.steps[1], &entry);
        assert_eq!(whole.len(), 7);
        let chain = SavedChain {
            id: "0123456789abcdef0123456789abcdef".into(),
            workspace: "ws".into(),
            plan: plan.clone(),
            budget: None,
            created_at: 0.0,
            went_on_after: Vec::new(),
            cancelled: false,
            reuse: crate::model::same_input::ReuseWindow::Off,
            step_rows: Vec::new(),
        }
        .with_step_rows(2, whole.len());
        assert_eq!(chain.parts_of(2), Some(3));
        let mut in_parts = Vec::new();
        for part in 0..3 {
            let at = StepPart { step: 2, part };
            let mut checking =
                StepRowsCheck::new(&rows, chain.rows_of_part(at, 7), &plan.steps[1], &entry);
            checking.check_next(usize::MAX);
            let checked = checking.finish().rows;
            assert!(checked.len() <= 3, "part {part}");
            in_parts.extend(checked);
        }
        assert_eq!(in_parts, whole);
        assert_eq!(
            in_parts[6].line, 8,
            "the last part's row is on its line in the step"
        );
    }
}
