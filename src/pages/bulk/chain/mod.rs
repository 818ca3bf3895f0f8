//! `/chains`: the contract's chaining (section 4.2) over a spreadsheet. A plan (the first action
//! for every row, then steps fed by the records of the step before), the spreadsheet with the
//! bulk page's checks, each step's worst case and the total before anything is sent, then the
//! chain running step by step as bulk batches, and one joined dataset at the end
//! (docs/chains.md).
//!
//! A page folder's part: the plan's editor and its file (`plan`), the chain shown (`shown`), its
//! joined dataset (`joined`).

mod joined;
mod plan;
mod shown;

use api_contract::ActionEntry;
use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_navigate, use_query_map};

use self::plan::{ChainFile, PlanEditor};
use self::shown::ChainView;
use super::mapping::Mapping;
use super::prepare::{
    BudgetField, InvalidRows, RepeatedRows, ReuseKept, RowsField, use_prepared_rows,
};
use crate::components::{ApiErrorPanel, ConfirmSpend, Notice, NoticeKind, StoreRefusalNotice};
use crate::model::bulk::budget::{default_budget, parse_budget};
use crate::model::chain::ChainPlan;
use crate::model::chain::cost::ChainWorstCase;
use crate::model::chain::kept::KeptChains;
use crate::model::chain::preview::{spend, step_sentence, total_sentence};
use crate::model::chain::progress::SavedChain;
use crate::model::form::{MAX_CREDITS, MAX_RESULTS};
use crate::model::format::{group_thousands, local_time};
use crate::model::safeguards::Confirmation;
use crate::model::same_input::ReuseWindow;
use crate::model::urls::chain_path;
use crate::nav::in_place;
use crate::state::bulk::use_bulk;
use crate::state::chains::{Chains, change_kept, forget_chain, kept_chains, use_chains};
use crate::state::registry::use_registry;
use crate::state::workspace::use_workspace;

/// Where the spreadsheet being prepared for a chain is kept among the drafts.
const CHAIN_DRAFT: &str = "/chains";

