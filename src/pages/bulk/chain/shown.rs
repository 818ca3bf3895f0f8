//! The chain shown: its steps and where each stands, what it waits for (failed runs, its
//! budget), its step's batch (the bulk page's view), and the joined dataset once it has ended.

use leptos::prelude::*;

use super::super::batch::{BatchView, BudgetChange};
use super::joined::JoinedResults;
use crate::components::Notice;
use crate::model::chain::progress::{ChainNext, StepPart, step_state};
use crate::model::format::{counted, group_thousands};
use crate::state::bulk::use_bulk;
use crate::state::chains::{ShownChain, use_chains};

/// Where the chain stands, in a word for tests and styles: `step-2`, `decide-1`, `budget-3`,
/// `cancelled`, `nothing-to-run`, `done`.
fn standing(shown: &ShownChain) -> String {
    if shown.nothing_to_run.is_some() {
        return "nothing-to-run".to_owned();
    }
    match shown.next {
        ChainNext::Start { at, .. } | ChainNext::TakeUp { at } => format!("step-{}", at.step + 1),
        ChainNext::Decide { at, .. } => format!("decide-{}", at.step + 1),
        ChainNext::OutOfBudget { step } => format!("budget-{}", step + 1),
        ChainNext::Cancelled { .. } => "cancelled".to_owned(),
        ChainNext::Done => "done".to_owned(),
    }
}

/// The chain has ended (or waits on its budget): its joined dataset can be read.
/// What the chain asks when a step ended with failed runs: `failed` of them in the part `at`
/// shown below (the first part that has any).
fn decide_sentence(shown: &ShownChain, at: StepPart, failed: usize) -> String {
    let step = at.step;
    let in_step = shown
        .steps
        .get(step)
        .and_then(|kept| kept.whole())
        .map_or(failed, |whole| whole.failed);
    let go_on = format!(
        "or go on: step {} is then made from the runs that completed, and step {}'s failed runs \
         are not retried.",
        step + 2,
        step + 1
    );
    let parts = shown.steps.get(step).and_then(|kept| kept.parts_in_all);
    match parts {
        Some(parts) if parts > 1 => format!(
            "{} of step {} failed, {} of them in its part {} of {parts}, shown below. Retry {} \
             there (each part with failed runs comes next), {go_on}",
            counted(in_step as u64, "run", "runs"),
            step + 1,
            group_thousands(failed as u64),
            at.part + 1,
            if failed == 1 { "it" } else { "them" },
        ),
        _ => format!(
            "{} of step {} failed. Retry {} in the batch below, {go_on}",
            counted(failed as u64, "run", "runs"),
            step + 1,
            if failed == 1 { "it" } else { "them" },
        ),
    }
}

fn ended(shown: &ShownChain) -> bool {
    shown.nothing_to_run.is_some()
        || matches!(
            shown.next,
            ChainNext::Done | ChainNext::Cancelled { .. } | ChainNext::OutOfBudget { .. }
        )
}

