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
    /// How many rows each step after the first has, by step, kept before the step's first
    /// batch is started (`None`, or missing: not made yet, or made before steps had parts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_rows: Vec<Option<usize>>,
}

/// Chains kept before the reuse window was: every row sent.
fn reuse_nothing() -> ReuseWindow {
    ReuseWindow::Off
}

/// The most steps a chain has: the contract's longest chain is three actions, and a step's
/// number takes two digits of its batch's id.
pub const STEPS_AT_MOST: usize = 99;

/// The most parts (batches) a step runs as: a part's number takes two hex digits of its
/// batch's id. At the most rows a batch holds ([`super::ROWS_PER_BATCH`]) that is 2,550,000 rows.
pub const PARTS_AT_MOST: usize = 255;

/// Which batch of a chain: step `step` (0: the first), its part `part` (0: the first). A later
/// step with more rows than the plan's [`super::ChainPlan::rows_per_batch`] runs as several
/// batches, one after another, so what a batch holds in memory does not grow with the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StepPart {
    pub step: usize,
    pub part: usize,
}

impl StepPart {
    pub fn first_of(step: usize) -> StepPart {
        StepPart { step, part: 0 }
    }
}

impl SavedChain {
    /// The id of a step's part's batch. The first part's is the chain's id with its last two
    /// digits replaced by the step's number; a later part's also has the two digits before
    /// those moved on by the part's number (modulo 256, so never back to the first part's).
    /// The same chain, step and part always name the same batch, and so the same idempotency
    /// keys.
    pub fn batch_id(&self, at: StepPart) -> String {
        assert!(
            at.step < STEPS_AT_MOST,
            "a chain has at most {STEPS_AT_MOST} steps"
        );
        assert!(
            at.part < PARTS_AT_MOST,
            "a step has at most {PARTS_AT_MOST} parts"
        );
        let step = at.step;
        if at.part == 0 {
            let stem = self.id.get(..30).unwrap_or(&self.id);
            return format!("{stem}{step:02}");
        }
        let stem = self.id.get(..28).unwrap_or(&self.id);
        let digits = self
            .id
            .get(28..30)
            .and_then(|d| u8::from_str_radix(d, 16).ok())
            .unwrap_or(0);
        let moved = digits.wrapping_add(at.part as u8);
        format!("{stem}{moved:02x}{step:02}")
    }

    /// Which step and part of the chain the batch `batch` is, if it is one of them.
    pub fn place_of_batch(&self, batch: &str) -> Option<StepPart> {
        (0..self.step_count()).find_map(|step| {
            (0..self.parts_of(step).unwrap_or(1))
                .map(|part| StepPart { step, part })
                .find(|&at| self.batch_id(at) == batch)
        })
    }

    /// How many steps the chain has, the first included.
    pub fn step_count(&self) -> usize {
        self.plan.steps.len() + 1
    }

    /// How many parts step `step` runs as, once its rows are known (kept before its first
    /// batch was started); `None` before. The first step is the spreadsheet, one batch; a
    /// step made before steps had parts was made as one batch whatever its size.
    pub fn parts_of(&self, step: usize) -> Option<usize> {
        if step == 0 {
            return Some(1);
        }
        let rows = self.step_rows.get(step).copied().flatten()?;
        let per_batch = (self.plan.rows_per_batch as usize).max(1);
        Some(rows.div_ceil(per_batch).max(1))
    }

    /// The rows of step `step` that its part `part` runs, as indexes into the step's rows.
    pub fn rows_of_part(&self, at: StepPart, rows_in_step: usize) -> std::ops::Range<usize> {
        if at.step == 0 {
            return 0..rows_in_step;
        }
        let per_batch = (self.plan.rows_per_batch as usize).max(1);
        let start = at.part.saturating_mul(per_batch).min(rows_in_step);
        start..start.saturating_add(per_batch).min(rows_in_step)
    }

    /// Every batch the chain may have made: each part of each step.
    pub fn batch_ids(&self) -> Vec<String> {
        (0..self.step_count())
            .flat_map(|step| {
                (0..self.parts_of(step).unwrap_or(1)).map(move |part| StepPart { step, part })
            })
            .map(|at| self.batch_id(at))
            .collect()
    }

    /// The part of step `step` that runs its row on `line` (lines run on from part to part:
    /// row `i` of the step is on line `i + 2`).
    pub fn part_of_line(&self, step: usize, line: usize) -> StepPart {
        let per_batch = (self.plan.rows_per_batch as usize).max(1);
        let part = match self.parts_of(step) {
            Some(parts) if parts > 1 => (line.saturating_sub(2) / per_batch).min(parts - 1),
            _ => 0,
        };
        StepPart { step, part }
    }

