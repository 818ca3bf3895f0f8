//! The chain this tab shows (`model::chain`), provided at the root so it goes on while the
//! person looks at other pages. Each step is a bulk batch run by `state::bulk` (the worker, the
//! rate limit, one tab at a time, saved before its first submission); this layer keeps the
//! chain in this browser's store, starts each step's batch once the step before has settled
//! (its rows made from that step's kept runs, with ids and keys that are the same every time),
//! and says what the chain waits for: the person (failed runs, the budget), or nothing.
//!
//! - `read`: the steps read back from the store;
//! - `joined`: the joined dataset, gone through, read by line, or explored where it is kept.

mod joined;
mod read;

use std::sync::Arc;

use api_contract::ActionEntry;
use leptos::prelude::*;
use leptos::task::spawn_local;

pub use self::joined::{JoinedRow, JoinedRows};
use super::bulk::{BatchOrigin, Bulk, Phase, Role, saved_rows};
use super::workspace::SharedWorkspace;
use crate::browser::yield_to_page;
use crate::model::bulk::CheckedRow;
use crate::model::bulk::checks::{questions_of, with_reuse};
use crate::model::chain::ChainPlan;
use crate::model::chain::kept::KeptChains;
use crate::model::chain::progress::{
    ChainNext, KeptStep, PARTS_AT_MOST, SavedChain, StepBatch, StepPart, next,
};
use crate::model::chain::steps::{CheckedStep, NextStepRows, StepRowsCheck};
use crate::model::form::FormModel;
use crate::model::format::group_thousands;
use crate::model::same_input::ReuseWindow;
use crate::model::slice_pace::SlicePace;
use crate::model::store_table::{FactKey, WorkspaceFact};
use crate::store::{self, Change, Decided, KEPT_CHAINS, SAVED_BATCHES, StoreError};

/// The chain shown, and what it does next. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Chains {
    pub shown: RwSignal<Option<ShownChain>>,
    /// The last problem reading, keeping or going on with the chain, for people.
    pub problem: RwSignal<Option<String>>,
    /// Counts the changes to the kept chains, so their lists are read again.
    pub kept_changed: RwSignal<u32>,
    /// The chain shown was opened from its address (a link, Back, Forward, a reload): it is
    /// shown where it stands and sends nothing (no step resumed, none made) until the person
    /// goes on ([`Chains::go_on`]).
    pub held: RwSignal<bool>,
    /// The API's registry, as the chains page last had it: a step's rows are checked against
    /// its action's entry.
    registry: StoredValue<Vec<ActionEntry>>,
    /// A look at where the chain stands is under way; `again`: another was asked meanwhile.
    looking: StoredValue<bool>,
    again: StoredValue<bool>,
    /// The app's root, where the effect that goes on after each step is made (once a chain is
    /// shown), so it outlives the page.
    root: StoredValue<Option<Owner>, LocalStorage>,
    following: StoredValue<bool>,
    /// The rows of the step whose parts are being made, made once for all its parts (the step
    /// before is sealed, so they do not change): reading the step before again for each part
    /// took its records through memory once a part. Let go of once its last part starts.
    derived: StoredValue<Option<DerivedStep>>,
    bulk: Bulk,
    workspace: SharedWorkspace,
}

/// A chain as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownChain {
    pub chain: SavedChain,
    /// Each step's batches as last read (none: not made yet).
    pub steps: Vec<KeptStep>,
    pub next: ChainNext,
    /// The step that had nothing to run (no record of the step before carried the contract's
    /// field): the chain ends there.
    pub nothing_to_run: Option<usize>,
}

impl ShownChain {
    /// The last step that has a batch.
    pub fn last_step_made(&self) -> Option<usize> {
        self.steps.iter().rposition(|step| !step.parts.is_empty())
    }

