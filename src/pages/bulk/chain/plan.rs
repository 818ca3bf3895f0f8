//! The plan's editor: its name, the first action and its records, then each step (an action the
//! contract chains from the step before, its records, and how many records of each run before
//! feed it), with what the plan breaks; the plans kept by name, and the chain file.

use api_contract::{ActionEntry, ActionId, ChainRule};
use leptos::prelude::*;

use crate::model::chain::file::{CHAIN_FILE_MAX_BYTES, export, import};
use crate::model::chain::{ChainPlan, NextStep, ROWS_PER_BATCH, ROWS_PER_BATCH_AT_LEAST};

/// A number typed into the plan: the value, or the plan's own when it does not read.
fn number(text: &str, otherwise: u32) -> u32 {
    text.trim().parse().unwrap_or(otherwise)
}

/// The `<option>`s of the actions the contract chains out of `from`.
fn chained_from(from: ActionId) -> Vec<ActionId> {
    ChainRule::out_of(from).map(|rule| rule.to).collect()
}

/// The plan's steps, each editable. `plan` is the plan being prepared.
#[component]
pub(super) fn PlanEditor(
    plan: RwSignal<ChainPlan>,
    actions: StoredValue<Vec<ActionEntry>>,
) -> impl IntoView {
    let problems = Memo::new(move |_| plan.with(|p| actions.with_value(|a| p.problems(a))));
    // The step editors are made again only when a step comes or goes, not at each keystroke.
    let step_count = Memo::new(move |_| plan.with(|p| p.steps.len()));
    let set_first = move |value: String| {
        if let Some(action) = ActionId::parse(&value) {
            plan.set(actions.with_value(|a| ChainPlan {
                name: plan.with_untracked(|p| p.name.clone()),
                rows_per_batch: plan.with_untracked(|p| p.rows_per_batch),
                ..ChainPlan::suggested(action, a)
            }));
        }
    };
    let add_step = move |_| {
        plan.update(|p| {
            let last = p.action_at(p.steps.len()).unwrap_or(p.first.action);
            if let Some(rule) = ChainRule::out_of(last).next() {
                p.steps.push(NextStep {
                    action: rule.to,
                    max_results: 10,
                    first_records_of_each: rule.records_per_run(10),
                });
            }
        });
    };
    let can_add = move || {
        plan.with(|p| {
            let last = p.action_at(p.steps.len()).unwrap_or(p.first.action);
            ChainRule::out_of(last).next().is_some()
        })
    };
    view! {
        <fieldset class="chain-plan" data-field="chain-plan">
            <legend>"The chain"</legend>
            <div class="field">
                <label for="chain-name">"Name"</label>
                <input id="chain-name" type="text" autocomplete="off" maxlength="100"
                    prop:value=move || plan.with(|p| p.name.clone())
                    on:input=move |ev| plan.update(|p| p.name = event_target_value(&ev)) />
            </div>
            <div class="chain-step" data-step="1">
                <h3 class="section-title">"Step 1 · for every row of the spreadsheet"</h3>
                <div class="field">
                    <label for="chain-first-action">"Action"</label>
                    <select id="chain-first-action" data-field="chain-first-action"
                        prop:value=move || plan.with(|p| p.first.action.as_str().to_owned())
                        on:change=move |ev| set_first(event_target_value(&ev))>
                        {ChainPlan::first_actions().map(|action| view! {
                            <option value=action.as_str()>{format!("{} ({})", action.purpose(), action.as_str())}</option>
                        }).collect_view()}
                    </select>
                </div>
                <div class="field">
                    <label for="chain-first-max">"Records per run (max_results)"</label>
                    <input id="chain-first-max" type="number" min="1" max="100" data-field="chain-max-results"
                        prop:value=move || plan.with(|p| p.first.max_results.to_string())
                        on:input=move |ev| plan.update(|p| p.first.max_results = number(&event_target_value(&ev), p.first.max_results)) />
                </div>
            </div>
            {move || (0..step_count.get()).map(|offset| view! { <StepEditor plan offset /> }).collect_view()}
            <div class="actions-row">
                <button type="button" class="button secondary" data-field="add-step" disabled=move || !can_add()
                    on:click=add_step>"Add a step"</button>
                <button type="button" class="button secondary" data-field="remove-step"
                    disabled=move || plan.with(|p| p.steps.len() <= 1)
                    on:click=move |_| plan.update(|p| { p.steps.pop(); })>"Remove the last step"</button>
            </div>
            <div class="field">
                <label for="chain-rows-per-batch">"Rows per batch"</label>
                <input id="chain-rows-per-batch" type="number" min=ROWS_PER_BATCH_AT_LEAST max=ROWS_PER_BATCH
                    data-field="chain-rows-per-batch" aria-describedby="chain-rows-per-batch-help"
                    prop:value=move || plan.with(|p| p.rows_per_batch.to_string())
                    on:input=move |ev| plan.update(|p| p.rows_per_batch = number(&event_target_value(&ev), p.rows_per_batch)) />
                <p class="hint" id="chain-rows-per-batch-help">
                    "A later step with more rows runs as several batches, one after another: this browser holds one batch at a time. Lower it on a computer short of memory."
                </p>
            </div>
            {move || {
                let problems = problems.get();
                (!problems.is_empty()).then(|| view! {
                    <ul class="field-error" role="alert" data-field="plan-problems">
                        {problems.into_iter().map(|p| view! { <li>{p.to_string()}</li> }).collect_view()}
                    </ul>
                })
            }}
        </fieldset>
    }
}

