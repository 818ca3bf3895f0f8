//! A batch started, taken up again after a reload, or its failed rows started again.

use std::collections::{BTreeSet, HashMap, HashSet};

use api_contract::ActionId;

use super::{
    BalanceRefresh, Counters, Credits, Engine, Keeping, OnTheirWay, Pacing, Phase, Standing,
    Storing, Telling, Watch, Watching,
};
use crate::model::bulk::budget::Spending;
use crate::model::bulk::clock::EngineTime;
use crate::model::bulk::pacer::{LearnedPace, Pacer};
use crate::model::bulk::{BatchExpiryMarks, BatchRow, RowState, SavedBatch, Tally};

impl Engine {
    /// A new batch of checked rows (invalid rows are kept and listed, never sent).
    pub fn new(
        id: String,
        workspace: Option<String>,
        action: ActionId,
        headers: Vec<String>,
        rows: Vec<BatchRow>,
        now: EngineTime,
    ) -> Engine {
        let dirty = (0..rows.len()).collect();
        let spending = Spending::of(None, 0, &rows, |_| false);
        let mut engine = Engine {
            id,
            workspace,
            created_at: now.as_ms(),
            action,
            headers,
            tally: Tally::of(&rows),
            rows,
            standing: Standing {
                phase: Phase::Running,
                keeping: Keeping::Pending,
                cancelled: false,
                counters: Counters {
                    started_at: now.as_ms(),
                    ..Counters::default()
                },
                awaiting_sign_in: false,
            },
            telling: Telling {
                changed: true,
                unshown: BTreeSet::new(),
            },
            requests: OnTheirWay {
                submitting: 0,
                replaying: BTreeSet::new(),
                reading: HashSet::new(),
                list_in_flight: false,
                list_outputs: 0,
                cancels: HashMap::new(),
                save_in_flight: None,
            },
            watching: Watching {
                accepted_seq: 0,
                watches: HashMap::new(),
                list_bytes: None,
                finished_run_bytes: None,
                unfinished_run_bytes: 600.0,
                run_time: None,
            },
            pacing: Pacing {
                pacer: Pacer::default(),
                store_bound_at: EngineTime::LONG_AGO,
                rate_bound_at: EngineTime::LONG_AGO,
            },
            credits: Credits {
                spending,
                charged_before: 0,
                may_have_run: BTreeSet::new(),
                cleared: BTreeSet::new(),
                listed_in_store: BTreeSet::new(),
                sends_wait_for_store: false,
            },
            store: Storing {
                dirty,
                new_runs: Vec::new(),
                holding: BTreeSet::new(),
                saved_summary: None,
                expiry: BatchExpiryMarks::default(),
                last_save_at: EngineTime::LONG_AGO,
                last_save_refused: false,
            },
            balance: BalanceRefresh {
                last_refresh_at: now,
                refreshed_at_end: false,
            },
        };
        engine.store.holding = (0..engine.rows.len())
            .filter(|&i| !engine.rows[i].output.is_empty())
            .collect();
        // Rows reusing a run made before: read on their own (such a run is rarely in the
        // latest list), from the start.
        for (index, row) in engine.rows.iter().enumerate() {
            if row.state.is_running() {
                engine.watching.watches.insert(
                    index,
                    Watch {
                        accepted_seq: 0,
                        due_at: now,
                        early_reads: 0,
                        off_list: true,
                    },
                );
            }
        }
        engine.finish_if_done();
        engine
    }

    /// The batch with a credit budget (`None`: none), for a batch being created.
    pub fn with_budget(mut self, budget: Option<u64>) -> Engine {
        self.credits.spending.budget = budget;
        self
    }

    /// The batch starting at a pace another batch learned against the same API (a chain's step
    /// after the step before), instead of learning it again through `429`s; `None`: none known.
    pub fn with_pace(mut self, pace: Option<LearnedPace>) -> Engine {
        if let Some(pace) = pace {
            self.pacing.pacer = Pacer::learned_before(pace);
        }
        self
    }

