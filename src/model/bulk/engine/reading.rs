//! Reading the running rows' runs: the run list or single runs, whichever costs less.

use std::collections::{HashMap, HashSet};

use api_contract::Run;

use super::{
    CancelState, Command, Engine, FIRST_GUESS_RUN, Phase, REQUEST_OVERHEAD_BYTES, ReadAnswer,
    SINGLE_READS_AT_ONCE, Watch,
};
use crate::model::bulk::clock::{EngineTime, Millis};
use crate::model::bulk::{RUN_LIST_LIMIT, RowError, RowState};

impl Engine {
    /// Learns how long runs take from a finished one (a moving average).
    pub(super) fn learn_run_time(&mut self, run: &Run) {
        if let Some(done) = run.completed_at {
            let took = Millis::from_ms((done - run.created_at).num_milliseconds().max(0) as f64);
            self.watching.run_time = Some(match self.watching.run_time {
                None => took,
                Some(before) => before * 0.8 + took * 0.2,
            });
        }
    }

    /// Learns what an answer weighs (a moving average).
    fn learn_bytes(average: &mut Option<f64>, bytes: usize) {
        let bytes = bytes as f64;
        *average = Some(match *average {
            None => bytes,
            Some(before) => before * 0.7 + bytes * 0.3,
        });
    }

    /// Reads due now: the run list when it costs less than the due rows' single reads.
    pub(super) fn due_reads(&mut self, now: EngineTime, commands: &mut Vec<Command>) {
        if self.requests.list_in_flight {
            return;
        }
        let mut due: Vec<(usize, Watch)> = self
            .watching
            .watches
            .iter()
            .filter(|(row, w)| w.due_at <= now && !self.requests.reading.contains(*row))
            .map(|(row, w)| (*row, *w))
            .collect();
        if due.is_empty() {
            return;
        }
        // A run accepted more than a list's length before the latest is not in the list.
        let in_list = |w: &Watch| {
            !w.off_list && self.watching.accepted_seq - w.accepted_seq < RUN_LIST_LIMIT as u64
        };
        let single_cost = REQUEST_OVERHEAD_BYTES
            + self
                .watching
                .finished_run_bytes
                .unwrap_or(self.watching.unfinished_run_bytes);
        let covered = due.iter().filter(|(_, w)| in_list(w)).count();
        let list_cost = REQUEST_OVERHEAD_BYTES
            // Not read yet: as many runs as the list holds, weighing what runs weigh.
            + self
                .watching.list_bytes
                .unwrap_or(RUN_LIST_LIMIT as f64 * single_cost);
        let room = self.output_room();
        if covered > 1 && list_cost < covered as f64 * single_cost {
            // The list may finish every watched run it holds.
            let outputs = self
                .watching
                .watches
                .values()
                .filter(|w| in_list(w))
                .count()
                .min(RUN_LIST_LIMIT);
            if outputs <= room {
                self.requests.list_in_flight = true;
                self.requests.list_outputs = outputs;
                self.standing.counters.status_requests += 1;
                self.telling.changed = true;
                commands.push(Command::ReadRunList);
                return;
            }
        }
        // The earliest due first. Only the reads that can go at once need ordering: with
        // thousands of runs waiting to be read (a store behind the API), sorting them all at
        // every event was a tenth of the worker's time.
        let earliest = |a: &(usize, Watch), b: &(usize, Watch)| {
            a.1.due_at.total_cmp(&b.1.due_at).then(a.0.cmp(&b.0))
        };
        if due.len() > SINGLE_READS_AT_ONCE {
            due.select_nth_unstable_by(SINGLE_READS_AT_ONCE, earliest);
            due.truncate(SINGLE_READS_AT_ONCE);
        }
        due.sort_by(earliest);
        for (row, _) in due {
            if self.requests.reading.len() >= SINGLE_READS_AT_ONCE {
                break;
            }
            if self.output_room() == 0 {
                self.held_back_for_room(now);
                break;
            }
            let Some(run_id) = self.rows[row].run_id.clone() else {
                continue;
            };
            self.requests.reading.insert(row);
            self.standing.counters.status_requests += 1;
            self.telling.changed = true;
            commands.push(Command::ReadRun { row, run_id });
        }
    }

    /// A running row found still running: read it again later, a little later each time.
    fn read_again_later(&mut self, now: EngineTime, index: usize) {
        let expected = self.watching.run_time.unwrap_or(FIRST_GUESS_RUN);
        if let Some(watch) = self.watching.watches.get_mut(&index) {
            watch.early_reads += 1;
            let wait = (expected / 2.0).max(Millis::from_ms(1_000.0))
                * 1.5f64.powi(watch.early_reads.saturating_sub(1).min(6) as i32);
            watch.due_at = now + wait.min(Millis::from_ms(10_000.0));
        }
    }