    /// What the chain's batches charged before the batch of `at`.
    pub fn charged_before(&self, at: StepPart) -> u64 {
        let steps_before = &self.steps[..at.step.min(self.steps.len())];
        let parts_before = self.steps.get(at.step).map_or(0, |step| {
            step.parts
                .iter()
                .take(at.part)
                .fold(0u64, |sum, part| sum.saturating_add(part.charged))
        });
        crate::model::chain::progress::charged(steps_before).saturating_add(parts_before)
    }
}

fn key(workspace: &str) -> FactKey {
    FactKey {
        workspace: workspace.to_owned(),
        fact: WorkspaceFact::Chains,
    }
}

/// The chains this browser keeps for `workspace` (none yet: empty).
pub async fn kept_chains(workspace: &str) -> Result<KeptChains, StoreError> {
    Ok(KEPT_CHAINS.get(&key(workspace)).await?.unwrap_or_default())
}

/// Changes the chains kept for `workspace` as `change` says, read and written in one
/// transaction (another tab's change is not lost). Kept chains that do not read back are
/// left as they are and the change refused, rather than written over.
pub async fn change_kept(
    workspace: &str,
    // Boxed: one copy of this transaction's code serves every change.
    change: Box<dyn FnOnce(KeptChains) -> Result<KeptChains, String>>,
) -> Result<(), String> {
    let key = key(workspace);
    let written = store::update(vec![KEPT_CHAINS.read(&key)], |texts| {
        let text = texts.into_iter().next().flatten();
        let kept = KEPT_CHAINS
            .decode_read(text.as_deref())?
            .unwrap_or_default();
        // The change's own refusal writes nothing, and is answered as it is.
        Ok(match change(kept) {
            Ok(kept) => Decided {
                changes: vec![KEPT_CHAINS.put_change(&key, &kept)?],
                answer: None,
            },
            Err(reason) => Decided {
                changes: Vec::new(),
                answer: Some(reason),
            },
        })
    })
    .await;
    match written {
        Ok(Some(reason)) => Err(reason),
        Ok(None) => Ok(()),
        Err(error) => Err(format!(
            "This browser's storage did not keep the change. {}",
            error.sentence()
        )),
    }
}

/// Forgets the chain `chain` in this browser: its step batches and its entry.
pub async fn forget_chain(chain: &SavedChain) -> Result<(), String> {
    let changes: Vec<Change> = chain
        .batch_ids()
        .into_iter()
        .map(Change::DeleteBatch)
        .collect();
    store::write(changes).await.map_err(|error| {
        format!(
            "This browser's storage refused to delete the chain's batches. {}",
            error.sentence()
        )
    })?;
    let id = chain.id.clone();
    change_kept(
        &chain.workspace,
        Box::new(move |kept| Ok(kept.without_chain(&id))),
    )
    .await
}

impl Chains {
    pub fn provide(bulk: Bulk, workspace: SharedWorkspace) {
        provide_context(Chains {
            shown: RwSignal::new(None),
            problem: RwSignal::new(None),
            kept_changed: RwSignal::new(0),
            held: RwSignal::new(false),
            registry: StoredValue::new(Vec::new()),
            looking: StoredValue::new(false),
            again: StoredValue::new(false),
            root: StoredValue::new_local(Owner::current()),
            following: StoredValue::new(false),
            derived: StoredValue::new(None),
            bulk,
            workspace,
        });
    }

    /// The registry the chain's steps are checked against.
    pub fn know_registry(&self, actions: Vec<ActionEntry>) {
        self.registry.set_value(actions);
    }