/// Step `offset + 2`: its action among those the contract chains from the step before, its
/// records, and how many records of each run before feed it.
#[component]
fn StepEditor(plan: RwSignal<ChainPlan>, offset: usize) -> impl IntoView {
    let index = offset + 1;
    let from = move || plan.with(|p| p.action_at(offset).unwrap_or(p.first.action));
    let step = move || plan.with(|p| p.steps.get(offset).copied());
    let edit = move |change: &dyn Fn(&mut NextStep)| {
        plan.update(|p| {
            if let Some(step) = p.steps.get_mut(offset) {
                change(step);
            }
        });
    };
    let field = move || {
        plan.with(|p| p.rule_into(index).map(|rule| rule.field.to_owned()))
            .unwrap_or_default()
    };
    view! {
        <div class="chain-step" data-step=index + 1>
            <h3 class="section-title">
                {move || format!("Step {} · for every record of step {index}, with its ", index + 1)}
                <code>{field}</code>
            </h3>
            <div class="field">
                <label for=format!("chain-action-{index}")>"Action"</label>
                <select id=format!("chain-action-{index}") data-field="chain-step-action"
                    prop:value=move || step().map(|s| s.action.as_str().to_owned()).unwrap_or_default()
                    on:change=move |ev| {
                        let chosen = ActionId::parse(&event_target_value(&ev));
                        if let Some(action) = chosen.filter(|a| step().is_some_and(|s| s.action != *a)) {
                            edit(&|s| s.action = action);
                            // The steps after it may no longer chain: they go.
                            plan.update(|p| p.steps.truncate(index));
                        }
                    }>
                    {move || chained_from(from()).into_iter().map(|action| view! {
                        <option value=action.as_str()>{format!("{} ({})", action.purpose(), action.as_str())}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for=format!("chain-max-{index}")>"Records per run (max_results)"</label>
                <input id=format!("chain-max-{index}") type="number" min="1" max="100" data-field="chain-max-results"
                    prop:value=move || step().map(|s| s.max_results.to_string()).unwrap_or_default()
                    on:input=move |ev| {
                        let text = event_target_value(&ev);
                        edit(&|s| s.max_results = number(&text, s.max_results));
                    } />
            </div>
            <div class="field">
                <label for=format!("chain-first-{index}")>{move || format!("Of each run of step {index}, the first … records")}</label>
                <input id=format!("chain-first-{index}") type="number" min="1" max="100" data-field="chain-first-records"
                    prop:value=move || step().map(|s| s.first_records_of_each.to_string()).unwrap_or_default()
                    on:input=move |ev| {
                        let text = event_target_value(&ev);
                        edit(&|s| s.first_records_of_each = number(&text, s.first_records_of_each));
                    } />
            </div>
        </div>
    }
}

/// The chain file: the plan exported, or a file read into the plan (refused whole, with the
/// reason, when it does not match the contract).
#[component]
pub(super) fn ChainFile(
    plan: RwSignal<ChainPlan>,
    actions: StoredValue<Vec<ActionEntry>>,
    said: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    let export_plan = move |_| {
        let plan = plan.get_untracked();
        crate::browser::download(
            &format!(
                "chain-{}.json",
                crate::model::format::file_label(&plan.name)
            ),
            "application/json",
            &export(&plan),
        );
        said.set(Some(Ok("The chain was exported as a file.".to_owned())));
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some((input, file)) = crate::browser::chosen_file(&ev) else {
            return;
        };
        input.set_value("");
        if file.size() > CHAIN_FILE_MAX_BYTES as f64 {
            said.set(Some(Err(format!(
                "The file was not imported: a chain file has at most {} KB.",
                CHAIN_FILE_MAX_BYTES / 1024
            ))));
            return;
        }
        leptos::task::spawn_local(async move {
            let read = match crate::browser::file_text(&file).await {
                Ok(text) => actions.with_value(|a| import(&text, a)).map_err(|refusal| {
                    format!("The file was not imported, and nothing changed: {refusal}")
                }),
                Err(problem) => Err(format!("The file could not be read: {problem}")),
            };
            match read {
                Ok(imported) => {
                    said.set(Some(Ok(format!("Imported the chain “{}”.", imported.name))));
                    plan.set(imported);
                }
                Err(problem) => said.set(Some(Err(problem))),
            }
        });
    };
    view! {
        <button type="button" class="button secondary" data-field="export-chain" on:click=export_plan>"Export the chain"</button>
        <span class="field-inline">
            <label for="chain-import">"Import a chain file: "</label>
            <input id="chain-import" type="file" accept=".json,application/json" data-field="import-chain" on:change=on_file />
        </span>
    }
}
