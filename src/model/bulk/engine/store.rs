//! What the engine writes to this browser's store, and the room in memory for records until then.

use super::{
    Command, Engine, Keeping, OUTPUTS_IN_MEMORY_AT_MOST, Phase, SAVE_AT_ONCE_HOLDING, SAVE_EVERY,
    SaveInFlight, Saving, WORKSPACE_WAIT,
};
use crate::model::bulk::clock::{EngineTime, Millis};
use crate::model::bulk::{BatchExpiryMarks, RowState, SavedBatch, SavedCounts};

impl Engine {
    /// Runs whose records are in memory or may arrive in an answer on its way (bounded by
    /// [`OUTPUTS_IN_MEMORY_AT_MOST`] once the batch is kept).
    fn outputs_in_memory(&self) -> usize {
        self.store.holding.len()
            + self.requests.reading.len()
            + self.requests.list_outputs
            + self.requests.replaying.len()
    }

    /// A request waits for room for records: when records wait for the store, the store (this
    /// computer) is what holds the batch back; otherwise the room is taken by answers on their
    /// way, which is neither the store nor the rate limit.
    pub(super) fn held_back_for_room(&mut self, now: EngineTime) {
        if self.store.holding.len() >= SAVE_AT_ONCE_HOLDING {
            self.pacing.store_bound_at = now;
        }
    }

    /// How many more runs' records may come into memory now.
    pub(super) fn output_room(&self) -> usize {
        match self.standing.keeping {
            // The store is where records go: they may not wait for it without bound.
            Keeping::Kept => OUTPUTS_IN_MEMORY_AT_MOST.saturating_sub(self.outputs_in_memory()),
            // Not written yet (nothing is sent), or never: memory is the only place there is.
            Keeping::Pending | Keeping::Refused => usize::MAX,
        }
    }

    /// Whether the next save should not wait for [`SAVE_EVERY`]: records pile up, sends wait
    /// for the store, or nothing but the save is left to do. Saves are gathered so that many
    /// answers make one write; with no request on its way and no row left to send, no answer
    /// is coming to gather, and what waits on the save (the batch's end, a chain's next step)
    /// should not.
    pub(super) fn save_pressed(&self) -> bool {
        !self.store.last_save_refused
            && (self.store.holding.len() >= SAVE_AT_ONCE_HOLDING
                || self.credits.sends_wait_for_store
                || self.only_saving_left())
    }

    /// No request on its way and no row that may still change on its own.
    fn only_saving_left(&self) -> bool {
        self.requests.submitting == 0
            && self.requests.reading.is_empty()
            && !self.requests.list_in_flight
            && self.requests.cancels.is_empty()
            && self.rows.iter().all(|row| row.state.is_final())
    }

    /// Whether the store lacks something: changed rows, new runs or the summary.
    pub(super) fn has_unsaved(&self) -> bool {
        !self.store.dirty.is_empty()
            || !self.store.new_runs.is_empty()
            || self.store.saved_summary.as_ref() != Some(&self.summary())
    }

    /// The batch's summary as kept in this browser.
    pub fn summary(&self) -> SavedBatch {
        let done = self.standing.phase == Phase::Done;
        SavedBatch {
            id: self.id.clone(),
            workspace: self.workspace.clone().unwrap_or_default(),
            action: self.action.as_str().to_owned(),
            headers: self.headers.clone(),
            created_at: self.created_at,
            cancelled: self.standing.cancelled,
            done,
            to_send: self.tally.to_send,
            finished: self.tally.finished,
            pace: self.pacing.pacer.learned(),
            budget: self.credits.spending.budget,
            charged_before: self.credits.charged_before,
            may_have_run: self.credits.spending.budget.map(|_| {
                self.listed()
                    .into_iter()
                    .map(|index| self.rows[index].line)
                    .collect()
            }),
            counts: Some(SavedCounts {
                charged: self.credits.spending.charged,
                failed: self.tally.count(RowState::Failed),
            }),
            // Run again (a retry), the batch is dated again once it is done again.
            expiry: BatchExpiryMarks {
                done_seen_at: self.store.expiry.done_seen_at.filter(|_| done),
                records_forgotten: self.store.expiry.records_forgotten,
            },
        }
    }

