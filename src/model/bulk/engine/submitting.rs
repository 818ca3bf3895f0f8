//! Sending rows, at the learned pace and within the budget, and taking the API's answers.

use super::{CancelState, Command, Engine, FIRST_GUESS_RUN, Keeping, Phase, SubmitAnswer, Watch};
use crate::model::bulk::clock::{EngineTime, Millis};
use crate::model::bulk::pacer::retry_delay;
use crate::model::bulk::{BatchRow, RowState, row_key};

impl Engine {
    /// Sends the waiting rows that are due, in order, while the pace, the room for records and the
    /// budget allow; the first row that may not go stops the rest.
    pub(super) fn due_submissions(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        self.credits.sends_wait_for_store = false;
        if !self.may_send() {
            return;
        }
        loop {
            let Some(index) = self
                .rows
                .iter()
                .position(|r| r.state == RowState::Waiting && r.not_before <= now)
            else {
                return;
            };
            // A key sent before may answer with the run it made, records and all: that
            // submission takes room for them.
            let replay = self.credits.may_have_run.contains(&index);
            if replay && self.output_room() == 0 {
                self.held_back_for_room(now);
                return;
            }
            // A row sent for the first time must fit the budget; a key sent before is counted
            // already.
            if !replay && self.credits.spending.budget.is_some() {
                if !self.credits.cleared.contains(&index) {
                    self.clear_ahead(Some(index));
                }
                if !self.credits.cleared.contains(&index) {
                    let row = &self.rows[index];
                    let reason = self.credits.spending.pause_reason(row.line, row.estimate);
                    self.set_phase(Phase::Paused(Some(reason)));
                    return;
                }
                let listed = self.credits.listed_in_store.contains(&index)
                    && self
                        .requests
                        .save_in_flight
                        .as_ref()
                        .is_none_or(|save| save.listed.contains(&index));
                if self.standing.keeping == Keeping::Kept && !listed {
                    self.credits.sends_wait_for_store = true;
                    return;
                }
            }
            if self.requests.submitting >= self.pacing.pacer.window()
                || self.pacing.pacer.ready_at(now) > now
            {
                self.pacing.rate_bound_at = now;
                return;
            }
            self.pacing.pacer.sent(now);
            self.requests.submitting += 1;
            if replay {
                self.requests.replaying.insert(index);
            }
            self.change_row(index, |row| {
                row.state = RowState::Submitting;
                row.tries += 1;
            });
            let row = &self.rows[index];
            commands.push(Command::Submit {
                row: index,
                action: self.action,
                key: row_key(&self.id, row.attempt, row.line),
                body: row.body.clone(),
            });
        }
    }

    /// Takes a submission's answer, if it is for the row's submission on its way.
    pub(super) fn submitted(
        &mut self,
        now: EngineTime,
        index: usize,
        key: &str,
        answer: SubmitAnswer,
        commands: &mut Vec<Command>,
    ) {
        let current = self.rows.get(index).is_some_and(|row| {
            row.state == RowState::Submitting && row_key(&self.id, row.attempt, row.line) == key
        });
        if !current {
            return;
        }
        self.requests.submitting = self.requests.submitting.saturating_sub(1);
        self.requests.replaying.remove(&index);
        match &answer {
            // The run may have been made, its answer lost.
            SubmitAnswer::Transient => self.set_may_have_run(index, true),
            SubmitAnswer::Accepted(_) | SubmitAnswer::Refused(_) => {
                self.set_may_have_run(index, false)
            }
            SubmitAnswer::RateLimited { .. }
            | SubmitAnswer::Unauthorized
            | SubmitAnswer::InsufficientCredits { .. } => {}
        }
        let again = |not_before: EngineTime| {
            move |row: &mut BatchRow| {
                row.state = RowState::Waiting;
                row.not_before = not_before;
            }
        };
        match answer {
            SubmitAnswer::Accepted(run) => {
                self.pacing.pacer.accepted();
                self.standing.counters.accepted += 1;
                self.watching.accepted_seq += 1;
                let terminal = run.status.is_terminal();
                if terminal {
                    self.learn_run_time(&run);
                }
                self.change_row(index, |row| row.take_run(&run));
                if !terminal && self.rows[index].state.is_running() {
                    let expected = self.watching.run_time.unwrap_or(FIRST_GUESS_RUN);
                    self.watching.watches.insert(
                        index,
                        Watch {
                            accepted_seq: self.watching.accepted_seq,
                            due_at: now + expected * 1.1 + Millis::from_ms(100.0),
                            early_reads: 0,
                            off_list: false,
                        },
                    );
                    if self.standing.phase == Phase::Cancelling {
                        self.requests
                            .cancels
                            .insert(index, CancelState::AgainAt(now));
                    }
                }
            }
            SubmitAnswer::RateLimited { retry_after } => {
                self.pacing.pacer.limited(now, retry_after.unwrap_or(1.0));
                self.standing.counters.limited += 1;
                self.telling.changed = true;
                self.change_row(index, again(EngineTime::EPOCH));
            }
            SubmitAnswer::Unauthorized => {
                self.standing.awaiting_sign_in = true;
                self.change_row(index, again(EngineTime::EPOCH));
            }
            SubmitAnswer::InsufficientCredits { message } => {
                self.change_row(index, again(EngineTime::EPOCH));
                if self.standing.phase == Phase::Running {
                    self.set_phase(Phase::Paused(Some(format!(
                        "Paused: {} Resume once credits are available.",
                        message
                            .as_deref()
                            .unwrap_or("Not enough credits for the next row.")
                    ))));
                }
                commands.push(Command::RefreshWorkspace);
            }
            SubmitAnswer::Transient => {
                let tries = self.rows[index].tries;
                self.change_row(index, again(now + retry_delay(tries)));
            }
            SubmitAnswer::Refused(error) => self.change_row(index, |row| {
                row.state = RowState::Failed;
                row.error = Some(error);
            }),
        }
        if self.standing.phase == Phase::Cancelling {
            self.not_sent_rows();
        }
    }
}
