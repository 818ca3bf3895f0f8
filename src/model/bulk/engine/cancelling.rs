//! Cancelling a batch: rows not sent are not sent, and the runs still going are cancelled.

use super::{CANCEL_AGAIN, CancelAnswer, CancelState, Command, Engine, Phase};
use crate::model::bulk::clock::EngineTime;
use crate::model::bulk::{RowError, RowState};

impl Engine {
    /// Cancel asked: rows not sent are not sent, and every run still going is to be cancelled.
    pub(super) fn start_cancel(&mut self) {
        self.standing.cancelled = true;
        self.set_phase(Phase::Cancelling);
        self.telling.changed = true;
        self.not_sent_rows();
        let running: Vec<usize> = (0..self.rows.len())
            // A reused run is someone else's finished run, only being read.
            .filter(|&i| {
                let row = &self.rows[i];
                row.state.is_running() && row.run_id.is_some() && row.reuses.is_none()
            })
            .collect();
        for index in running {
            self.requests
                .cancels
                .entry(index)
                .or_insert(CancelState::AgainAt(EngineTime::LONG_AGO));
        }
    }

    /// During a cancel, a row not on its way is not sent.
    pub(super) fn not_sent_rows(&mut self) {
        let waiting: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].state == RowState::Waiting)
            .collect();
        for index in waiting {
            self.change_row(index, |row| {
                row.state = RowState::Cancelled;
                row.error = Some(RowError {
                    code: "not_sent".to_owned(),
                    message: "The batch was cancelled before this row was sent.".to_owned(),
                    request_id: None,
                });
            });
        }
    }

    /// Cancels due now: asked for runs still going; a row no longer running needs none.
    pub(super) fn due_cancels(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        let due: Vec<usize> = self
            .requests
            .cancels
            .iter()
            .filter(|(_, s)| matches!(s, CancelState::AgainAt(t) if *t <= now))
            .map(|(i, _)| *i)
            .collect();
        for index in due {
            let row = &self.rows[index];
            match (&row.run_id, row.state.is_running()) {
                (Some(run_id), true) => {
                    commands.push(Command::CancelRun {
                        row: index,
                        run_id: run_id.clone(),
                    });
                    self.requests.cancels.insert(index, CancelState::InFlight);
                }
                _ => {
                    self.requests.cancels.remove(&index);
                }
            }
        }
    }

    /// Takes a cancel's answer: the run as cancelled, a read after a 409, or a later try.
    pub(super) fn cancel_answered(
        &mut self,
        now: EngineTime,
        index: usize,
        answer: CancelAnswer,
        commands: &mut Vec<Command>,
    ) {
        self.requests.cancels.remove(&index);
        match answer {
            CancelAnswer::Cancelled(run) => self.take_read_run(now, index, &run, None),
            CancelAnswer::AlreadyFinished => {
                if let Some(run_id) = self.rows.get(index).and_then(|r| r.run_id.clone()) {
                    self.requests.reading.insert(index);
                    self.standing.counters.status_requests += 1;
                    commands.push(Command::ReadRun { row: index, run_id });
                }
            }
            CancelAnswer::Unauthorized => {
                self.standing.awaiting_sign_in = true;
                self.requests
                    .cancels
                    .insert(index, CancelState::AgainAt(now + CANCEL_AGAIN));
            }
            CancelAnswer::Failed => {
                self.requests
                    .cancels
                    .insert(index, CancelState::AgainAt(now + CANCEL_AGAIN));
            }
        }
    }
}
