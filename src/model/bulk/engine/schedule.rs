//! The event loop: an event handled, then all that is due, and when the timer is next due.

use super::{
    CancelState, Command, Engine, Event, Keeping, PACED_BY_SHOWN, PacedBy, Phase, REFRESH_EVERY,
    SAVE_EVERY, WORKSPACE_WAIT,
};
use crate::model::bulk::RowState;
use crate::model::bulk::clock::EngineTime;

impl Engine {
    /// Feeds one event at `now` and answers what to do.
    pub fn handle(&mut self, now: EngineTime, event: Event) -> Vec<Command> {
        let mut commands = Vec::new();
        match event {
            Event::Tick => {}
            Event::WorkspaceKnown(id) => {
                if self.workspace.is_none() {
                    self.workspace = Some(id);
                }
            }
            Event::SignedIn => self.standing.awaiting_sign_in = false,
            Event::Pause => {
                if self.standing.phase == Phase::Running {
                    self.set_phase(Phase::Paused(None));
                }
            }
            Event::Resume => {
                if matches!(self.standing.phase, Phase::Paused(_)) {
                    self.set_phase(Phase::Running);
                    self.standing.counters.started_at = now.as_ms();
                    self.standing.counters.accepted = 0;
                    self.finish_if_done();
                }
            }
            Event::Cancel => {
                if matches!(self.standing.phase, Phase::Running | Phase::Paused(_)) {
                    self.start_cancel();
                }
            }
            Event::RetryFailed => self.retry_failed(now),
            Event::Submitted { row, key, answer } => {
                self.submitted(now, row, &key, answer, &mut commands)
            }
            Event::RunListRead(answer) => self.list_read(now, answer),
            Event::RunRead { row, answer } => self.run_read(now, row, answer),
            Event::CancelAnswered { row, answer } => {
                self.cancel_answered(now, row, answer, &mut commands)
            }
            Event::Saved(written) => self.saved(now, written),
            Event::SetBudget(budget) => self.set_budget(budget),
        }
        self.due(now, &mut commands);
        commands
    }

    /// The next time something is due (a submission, a read, a save), for the driver's timer.
    pub fn wake_at(&self, now: EngineTime) -> Option<EngineTime> {
        let mut at = EngineTime::NEVER;
        // Without room for records, reads and submissions wait for the store's answer (an
        // event), not for a time.
        let room = self.output_room() > 0;
        if self.may_send() && room && !self.credits.sends_wait_for_store {
            let earliest_row = self
                .rows
                .iter()
                .filter(|r| r.state == RowState::Waiting)
                .map(|r| r.not_before)
                .fold(EngineTime::NEVER, EngineTime::min);
            if earliest_row.is_finite() && self.requests.submitting < self.pacing.pacer.window() {
                at = at.min(earliest_row.max(self.pacing.pacer.ready_at(now)));
            }
        }
        if !self.standing.awaiting_sign_in {
            if room
                && !self.requests.list_in_flight
                && let Some(due) = self
                    .watching
                    .watches
                    .iter()
                    .filter(|(row, _)| !self.requests.reading.contains(row))
                    .map(|(_, w)| w.due_at)
                    .reduce(EngineTime::min)
            {
                at = at.min(due);
            }
            for state in self.requests.cancels.values() {
                if let CancelState::AgainAt(t) = state {
                    at = at.min(*t);
                }
            }
            if !self.watching.watches.is_empty() {
                at = at.min(self.balance.last_refresh_at + REFRESH_EVERY);
            }
        }
        if self.requests.save_in_flight.is_none()
            && self.standing.keeping != Keeping::Refused
            && self.has_unsaved()
        {
            at = at.min(if self.workspace.is_none() {
                self.created() + WORKSPACE_WAIT
            } else if self.save_pressed() {
                now
            } else {
                self.store.last_save_at + SAVE_EVERY
            });
        }
        // What held the batch back stops being said a while after it last did.
        if self.standing.counters.paced_by.is_some() {
            at = at.min(self.pacing.store_bound_at.max(self.pacing.rate_bound_at) + PACED_BY_SHOWN);
        }
        at.is_finite().then_some(at)
    }

    /// Whether rows may be sent now: running, kept (or refused), and signed in.
    pub(super) fn may_send(&self) -> bool {
        self.standing.phase == Phase::Running
            && self.standing.keeping != Keeping::Pending
            && !self.standing.awaiting_sign_in
    }

    /// What every due thing asks for now.
    fn due(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        if self.standing.phase == Phase::Running {
            self.clear_ahead(None);
        }
        self.due_saves(now, commands);
        if self.standing.awaiting_sign_in {
            return;
        }
        self.due_cancels(now, commands);
        // Reads first: when room for records is short, finished runs are read before more are
        // made.
        self.due_reads(now, commands);
        self.due_submissions(now, commands);
        if self.credits.sends_wait_for_store {
            self.due_saves(now, commands);
        }
        if !self.watching.watches.is_empty() && now - self.balance.last_refresh_at >= REFRESH_EVERY
        {
            self.balance.last_refresh_at = now;
            commands.push(Command::RefreshWorkspace);
        }
        self.finish_if_done();
        self.update_paced_by(now);
        // The balance moves with the batch's end: the workspace is refreshed once then.
        if self.standing.phase == Phase::Done && !self.balance.refreshed_at_end {
            self.balance.refreshed_at_end = true;
            commands.push(Command::RefreshWorkspace);
        }
    }

    /// Says what held the running batch back in the last [`PACED_BY_SHOWN`]: the store
    /// before the rate limit, since a computer that cannot keep up is the news.
    fn update_paced_by(&mut self, now: EngineTime) {
        let paced_by = if self.standing.phase != Phase::Running {
            None
        } else if now - self.pacing.store_bound_at < PACED_BY_SHOWN {
            Some(PacedBy::ThisComputer)
        } else if now - self.pacing.rate_bound_at < PACED_BY_SHOWN {
            Some(PacedBy::RateLimit)
        } else {
            None
        };
        if self.standing.counters.paced_by != paced_by {
            self.standing.counters.paced_by = paced_by;
            self.telling.changed = true;
        }
    }

    /// Running with nothing left to send, follow or store: done. Cancelling with nothing on its
    /// way: done. A kept batch is done once the store has every row's records, so the page, told
    /// of a finished row once it is stored, shows every row final when it shows "done".
    pub(super) fn finish_if_done(&mut self) {
        let storing = self.standing.keeping == Keeping::Kept && !self.store.holding.is_empty();
        let going = storing
            || self.requests.submitting > 0
            || self.rows.iter().any(|r| !r.state.is_final());
        match self.standing.phase {
            Phase::Running if !going => self.set_phase(Phase::Done),
            Phase::Cancelling => {
                let busy = storing
                    || self.requests.submitting > 0
                    || !self.requests.cancels.is_empty()
                    || !self.requests.reading.is_empty()
                    || self.rows.iter().any(|r| r.state.is_running());
                if !busy {
                    self.not_sent_rows();
                    self.set_phase(Phase::Done);
                }
            }
            _ => {}
        }
    }
}