    /// Takes a run's answer for a row; counts a finished run's bytes as results the first time.
    pub(super) fn take_read_run(
        &mut self,
        now: EngineTime,
        index: usize,
        run: &Run,
        bytes: Option<usize>,
    ) {
        let was_running = self.rows[index].state.is_running();
        if run.status.is_terminal() && was_running {
            self.learn_run_time(run);
            if let Some(bytes) = bytes {
                self.standing.counters.result_bytes += bytes;
                Self::learn_bytes(&mut self.watching.finished_run_bytes, bytes);
            }
        } else if let Some(bytes) = bytes {
            self.watching.unfinished_run_bytes =
                self.watching.unfinished_run_bytes * 0.7 + bytes as f64 * 0.3;
        }
        self.change_row(index, |row| row.take_run(run));
        if self.rows[index].state.is_running() {
            self.read_again_later(now, index);
        }
    }

    /// Takes a single run's read.
    pub(super) fn run_read(&mut self, now: EngineTime, index: usize, answer: ReadAnswer<Run>) {
        self.requests.reading.remove(&index);
        match answer {
            ReadAnswer::Read { value, bytes } => {
                self.standing.counters.status_bytes += bytes;
                if self.rows.get(index).and_then(|r| r.run_id.as_deref()) == Some(&value.id) {
                    self.take_read_run(now, index, &value, Some(bytes));
                }
                // A read asked after a cancel's 409: if the run still shows as going, cancel
                // again.
                if self.standing.phase == Phase::Cancelling
                    && self.rows[index].state.is_running()
                    && !self.requests.cancels.contains_key(&index)
                {
                    self.requests
                        .cancels
                        .insert(index, CancelState::AgainAt(now));
                }
            }
            ReadAnswer::Unauthorized => self.standing.awaiting_sign_in = true,
            // A reused run the API no longer has: the row is sent after all, like any other.
            ReadAnswer::NotFound if self.rows[index].reuses.is_some() => {
                self.watching.watches.remove(&index);
                self.change_row(index, |row| {
                    row.reuses = None;
                    row.run_id = None;
                    row.state = RowState::Waiting;
                });
            }
            ReadAnswer::NotFound => self.change_row(index, |row| {
                row.state = RowState::Failed;
                row.error = Some(RowError {
                    code: "not_found".to_owned(),
                    message: "The API no longer knows this run.".to_owned(),
                    request_id: None,
                });
            }),
            ReadAnswer::Failed => self.read_again_later(now, index),
        }
    }

    /// Takes the run list's read: every watched run it holds; a due run it misses is read on its
    /// own from then on.
    pub(super) fn list_read(&mut self, now: EngineTime, answer: ReadAnswer<Vec<Run>>) {
        self.requests.list_in_flight = false;
        self.requests.list_outputs = 0;
        match answer {
            ReadAnswer::Read { value, bytes } => {
                self.standing.counters.status_bytes += bytes;
                Self::learn_bytes(&mut self.watching.list_bytes, bytes);
                let by_run: HashMap<&str, usize> = self
                    .watching
                    .watches
                    .keys()
                    .filter_map(|&i| Some((self.rows[i].run_id.as_deref()?, i)))
                    .collect();
                let found: Vec<(usize, Run)> = value
                    .into_iter()
                    .filter_map(|run| Some((*by_run.get(run.id.as_str())?, run)))
                    .collect();
                let listed: HashSet<usize> = found.iter().map(|(i, _)| *i).collect();
                for (index, run) in found {
                    // The list's bytes are status; a finished run's share is its result.
                    let share = serde_json::to_string(&run).map_or(0, |s| s.len());
                    if run.status.is_terminal() {
                        self.standing.counters.result_bytes += share;
                        Self::learn_bytes(&mut self.watching.finished_run_bytes, share);
                    }
                    self.take_read_run(now, index, &run, None);
                }
                // A due run missing from the list left it (over a hundred runs since): read it on
                // its own.
                let missing: Vec<usize> = self
                    .watching
                    .watches
                    .iter()
                    .filter(|(i, w)| w.due_at <= now && !listed.contains(*i))
                    .map(|(i, _)| *i)
                    .collect();
                for index in missing {
                    if let Some(w) = self.watching.watches.get_mut(&index) {
                        w.off_list = true;
                    }
                }
            }
            ReadAnswer::Unauthorized => self.standing.awaiting_sign_in = true,
            ReadAnswer::NotFound | ReadAnswer::Failed => {}
        }
    }
}
