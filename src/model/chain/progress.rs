//! Where a chain stands and what comes next, from what this browser keeps
//! (docs/decisions/chains.md): each step is a bulk batch whose id is derived from the chain's,
//! so the chain needs no other record of its steps, and a page that opens it after a reload
//! finds every step that may have sent anything.
//!
//! A step is sealed once the next one is made from it: its rows' records are what the next
//! step's lines were made from, so running its failed rows again afterwards would change those
//! lines (and with them the keys). A step that ends with failed runs therefore waits for the
//! person: retry them (the step's own "Retry failed rows"), or go on without them.

use serde::{Deserialize, Serialize};

use super::ChainPlan;
use crate::model::bulk::budget::Spending;
use crate::model::bulk::engine::Phase;
use crate::model::bulk::{BatchRow, RowState, SavedBatch};
use crate::model::format::counted;
use crate::model::same_input::ReuseWindow;

/// A chain as kept in this browser.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedChain {
    /// 32 hex digits, as a batch's id.
    pub id: String,
    /// Only sign-ins to this workspace see the chain.
    pub workspace: String,
    pub plan: ChainPlan,
    /// The most the whole chain may spend, in credits; `None`: no budget.
    pub budget: Option<u64>,
    /// When it was started, ms since the epoch.
    pub created_at: f64,
    /// The steps the person chose to go on from although some of their runs failed.
    #[serde(default)]
    pub went_on_after: Vec<usize>,
    pub cancelled: bool,
    /// How recent a completed run kept in this browser may be for a row of any step to reuse
    /// its results rather than be sent, as chosen at the start (chains kept before had none).
    #[serde(default = "reuse_nothing")]
    pub reuse: ReuseWindow,
}

/// Chains kept before the reuse window was: every row sent.
fn reuse_nothing() -> ReuseWindow {
    ReuseWindow::Off
}

/// The most steps a chain has: the contract's longest chain is three actions, and a step's
/// number takes two digits of its batch's id.
pub const STEPS_AT_MOST: usize = 99;

impl SavedChain {
    /// The id of step `step`'s batch (0: the first step): the chain's id with its last two
    /// digits replaced by the step's number, so the same chain and step always name the same
    /// batch, and so the same idempotency keys.
    pub fn step_batch_id(&self, step: usize) -> String {
        assert!(
            step < STEPS_AT_MOST,
            "a chain has at most {STEPS_AT_MOST} steps"
        );
        let stem = self.id.get(..30).unwrap_or(&self.id);
        format!("{stem}{step:02}")
    }

    /// Which of the chain's steps the batch `batch` is, if it is one of them.
    pub fn step_of_batch(&self, batch: &str) -> Option<usize> {
        (0..self.step_count()).find(|&step| self.step_batch_id(step) == batch)
    }

    /// How many steps the chain has, the first included.
    pub fn step_count(&self) -> usize {
        self.plan.steps.len() + 1
    }
}

/// What this browser keeps of a step's batch, as the chain reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepBatch {
    /// Every row is final.
    pub done: bool,
    pub cancelled: bool,
    /// What its runs charged, every attempt included.
    pub charged: u64,
    /// Rows whose run failed (or that the API refused), as the batch ended.
    pub failed: usize,
}

impl StepBatch {
    /// Where a step's kept batch stands: its summary, and its rows as kept (what ended runs
    /// charged is counted as the batch counts it, earlier attempts included).
    pub fn of(summary: &SavedBatch, rows: &[BatchRow]) -> StepBatch {
        StepBatch {
            done: summary.done,
            cancelled: summary.cancelled,
            charged: Spending::of(summary.budget, summary.charged_before, rows, |_| false).charged,
            failed: rows
                .iter()
                .filter(|row| row.state == RowState::Failed)
                .count(),
        }
    }
}

/// A step as the chain's list of steps says it: from the live batch while this tab runs it
/// (`live`: its phase, when the step shown is the one the chain takes up), else from what is kept.
/// A step taken up paused (after a reload, or held from its address) says "paused", not
/// "running", since nothing is sent until the person goes on.
pub fn step_state(kept: Option<StepBatch>, live: Option<&Phase>, nothing_to_run: bool) -> String {
    match (live, kept) {
        (Some(Phase::Running), _) => "running".to_owned(),
        (Some(Phase::Paused(_)), _) => "paused".to_owned(),
        (Some(Phase::Cancelling), _) => "cancelling".to_owned(),
        (_, Some(batch)) if batch.cancelled => "cancelled".to_owned(),
        (_, Some(batch)) if batch.done => {
            let charged = counted(batch.charged, "credit", "credits");
            match batch.failed {
                0 => format!("done · {charged}"),
                failed => format!(
                    "done · {charged} · {}",
                    counted(failed as u64, "failed run", "failed runs")
                ),
            }
        }
        (_, Some(_)) => "running".to_owned(),
        (_, None) if nothing_to_run => "nothing to run".to_owned(),
        (_, None) => "not started".to_owned(),
    }
}

