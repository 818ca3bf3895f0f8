//! A bulk batch's credit budget: what its runs charged, what its rows still hold back (their
//! worst case, the `max_credits` each row is sent with, until their runs end), and whether the
//! next row fits.

use serde::{Deserialize, Serialize};

use super::{BatchRow, RowState};
use crate::model::format::{counted, group_thousands, parse_credits};

/// A batch's credits against its budget, as the page shows them: "budget B · charged C ·
/// reserved R · left L" ([`Spending::sentence`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spending {
    /// The most the batch may commit (charged and reserved together); `None`: no budget.
    pub budget: Option<u64>,
    /// What ended runs charged, earlier attempts' runs included (before "Retry failed rows").
    pub charged: u64,
    /// The worst case of the rows whose runs may still charge: sent and not ended, sent without
    /// an answer, or cleared to be sent next.
    pub reserved: u64,
}

/// What one row adds to its batch's [`Spending`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowShare {
    pub charged: u64,
    pub reserved: u64,
}

impl RowShare {
    /// A row's share. `held`: the row waits but counts its worst case, since its key may already
    /// have made a run (it was sent without an answer) or it is cleared to be sent.
    pub fn of(row: &BatchRow, held: bool) -> RowShare {
        // A run reused from before was charged then: this batch neither charges nor reserves.
        if row.reuses.is_some() {
            return RowShare::default();
        }
        let worst_case = RowShare {
            charged: 0,
            reserved: row.estimate.max(row.credits_used),
        };
        match row.state {
            RowState::Submitting | RowState::Queued | RowState::Processing => worst_case,
            RowState::Waiting if held => worst_case,
            RowState::Waiting | RowState::Invalid | RowState::Repeat => RowShare::default(),
            // Sent without an answer, then cancelled before it went again: its key may have made
            // a run that nobody reads.
            RowState::Completed | RowState::Failed | RowState::Cancelled
                if held && row.run_id.is_none() =>
            {
                worst_case
            }
            RowState::Completed | RowState::Failed | RowState::Cancelled => RowShare {
                charged: row.credits_used,
                reserved: 0,
            },
        }
    }
}

impl Spending {
    /// Counted from scratch: `charged_before` (runs of earlier attempts) and each row's share.
    pub fn of(
        budget: Option<u64>,
        charged_before: u64,
        rows: &[BatchRow],
        held: impl Fn(usize) -> bool,
    ) -> Spending {
        let mut spending = Spending {
            budget,
            charged: charged_before,
            reserved: 0,
        };
        for (index, row) in rows.iter().enumerate() {
            spending.add(RowShare::of(row, held(index)));
        }
        spending
    }

    pub fn add(&mut self, share: RowShare) {
        self.charged = self.charged.saturating_add(share.charged);
        self.reserved = self.reserved.saturating_add(share.reserved);
    }

    pub fn remove(&mut self, share: RowShare) {
        self.charged = self.charged.saturating_sub(share.charged);
        self.reserved = self.reserved.saturating_sub(share.reserved);
    }

    /// Charged and reserved: the most the batch may have spent once every run has ended.
    pub fn committed(&self) -> u64 {
        self.charged.saturating_add(self.reserved)
    }

    /// What the budget leaves for rows not sent yet; `None` without a budget.
    pub fn left(&self) -> Option<u64> {
        self.budget
            .map(|budget| budget.saturating_sub(self.committed()))
    }

    /// Whether a row of this worst case may be sent for the first time.
    pub fn fits(&self, estimate: u64) -> bool {
        self.budget
            .is_none_or(|budget| self.committed().saturating_add(estimate) <= budget)
    }

    /// Why the batch paused before the row on `line` of worst case `estimate`.
    pub fn pause_reason(&self, line: usize, estimate: u64) -> String {
        let budget = self.budget.unwrap_or(0);
        let left = match self.left().unwrap_or(0) {
            0 => "none".to_owned(),
            left => group_thousands(left),
        };
        format!(
            "Paused at the budget: line {line} may cost up to {} and {left} of the {}-credit \
             budget is left. Raise the budget to go on.",
            counted(estimate, "credit", "credits"),
            group_thousands(budget),
        )
    }