    /// The chain with step `step`'s rows counted: kept before its first batch is started, so
    /// that its parts are the same after a reload.
    pub fn with_step_rows(mut self, step: usize, rows: usize) -> SavedChain {
        if self.step_rows.len() <= step {
            self.step_rows.resize(step + 1, None);
        }
        self.step_rows[step] = Some(rows);
        self
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
    /// A done batch as its summary counts it, without its rows; `None` for a batch not done,
    /// or kept before summaries had counts (then [`StepBatch::of`] with its rows).
    pub fn of_done_summary(summary: &SavedBatch) -> Option<StepBatch> {
        let counts = summary.counts.filter(|_| summary.done)?;
        Some(StepBatch {
            done: true,
            cancelled: summary.cancelled,
            charged: counts.charged,
            failed: counts.failed,
        })
    }

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

/// What this browser keeps of a step: its parts' batches in order (none: not made yet), and
/// how many parts it runs as once that is known ([`SavedChain::parts_of`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct KeptStep {
    pub parts: Vec<StepBatch>,
    pub parts_in_all: Option<usize>,
}

impl KeptStep {
    /// The step as one batch, for its line in the list of steps: done once every part is made
    /// and done, what every part charged, the failed runs of all; `None`: not made.
    pub fn whole(&self) -> Option<StepBatch> {
        if self.parts.is_empty() {
            return None;
        }
        let all_made = self.parts.len() >= self.parts_in_all.unwrap_or(1);
        Some(StepBatch {
            done: all_made && self.parts.iter().all(|part| part.done),
            cancelled: self.parts.iter().any(|part| part.cancelled),
            charged: self
                .parts
                .iter()
                .fold(0u64, |sum, part| sum.saturating_add(part.charged)),
            failed: self.parts.iter().map(|part| part.failed).sum(),
        })
    }

    /// "part 2 of 10" while a step of several parts runs (`live`: the part this tab shows,
    /// else the last made), "10 parts" once done; `None` for a step of one part, or not made.
    pub fn part_said(&self, live: Option<usize>) -> Option<String> {
        let in_all = self.parts_in_all.filter(|&n| n > 1)?;
        if self.whole().is_some_and(|whole| whole.done) {
            return Some(format!("{in_all} parts"));
        }
        let at = live.or_else(|| self.parts.len().checked_sub(1))?;
        Some(format!("part {} of {in_all}", at + 1))
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
    /// Make the batch of `at` (from the spreadsheet, or from the runs of the step before) and
    /// start it with `budget`: what is left of the chain's.
    Start {
        at: StepPart,
        budget: Option<u64>,
    },
    /// The batch of `at` is kept and not done: take it up.
    TakeUp {
        at: StepPart,
    },
    /// Step `at.step` ended with failed runs, `failed` of them in its part `at.part` (the first
    /// that has any): the person retries them or goes on.
    Decide {
        at: StepPart,
        failed: usize,
    },
    /// Nothing is left of the chain's budget before step `step` (or its next part).
    OutOfBudget {
        step: usize,
    },
    /// Cancelled (the chain, or a batch of step `step`).
    Cancelled {
        step: usize,
    },
    Done,
}

/// The next thing the chain does, given what is kept of each step (missing: not made).
///
/// A step's parts run one after another without asking; a step that ends with failed runs in
/// any part waits for the person once all its parts are done (the first such part shown), so
/// a long step is not held up part by part.
pub fn next(chain: &SavedChain, steps: &[KeptStep]) -> ChainNext {
    let mut charged = 0u64;
    let none = KeptStep::default();
    for step in 0..chain.step_count() {
        let kept = steps.get(step).unwrap_or(&none);
        for (part, batch) in kept.parts.iter().enumerate() {
            charged = charged.saturating_add(batch.charged);
            if !batch.done {
                return ChainNext::TakeUp {
                    at: StepPart { step, part },
                };
            }
            if batch.cancelled {
                return ChainNext::Cancelled { step };
            }
        }
        let all_made = match kept.parts_in_all {
            Some(parts) => kept.parts.len() >= parts,
            // Made before its rows were counted: one batch.
            None => !kept.parts.is_empty(),
        };
        if !all_made {
            if chain.cancelled {
                return ChainNext::Cancelled { step };
            }
            let budget = chain.budget.map(|budget| budget.saturating_sub(charged));
            if budget == Some(0) {
                return ChainNext::OutOfBudget { step };
            }
            let at = StepPart {
                step,
                part: kept.parts.len(),
            };
            return ChainNext::Start { at, budget };
        }
        let last = step + 1 == chain.step_count();
        let first_failing = kept.parts.iter().position(|batch| batch.failed > 0);
        if let Some(part) = first_failing
            && !last
            && !chain.went_on_after.contains(&step)
        {
            return ChainNext::Decide {
                at: StepPart { step, part },
                failed: kept.parts[part].failed,
            };
        }
    }
    ChainNext::Done
}

/// What the chain's steps charged so far.
pub fn charged(steps: &[KeptStep]) -> u64 {
    steps
        .iter()
        .flat_map(|step| &step.parts)
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
            step_rows: Vec::new(),
        }
    }