    /// A batch kept in this browser, taken up again after a reload: paused (or going on with
    /// its cancel). A row that was on its way goes again with the same key once resumed: the API
    /// answers with the run it made, if it made one, so nothing runs twice.
    pub fn restore(
        summary: SavedBatch,
        mut rows: Vec<BatchRow>,
        now: EngineTime,
    ) -> Option<Engine> {
        let action = ActionId::parse(&summary.action)?;
        // Without a budget, a row kept as waiting may have been sent after the last save: any of
        // them may answer with a run. With one, the summary lists the rows that may have run
        // (no row is sent for the first time before a save lists it).
        let listed: Option<HashSet<usize>> = summary
            .may_have_run
            .as_ref()
            .map(|lines| lines.iter().copied().collect());
        let mut may_have_run = BTreeSet::new();
        for (index, row) in rows.iter_mut().enumerate() {
            let was_on_its_way = row.state == RowState::Submitting;
            if was_on_its_way {
                row.state = RowState::Waiting;
            }
            let may = match &listed {
                None => row.state == RowState::Waiting,
                Some(lines) => {
                    row.run_id.is_none() && (was_on_its_way || lines.contains(&row.line))
                }
            };
            if may {
                may_have_run.insert(index);
            }
            // Kept before the count was: count the records kept with the row.
            if row.records == 0 {
                row.records = row.output.len();
            }
            // A finished row's records stay in the store (exports read them there).
            if row.state.is_final() {
                row.output = Vec::new();
            }
        }
        let mut engine = Engine::new(
            summary.id.clone(),
            Some(summary.workspace.clone()),
            action,
            summary.headers.clone(),
            rows,
            now,
        );
        engine.created_at = summary.created_at;
        engine.standing.keeping = Keeping::Kept;
        engine.store.dirty.clear();
        if summary.may_have_run.is_some() {
            engine.credits.listed_in_store = may_have_run.clone();
        }
        engine.credits.may_have_run = may_have_run;
        engine.credits.charged_before = summary.charged_before;
        engine.credits.spending.budget = summary.budget;
        engine.count_spending();
        // Whoever shows the batch hears every row once, as kept: a page whose copy missed a
        // row's last change (told once stored, and the worker before this one stopped in
        // between) shows it as it is.
        engine.telling.unshown = (0..engine.rows.len()).collect();
        engine.standing.cancelled = summary.cancelled;
        if let Some(pace) = summary.pace {
            engine.pacing.pacer = Pacer::learned_before(pace);
        }
        engine.store.expiry = summary.expiry;
        engine.store.saved_summary = Some(summary);
        engine.balance.refreshed_at_end = true;
        let mut order = 0;
        for (index, row) in engine.rows.iter().enumerate() {
            if row.state.is_running() {
                order += 1;
                engine.watching.watches.insert(
                    index,
                    Watch {
                        accepted_seq: order,
                        due_at: now,
                        early_reads: 0,
                        off_list: false,
                    },
                );
            }
        }
        engine.watching.accepted_seq = order;
        if engine.rows.iter().all(|r| r.state.is_final()) {
            engine.standing.phase = Phase::Done;
        } else if engine.standing.cancelled {
            engine.start_cancel();
        } else {
            engine.standing.phase = Phase::Paused(Some(
                "Paused: this batch was taken up again from this browser. Resume to send the \
                 rest; rows that were on their way go again with the same key, so none runs twice."
                    .to_owned(),
            ));
        }
        Some(engine)
    }

    /// When the batch was first started, on the batch's clock.
    pub(super) fn created(&self) -> EngineTime {
        EngineTime::from_ms(self.created_at)
    }

    /// A done batch sends its failed rows again, each as a new attempt with a new key.
    pub(super) fn retry_failed(&mut self, now: EngineTime) {
        if self.standing.phase != Phase::Done {
            return;
        }
        let failed: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].state == RowState::Failed)
            .collect();
        if failed.is_empty() {
            return;
        }
        for index in failed {
            // A new attempt is a new key: nothing was made with it. The old attempt's run still
            // counts against the budget.
            self.set_may_have_run(index, false);
            let charged = self.rows[index].credits_used;
            self.credits.charged_before = self.credits.charged_before.saturating_add(charged);
            self.credits.spending.charged = self.credits.spending.charged.saturating_add(charged);
            self.change_row(index, |row| {
                row.attempt += 1;
                row.tries = 0;
                row.not_before = EngineTime::EPOCH;
                row.state = RowState::Waiting;
                row.run_id = None;
                row.error = None;
                row.output.clear();
                row.records = 0;
                row.credits_used = 0;
            });
        }
        self.standing.cancelled = false;
        self.set_phase(Phase::Running);
        self.standing.counters.started_at = now.as_ms();
        self.standing.counters.accepted = 0;
        self.balance.refreshed_at_end = false;
    }
}