    /// "budget 10,000 · charged 1,200 · reserved 300 · left 8,500", or without a budget
    /// "charged 1,200 · reserved 300".
    pub fn sentence(&self) -> String {
        let spent = format!(
            "charged {} · reserved {}",
            group_thousands(self.charged),
            group_thousands(self.reserved)
        );
        match (self.budget, self.left()) {
            (Some(budget), Some(left)) => format!(
                "budget {} · {spent} · left {}",
                group_thousands(budget),
                group_thousands(left)
            ),
            _ => spent,
        }
    }
}

/// The budget a batch is prepared with unless the person sets another: its worst case (the
/// sum of the valid rows' estimates), capped by the workspace's available credits when known.
pub fn default_budget(worst_case: u64, available_credits: Option<u64>) -> u64 {
    available_credits.map_or(worst_case, |available| worst_case.min(available))
}

/// The largest budget the page takes: every row of the largest batch at the contract's largest
/// `max_credits`.
pub const MAX_BUDGET: u64 = super::MAX_ROWS as u64 * api_contract::input::MAX_CREDITS_LIMIT;

/// A budget as typed: whole credits from 1 to [`MAX_BUDGET`]; thousands separators allowed.
pub fn parse_budget(text: &str) -> Result<u64, String> {
    parse_credits(text, MAX_BUDGET)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::bulk::CheckedRow;

    fn row(estimate: u64, state: RowState) -> BatchRow {
        BatchRow {
            state,
            ..BatchRow::new(CheckedRow {
                line: 2,
                cells: Vec::new(),
                body: String::new(),
                estimate,
                errors: Vec::new(),
                repeat_of: None,
                reuses: None,
            })
        }
    }

    #[test]
    fn rows_on_their_way_reserve_their_worst_case_and_ended_runs_charge_what_they_used() {
        let mut completed = row(10, RowState::Completed);
        completed.run_id = Some("r".into());
        completed.credits_used = 4;
        let lost_then_cancelled = row(7, RowState::Cancelled);
        let rows = [
            row(5, RowState::Waiting),
            row(6, RowState::Waiting),
            row(8, RowState::Submitting),
            row(9, RowState::Processing),
            completed,
            lost_then_cancelled,
            row(3, RowState::Invalid),
        ];
        let held = |index: usize| matches!(index, 1 | 5);
        let spending = Spending::of(Some(100), 20, &rows, held);
        assert_eq!(
            spending,
            Spending {
                budget: Some(100),
                charged: 20 + 4,
                reserved: 6 + 8 + 9 + 7,
            }
        );
        assert_eq!(spending.left(), Some(100 - 54));
        assert!(spending.fits(46));
        assert!(!spending.fits(47));
        assert!(
            Spending::default().fits(u64::MAX),
            "no budget: anything fits"
        );
    }

    #[test]
    fn the_pause_says_the_line_its_worst_case_and_what_is_left_in_words() {
        let spending = Spending {
            budget: Some(10_000),
            charged: 6_000,
            reserved: 2_500,
        };
        assert_eq!(
            spending.pause_reason(12, 2_000),
            "Paused at the budget: line 12 may cost up to 2,000 credits and 1,500 of the \
             10,000-credit budget is left. Raise the budget to go on."
        );
        let spent = Spending {
            budget: Some(1_000),
            charged: 1_200,
            reserved: 0,
        };
        assert_eq!(
            spent.pause_reason(3, 1),
            "Paused at the budget: line 3 may cost up to 1 credit and none of the 1,000-credit \
             budget is left. Raise the budget to go on."
        );
        assert_eq!(
            spending.sentence(),
            "budget 10,000 · charged 6,000 · reserved 2,500 · left 1,500"
        );
        assert_eq!(
            spent.sentence(),
            "budget 1,000 · charged 1,200 · reserved 0 · left 0"
        );
    }

    #[test]
    fn the_default_budget_is_the_worst_case_capped_by_the_available_credits() {
        assert_eq!(default_budget(500, None), 500);
        assert_eq!(default_budget(500, Some(450)), 450);
        assert_eq!(default_budget(500, Some(10_000)), 500);
    }

    #[test]
    fn a_typed_budget_is_whole_credits_within_the_largest_batch() {
        assert_eq!(parse_budget(" 12,500 "), Ok(12_500));
        assert_eq!(parse_budget("3000000000"), Ok(MAX_BUDGET));
        for bad in ["", "0", "-1", "2.5", "3000000001", "all"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
    }
}
