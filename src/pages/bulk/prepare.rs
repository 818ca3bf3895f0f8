//! Preparing a batch: the action, the rows pasted or read from a file, the column mapping,
//! the invalid rows, the worst case against the credits available, the budget, then the start.

use api_contract::{ActionEntry, ActionId};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::mapping::Mapping;
use crate::archive;
use crate::components::{ApiErrorPanel, ConfirmSpend, Notice};
use crate::model::bulk::budget::{default_budget, parse_budget};
use crate::model::bulk::checks::{questions_of, with_reuse};
use crate::model::bulk::{CheckedRow, ColumnMapping, Source, Table, check_rows, read_table};
use crate::model::bulk_view::{
    CheckedCounts, invalid_lines, invalid_not_listed, repeat_lines, repeats_sentence,
    reuse_sentences, rows_with_kept_answers, table_summary,
};
use crate::model::form::{FormModel, MAX_CREDITS, MAX_RESULTS};
use crate::model::format::{counted, group_thousands};
use crate::model::presenter::CELL_SEPARATOR;
use crate::model::safeguards::{Confirmation, Spend};
use crate::model::same_input::{KeptAnswer, KeptRunsAsked, Question, ReuseWindow};
use crate::state::bulk::{BatchOrigin, use_bulk};
use crate::state::drafts::{Draft, use_drafts};
use crate::state::presenter::use_masker;
use crate::state::registry::use_registry;
use crate::state::workspace::use_workspace;
use chrono::Utc;

/// The preparation, once the actions are known.
#[component]
pub(super) fn Prepare() -> impl IntoView {
    let registry = use_registry();
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the actions…"</p> }>
            {move || Suspend::new(async move {
                match registry.await {
                    Ok(list) => view! { <PrepareForm actions=list.actions /> }.into_any(),
                    Err(error) => view! { <ApiErrorPanel error context="Loading the actions" /> }.into_any(),
                }
            })}
        </Transition>
    }
}

/// The rows of the batch being prepared, each step derived from the one before: the action's
/// form, the text, the table read from it, its columns mapped to the form's fields, every row
/// checked, and the counts. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub(super) struct PreparedRows {
    /// The action's id, as chosen in the `<select>`.
    pub(super) action: RwSignal<String>,
    pub(super) model: Memo<Option<FormModel>>,
    /// The CSV or TSV, pasted or read from a file.
    pub(super) text: RwSignal<String>,
    /// The table read from the text; `None` while there is no text.
    pub(super) table: Memo<Option<Result<Table, String>>>,
    pub(super) headers: Memo<Vec<String>>,
    pub(super) mapping: RwSignal<ColumnMapping>,
    /// Each row's newest kept run of the same question, whatever its age.
    pub(super) kept_answers: Memo<Vec<Option<KeptAnswer>>>,
    /// How recent a kept run must be for its row to reuse it (a `ReuseWindow`'s value; off
    /// unless the person chooses).
    pub(super) reuse: RwSignal<String>,
    /// The rows checked, repeats marked, and those reusing a kept run when the person chose to.
    pub(super) checked: Memo<Vec<CheckedRow>>,
    pub(super) counts: Memo<CheckedCounts>,
}

/// Where the batch being prepared is kept among the forms' drafts (no action has this id).
const BULK_DRAFT: &str = "/bulk";
const DRAFT_ACTION: &str = "action";
const DRAFT_ROWS: &str = "rows";