/// What the chain does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainNext {
    /// Make step `step`'s batch (from the spreadsheet, or from the runs of the step before) and
    /// start it with `budget`: what is left of the chain's.
    Start {
        step: usize,
        budget: Option<u64>,
    },
    /// Step `step`'s batch is kept and not done: take it up.
    TakeUp {
        step: usize,
    },
    /// Step `step` ended with `failed` failed runs: the person retries them or goes on.
    Decide {
        step: usize,
        failed: usize,
    },
    /// Nothing is left of the chain's budget before step `step`.
    OutOfBudget {
        step: usize,
    },
    /// Cancelled (the chain, or the batch of step `step`).
    Cancelled {
        step: usize,
    },
    Done,
}

/// The next thing the chain does, given what is kept of each step's batch (`None`: not made).
pub fn next(chain: &SavedChain, steps: &[Option<StepBatch>]) -> ChainNext {
    let mut charged = 0u64;
    for step in 0..chain.step_count() {
        let Some(batch) = steps.get(step).copied().flatten() else {
            if chain.cancelled {
                return ChainNext::Cancelled { step };
            }
            let budget = chain.budget.map(|budget| budget.saturating_sub(charged));
            if budget == Some(0) {
                return ChainNext::OutOfBudget { step };
            }
            return ChainNext::Start { step, budget };
        };
        charged = charged.saturating_add(batch.charged);
        if !batch.done {
            return ChainNext::TakeUp { step };
        }
        if batch.cancelled {
            return ChainNext::Cancelled { step };
        }
        let last = step + 1 == chain.step_count();
        if batch.failed > 0 && !last && !chain.went_on_after.contains(&step) {
            return ChainNext::Decide {
                step,
                failed: batch.failed,
            };
        }
    }
    ChainNext::Done
}