    /// Starts `plan` over the spreadsheet's checked rows (`headers`, `rows`: the first step's
    /// batch, each body with its own `max_credits`), pausing at `budget` credits in all. The
    /// chain is kept first: a chain this browser cannot keep could not go on after a reload,
    /// so nothing is sent then.
    pub fn start(
        &self,
        plan: ChainPlan,
        headers: Vec<String>,
        rows: Vec<CheckedRow>,
        budget: Option<u64>,
        // How recent a kept run may be for a row of a later step to reuse it (the first step's
        // rows come with their reuse marked).
        reuse: ReuseWindow,
        let_go_of_form: impl FnOnce() + 'static,
    ) {
        let Some(workspace) = self.workspace.id_untracked() else {
            return;
        };
        let busy_with = self.bulk.batch.with_untracked(|b| {
            b.as_ref()
                .filter(|engine| *engine.phase() != Phase::Done)
                .map(|engine| engine.action)
        });
        if let Some(action) = busy_with {
            self.problem.set(Some(format!(
                "The chain was not started, and nothing was sent: a tab runs one batch at a time, \
                 and this tab has a bulk batch that is not done ({}). Finish it or clear it on the \
                 Bulk page first.",
                action.as_str()
            )));
            return;
        }
        let chain = SavedChain {
            id: uuid::Uuid::new_v4().simple().to_string(),
            workspace: workspace.clone(),
            plan,
            budget,
            created_at: js_sys::Date::now(),
            went_on_after: Vec::new(),
            cancelled: false,
            reuse,
            step_rows: Vec::new(),
        };
        let chains = *self;
        chains.problem.set(None);
        spawn_local(async move {
            let kept = chain.clone();
            if let Err(problem) = change_kept(
                &workspace,
                Box::new(move |list| Ok(list.with_started(kept))),
            )
            .await
            {
                chains.problem.set(Some(format!(
                    "The chain was not started, and nothing was sent: {problem}"
                )));
                return;
            }
            chains.kept_changed.update(|n| *n += 1);
            let first_batch = chain.batch_id(StepPart::first_of(0));
            let action = chain.plan.first.action;
            chains.show(ShownChain {
                steps: vec![KeptStep::default(); chain.step_count()],
                next: ChainNext::TakeUp {
                    at: StepPart::first_of(0),
                },
                nothing_to_run: None,
                chain,
            });
            chains.follow_steps();
            chains.bulk.start(
                BatchOrigin {
                    id: Some(first_batch),
                    pace: None,
                },
                action,
                headers,
                rows,
                budget,
                let_go_of_form,
            );
        });
    }

    /// Shows a kept chain and goes on with it where it stands (its step's batch taken up,
    /// resumed, or the next step made).
    pub fn open(&self, chain: SavedChain) {
        self.problem.set(None);
        self.show(ShownChain {
            steps: vec![KeptStep::default(); chain.step_count()],
            next: ChainNext::TakeUp {
                at: StepPart::first_of(0),
            },
            nothing_to_run: None,
            chain,
        });
        self.follow_steps();
        self.go_on();
    }

    /// Shows the kept chain `id` of `workspace` as its address names it, where it stands,
    /// without going on: a step's batch not running is shown paused, and no step is made, until
    /// the person goes on. Navigating never spends.
    pub fn open_held(&self, workspace: String, id: String) {
        let chains = *self;
        spawn_local(async move {
            let chain = match kept_chains(&workspace).await {
                Ok(kept) => kept.chain(&id).cloned(),
                Err(error) => {
                    chains.problem.set(Some(format!(
                        "The chain could not be read back from this browser's storage. {}",
                        error.sentence()
                    )));
                    return;
                }
            };
            let Some(chain) = chain else {
                chains.problem.set(Some(
                    "This browser keeps no chain with the id in the address: it was forgotten, \
                     or made in another browser or for another workspace."
                        .to_owned(),
                ));
                return;
            };
            if chains.shown_id().as_deref() == Some(id.as_str()) {
                return;
            }
            chains.problem.set(None);
            // A step this tab runs goes on as it was: held is for a chain that was not going.
            let running_here = chains.bulk.batch.with_untracked(|b| {
                b.as_ref().is_some_and(|e| {
                    *e.phase() == Phase::Running && chain.place_of_batch(&e.id).is_some()
                })
            });
            chains.held.set(!running_here);
            chains.show(ShownChain {
                steps: vec![KeptStep::default(); chain.step_count()],
                next: ChainNext::TakeUp {
                    at: StepPart::first_of(0),
                },
                nothing_to_run: None,
                chain: chain.clone(),
            });
            chains.follow_steps();
            if let Err(problem) = chains.look(chain, Going::Held).await {
                chains.problem.set(Some(problem));
            }
        });
    }