/// The rows being prepared, for the action in the URL's `?action=` (or the first one), kept as
/// the draft `draft_key`. With `fixed_max_results` (a chain's first step), every row asks for
/// that many records and its `max_credits` is its own worst case, whatever the columns say.
pub(super) fn use_prepared_rows(
    actions: &[ActionEntry],
    draft_key: &'static str,
    fixed_max_results: Option<Signal<u32>>,
) -> PreparedRows {
    let query = use_query_map();
    // The rows and the action chosen are kept as the page's draft, so leaving the page or
    // switching presenter mode (which builds the page again) loses nothing pasted.
    let drafts = use_drafts();
    let draft = drafts.get(draft_key).map(|d| d.values).unwrap_or_default();
    let known = |a: &String| actions.iter().any(|e| &e.id == a);
    let first = query
        .with_untracked(|q| q.get_str("action").map(str::to_owned))
        .filter(known)
        .or_else(|| draft.get(DRAFT_ACTION).cloned().filter(known))
        .or_else(|| actions.first().map(|e| e.id.clone()))
        .unwrap_or_default();
    let action = RwSignal::new(first);
    let entries = StoredValue::new(actions.to_vec());
    let model = Memo::new(move |_| {
        action.with(|id| {
            entries.with_value(|list| list.iter().find(|e| &e.id == id).map(FormModel::from_entry))
        })
    });
    let text = RwSignal::new(draft.get(DRAFT_ROWS).cloned().unwrap_or_default());
    Effect::new(move |_| {
        let values = [
            (DRAFT_ACTION.to_owned(), action.get()),
            (DRAFT_ROWS.to_owned(), text.get()),
        ];
        drafts.save(
            draft_key,
            Draft {
                values: values.into_iter().collect(),
                live: false,
                started_from: Default::default(),
            },
        );
    });
    let table = Memo::new(move |_| text.with(|t| (!t.trim().is_empty()).then(|| read_table(t))));
    let headers = Memo::new(move |_| {
        table.with(|t| match t {
            Some(Ok(t)) => t.headers.clone(),
            _ => Vec::new(),
        })
    });
    // Mapped by name from the start (a draft's rows are checked as they will be sent at once,
    // and what reads them reads them once), and again by the effect below.
    let mapping = RwSignal::new(
        model
            .get_untracked()
            .map(|model| ColumnMapping::by_header(&model, &headers.get_untracked()))
            .unwrap_or_default(),
    );
    // A new action or a new header maps the columns again by name.
    Effect::new(move |_| {
        let headers = headers.get();
        if let Some(model) = model.get() {
            mapping.set(ColumnMapping::by_header(&model, &headers));
        }
    });
    let checked_as_sent = Memo::new(move |_| {
        let (Some(model), Some(Ok(table))) = (model.get(), table.get()) else {
            return Vec::<CheckedRow>::new();
        };
        match fixed_max_results.map(|n| n.get()) {
            Some(records) => {
                let mut fixed = mapping.get();
                fixed.set(MAX_RESULTS, Source::Constant(records.to_string()));
                fixed.set(MAX_CREDITS, Source::Unset);
                check_rows(&model, &fixed, &table)
            }
            None => mapping.with(|m| check_rows(&model, m, &table)),
        }
    });
    let questions = Memo::new(move |_| {
        let Some(model) = model.get() else {
            return Vec::new();
        };
        checked_as_sent.with(|rows| questions_of(&model, rows))
    });
    let kept_answers = use_kept_answers(model, questions);
    let reuse = RwSignal::new(ReuseWindow::Off.value().to_owned());
    let checked = Memo::new(move |_| {
        let window = reuse.with(|value| ReuseWindow::from_value(value));
        let rows = checked_as_sent.get();
        if window == ReuseWindow::Off {
            return rows;
        }
        kept_answers.with(|answers| with_reuse(rows, answers, Utc::now(), window))
    });
    let counts = Memo::new(move |_| checked.with(|rows| CheckedCounts::of(rows)));
    PreparedRows {
        action,
        model,
        text,
        table,
        headers,
        mapping,
        kept_answers,
        reuse,
        checked,
        counts,
    }
}

