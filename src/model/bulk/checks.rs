//! Every row checked with the action form's rules (the shared crate's) before anything is sent:
//! a [`CheckedRow`] is the JSON body to send and its worst-case credits, or the rules it breaks.

use crate::model::form::{FormError, FormModel};

use super::mapping::ColumnMapping;
use super::table::Table;

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