    fn one_part(batch: StepBatch) -> KeptStep {
        KeptStep {
            parts: vec![batch],
            parts_in_all: Some(1),
        }
    }

    fn part_done(charged: u64, failed: usize) -> StepBatch {
        StepBatch {
            done: true,
            cancelled: false,
            charged,
            failed,
        }
    }

    fn part_going(charged: u64) -> StepBatch {
        StepBatch {
            done: false,
            cancelled: false,
            charged,
            failed: 0,
        }
    }

    fn done(charged: u64, failed: usize) -> KeptStep {
        one_part(part_done(charged, failed))
    }

    fn going(charged: u64) -> KeptStep {
        one_part(part_going(charged))
    }

    fn first(step: usize) -> StepPart {
        StepPart::first_of(step)
    }

    #[test]
    fn step_batches_have_stable_distinct_ids_of_a_batchs_length() {
        let chain = chain(None).with_step_rows(2, 25_000);
        let ids: Vec<String> = (0..3).map(|s| chain.batch_id(first(s))).collect();
        assert_eq!(ids[0], "0123456789abcdef0123456789abcd00");
        assert_eq!(ids[2], "0123456789abcdef0123456789abcd02");
        assert!(ids.iter().all(|id| id.len() == 32));
        assert_eq!(chain.batch_id(first(1)), chain.clone().batch_id(first(1)));
        assert_eq!(chain.place_of_batch(&ids[2]), Some(first(2)));
        assert_eq!(
            chain.place_of_batch("0123456789abcdef0123456789abcd09"),
            None
        );
        assert_eq!(chain.place_of_batch("another batch"), None);
        // Step 3's 25,000 rows run as three parts, each its own batch.
        assert_eq!(chain.parts_of(2), Some(3));
        let later = StepPart { step: 2, part: 2 };
        assert_eq!(chain.batch_id(later), "0123456789abcdef0123456789abcf02");
        assert_eq!(chain.place_of_batch(&chain.batch_id(later)), Some(later));
        assert_eq!(chain.rows_of_part(later, 25_000), 20_000..25_000);
        // A row's line names its part: row i is on line i + 2.
        for (line, part) in [
            (2, 0),
            (10_001, 0),
            (10_002, 1),
            (20_001, 1),
            (20_002, 2),
            (25_001, 2),
        ] {
            assert_eq!(
                chain.part_of_line(2, line),
                StepPart { step: 2, part },
                "line {line}"
            );
        }
        assert_eq!(
            chain.part_of_line(1, 50_000),
            first(1),
            "a step not counted is one part"
        );
        // Every part of every step has its own id, whatever the chain's digits.
        for id in [
            "0123456789abcdef0123456789abcdef",
            "0123456789abcdef0123456789abffef",
        ] {
            let chain = SavedChain {
                id: id.into(),
                ..chain.clone()
            };
            let mut seen = std::collections::HashSet::new();
            for step in 0..STEPS_AT_MOST {
                for part in 0..PARTS_AT_MOST {
                    let batch = chain.batch_id(StepPart { step, part });
                    assert_eq!(batch.len(), 32);
                    assert!(batch.chars().all(|c| c.is_ascii_hexdigit()));
                    assert!(seen.insert(batch), "step {step} part {part} of {id}");
                }
            }
        }
        // Steps not counted yet, and the spreadsheet's step, are one part.
        assert_eq!(chain.parts_of(0), Some(1));
        assert_eq!(chain.parts_of(1), None);
    }