/// What the chain's steps charged so far.
pub fn charged(steps: &[Option<StepBatch>]) -> u64 {
    steps
        .iter()
        .flatten()
        .fold(0u64, |sum, batch| sum.saturating_add(batch.charged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::chain::tests::profile_posts_comments;

    fn chain(budget: Option<u64>) -> SavedChain {
        SavedChain {
            id: "0123456789abcdef0123456789abcdef".into(),
            workspace: "ws".into(),
            plan: profile_posts_comments(3, 5),
            budget,
            created_at: 0.0,
            went_on_after: Vec::new(),
            cancelled: false,
            reuse: ReuseWindow::Off,
        }
    }

    fn done(charged: u64, failed: usize) -> Option<StepBatch> {
        Some(StepBatch {
            done: true,
            cancelled: false,
            charged,
            failed,
        })
    }

    fn going(charged: u64) -> Option<StepBatch> {
        Some(StepBatch {
            done: false,
            cancelled: false,
            charged,
            failed: 0,
        })
    }

    #[test]
    fn step_batches_have_stable_distinct_ids_of_a_batchs_length() {
        let chain = chain(None);
        let ids: Vec<String> = (0..3).map(|s| chain.step_batch_id(s)).collect();
        assert_eq!(ids[0], "0123456789abcdef0123456789abcd00");
        assert_eq!(ids[2], "0123456789abcdef0123456789abcd02");
        assert!(ids.iter().all(|id| id.len() == 32));
        assert_eq!(chain.step_batch_id(1), chain.clone().step_batch_id(1));
        assert_eq!(chain.step_of_batch(&ids[2]), Some(2));
        assert_eq!(
            chain.step_of_batch("0123456789abcdef0123456789abcd09"),
            None
        );
        assert_eq!(chain.step_of_batch("another batch"), None);
    }

    #[test]
    fn steps_run_in_order_each_with_what_is_left_of_the_budget() {
        let chain = chain(Some(600));
        assert_eq!(
            next(&chain, &[]),
            ChainNext::Start {
                step: 0,
                budget: Some(600)
            }
        );
        assert_eq!(next(&chain, &[going(100)]), ChainNext::TakeUp { step: 0 });
        assert_eq!(
            next(&chain, &[done(320, 0)]),
            ChainNext::Start {
                step: 1,
                budget: Some(280)
            }
        );
        assert_eq!(
            next(&chain, &[done(320, 0), done(48, 0), None]),
            ChainNext::Start {
                step: 2,
                budget: Some(232)
            }
        );
        assert_eq!(
            next(&chain, &[done(320, 0), done(48, 0), done(200, 3)]),
            ChainNext::Done
        );
        assert_eq!(charged(&[done(320, 0), done(48, 0), going(7)]), 375);
    }

    #[test]
    fn a_spent_budget_stops_the_chain_before_the_next_step() {
        let chain = chain(Some(320));
        assert_eq!(
            next(&chain, &[done(320, 0)]),
            ChainNext::OutOfBudget { step: 1 }
        );
        let unbounded = SavedChain {
            budget: None,
            ..chain
        };
        assert_eq!(
            next(&unbounded, &[done(320, 0)]),
            ChainNext::Start {
                step: 1,
                budget: None
            }
        );
    }

    #[test]
    fn failed_runs_wait_for_the_person_before_the_step_is_sealed() {
        let mut chain = chain(None);
        assert_eq!(
            next(&chain, &[done(300, 1)]),
            ChainNext::Decide { step: 0, failed: 1 }
        );
        chain.went_on_after.push(0);
        assert_eq!(
            next(&chain, &[done(300, 1)]),
            ChainNext::Start {
                step: 1,
                budget: None
            }
        );
    }

    #[test]
    fn a_cancelled_chain_or_step_goes_no_further() {
        let mut chain = chain(None);
        let cancelled = Some(StepBatch {
            done: true,
            cancelled: true,
            charged: 40,
            failed: 0,
        });
        assert_eq!(next(&chain, &[cancelled]), ChainNext::Cancelled { step: 0 });
        chain.cancelled = true;
        assert_eq!(
            next(&chain, &[done(320, 0)]),
            ChainNext::Cancelled { step: 1 }
        );
        // A step still cancelling is taken up, so its runs are cancelled.
        assert_eq!(next(&chain, &[going(0)]), ChainNext::TakeUp { step: 0 });
    }

    #[test]
    fn a_kept_step_batch_counts_what_its_runs_charged_and_how_many_failed() {
        use crate::model::bulk::CheckedRow;
        let row = |line: usize, state: RowState, credits_used: u64| {
            let mut row = BatchRow::new(CheckedRow {
                line,
                cells: vec![format!("v{line}")],
                body: "{}".into(),
                estimate: 10,
                errors: Vec::new(),
                repeat_of: None,
                reuses: None,
            });
            row.state = state;
            row.credits_used = credits_used;
            row
        };
        let rows = [
            row(2, RowState::Completed, 4),
            row(3, RowState::Failed, 0),
            row(4, RowState::Completed, 6),
            row(5, RowState::Repeat, 0),
        ];
        let summary = SavedBatch {
            id: "b".into(),
            workspace: "ws".into(),
            action: "get_profile_posts".into(),
            headers: vec!["x".into()],
            created_at: 0.0,
            cancelled: false,
            done: true,
            to_send: 3,
            finished: 3,
            pace: None,
            budget: Some(100),
            charged_before: 3,
            may_have_run: None,
        };
        assert_eq!(
            StepBatch::of(&summary, &rows),
            StepBatch {
                done: true,
                cancelled: false,
                charged: 13,
                failed: 1
            }
        );
    }

    #[test]
    fn a_chain_round_trips_through_the_store() {
        let chain = chain(Some(5));
        let kept = serde_json::to_string(&chain).unwrap();
        assert_eq!(serde_json::from_str::<SavedChain>(&kept).unwrap(), chain);
        // The reuse window is kept by its value; a chain kept before it had one reuses nothing.
        let reusing = SavedChain {
            reuse: ReuseWindow::Day,
            ..chain
        };
        let kept = serde_json::to_value(&reusing).unwrap();
        assert_eq!(kept["reuse"], "24h");
        assert_eq!(
            serde_json::from_value::<SavedChain>(kept.clone()).unwrap(),
            reusing
        );
        let mut older = kept;
        older.as_object_mut().unwrap().remove("reuse");
        assert_eq!(
            serde_json::from_value::<SavedChain>(older).unwrap().reuse,
            ReuseWindow::Off
        );
    }

    #[test]
    fn a_step_taken_up_paused_says_paused_and_a_kept_one_says_where_it_ended() {
        let running = StepBatch {
            done: false,
            cancelled: false,
            charged: 3,
            failed: 0,
        };
        let done = StepBatch {
            done: true,
            failed: 2,
            ..running
        };
        // The live batch's phase wins while this tab runs the step.
        assert_eq!(
            step_state(Some(running), Some(&Phase::Paused(None)), false),
            "paused"
        );
        assert_eq!(
            step_state(
                Some(running),
                Some(&Phase::Paused(Some("budget".into()))),
                false
            ),
            "paused"
        );
        assert_eq!(
            step_state(Some(running), Some(&Phase::Running), false),
            "running"
        );
        assert_eq!(
            step_state(Some(running), Some(&Phase::Cancelling), false),
            "cancelling"
        );
        // A live batch just done, before its summary is read back, is still running.
        assert_eq!(
            step_state(Some(running), Some(&Phase::Done), false),
            "running"
        );
        // Without a live batch: what is kept.
        assert_eq!(step_state(Some(running), None, false), "running");
        assert_eq!(
            step_state(Some(done), None, false),
            "done · 3 credits · 2 failed runs"
        );
        assert_eq!(
            step_state(
                Some(StepBatch {
                    failed: 0,
                    charged: 1,
                    ..done
                }),
                None,
                false
            ),
            "done · 1 credit"
        );
        assert_eq!(
            step_state(
                Some(StepBatch {
                    cancelled: true,
                    ..done
                }),
                None,
                false
            ),
            "cancelled"
        );
        assert_eq!(step_state(None, None, true), "nothing to run");
        assert_eq!(step_state(None, None, false), "not started");
    }
}