#[component]
pub(super) fn ChainView() -> impl IntoView {
    let chains = use_chains();
    let bulk = use_bulk();
    let shown = Memo::new(move |_| chains.shown.get());
    // The step whose batch the bulk state shows, when it is one of this chain's.
    let step_shown = Memo::new(move |_| {
        shown.with(|s| {
            let chain = &s.as_ref()?.chain;
            bulk.batch.with(|b| chain.place_of_batch(&b.as_ref()?.id))
        })
    });
    let has_step = Memo::new(move |_| step_shown.with(Option::is_some));
    // The live batch's phase, for the list of steps: a memo, as the batch changes with every
    // answer and its phase seldom.
    let live_phase = Memo::new(move |_| bulk.batch.with(|b| b.as_ref().map(|e| e.phase().clone())));
    // What the step shown has charged so far, from its live copy.
    let live_charged = Memo::new(move |_| {
        bulk.batch
            .with(|b| b.as_ref().map_or(0, |e| e.spending().charged))
    });
    // Every batch's charge as kept, the batch shown's from its live copy.
    let charged = move || {
        let live = step_shown.get();
        let kept = shown.with(|s| {
            s.as_ref().map_or(0, |s| {
                s.steps
                    .iter()
                    .enumerate()
                    .flat_map(|(step, kept)| {
                        kept.parts
                            .iter()
                            .enumerate()
                            .map(move |(part, batch)| (StepPart { step, part }, batch.charged))
                    })
                    .filter(|(at, _)| Some(*at) != live)
                    .map(|(_, charged)| charged)
                    .sum::<u64>()
            })
        });
        kept + live.map_or(0, |_| live_charged.get())
    };
    let closable = move || {
        shown.with(|s| s.as_ref().is_some_and(ended))
            || bulk.batch.with(|b| {
                b.as_ref()
                    .is_none_or(|e| !matches!(e.phase(), crate::state::bulk::Phase::Running))
            })
    };
    view! {
        <div class="chain" data-field="chain"
            data-standing=move || shown.with(|s| s.as_ref().map(standing).unwrap_or_default())>
            <h2 class="batch-title">
                {move || shown.with(|s| s.as_ref().map(|s| s.chain.plan.name.clone()).unwrap_or_default())}
            </h2>
            <ol class="chain-steps" data-field="chain-steps">
                {move || shown.get().map(|s| (0..s.chain.step_count()).map(|step| {
                    let action = s.chain.plan.action_at(step).map(|a| a.purpose()).unwrap_or_default();
                    let taken_up_here = step_shown.get().map(|at| at.step) == Some(step)
                        && !ended(&s)
                        && matches!(s.next, ChainNext::TakeUp { at } if at.step == step);
                    let live = taken_up_here.then(|| live_phase.get()).flatten();
                    let whole = s.steps[step].whole();
                    let mut state = step_state(whole, live.as_ref(), s.nothing_to_run == Some(step));
                    let live_part = step_shown.get().filter(|at| at.step == step).map(|at| at.part);
                    if let Some(parts) = s.steps[step].part_said(live_part) {
                        state = format!("{state} · {parts}");
                    }
                    view! { <li data-step=step + 1>{format!("Step {} · {action}: {state}", step + 1)}</li> }
                }).collect_view())}
            </ol>
            <p data-field="chain-spending">
                {move || {
                    let budget = shown.with(|s| s.as_ref().and_then(|s| s.chain.budget));
                    let charged = charged();
                    match budget {
                        Some(budget) => format!("Charged so far: {} of a budget of {} credits.", group_thousands(charged), group_thousands(budget)),
                        None => format!("Charged so far: {} credits.", group_thousands(charged)),
                    }
                }}
            </p>
            <ChainWaits shown />
            <ChainBudget shown />
            <div class="actions-row">
                {move || shown.with(|s| s.as_ref().is_some_and(|s| !ended(s) && !s.chain.cancelled)).then(|| view! {
                    <button type="button" class="button secondary" data-field="stop-chain"
                        title="No later step is made; the step that runs goes on until you cancel it below"
                        on:click=move |_| chains.stop_here()>"Stop the chain after this step"</button>
                })}
                {move || closable().then(|| view! {
                    <button type="button" class="button secondary" data-field="close-chain"
                        on:click=move |_| chains.close()>"Back to the chains"</button>
                })}
            </div>
            {move || shown.with(|s| s.as_ref().is_some_and(|s| ended(s) && s.last_step_made().is_some_and(|l| l >= 1)))
                .then(|| view! { <JoinedResults chains /> })}
            // Built once for the steps' batches, one after the other: the batch's view keeps
            // its table from one step to the next (building it anew at each step's start was a
            // task over 100 ms at 4× CPU).
            {move || has_step.get().then(|| view! {
                <section class="chain-batch" aria-label="The step's batch">
                    <h3 class="section-title">
                        {move || step_shown.get().map(|at| {
                            let parts = shown.with(|s| s.as_ref().and_then(|s| s.steps.get(at.step)?.parts_in_all));
                            match parts {
                                Some(parts) if parts > 1 => format!("Step {}'s batch, part {} of {parts}", at.step + 1, at.part + 1),
                                _ => format!("Step {}'s batch", at.step + 1),
                            }
                        })}
                    </h3>
                    <BatchView in_chain=true />
                </section>
            })}
        </div>
    }
}

/// What the chain waits for, said with what the person can do.
#[component]
fn ChainWaits(shown: Memo<Option<ShownChain>>) -> impl IntoView {
    let chains = use_chains();
    move || {
        let shown = shown.get()?;
        if let Some(step) = shown.nothing_to_run {
            return Some(view! {
                <Notice field="chain-nothing-to-run">
                    {format!("The chain ended at step {}: no record of step {step} carried the field it takes, so nothing was left to run.", step + 1)}
                </Notice>
            }.into_any());
        }
        Some(match shown.next {
            ChainNext::Decide { at, failed } => view! {
                <Notice field="chain-decide" block=true>
                    <p>{decide_sentence(&shown, at, failed)}</p>
                    <button type="button" class="button primary" data-field="go-on-without-failed"
                        on:click=move |_| chains.go_on_without_failed(at.step)>
                        {format!("Go on to step {}", at.step + 2)}
                    </button>
                </Notice>
            }.into_any(),
            ChainNext::OutOfBudget { step } => view! {
                <Notice field="chain-out-of-budget">
                    {format!("The chain paused before step {}: its budget is spent. Raise the budget to go on.", step + 1)}
                </Notice>
            }.into_any(),
            ChainNext::Cancelled { step } => view! {
                <Notice field="chain-cancelled">{format!("The chain was stopped at step {}.", step + 1)}</Notice>
            }.into_any(),
            ChainNext::Done => view! {
                <Notice field="chain-done">"Every step is done."</Notice>
            }.into_any(),
            ChainNext::Start { .. } | ChainNext::TakeUp { .. } if chains.held.get() => view! {
                <Notice field="chain-held" block=true>
                    <p>"Opened from its address: the chain is shown where it stands, and nothing is sent until you go on."</p>
                    <button type="button" class="button primary" data-field="go-on-held"
                        on:click=move |_| chains.go_on_from_held()>"Go on with the chain"</button>
                </Notice>
            }.into_any(),
            ChainNext::Start { .. } | ChainNext::TakeUp { .. } => ().into_any(),
        })
    }
}

/// The chain's budget in all, and the way to change it while the chain goes on.
#[component]
fn ChainBudget(shown: Memo<Option<ShownChain>>) -> impl IntoView {
    let chains = use_chains();
    let going = move || {
        shown.with(|s| {
            s.as_ref().is_some_and(|s| {
                s.nothing_to_run.is_none()
                    && matches!(
                        s.next,
                        ChainNext::TakeUp { .. }
                            | ChainNext::Start { .. }
                            | ChainNext::OutOfBudget { .. }
                            | ChainNext::Decide { .. }
                    )
            })
        })
    };
    move || {
        going().then(|| view! {
            <BudgetChange id="chain-budget" label="The chain's budget, in credits" field="set-chain-budget"
                on_budget=Callback::new(move |budget| chains.set_budget(budget)) />
        })
    }
}