    /// The person goes on with a chain held since it was opened from its address: its step's
    /// batch, paused here, is resumed (as its own Resume would), and the chain goes on after it;
    /// otherwise the chain goes on where it stands.
    pub fn go_on_from_held(&self) {
        let Some(chain) = self.chain() else {
            return;
        };
        let paused_step = self.bulk.role.get_untracked() == Role::Runs
            && self.bulk.batch.with_untracked(|b| {
                b.as_ref().is_some_and(|e| {
                    matches!(e.phase(), Phase::Paused(_)) && chain.place_of_batch(&e.id).is_some()
                })
            });
        if paused_step {
            self.held.set(false);
            self.bulk.resume();
        } else {
            self.go_on();
        }
    }

    /// Leaves the chain shown (its batch, if one runs, goes on as a batch).
    pub fn close(&self) {
        self.shown.set(None);
        self.problem.set(None);
        self.held.set(false);
        // No more part of it is made once it is left.
        self.derived.set_value(None);
    }

    fn show(&self, shown: ShownChain) {
        self.shown.set(Some(shown));
    }

    /// The id of the chain shown, untracked.
    pub fn shown_id(&self) -> Option<String> {
        self.shown
            .with_untracked(|s| s.as_ref().map(|s| s.chain.id.clone()))
    }

    /// The chain shown, untracked.
    fn chain(&self) -> Option<SavedChain> {
        self.shown
            .with_untracked(|s| s.as_ref().map(|s| s.chain.clone()))
    }

    /// From the first chain shown on, each settled batch of the chain shown (every row final
    /// and saved) makes the chain look where it stands and go on: an effect under the root's
    /// owner, so it outlives the page.
    fn follow_steps(&self) {
        if self.following.get_value() {
            return;
        }
        self.following.set_value(true);
        let chains = *self;
        let follow = move || {
            Effect::new(move |_| {
                let Some(batch) = chains.bulk.settled_batch.get() else {
                    return;
                };
                let ours = untrack(|| chains.chain())
                    .is_some_and(|chain| chain.place_of_batch(&batch).is_some());
                // Held (opened from its address), the chain goes on only when the person says.
                if ours && !chains.held.get_untracked() {
                    chains.go_on();
                }
            });
            // A held chain whose step's batch the person resumed (in the batch's own buttons)
            // is no longer held: it goes on after that step as it would have.
            Effect::new(move |_| {
                let running = chains.bulk.batch.with(|b| {
                    b.as_ref()
                        .filter(|e| *e.phase() == Phase::Running)
                        .map(|e| e.id.clone())
                });
                if let Some(batch) = running
                    && chains.held.get_untracked()
                    && untrack(|| chains.chain())
                        .is_some_and(|chain| chain.place_of_batch(&batch).is_some())
                {
                    chains.held.set(false);
                }
            });
        };
        match self.root.get_value() {
            Some(owner) => owner.with(follow),
            None => follow(),
        }
    }

    /// Reads where the chain shown stands and does what comes next (`progress::next`). One
    /// look at a time; one asked meanwhile follows it. A chain held since it was opened from
    /// its address goes on from now.
    pub fn go_on(&self) {
        self.held.set(false);
        if self.looking.get_value() {
            self.again.set_value(true);
            return;
        }
        self.looking.set_value(true);
        let chains = *self;
        spawn_local(async move {
            loop {
                chains.again.set_value(false);
                if let Some(chain) = chains.chain()
                    && let Err(problem) = chains.look(chain, Going::On).await
                {
                    chains.problem.set(Some(problem));
                }
                if !chains.again.get_value() {
                    break;
                }
            }
            chains.looking.set_value(false);
        });
    }