/// Each row's newest completed run of the same question that this browser keeps (read once
/// the rows are checked, and again when they change); none while it is read or when the store
/// cannot be read.
fn use_kept_answers(
    model: Memo<Option<FormModel>>,
    questions: Memo<Vec<Option<Question>>>,
) -> Memo<Vec<Option<KeptAnswer>>> {
    let workspace = use_workspace();
    // The id only: the workspace's refreshes do not read the store again.
    let workspace_id = Memo::new(move |_| workspace.id());
    let kept = LocalResource::new(move || {
        let model = model.get();
        let questions = questions.get();
        let workspace_id = workspace_id.get();
        async move {
            let (Some(model), Some(workspace_id)) = (model, workspace_id) else {
                return KeptRunsAsked::default();
            };
            archive::kept_runs_asking(
                &workspace_id,
                &model.action,
                model.max_results_ceiling,
                &questions,
            )
            .await
            .unwrap_or_default()
        }
    });
    Memo::new(move |_| {
        let questions = questions.get();
        kept.with(|kept| {
            kept.as_ref()
                .map(|kept| kept.newest_answers(&questions))
                .unwrap_or_default()
        })
    })
}

#[component]
fn PrepareForm(actions: Vec<ActionEntry>) -> impl IntoView {
    let bulk = use_bulk();
    let workspace = use_workspace();
    let environment = crate::state::environment::use_environment();
    let safeguards = crate::state::safeguards::use_safeguards();
    let prepared = use_prepared_rows(&actions, BULK_DRAFT, None);
    let PreparedRows {
        action,
        model,
        table,
        headers,
        mapping,
        checked,
        counts,
        ..
    } = prepared;
    let available = Signal::derive(move || {
        workspace
            .get()
            .and_then(Result::ok)
            .map(|w| w.credits_available())
    });
    let leave_out_invalid = RwSignal::new(false);
    let can_start = move || counts.get().can_start(leave_out_invalid.get()) && !bulk.starting.get();

    // The batch's budget: empty is the default (the worst case, capped by what is available).
    let budget_text = RwSignal::new(String::new());
    let default_budget_now =
        Signal::derive(move || default_budget(counts.get().worst_case, available.get()));
    let budget_error = Memo::new(move |_| {
        budget_text.with(|t| {
            (!t.trim().is_empty())
                .then(|| parse_budget(t).err())
                .flatten()
        })
    });
    let asking = RwSignal::new(None::<Confirmation>);
    let start_with = move |budget: u64| {
        // The headers only: the table's 10,000 rows are not copied for nothing.
        let Some(headers) = table.with_untracked(|t| {
            t.as_ref()
                .and_then(|t| t.as_ref().ok())
                .map(|t| t.headers.clone())
        }) else {
            return;
        };
        if let Some(action) = ActionId::parse(&action.get_untracked()) {
            // The pasted text goes in a task of its own before the batch's view replaces the
            // form: 10,000 lines cost Chromium 60 to 150 ms to drop at 4× CPU.
            let empty_rows_field = || crate::browser::empty_text_area("bulk-text");
            bulk.start(
                BatchOrigin::default(),
                action,
                headers,
                checked.get_untracked(),
                Some(budget),
                empty_rows_field,
            );
        }
    };
    let start = move |_| {
        if !can_start() {
            return;
        }
        let budget = match untrack(|| budget_error.get()) {
            Some(_) => {
                crate::browser::focus_id("bulk-budget");
                return;
            }
            None => budget_text
                .with_untracked(|t| parse_budget(t).ok())
                .unwrap_or_else(|| default_budget_now.get_untracked()),
        };
        // A batch whose budget passes the person's threshold, or what is available, asks first.
        let spend = Spend::Batch {
            rows: counts.get_untracked().valid,
            budget,
        };
        match safeguards.get_untracked().before_spending(
            &environment.current_untracked(),
            spend,
            available.get_untracked(),
        ) {
            Some(confirmation) => asking.set(Some(confirmation)),
            None => start_with(budget),
        }
    };

    view! {
        <form class="form bulk-prepare" on:submit=move |ev| ev.prevent_default()>
            <div class="field">
                <label for="bulk-action">"Action"</label>
                <select id="bulk-action" bind:value=action>
                    {actions.iter().map(|e| view! { <option value=e.id.clone()>{e.id.clone()}</option> }).collect_view()}
                </select>
            </div>
            <RowsField prepared />
            {move || (!headers.with(Vec::is_empty)).then(|| view! { <Mapping model mapping headers /> })}
            {move || (counts.get().invalid > 0).then(|| view! { <InvalidRows checked counts leave_out_invalid /> })}
            {move || (counts.get().repeats.rows > 0).then(|| view! { <RepeatedRows checked counts /> })}
            <ReuseKept prepared />
            {move || {
                let counts = counts.get();
                // Credits are read only with rows to send, as before: a switch of workspace
                // must not redraw a form that is going away.
                (counts.valid > 0).then(|| {
                    let fits = available.get().is_none_or(|a| counts.worst_case <= a);
                    view! { <WorstCase counts fits available /> }
                })
            }}
            {move || (counts.get().valid > 0).then(|| view! {
                <BudgetField text=budget_text error=budget_error default=default_budget_now />
            })}
            {move || asking.get().map(|confirmation| {
                let budget = confirmation.spend.worst_case();
                view! {
                    <ConfirmSpend confirmation
                        on_confirm=Callback::new(move |()| {
                            asking.set(None);
                            start_with(budget);
                        })
                        on_dismiss=Callback::new(move |()| asking.set(None)) />
                }
            })}
            <button type="button" class="button primary" data-field="start-batch"
                disabled=move || !can_start() on:click=start>
                {move || match bulk.starting.get() {
                    true => "Starting…".to_owned(),
                    false => format!("Start {} runs", group_thousands(counts.get().valid as u64)),
                }}
            </button>
            <p class="help" data-field="kept-note">
                "The rows, their keys and their results are kept in this browser (IndexedDB), so a reload "
                "or a closed tab loses nothing, until you clear the batch. The credential is never kept with them."
            </p>
        </form>
    }
}

