//! Every row checked with the action form's rules (the shared crate's) before anything is sent:
//! a [`CheckedRow`] is the JSON body to send and its worst-case credits, or the rules it breaks.

use crate::model::form::{FormError, FormModel};
use chrono::{DateTime, Utc};

use crate::model::same_input::{KeptAnswer, Question, ReuseWindow, first_rows, within};

use super::mapping::ColumnMapping;
use super::table::{Table, TableRow};

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
    /// The line of an earlier valid row that asks the same question (`model::same_input`):
    /// this row is not sent, and takes that row's results.
    pub repeat_of: Option<usize>,
    /// A completed run kept in this browser that asked the same question, whose results the
    /// person chose to reuse: this row is not sent, and reads that run instead.
    pub reuses: Option<String>,
}

/// Checks every row with the form's rules, before anything is sent, and points each valid row
/// that asks the same question as an earlier one at that row (`repeat_of`).
pub fn check_rows(form: &FormModel, mapping: &ColumnMapping, table: &Table) -> Vec<CheckedRow> {
    let rows = table
        .rows
        .iter()
        .map(|row| check_row(form, mapping, table.headers.len(), row))
        .collect();
    with_repeats_marked(form, rows)
}

/// One row checked with the form's rules (`columns`: how many the header names), its repeats
/// not marked yet ([`with_repeats_marked`] does, once every row is checked).
pub fn check_row(
    form: &FormModel,
    mapping: &ColumnMapping,
    columns: usize,
    row: &TableRow,
) -> CheckedRow {
    let values = mapping.row_values(&row.cells);
    let mut errors = form.errors(&values);
    if row.cells.len() > columns {
        errors.push(FormError::spanning(format!(
            "has {} cells but the header names {} columns",
            row.cells.len(),
            columns
        )));
    }
    CheckedRow {
        line: row.line,
        cells: row.cells.clone(),
        body: form.body(&values),
        estimate: form.estimate(&values),
        errors,
        repeat_of: None,
        reuses: None,
    }
}

/// `rows` (checked, in line order) with each valid row that asks the same question as an
/// earlier one pointed at that row (`repeat_of`).
pub fn with_repeats_marked(form: &FormModel, mut rows: Vec<CheckedRow>) -> Vec<CheckedRow> {
    let questions = questions_of(form, &rows);
    let firsts = first_rows(&questions);
    let lines: Vec<usize> = rows.iter().map(|row| row.line).collect();
    for (row, first) in rows.iter_mut().zip(firsts) {
        row.repeat_of = first.map(|position| lines[position]);
    }
    rows
}

/// Each row's question (`model::same_input`); `None` for a row that breaks a rule.
pub fn questions_of(form: &FormModel, rows: &[CheckedRow]) -> Vec<Option<Question>> {
    rows.iter()
        .map(|row| {
            row.errors
                .is_empty()
                .then(|| Question::of_body(&form.action, form.max_results_ceiling, &row.body))?
        })
        .collect()
}

/// `rows` with each row to send (valid, not a repeat) whose kept answer is within `window` at
/// `now` reusing that run (`answers` by position, as `KeptRunsAsked::newest_answers` gives
/// them); the others send as usual.
pub fn with_reuse(
    mut rows: Vec<CheckedRow>,
    answers: &[Option<KeptAnswer>],
    now: DateTime<Utc>,
    window: ReuseWindow,
) -> Vec<CheckedRow> {
    for (row, answer) in rows.iter_mut().zip(answers) {
        row.reuses = answer
            .as_ref()
            .filter(|answer| {
                row.errors.is_empty()
                    && row.repeat_of.is_none()
                    && within(answer.completed_at, now, window)
            })
            .map(|answer| answer.run_id.clone());
    }
    rows
}

/// Rows the batch will not send, and the most they would have reserved had they been sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spared {
    pub rows: usize,
    pub credits_saved_at_most: u64,
}