    /// Each step's batches as kept, part by part until one is not made: the batch this tab
    /// shows from its own copy (the store's may be a save behind), the others from the store.
    async fn step_batches(&self, chain: &SavedChain) -> Result<Vec<KeptStep>, String> {
        let mut steps = Vec::with_capacity(chain.step_count());
        for step in 0..chain.step_count() {
            let parts_in_all = chain.parts_of(step);
            let mut kept = KeptStep {
                parts: Vec::new(),
                parts_in_all,
            };
            for part in 0..parts_in_all.unwrap_or(1) {
                match self.part_batch(chain, StepPart { step, part }).await? {
                    Some(batch) => kept.parts.push(batch),
                    None => break,
                }
            }
            steps.push(kept);
        }
        Ok(steps)
    }

    /// The batch of `at` as kept (`None`: not made), its rows read and let go of at once.
    async fn part_batch(
        &self,
        chain: &SavedChain,
        at: StepPart,
    ) -> Result<Option<StepBatch>, String> {
        let id = chain.batch_id(at);
        let shown = self.bulk.batch.with_untracked(|b| {
            b.as_ref()
                .filter(|engine| engine.id == id)
                .map(|engine| StepBatch::of(&engine.summary(), engine.rows()))
        });
        if shown.is_some() {
            return Ok(shown);
        }
        let unreadable = |error: StoreError| unreadable_step(at, error);
        let Some(summary) = SAVED_BATCHES.get(&id).await.map_err(unreadable)? else {
            return Ok(None);
        };
        // A done batch is counted from its summary: reading every part's rows at every look
        // took their records through the page's memory.
        if let Some(done) = StepBatch::of_done_summary(&summary) {
            return Ok(Some(done));
        }
        let rows = saved_rows(&id).await.map_err(unreadable)?;
        Ok(Some(StepBatch::of(&summary, &rows)))
    }

    /// Looks where `chain` stands and does what comes next, or, `Going::Held`, only shows it.
    async fn look(&self, chain: SavedChain, going: Going) -> Result<(), String> {
        // As kept now: another tab showing the chain may have counted a step's rows (its parts)
        // or changed its choices since this tab read it.
        let chain = match kept_chains(&chain.workspace).await {
            Ok(kept) => kept.chain(&chain.id).cloned().unwrap_or(chain),
            Err(_) => chain,
        };
        let steps = self.step_batches(&chain).await?;
        let next = next(&chain, &steps);
        let still_shown = |chains: &Chains| {
            chains
                .shown
                .with_untracked(|s| s.as_ref().is_some_and(|s| s.chain.id == chain.id))
        };
        if !still_shown(self) {
            return Ok(());
        }
        self.shown.update(|shown| {
            if let Some(shown) = shown {
                shown.chain = chain.clone();
                shown.steps = steps.clone();
                shown.next = next.clone();
            }
        });
        match next {
            ChainNext::Start {
                at: StepPart { step: 0, .. },
                ..
            } => Err(
                "This chain's first step was never saved, so nothing of it was sent. Start it \
                 again from the spreadsheet."
                    .to_owned(),
            ),
            ChainNext::Start { at, budget } => match going {
                Going::On => self.start_step(&chain, at, budget).await,
                Going::Held => match last_made(&steps, at.step) {
                    Some(last) => self.show_step(&chain, last, false).await,
                    None => Ok(()),
                },
            },
            ChainNext::TakeUp { at } => self.show_step(&chain, at, going == Going::On).await,
            ChainNext::Decide { at, .. } => self.show_step(&chain, at, false).await,
            ChainNext::OutOfBudget { step } | ChainNext::Cancelled { step } => {
                match last_made(&steps, step) {
                    Some(last) => self.show_step(&chain, last, false).await,
                    None => Ok(()),
                }
            }
            ChainNext::Done => match last_made(&steps, chain.step_count() - 1) {
                Some(last) => self.show_step(&chain, last, false).await,
                None => Ok(()),
            },
        }
    }