    /// Asks for a save when one is due: every second with changes, at once when it is pressed
    /// ([`Engine::save_pressed`]); none before the workspace is known.
    pub(super) fn due_saves(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        let pressed = self.save_pressed();
        if self.requests.save_in_flight.is_some()
            || self.standing.keeping == Keeping::Refused
            || !self.has_unsaved()
            || (now - self.store.last_save_at < SAVE_EVERY && !pressed)
        {
            return;
        }
        if self.workspace.is_none() {
            // Only the workspace's sign-ins may see a kept batch: without it, after a few
            // seconds the batch goes on in this page only, and says so.
            if now - self.created() >= WORKSPACE_WAIT && self.standing.keeping == Keeping::Pending {
                self.standing.keeping = Keeping::Refused;
                self.telling.changed = true;
            }
            return;
        }
        let rows: Vec<usize> = std::mem::take(&mut self.store.dirty).into_iter().collect();
        let new_runs = std::mem::take(&mut self.store.new_runs);
        let summary = self.summary();
        commands.push(Command::Save(Box::new(Saving {
            summary: summary.clone(),
            rows: rows.iter().map(|&i| self.rows[i].clone()).collect(),
            new_runs: new_runs.clone(),
        })));
        self.requests.save_in_flight = Some(SaveInFlight {
            rows,
            new_runs,
            summary,
            listed: self.listed(),
        });
        self.store.last_save_at = now;
    }

    /// Takes the store's answer to the save on its way.
    pub(super) fn saved(
        &mut self,
        now: EngineTime,
        written: Result<(), crate::model::store_error::StoreError>,
    ) {
        let Some(save) = self.requests.save_in_flight.take() else {
            return;
        };
        self.standing.counters.store_busy_ms +=
            (now - self.store.last_save_at).max(Millis::ZERO).as_ms();
        self.telling.changed = true;
        let refused = written.err();
        self.store.last_save_refused = refused.is_some();
        if refused.is_none() {
            self.store.saved_summary = Some(save.summary);
            // The store lists these rows as "may have run" now: cleared, they may go.
            self.credits.listed_in_store = save.listed;
            if self.standing.keeping != Keeping::Kept {
                self.standing.keeping = Keeping::Kept;
                self.telling.changed = true;
            }
            // A finished row written as it is now keeps its records in the store only, and the
            // page's copy lets them go too.
            for index in save.rows {
                let row = &mut self.rows[index];
                if row.state.is_final()
                    && !self.store.dirty.contains(&index)
                    && !row.output.is_empty()
                {
                    row.output = Vec::new();
                    self.store.holding.remove(&index);
                    self.standing.counters.outputs_saved += 1;
                    self.telling.unshown.insert(index);
                    self.telling.changed = true;
                }
            }
            return;
        }
        // Nothing of it is kept: it stays unsaved for the next try.
        self.store.dirty.extend(save.rows);
        let mut new_runs = save.new_runs;
        new_runs.append(&mut self.store.new_runs);
        self.store.new_runs = new_runs;
        match self.standing.keeping {
            Keeping::Pending => {
                // The browser keeps nothing at all: the batch goes on in this page.
                self.standing.keeping = Keeping::Refused;
                self.telling.changed = true;
            }
            Keeping::Kept => {
                // Kept so far, refused now (a full disk): stop sending, so that no key is sent
                // that a reload could not find. What was received stays in this page.
                if matches!(self.standing.phase, Phase::Running) {
                    let why = refused.map(|error| error.sentence()).unwrap_or_default();
                    self.set_phase(Phase::Paused(Some(format!(
                        "Paused: this browser's storage refused to save the batch. Nothing \
                         received is lost while this page stays open. {why} Then resume."
                    ))));
                }
            }
            Keeping::Refused => {}
        }
    }
}