/// The rows' field: pasted, or read from a chosen file; then what was read, or why not.
#[component]
pub(super) fn RowsField(prepared: PreparedRows) -> impl IntoView {
    let PreparedRows { text, table, .. } = prepared;
    let file_note = RwSignal::new(None::<String>);
    let masker = use_masker();
    let on_file = move |ev: leptos::ev::Event| {
        let Some((_, file)) = crate::browser::chosen_file(&ev) else {
            return;
        };
        let name = file.name();
        leptos::task::spawn_local(async move {
            match crate::browser::file_text(&file).await {
                Ok(content) => {
                    file_note.set(Some(format!("Read {name}.")));
                    text.set(content);
                }
                Err(reason) => file_note.set(Some(format!("{name} could not be read ({reason})."))),
            }
        });
    };
    view! {
        <div class="field">
            <label for="bulk-text">"Rows: paste CSV or TSV, the first line naming the columns"</label>
            {move || match (masker.is_on() && !text.with(String::is_empty), table.get()) {
                // In presenter mode rows are not shown as pasted: a few, masked, and a way to
                // paste others. The text itself is in no element.
                (true, table) => view! { <MaskedRows table text /> }.into_any(),
                (false, _) => view! {
                    <textarea id="bulk-text" rows="8" spellcheck="false" bind:value=text
                        placeholder="keywords,max_results\nrust engineers berlin,10"></textarea>
                }.into_any(),
            }}
            <p class="help">
                "Or choose a file: "
                <input type="file" id="bulk-file" accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
                    aria-label="Choose a CSV or TSV file" on:change=on_file />
                " UTF-8, up to 10,000 rows. " {move || file_note.get()}
            </p>
            {move || match table.get() {
                Some(Err(reason)) => Some(view! { <p class="field-error" role="alert" data-field="table-error">{reason}</p> }.into_any()),
                Some(Ok(t)) => Some(view! {
                    <p class="muted" data-field="table-summary">{table_summary(t.rows.len(), &t.headers)}</p>
                }.into_any()),
                None => None,
            }}
        </div>
    }
}

/// How many rows presenter mode shows, masked, in place of the pasted text.
const MASKED_ROWS_SHOWN: usize = 5;