    /// Whether this tab may start or open a step's batch: it shows none, or one of this chain,
    /// or one with nothing left to do; otherwise the person's other batch is not stopped.
    fn tab_is_free_for(&self, chain: &SavedChain) -> Result<(), String> {
        let busy_with = self.bulk.batch.with_untracked(|b| {
            b.as_ref()
                .filter(|engine| {
                    *engine.phase() != Phase::Done && chain.place_of_batch(&engine.id).is_none()
                })
                .map(|engine| engine.action)
        });
        match busy_with {
            Some(action) => Err(format!(
                "This tab is running another bulk batch ({}). The chain goes on once that batch \
                 is done or cleared on the Bulk page: then open the chain again.",
                action.as_str()
            )),
            None => Ok(()),
        }
    }

    /// Shows step `step`'s kept batch in the bulk state (taken up and resumed when `resume`),
    /// unless it is the batch shown already.
    async fn show_step(
        &self,
        chain: &SavedChain,
        at: StepPart,
        resume: bool,
    ) -> Result<(), String> {
        let id = chain.batch_id(at);
        if self.bulk.current_id().as_deref() == Some(id.as_str()) {
            // A step this tab shows but another runs: its news keeps this tab's copy going.
            if resume && self.bulk.role.get_untracked() == Role::Runs {
                let paused = self.bulk.batch.with_untracked(|b| {
                    b.as_ref()
                        .is_some_and(|e| matches!(e.phase(), Phase::Paused(None)))
                });
                if paused {
                    self.bulk.resume();
                }
            }
            return Ok(());
        }
        self.tab_is_free_for(chain)?;
        let unreadable = |error: StoreError| unreadable_step(at, error);
        let Some(summary) = SAVED_BATCHES.get(&id).await.map_err(unreadable)? else {
            return Ok(());
        };
        let rows = saved_rows(&id).await.map_err(unreadable)?;
        if self.bulk.current_id().as_deref() == Some(id.as_str()) {
            return Ok(());
        }
        self.bulk.open(summary, rows, resume);
        Ok(())
    }

    /// Makes the batch of `at` (a step after the first, or its next part) from the kept runs
    /// of the step before and starts it, with `budget` what is left of the chain's. A step's
    /// rows are counted, and the count kept with the chain, before its first part is started:
    /// its parts are then the same after a reload.
    async fn start_step(
        &self,
        chain: &SavedChain,
        at: StepPart,
        budget: Option<u64>,
    ) -> Result<(), String> {
        self.tab_is_free_for(chain)?;
        let step = at.step;
        let Some(action) = chain.plan.action_at(step) else {
            return Ok(());
        };
        let entry = self
            .registry
            .with_value(|list| list.iter().find(|e| e.id == action.as_str()).cloned())
            .ok_or_else(|| {
                format!(
                    "The API does not list {} (step {}): the chain cannot go on.",
                    action.as_str(),
                    step + 1
                )
            })?;
        let rows = self.step_rows(chain, step).await?;
        if rows.rows().is_empty() {
            self.shown.update(|shown| {
                if let Some(shown) = shown.as_mut().filter(|s| s.chain.id == chain.id) {
                    shown.nothing_to_run = Some(step);
                }
            });
            return Ok(());
        }
        let mut chain = chain.clone();
        if chain.parts_of(step).is_none() {
            chain = self.count_step_rows(chain, step, rows.rows().len()).await?;
        }
        if at.part + 1 >= chain.parts_of(step).unwrap_or(1) {
            self.derived.set_value(None);
        }
        // Checked a slice at a time, the page drawing and answering between slices: a step of
        // thousands of rows checked in one go held the page over 100 ms at 4× CPU.
        let part = chain.rows_of_part(at, rows.rows().len());
        let mut checking = StepRowsCheck::new(&rows, part, &chain.plan.steps[step - 1], &entry);
        drop(rows);
        let mut pace = SlicePace::default();
        while checking.remaining() > 0 {
            let began = js_sys::Date::now();
            let count = pace.records();
            checking.check_next(count);
            pace.took(count, js_sys::Date::now() - began);
            yield_to_page().await;
        }
        let CheckedStep {
            headers,
            rows: checked,
            form,
        } = checking.finish();
        let checked = reusing_kept_runs(&chain, &form, checked).await;
        // Made again meanwhile (another look, another tab): the batch shown is not replaced.
        let id = chain.batch_id(at);
        if self.bulk.current_id().as_deref() == Some(id.as_str()) {
            return Ok(());
        }
        // The batch before learned the API's rate limit: this one starts at its pace.
        let before = match at.part {
            0 => StepPart {
                step: step - 1,
                part: chain.parts_of(step - 1).unwrap_or(1) - 1,
            },
            part => StepPart {
                step,
                part: part - 1,
            },
        };
        let pace = match SAVED_BATCHES.get(&chain.batch_id(before)).await {
            Ok(Some(before)) => before.pace,
            _ => None,
        };
        if self.bulk.current_id().as_deref() == Some(id.as_str()) {
            return Ok(());
        }
        let origin = BatchOrigin { id: Some(id), pace };
        self.bulk
            .start(origin, action, headers, checked, budget, || {});
        Ok(())
    }

