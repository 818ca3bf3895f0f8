//! The credit budget: what rows hold back, and which rows it clears to be sent.

use std::collections::BTreeSet;

use super::{
    CLEARED_AHEAD, CLEARED_AHEAD_AT_LEAST, CLEARED_AHEAD_AT_MOST, CLEARED_AHEAD_UNPACED, Engine,
};
use crate::model::bulk::RowState;
use crate::model::bulk::budget::{RowShare, Spending};

impl Engine {
    /// A row waits but counts its worst case (see [`RowShare::of`]).
    pub(super) fn held(&self, index: usize) -> bool {
        self.credits.may_have_run.contains(&index) || self.credits.cleared.contains(&index)
    }

    /// Counts the spending from scratch, after a change of the budget or of many rows at once.
    pub(super) fn count_spending(&mut self) {
        self.credits.spending = Spending::of(
            self.credits.spending.budget,
            self.credits.charged_before,
            &self.rows,
            |index| self.held(index),
        );
    }

    /// Marks whether a row's key may have made a run, keeping the spending up to date.
    pub(super) fn set_may_have_run(&mut self, index: usize, may: bool) {
        let Some(row) = self.rows.get(index) else {
            return;
        };
        let before = RowShare::of(row, self.held(index));
        if may {
            self.credits.may_have_run.insert(index);
        } else {
            self.credits.may_have_run.remove(&index);
        }
        let after = RowShare::of(row, self.held(index));
        self.credits.spending.remove(before);
        self.credits.spending.add(after);
    }

    /// A new budget. Rows cleared under the old one and not sent yet are cleared again under
    /// the new one. A running batch that no longer fits pauses before its next row; a paused
    /// one waits for the person's Resume.
    pub(super) fn set_budget(&mut self, budget: Option<u64>) {
        let had_budget = self.credits.spending.budget.is_some();
        self.credits.spending.budget = budget;
        let not_sent: Vec<usize> = self
            .credits
            .cleared
            .iter()
            .copied()
            .filter(|&index| {
                self.rows[index].state == RowState::Waiting
                    && !self.credits.may_have_run.contains(&index)
            })
            .collect();
        for index in not_sent {
            self.credits.cleared.remove(&index);
        }
        if budget.is_none() {
            self.credits.cleared.clear();
        } else if !had_budget {
            // Sent before there was a budget: the summary lists them from now on.
            let on_their_way: Vec<usize> = (0..self.rows.len())
                .filter(|&index| self.rows[index].state == RowState::Submitting)
                .collect();
            self.credits.cleared.extend(on_their_way);
        }
        self.count_spending();
        self.telling.changed = true;
    }

    /// How many rows to keep cleared ahead of sending: a few seconds at the learned pace.
    fn cleared_ahead(&self) -> usize {
        match self.pacing.pacer.interval() {
            Some(interval) => ((CLEARED_AHEAD / interval).ceil() as usize)
                .clamp(CLEARED_AHEAD_AT_LEAST, CLEARED_AHEAD_AT_MOST),
            None => CLEARED_AHEAD_UNPACED,
        }
    }

    /// With a budget, clears the next rows never sent, in order, while their worst case fits
    /// what is left, up to [`Engine::cleared_ahead`] waiting (and at least through
    /// `through`); the first that does not fit stops it, so no row is skipped. Refilled once
    /// half are sent, so the summary changes once every few saves.
    pub(super) fn clear_ahead(&mut self, through: Option<usize>) {
        if self.credits.spending.budget.is_none() {
            return;
        }
        let ahead = self.cleared_ahead();
        let mut waiting = self
            .credits
            .cleared
            .iter()
            .filter(|&&index| {
                self.rows[index].state == RowState::Waiting
                    && !self.credits.may_have_run.contains(&index)
            })
            .count();
        if waiting >= ahead / 2 && through.is_none() {
            return;
        }
        for index in 0..self.rows.len() {
            if waiting >= ahead && through.is_none_or(|through| index > through) {
                return;
            }
            let row = &self.rows[index];
            if row.state != RowState::Waiting || self.held(index) {
                continue;
            }
            if !self.credits.spending.fits(row.estimate) {
                return;
            }
            let before = RowShare::of(row, false);
            self.credits.cleared.insert(index);
            let after = RowShare::of(row, true);
            self.credits.spending.remove(before);
            self.credits.spending.add(after);
            waiting += 1;
        }
    }

    /// With a budget, the rows the summary lists as "may have run": sent without an answer, or
    /// cleared to be sent.
    pub(super) fn listed(&self) -> BTreeSet<usize> {
        match self.credits.spending.budget {
            Some(_) => self
                .credits
                .may_have_run
                .union(&self.credits.cleared)
                .copied()
                .collect(),
            None => BTreeSet::new(),
        }
    }
}