impl Spared {
    /// The rows that repeat an earlier row's question.
    pub fn repeats(rows: &[CheckedRow]) -> Spared {
        Spared::of(rows.iter().filter(|row| row.repeat_of.is_some()))
    }

    /// The rows that reuse a run made before.
    pub fn reused(rows: &[CheckedRow]) -> Spared {
        Spared::of(rows.iter().filter(|row| row.reuses.is_some()))
    }

    fn of<'a>(rows: impl Iterator<Item = &'a CheckedRow>) -> Spared {
        rows.fold(Spared::default(), |sum, row| Spared {
            rows: sum.rows + 1,
            credits_saved_at_most: sum.credits_saved_at_most + row.estimate,
        })
    }
}

/// `field reason; …` for people.
pub fn describe(errors: &[FormError]) -> String {
    errors
        .iter()
        .map(FormError::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use api_contract::ActionId;
    use serde_json::Value;

    use super::*;
    use crate::model::bulk::fixtures::form;
    use crate::model::bulk::mapping::Source;
    use crate::model::bulk::table::read_table;
    use crate::model::form::MAX_RESULTS;

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
    fn a_row_asking_what_an_earlier_valid_row_asks_points_at_it() {
        let f = form(ActionId::NetworkExtractPeople);
        let t = read_table(
            "identifier,max_results\n\
             https://network.com/in/ada,1\n\
             https://WWW.network.com/in/ada/?utm=x,1\n\
             ,1\n\
             https://network.com/in/bob,1\n\
             network.com/in/ada#top,\n\
             https://network.com/in/Bob,1\n\
             https://network.com/in/bob/,1\n",
        )
        .unwrap();
        let rows = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t);
        let repeats: Vec<Option<usize>> = rows.iter().map(|r| r.repeat_of).collect();
        // Line 6 asks for the ceiling (1) without naming it: the same question as line 2.
        assert_eq!(repeats, [None, Some(2), None, None, Some(2), None, Some(5)]);
        assert_eq!(
            Spared::repeats(&rows),
            Spared {
                rows: 3,
                credits_saved_at_most: 3 * 20
            }
        );
    }

    #[test]
    fn rows_reuse_a_kept_answer_within_the_window_unless_invalid_or_repeats() {
        let f = form(ActionId::PremiumSearchPeople);
        let t = read_table("keywords,team\nrust,a\nrust,b\ngo,c\n,d\nzig,e\n").unwrap();
        let rows = check_rows(&f, &ColumnMapping::by_header(&f, &t.headers), &t);
        let now: DateTime<Utc> = "2026-11-27T12:00:00Z".parse().unwrap();
        let answer = |id: &str, hours_ago: i64| {
            Some(KeptAnswer {
                run_id: id.into(),
                completed_at: now - chrono::TimeDelta::hours(hours_ago),
                records: 3,
            })
        };
        let answers = [
            answer("r", 2),
            answer("r", 2),
            answer("g", 30),
            answer("x", 1),
            None,
        ];
        let reuses = |window| -> Vec<Option<String>> {
            with_reuse(rows.clone(), &answers, now, window)
                .into_iter()
                .map(|row| row.reuses)
                .collect()
        };
        // Line 3 repeats line 2; line 5 is invalid (empty keywords).
        assert_eq!(
            reuses(ReuseWindow::Day),
            [Some("r".into()), None, None, None, None]
        );
        assert_eq!(
            reuses(ReuseWindow::Week),
            [Some("r".into()), None, Some("g".into()), None, None]
        );
        assert_eq!(reuses(ReuseWindow::Off), [None, None, None, None, None]);
        let reused = with_reuse(rows.clone(), &answers, now, ReuseWindow::Week);
        assert_eq!(
            Spared::reused(&reused),
            Spared {
                rows: 2,
                credits_saved_at_most: 2 * f.estimate(&crate::model::form::Values::new())
            }
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