    /// The rows of step `step` of `chain`: made again from the step before, or as made for the
    /// step's part before.
    async fn step_rows(
        &self,
        chain: &SavedChain,
        step: usize,
    ) -> Result<Arc<NextStepRows>, String> {
        let made = self.derived.with_value(|derived| {
            derived
                .as_ref()
                .filter(|d| d.chain == chain.id && d.step == step)
                .map(|d| d.rows.clone())
        });
        if let Some(rows) = made {
            return Ok(rows);
        }
        let rows = Arc::new(read::next_step_rows(chain, step).await?);
        self.derived.set_value(Some(DerivedStep {
            chain: chain.id.clone(),
            step,
            rows: rows.clone(),
        }));
        Ok(rows)
    }

    /// Keeps with `chain` how many rows its step `step` has (so how many parts it runs as)
    /// before its first part is started, and shows it; a step too large for its parts' ids is
    /// refused before anything of it is sent.
    async fn count_step_rows(
        &self,
        chain: SavedChain,
        step: usize,
        rows: usize,
    ) -> Result<SavedChain, String> {
        let counted = chain.with_step_rows(step, rows);
        let parts = counted.parts_of(step).unwrap_or(1);
        if parts > PARTS_AT_MOST {
            return Err(format!(
                "Step {} would run {} rows: at {} rows a batch, more than the {PARTS_AT_MOST} \
                 batches a step can have. Nothing of it was sent. Lower the first records of \
                 each run that feed it, or start the chain on fewer rows.",
                step + 1,
                group_thousands(rows as u64),
                group_thousands(counted.plan.rows_per_batch.into()),
            ));
        }
        // Only the count changes in what is kept: another tab's change to the chain stays.
        let (id, fallback) = (counted.id.clone(), counted.clone());
        change_kept(
            &counted.workspace,
            Box::new(move |list| {
                let kept = list.chain(&id).cloned().unwrap_or(fallback);
                Ok(list.with_started(kept.with_step_rows(step, rows)))
            }),
        )
        .await
        .map_err(|problem| {
            format!(
                "Step {} was not started, and nothing of it was sent: {problem}",
                step + 1
            )
        })?;
        self.shown.update(|shown| {
            if let Some(shown) = shown.as_mut().filter(|s| s.chain.id == counted.id) {
                shown.chain = counted.clone();
                if let Some(kept) = shown.steps.get_mut(step) {
                    kept.parts_in_all = counted.parts_of(step);
                }
            }
        });
        Ok(counted)
    }