#[component]
pub fn ChainsPage() -> impl IntoView {
    let registry = use_registry();
    view! {
        <section class="page chains">
            <h1>"Chains"</h1>
            <p class="lead">
                "The API's chaining over a spreadsheet: an action for every row, then, for every record it "
                "returns, the next action with the field the contract names (profile → posts → comments or "
                "reactions). Each input runs once across the chain, and the worst case is shown before anything is sent."
            </p>
            <StoreRefusalNotice />
            <Transition fallback=|| view! { <p class="loading">"Loading the actions…"</p> }>
                {move || Suspend::new(async move {
                    match registry.await {
                        Ok(list) => view! { <ChainsBody actions=list.actions /> }.into_any(),
                        Err(error) => view! { <ApiErrorPanel error context="Loading the actions" /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn ChainsBody(actions: Vec<ActionEntry>) -> impl IntoView {
    let chains = use_chains();
    chains.know_registry(actions.clone());
    let has_chain = Memo::new(move |_| chains.shown.with(Option::is_some));
    follow_address(chains);
    view! {
        {move || chains.problem.get().map(|problem| view! {
            <Notice kind=NoticeKind::Problem field="chain-problem">{problem}</Notice>
        })}
        {move || if has_chain.get() {
            view! { <ChainView /> }.into_any()
        } else {
            let actions = actions.clone();
            view! { <KeptChainsList /> <NewChain actions /> }.into_any()
        }}
    }
}

/// The address names the chain shown (`?chain=`), so a link, Back, Forward and a reload find
/// it: a chain opened from its address is held (shown where it stands, nothing sent until the
/// person goes on), and one opened, started or closed here moves the address with it.
fn follow_address(chains: Chains) {
    let workspace = use_workspace();
    let navigate = use_navigate();
    let query = use_query_map();
    let addressed = Memo::new(move |_| query.with(|q| q.get("chain")));
    let go_to = navigate.clone();
    // The address to the chain shown.
    Effect::new(move |previous: Option<Option<String>>| {
        let wanted = addressed.get();
        let workspace = workspace.id();
        let shown = chains.shown_id();
        match (&wanted, shown) {
            (Some(id), shown) if shown.as_deref() != Some(id.as_str()) => {
                if let Some(workspace) = workspace {
                    chains.open_held(workspace, id.clone());
                }
            }
            // The address left the chain (Back, Forward): the list again.
            (None, Some(_)) if previous.flatten().is_some() => chains.close(),
            // Come to /chains with a chain shown (it goes on while other pages are looked at):
            // the address names it.
            (None, Some(shown)) => go_to(&chain_path(&shown), in_place()),
            _ => {}
        }
        wanted
    });
    // The chain shown to the address, when the person opens, starts or closes one here.
    Effect::new(move |previous: Option<Option<String>>| {
        let shown = chains
            .shown
            .with(|s| s.as_ref().map(|s| s.chain.id.clone()));
        if let Some(previous) = previous
            && previous != shown
            && addressed.get_untracked() != shown
        {
            let path = shown
                .as_deref()
                .map_or_else(|| "/chains".to_owned(), chain_path);
            navigate(&path, NavigateOptions::default());
        }
        shown
    });
}

/// The chains this browser keeps for the workspace: each to open (it goes on where it stands)
/// or forget. Chains older than the expiry rule's days are forgotten here, with their batches.
#[component]
fn KeptChainsList() -> impl IntoView {
    let chains = use_chains();
    let workspace = use_workspace();
    let problem = RwSignal::new(None::<String>);
    let kept = LocalResource::new(move || {
        chains.kept_changed.track();
        let id = workspace.get().and_then(Result::ok).map(|w| w.workspace_id);
        async move {
            let Some(id) = id else {
                return Ok(KeptChains::default());
            };
            let kept = kept_chains(&id).await?;
            let cutoff = crate::state::expiry::rule().cutoff(js_sys::Date::now());
            let shown = chains.shown_id();
            let expired =
                cutoff.map_or_else(Vec::new, |cutoff| kept.expired(cutoff, shown.as_deref()));
            if expired.is_empty() {
                return Ok(kept);
            }
            for chain in &expired {
                forget_chain(chain)
                    .await
                    .map_err(crate::store::StoreError::Failed)?;
            }
            kept_chains(&id).await
        }
    });
    let bulk = use_bulk();
    let forget = move |chain: SavedChain| {
        // A step of it this tab still shows (paused, or left for the list) stops first: its
        // worker must not write rows back after they are deleted.
        let shown = bulk.current_id();
        if chain
            .batch_ids()
            .iter()
            .any(|batch| shown.as_deref() == Some(batch.as_str()))
        {
            bulk.let_go_of_shown();
        }
        leptos::task::spawn_local(async move {
            if let Err(reason) = forget_chain(&chain).await {
                problem.set(Some(reason));
            }
            chains.kept_changed.update(|n| *n += 1);
        });
    };
    view! {
        {move || problem.get().map(|p| view! { <p class="field-error" role="alert">{p}</p> })}
        {move || kept.get().map(|kept| match kept {
            Ok(kept) if kept.started.is_empty() => ().into_any(),
            Ok(kept) => view! {
                <section class="bulk-saved" data-field="kept-chains">
                    <h2 class="section-title">"Chains kept in this browser"</h2>
                    <ul>
                        {kept.started.into_iter().map(|chain| {
                            let started = chrono::DateTime::from_timestamp_millis(chain.created_at as i64)
                                .map(local_time)
                                .unwrap_or_default();
                            let opened = chain.clone();
                            let forgotten = chain.clone();
                            view! {
                                <li data-chain=chain.id.clone()>
                                    <p><strong>{chain.plan.name.clone()}</strong> {format!(" · {} steps · started {started}", chain.step_count())}</p>
                                    <div class="actions-row">
                                        <button type="button" class="button primary" data-field="open-chain"
                                            on:click=move |_| chains.open(opened.clone())>"Open"</button>
                                        <button type="button" class="button secondary" data-field="forget-chain"
                                            title="Deletes its batches and results from this browser; its runs stay in the workspace"
                                            on:click=move |_| forget(forgotten.clone())>"Forget"</button>
                                    </div>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                </section>
            }.into_any(),
            Err(error) => view! {
                <Notice field="storage-unavailable">
                    "Chains kept in this browser could not be read. " {error.sentence()}
                </Notice>
            }.into_any(),
        })}
    }
}

/// A new chain: its plan, the spreadsheet, the worst case, the budget, and the start.
#[component]
fn NewChain(actions: Vec<ActionEntry>) -> impl IntoView {
    let chains = use_chains();
    let bulk = use_bulk();
    let workspace = use_workspace();
    let environment = crate::state::environment::use_environment();
    let safeguards = crate::state::safeguards::use_safeguards();
    let entries = StoredValue::new(actions.clone());
    let first_action = ChainPlan::first_actions()
        .next()
        .expect("the contract chains");
    let plan = RwSignal::new(ChainPlan::suggested(first_action, &actions));
    let first_records = Signal::derive(move || plan.with(|p| p.first.max_results));
    let chain_actions: Vec<ActionEntry> = actions
        .iter()
        .filter(|e| ChainPlan::first_actions().any(|a| a.as_str() == e.id))
        .cloned()
        .collect();
    let prepared = use_prepared_rows(&chain_actions, CHAIN_DRAFT, Some(first_records));
    // The spreadsheet is read for the plan's first action.
    Effect::new(move |_| {
        let first = plan.with(|p| p.first.action.as_str().to_owned());
        if prepared.action.get_untracked() != first {
            prepared.action.set(first);
        }
    });
    let counts = prepared.counts;
    let available = Signal::derive(move || {
        workspace
            .get()
            .and_then(Result::ok)
            .map(|w| w.credits_available())
    });
    let problems = Memo::new(move |_| plan.with(|p| entries.with_value(|a| p.problems(a))));
    // Rows the first step runs or reuses: each feeds the steps after it.
    let distinct_rows = Memo::new(move |_| counts.with(|c| (c.valid + c.reused.rows) as u64));
    let worst = Memo::new(move |_| {
        plan.with(|p| entries.with_value(|a| ChainWorstCase::of(p, distinct_rows.get(), a)))
    });
    let budget_text = RwSignal::new(String::new());
    let default_budget_now = Signal::derive(move || {
        default_budget(
            worst.with(|w| w.as_ref().map_or(0, |w| w.credits)),
            available.get(),
        )
    });
    let budget_error = Memo::new(move |_| {
        budget_text.with(|t| {
            (!t.trim().is_empty())
                .then(|| parse_budget(t).err())
                .flatten()
        })
    });
    let budget_now = move || {
        budget_text
            .with(|t| parse_budget(t).ok())
            .unwrap_or_else(|| default_budget_now.get())
    };
    let leave_out_invalid = RwSignal::new(false);
    let can_start = move || {
        problems.with(Vec::is_empty)
            && counts.get().can_start(leave_out_invalid.get())
            && !bulk.starting.get()
            && worst.with(Option::is_some)
    };
    let asking = RwSignal::new(None::<Confirmation>);
    let start_with = move |budget: u64| {
        let Some(headers) = prepared.table.with_untracked(|t| {
            t.as_ref()
                .and_then(|t| t.as_ref().ok())
                .map(|t| t.headers.clone())
        }) else {
            return;
        };
        chains.start(
            plan.get_untracked(),
            headers,
            prepared.checked.get_untracked(),
            Some(budget),
            prepared
                .reuse
                .with_untracked(|value| ReuseWindow::from_value(value)),
            || crate::browser::empty_text_area("bulk-text"),
        );
    };
    let start = move |_| {
        if !can_start() {
            return;
        }
        if untrack(|| budget_error.get()).is_some() {
            crate::browser::focus_id("bulk-budget");
            return;
        }
        let budget = untrack(budget_now);
        let Some(worst) = worst.get_untracked() else {
            return;
        };
        match safeguards.get_untracked().before_spending(
            &environment.current_untracked(),
            spend(&worst, Some(budget)),
            available.get_untracked(),
        ) {
            Some(confirmation) => asking.set(Some(confirmation)),
            None => start_with(budget),
        }
    };
    let saved = RwSignal::new(None::<Result<String, String>>);
    view! {
        <form class="form bulk-prepare chain-prepare" on:submit=move |ev| ev.prevent_default()>
            <SavedPlans plan said=saved />
            <PlanEditor plan actions=entries />
            <div class="actions-row">
                <button type="button" class="button secondary" data-field="save-chain"
                    disabled=move || !problems.with(Vec::is_empty)
                    on:click=move |_| save_plan(plan.get_untracked(), workspace.id_untracked(), saved, chains)>"Save the chain"</button>
                <ChainFile plan actions=entries said=saved />
            </div>
            {move || saved.get().map(|said| match said {
                Ok(done) => view! { <p class="help" role="status" data-field="chain-said">{done}</p> }.into_any(),
                Err(problem) => view! { <p class="field-error" role="alert" data-field="chain-said">{problem}</p> }.into_any(),
            })}
            <h2 class="section-title">"The spreadsheet: one row per input of step 1"</h2>
            <RowsField prepared />
            {move || (!prepared.headers.with(Vec::is_empty)).then(|| view! {
                <Mapping model=prepared.model mapping=prepared.mapping headers=prepared.headers
                    set_elsewhere=&[MAX_RESULTS, MAX_CREDITS] />
            })}
            {move || (counts.get().invalid > 0).then(|| view! { <InvalidRows checked=prepared.checked counts leave_out_invalid /> })}
            {move || (counts.get().repeats.rows > 0).then(|| view! { <RepeatedRows checked=prepared.checked counts /> })}
            <ReuseKept prepared chain=true />
            {move || (distinct_rows.get() > 0).then(|| view! {
                <ChainPreview plan worst available budget=Signal::derive(budget_now) />
                <BudgetField text=budget_text error=budget_error default=default_budget_now for_chain=true />
            })}
            {move || asking.get().map(|confirmation| {
                let budget = untrack(budget_now);
                view! {
                    <ConfirmSpend confirmation
                        on_confirm=Callback::new(move |()| {
                            asking.set(None);
                            start_with(budget);
                        })
                        on_dismiss=Callback::new(move |()| asking.set(None)) />
                }
            })}
            <button type="button" class="button primary" data-field="start-chain"
                disabled=move || !can_start() on:click=start>
                {move || format!("Start the chain on {} rows", group_thousands(distinct_rows.get()))}
            </button>
            <p class="help">
                "Each step is a bulk batch kept in this browser before its first request: a reload or a closed "
                "tab loses nothing, and every row keeps its idempotency key, so nothing runs twice."
            </p>
        </form>
    }
}

/// Each step's worst case and the total, against the credits available and the budget.
#[component]
fn ChainPreview(
    plan: RwSignal<ChainPlan>,
    worst: Memo<Option<ChainWorstCase>>,
    available: Signal<Option<u64>>,
    budget: Signal<u64>,
) -> impl IntoView {
    move || {
        let worst = worst.get()?;
        let plan = plan.get();
        let share = available.get().filter(|a| *a > 0).map(|a| {
            format!(
                " That is {}% of the {} credits available.",
                (u128::from(worst.credits) * 100).div_ceil(u128::from(a)),
                group_thousands(a)
            )
        });
        Some(view! {
            <div class="bulk-summary chain-preview" data-field="chain-preview">
                <ol>
                    {(0..worst.steps.len()).map(|index| view! {
                        <li data-field="chain-step-worst">{step_sentence(&plan, &worst, index)}</li>
                    }).collect_view()}
                </ol>
                <p>
                    <strong data-field="chain-worst-case" data-credits=worst.credits>{total_sentence(&worst, Some(budget.get()))}</strong>
                    {share}
                </p>
                <p class="help">
                    "Each request is sent with max_credits equal to its own worst case, so no run can charge more than counted here. "
                    "Repeats (the same post reached from two profiles) run once, so the chain usually spends less."
                </p>
            </div>
        })
    }
}

/// Keeps `plan` by its name in the workspace's saved chains.
fn save_plan(
    plan: ChainPlan,
    workspace: Option<String>,
    said: RwSignal<Option<Result<String, String>>>,
    chains: Chains,
) {
    let Some(workspace) = workspace else {
        return;
    };
    leptos::task::spawn_local(async move {
        let name = plan.name.trim().to_owned();
        let result = change_kept(&workspace, Box::new(move |kept| kept.with_plan(plan))).await;
        said.set(Some(result.map(|()| format!("Saved the chain “{name}”."))));
        chains.kept_changed.update(|n| *n += 1);
    });
}

/// The chains saved by name: one chosen becomes the plan.
#[component]
fn SavedPlans(
    plan: RwSignal<ChainPlan>,
    said: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    let chains = use_chains();
    let workspace = use_workspace();
    let kept = LocalResource::new(move || {
        chains.kept_changed.track();
        let id = workspace.get().and_then(Result::ok).map(|w| w.workspace_id);
        async move {
            match id {
                Some(id) => kept_chains(&id).await.map(|k| k.plans).unwrap_or_default(),
                None => Vec::new(),
            }
        }
    });
    let delete = move |name: String| {
        let Some(workspace) = workspace.id_untracked() else {
            return;
        };
        leptos::task::spawn_local(async move {
            let gone = name.clone();
            let result = change_kept(
                &workspace,
                Box::new(move |kept| Ok(kept.without_plan(&gone))),
            )
            .await;
            said.set(Some(
                result.map(|()| format!("Deleted the chain “{name}”.")),
            ));
            chains.kept_changed.update(|n| *n += 1);
        });
    };
    move || {
        let plans = kept.get().unwrap_or_default();
        (!plans.is_empty()).then(|| view! {
            <section class="saved-chains" data-field="saved-chains">
                <h2 class="section-title">"Saved chains"</h2>
                <ul>
                    {plans.into_iter().map(|saved| {
                        let name = saved.name.clone();
                        let deleted = name.clone();
                        let chosen = saved.clone();
                        view! {
                            <li data-chain-name=name.clone()>
                                <strong>{name.clone()}</strong>
                                {format!(" · {} steps ", saved.steps.len() + 1)}
                                <button type="button" class="button secondary" data-field="use-chain"
                                    on:click=move |_| plan.set(chosen.clone())>"Use"</button>
                                <button type="button" class="button secondary" data-field="delete-chain"
                                    on:click=move |_| delete(deleted.clone())>"Delete"</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </section>
        })
    }
}