/// The pasted rows in presenter mode: the columns' names, the first rows masked, and "Replace".
#[component]
fn MaskedRows(table: Option<Result<Table, String>>, text: RwSignal<String>) -> impl IntoView {
    let masker = use_masker();
    let lines = match &table {
        Some(Ok(table)) => std::iter::once(table.headers.join(CELL_SEPARATOR))
            .chain(
                table
                    .rows
                    .iter()
                    .take(MASKED_ROWS_SHOWN)
                    .map(|row| masker.cells(&row.cells.join(CELL_SEPARATOR)).into_owned()),
            )
            .collect::<Vec<_>>()
            .join("\n"),
        _ => masker.text("rows").into_owned(),
    };
    let count = text.with_untracked(|t| t.lines().count());
    view! {
        <div class="masked-rows" id="bulk-text" tabindex="-1" data-field="masked-rows">
            <pre class="code">{lines}</pre>
            <p class="help">{format!("{} pasted, hidden in presenter mode. ", counted(count as u64, "line", "lines"))}
                <button type="button" class="button secondary" on:click=move |_| text.set(String::new())>
                    "Replace the rows"
                </button>
            </p>
        </div>
    }
}

/// The rows that break the action's rules, the first ones listed, and the choice to leave them
/// out.
#[component]
pub(super) fn InvalidRows(
    checked: Memo<Vec<CheckedRow>>,
    counts: Memo<CheckedCounts>,
    leave_out_invalid: RwSignal<bool>,
) -> impl IntoView {
    let invalid = move || counts.get().invalid;
    view! {
        <div class="bulk-invalid" data-field="invalid-rows">
            <h2 class="section-title">
                {move || format!("{} rows break the action's rules", group_thousands(invalid() as u64))}
            </h2>
            <ul>
                {move || checked.with(|rows| invalid_lines(rows)).into_iter().map(|listed| view! {
                    <li data-line=listed.line>"Line " {listed.line} ": " {listed.reason}</li>
                }).collect_view()}
            </ul>
            {move || invalid_not_listed(invalid()).map(|more| view! {
                <p class="muted">"…and " {more} " more (all of them are in the batch's table and export)."</p>
            })}
            <div class="field checkbox">
                <label>
                    <input type="checkbox" data-field="leave-out-invalid" bind:checked=leave_out_invalid />
                    " Leave these rows out (they are listed as invalid and never sent), or fix the file and paste it again"
                </label>
            </div>
        </div>
    }
}

/// The rows that ask what an earlier row asks (`model::same_input`): sent once, listed on
/// request.
#[component]
pub(super) fn RepeatedRows(
    checked: Memo<Vec<CheckedRow>>,
    counts: Memo<CheckedCounts>,
) -> impl IntoView {
    let repeats = move || counts.get().repeats;
    let masker = use_masker();
    view! {
        <div class="bulk-repeats" data-field="repeated-rows">
            <Notice field="repeats-sentence">{move || repeats_sentence(repeats())}</Notice>
            <details>
                <summary>"Which rows repeat which"</summary>
                <ul>
                    {move || checked.with(|rows| repeat_lines(rows)).into_iter().map(|listed| view! {
                        <li data-line=listed.line>
                            "Line " {listed.line} " asks what line " {listed.first_line} " asks: " {masker.cells(&listed.input).into_owned()}
                        </li>
                    }).collect_view()}
                </ul>
                {move || invalid_not_listed(repeats().rows).map(|more| view! {
                    <p class="muted">"…and " {more} " more (the batch's table marks each one)."</p>
                })}
            </details>
        </div>
    }
}