    #[test]
    fn a_step_in_parts_runs_them_in_order_then_waits_once_for_its_failed_runs() {
        let mut chain = chain(Some(1_000)).with_step_rows(1, 25_000);
        let parts_in_all = chain.parts_of(1);
        let three_parts = move |parts: Vec<StepBatch>| KeptStep {
            parts,
            parts_in_all,
        };
        let step_one = done(300, 0);
        assert_eq!(
            next(
                &chain,
                &[step_one.clone(), three_parts(vec![part_going(10)])]
            ),
            ChainNext::TakeUp {
                at: StepPart { step: 1, part: 0 }
            }
        );
        // A part's failed runs do not hold the next part back.
        assert_eq!(
            next(
                &chain,
                &[step_one.clone(), three_parts(vec![part_done(100, 2)])]
            ),
            ChainNext::Start {
                at: StepPart { step: 1, part: 1 },
                budget: Some(600)
            }
        );
        let all_three = three_parts(vec![part_done(100, 0), part_done(100, 4), part_done(50, 1)]);
        assert_eq!(
            all_three.whole(),
            Some(StepBatch {
                done: true,
                cancelled: false,
                charged: 250,
                failed: 5
            })
        );
        assert_eq!(
            three_parts(vec![part_done(100, 0)]).whole().map(|b| b.done),
            Some(false),
            "a step with parts not made is not done"
        );
        let one_made = three_parts(vec![part_done(100, 0)]);
        assert_eq!(one_made.part_said(None).as_deref(), Some("part 1 of 3"));
        assert_eq!(one_made.part_said(Some(1)).as_deref(), Some("part 2 of 3"));
        assert_eq!(three_parts(Vec::new()).part_said(None), None, "not made");
        assert_eq!(all_three.part_said(None).as_deref(), Some("3 parts"));
        assert_eq!(done(1, 0).part_said(None), None, "one part");
        // Once every part is done, the first part with failed runs is shown for the decision.
        assert_eq!(
            next(&chain, &[step_one.clone(), all_three.clone()]),
            ChainNext::Decide {
                at: StepPart { step: 1, part: 1 },
                failed: 4
            }
        );
        chain.went_on_after.push(1);
        assert_eq!(
            next(&chain, &[step_one.clone(), all_three.clone()]),
            ChainNext::Start {
                at: first(2),
                budget: Some(450)
            }
        );
        // The budget spent between two parts stops the chain there.
        let spent = SavedChain {
            budget: Some(400),
            ..chain.clone()
        };
        assert_eq!(
            next(&spent, &[step_one, three_parts(vec![part_done(100, 0)])]),
            ChainNext::OutOfBudget { step: 1 }
        );
        assert_eq!(
            charged(&[done(300, 0), all_three]),
            550,
            "every part of every step"
        );
    }

    #[test]
    fn a_step_made_before_steps_had_parts_is_one_batch() {
        let chain = chain(None);
        // A kept chain without counted rows: its made steps are one batch whatever their size.
        let legacy = KeptStep {
            parts: vec![part_done(10, 0)],
            parts_in_all: chain.parts_of(1),
        };
        assert_eq!(legacy.whole().map(|b| b.done), Some(true));
        assert_eq!(
            next(&chain, &[done(1, 0), legacy]),
            ChainNext::Start {
                at: first(2),
                budget: None
            }
        );
        let older = serde_json::json!({
            "id": chain.id, "workspace": "ws", "plan": chain.plan, "budget": null,
            "created_at": 0.0, "cancelled": false,
        });
        let read: SavedChain = serde_json::from_value(older).unwrap();
        assert_eq!(read.step_rows, Vec::<Option<usize>>::new());
        assert_eq!(
            read.plan.rows_per_batch,
            crate::model::chain::ROWS_PER_BATCH
        );
    }

    #[test]
    fn steps_run_in_order_each_with_what_is_left_of_the_budget() {
        let chain = chain(Some(600));
        assert_eq!(
            next(&chain, &[]),
            ChainNext::Start {
                at: first(0),
                budget: Some(600)
            }
        );
        assert_eq!(
            next(&chain, &[going(100)]),
            ChainNext::TakeUp { at: first(0) }
        );
        assert_eq!(
            next(&chain, &[done(320, 0)]),
            ChainNext::Start {
                at: first(1),
                budget: Some(280)
            }
        );
        assert_eq!(
            next(&chain, &[done(320, 0), done(48, 0), KeptStep::default()]),
            ChainNext::Start {
                at: first(2),
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
                at: first(1),
                budget: None
            }
        );
    }

    #[test]
    fn failed_runs_wait_for_the_person_before_the_step_is_sealed() {
        let mut chain = chain(None);
        assert_eq!(
            next(&chain, &[done(300, 1)]),
            ChainNext::Decide {
                at: first(0),
                failed: 1
            }
        );
        chain.went_on_after.push(0);
        assert_eq!(
            next(&chain, &[done(300, 1)]),
            ChainNext::Start {
                at: first(1),
                budget: None
            }
        );
    }

    #[test]
    fn a_cancelled_chain_or_step_goes_no_further() {
        let mut chain = chain(None);
        let cancelled = one_part(StepBatch {
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
        assert_eq!(
            next(&chain, &[going(0)]),
            ChainNext::TakeUp { at: first(0) }
        );
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
            counts: None,
            expiry: Default::default(),
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
        // Read without its rows only when done and counted.
        assert_eq!(StepBatch::of_done_summary(&summary), None);
        let counted = SavedBatch {
            counts: Some(crate::model::bulk::SavedCounts {
                charged: 13,
                failed: 1,
            }),
            ..summary.clone()
        };
        assert_eq!(
            StepBatch::of_done_summary(&counted),
            Some(StepBatch::of(&counted, &rows))
        );
        let running = SavedBatch {
            done: false,
            ..counted
        };
        assert_eq!(StepBatch::of_done_summary(&running), None);
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