    /// Changes the chain shown as `change` says, keeps it, then looks again.
    fn change_chain(&self, change: Box<dyn FnOnce(&mut SavedChain)>) {
        let Some(mut chain) = self.chain() else {
            return;
        };
        change(&mut chain);
        let chains = *self;
        spawn_local(async move {
            let kept = chain.clone();
            let workspace = chain.workspace.clone();
            match change_kept(
                &workspace,
                Box::new(move |list| Ok(list.with_started(kept))),
            )
            .await
            {
                Ok(()) => {
                    chains.shown.update(|shown| {
                        if let Some(shown) = shown.as_mut().filter(|s| s.chain.id == chain.id) {
                            shown.chain = chain;
                        }
                    });
                    chains.kept_changed.update(|n| *n += 1);
                    chains.go_on();
                }
                Err(problem) => chains.problem.set(Some(problem)),
            }
        });
    }

    /// The person goes on past step `step`'s failed runs: the next step is made from the runs
    /// that completed, and `step` is sealed.
    pub fn go_on_without_failed(&self, step: usize) {
        self.change_chain(Box::new(move |chain| {
            if !chain.went_on_after.contains(&step) {
                chain.went_on_after.push(step);
            }
        }));
    }

    /// Ends the chain where it stands: no later step is made (a step's batch that runs is
    /// cancelled through its own Cancel).
    pub fn stop_here(&self) {
        self.change_chain(Box::new(|chain| chain.cancelled = true));
    }

    /// The chain's budget in all becomes `budget`: the step that runs gets what is left of it
    /// after the steps before, and a chain paused at its budget goes on once resumed.
    pub fn set_budget(&self, budget: u64) {
        let Some((at, charged_before)) = self.shown.with_untracked(|s| {
            s.as_ref().and_then(|s| match s.next {
                ChainNext::TakeUp { at } => Some((at, s.charged_before(at))),
                _ => None,
            })
        }) else {
            self.change_chain(Box::new(move |chain| chain.budget = Some(budget)));
            return;
        };
        let batch_id = self.chain().map(|chain| chain.batch_id(at));
        if batch_id.is_some() && self.bulk.current_id() == batch_id {
            self.bulk
                .set_budget(Some(budget.saturating_sub(charged_before)));
        }
        self.change_chain(Box::new(move |chain| chain.budget = Some(budget)));
    }
}

/// Why the batch of `at` could not be read back, for people.
fn unreadable_step(at: StepPart, error: StoreError) -> String {
    format!(
        "Step {}'s batch could not be read back from this browser's storage. {}",
        at.step + 1,
        error.sentence()
    )
}

/// The last batch made of the steps up to `step` (included).
fn last_made(steps: &[KeptStep], step: usize) -> Option<StepPart> {
    let made = &steps[..(step + 1).min(steps.len())];
    let step = made.iter().rposition(|kept| !kept.parts.is_empty())?;
    Some(StepPart {
        step,
        part: made[step].parts.len() - 1,
    })
}

/// A step's rows as made for its parts (see `Chains::derived`).
struct DerivedStep {
    chain: String,
    step: usize,
    rows: Arc<NextStepRows>,
}

/// Whether a look at the chain goes on with it, or only shows it (opened from its address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Going {
    On,
    Held,
}

pub fn use_chains() -> Chains {
    expect_context::<Chains>()
}

/// `rows` of a step of `chain` with those whose question a run kept in this browser answered
/// within the chain's reuse window reusing that run (as the first step's rows were marked on
/// the page); all of them sent when the window is off or the store cannot be read.
async fn reusing_kept_runs(
    chain: &SavedChain,
    form: &FormModel,
    rows: Vec<CheckedRow>,
) -> Vec<CheckedRow> {
    if chain.reuse == ReuseWindow::Off {
        return rows;
    }
    let questions = questions_of(form, &rows);
    let kept = crate::archive::kept_runs_asking(
        &chain.workspace,
        &form.action,
        form.max_results_ceiling,
        &questions,
    )
    .await
    .unwrap_or_default();
    let answers = kept.newest_answers(&questions);
    with_reuse(rows, &answers, chrono::Utc::now(), chain.reuse)
}