/// The rows whose question a completed run kept in this browser answered, and the choice to
/// reuse those runs' results rather than send the rows (off unless chosen: nothing is reused
/// silently). For a chain (`chain`), offered whenever there are rows, as its later steps' rows
/// may find runs kept here too, and said so.
#[component]
pub(super) fn ReuseKept(prepared: PreparedRows, #[prop(optional)] chain: bool) -> impl IntoView {
    let PreparedRows {
        kept_answers,
        reuse,
        checked,
        counts,
        ..
    } = prepared;
    let answered = Memo::new(move |_| {
        checked.with(|rows| kept_answers.with(|answers| rows_with_kept_answers(rows, answers)))
    });
    let offered = Memo::new(move |_| {
        answered.get() > 0 || (chain && counts.with(|c| c.valid + c.reused.rows > 0))
    });
    let sentences = move || reuse_sentences(answered.get(), counts.get().reused);
    let label = if chain {
        "Reuse the results of runs kept here that asked the same: "
    } else {
        "Reuse the results of those runs: "
    };
    move || {
        offered.get().then(|| {
            view! {
                <div class="notice" data-field="reuse-kept">
                    <p data-field="reuse-answered">{move || sentences().0}</p>
                    <p>
                        <label for="bulk-reuse">{label}</label>
                        <select id="bulk-reuse" data-field="bulk-reuse" bind:value=reuse>
                            {ReuseWindow::ALL.into_iter().map(|window| view! {
                                <option value=window.value()>{window.label()}</option>
                            }).collect_view()}
                        </select>
                    </p>
                    <p data-field="reuse-sentence">{move || sentences().1}</p>
                    {chain.then(|| view! {
                        <p data-field="reuse-later-steps">
                            "Each later step's rows reuse the runs kept here the same way, within this window. They are known only once the step before has run, so the worst case below counts them as sent."
                        </p>
                    })}
                </div>
            }
        })
    }
}

/// The rows to send and the most they may reserve, against the credits available.
#[component]
pub(super) fn WorstCase(
    counts: CheckedCounts,
    /// The worst case is within the credits available (or they are not known).
    fits: bool,
    available: Signal<Option<u64>>,
) -> impl IntoView {
    view! {
        <div class="bulk-summary" data-field="bulk-summary">
            <p>
                <strong data-field="rows-to-send">{group_thousands(counts.valid as u64)}</strong>
                {counts.rows_to_send_phrase()}
                <strong data-field="worst-case">{group_thousands(counts.worst_case)}</strong>
                " credits in all"
                {move || available.get().map(|a| format!(" ({} available).", group_thousands(a)))}
            </p>
            {(!fits).then(|| view! {
                <Notice field="credits-warning">
                    "The worst case is more than the credits available: the batch pauses when the "
                    "API refuses a row for lack of credits. Runs usually return fewer records than "
                    "they reserve, and reservations are released when runs finish."
                </Notice>
            })}
        </div>
    }
}

/// The batch's budget as typed, with its default shown and its error.
#[component]
pub(super) fn BudgetField(
    text: RwSignal<String>,
    error: Memo<Option<String>>,
    /// The budget when the field is empty.
    default: Signal<u64>,
    /// The budget of a whole chain, which each of its steps' batches shares.
    #[prop(optional)]
    for_chain: bool,
) -> impl IntoView {
    let pauses = match for_chain {
        true => {
            ", the worst case capped by the credits available. The chain pauses before a request that could take it past the budget (each step's batch gets what the steps before left of it), and each request is sent with max_credits within what is left; you can raise it then."
        }
        false => {
            ", the worst case capped by the credits available. The batch pauses before a row that could take it past the budget, and each row is sent with max_credits within what is left; you can raise it then."
        }
    };
    view! {
        <div class="field budget-field">
            <label for="bulk-budget">"Budget, in credits " <span class="optional">"(optional)"</span></label>
            <input id="bulk-budget" type="text" inputmode="numeric" autocomplete="off"
                placeholder=move || group_thousands(default.get())
                aria-describedby="bulk-budget-help bulk-budget-error"
                aria-invalid=move || error.with(Option::is_some).to_string()
                bind:value=text />
            <p class="help" id="bulk-budget-help">
                "Empty: " {move || group_thousands(default.get())}
                {pauses}
            </p>
            <p class="field-error" id="bulk-budget-error" role="alert">
                {move || error.get().map(|e| format!("Budget {e}"))}
            </p>
        </div>
    }
}
