//! `/bulk`: a CSV or TSV of inputs becomes one async run per row. Prepare (action, file,
//! column mapping, every row checked, the worst-case cost against the credits available),
//! confirm, then follow the batch: progress, counts per state, pause, resume, cancel, the rows
//! page by page with links to their runs, and one merged export.

use api_contract::{ActionEntry, ActionId};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::components::{ApiErrorPanel, ConfirmSpend, OutputExplorer};
use crate::model::bulk::budget::{Spending, default_budget, parse_budget};
use crate::model::bulk::{
    CheckedRow, ColumnMapping, ExportFormat, RowError, RowState, SavedBatch, Source, check_rows,
    describe, read_table,
};
use crate::model::explore::EXPLORED_AT_MOST;
use crate::model::form::FormModel;
use crate::model::format::group_thousands;
use crate::model::safeguards::{Confirmation, Spend};
use crate::model::urls::run_path;
use crate::state::bulk::{
    ExploredRecords, ExportProgress, Keeping, Phase, Role, saved_batches, saved_rows, use_bulk,
};
use crate::state::registry::use_registry;
use crate::state::workspace::use_workspace;
use crate::store::{self, Change};

/// Rows shown per page of the batch's table.
const PAGE_ROWS: usize = 50;
/// Invalid rows listed before "and N more".
const INVALID_SHOWN: usize = 50;

#[component]
pub fn BulkPage() -> impl IntoView {
    let bulk = use_bulk();
    // A batch of another workspace this tab is signed in to runs on, but is not shown here.
    let has_batch = Memo::new(move |_| bulk.batch.with(Option::is_some) && bulk.in_view());
    view! {
        <section class="page bulk">
            <h1>"Bulk runs"</h1>
            <p class="lead">
                "One async run per row of a CSV or TSV file, sent at the API's rate limit. Each row has "
                "its own idempotency key, so a row sent again is never run or charged twice."
            </p>
            {move || if has_batch.get() {
                view! { <BatchView /> }.into_any()
            } else {
                view! { <BatchElsewhereNotice /> <SavedBatches /> <Prepare /> }.into_any()
            }}
        </section>
    }
}

/// The batch this tab runs for another workspace it is signed in to, which goes on while this
/// one is in view: where it is, and what starting a batch here does to it.
#[component]
fn BatchElsewhereNotice() -> impl IntoView {
    let bulk = use_bulk();
    move || {
        bulk.elsewhere().map(|other| {
            let workspace = other
                .workspace_name
                .unwrap_or_else(|| "another workspace".to_owned());
            view! {
                <p class="notice" role="status" data-field="batch-elsewhere">
                    {format!(
                        "This tab is running a batch for {workspace}: {} of {} rows finished.                          Switch to {workspace} from the header to see it. A tab runs one batch at a time:                          starting or opening a batch here pauses it, and it resumes from {workspace}'s Bulk page.",
                        group_thousands(other.finished as u64),
                        group_thousands(other.to_send as u64),
                    )}
                </p>
            }
        })
    }
}

/// The batches this browser keeps for the workspace: an unfinished one (a reload, a closed
/// tab) is taken up from here, a finished one opened for its export, either forgotten.
#[component]
fn SavedBatches() -> impl IntoView {
    let bulk = use_bulk();
    let workspace = use_workspace();
    let reload = RwSignal::new(0_u32);
    let saved = LocalResource::new(move || {
        reload.track();
        let id = workspace.get().and_then(Result::ok).map(|w| w.workspace_id);
        async move {
            match id {
                Some(id) => saved_batches(&id).await,
                None => Ok(Vec::new()),
            }
        }
    });
    let problem = RwSignal::new(None::<String>);
    let confirming = RwSignal::new(None::<String>);
    let open = move |summary: SavedBatch, resume: bool| {
        leptos::task::spawn_local(async move {
            match saved_rows(&summary.id).await {
                Some(rows) if !rows.is_empty() => {
                    if !bulk.open(summary, rows, resume) {
                        problem.set(Some(
                            "This batch's action is not one this console knows.".to_owned(),
                        ));
                    }
                }
                _ => problem.set(Some(
                    "This batch's rows could not be read back from this browser's storage."
                        .to_owned(),
                )),
            }
        });
    };
    let forget = move |id: String| {
        confirming.set(None);
        leptos::task::spawn_local(async move {
            if store::write(vec![Change::DeleteBatch(id)]).await.is_err() {
                problem.set(Some(
                    "This browser's storage refused to delete the batch.".to_owned(),
                ));
            }
            reload.update(|n| *n += 1);
        });
    };
    let item = move |b: SavedBatch| {
        let unfinished = !b.done;
        let state = if b.done {
            if b.cancelled { "cancelled" } else { "done" }
        } else if b.cancelled {
            "cancelling"
        } else {
            "unfinished"
        };
        let started = chrono::DateTime::from_timestamp_millis(b.created_at as i64)
            .map(crate::model::format::local_time)
            .unwrap_or_default();
        let id = b.id.clone();
        let id_shown = id.clone();
        let summary = StoredValue::new(b.clone());
        view! {
            <li data-batch=b.id.clone() data-state=state>
                <p>
                    <code>{b.action.clone()}</code> " · " <strong>{state}</strong> " · "
                    {format!("{} of {} rows finished · started {started}",
                        group_thousands(b.finished as u64), group_thousands(b.to_send as u64))}
                </p>
                <div class="actions-row">
                    {unfinished.then(|| view! {
                        <button type="button" class="button primary" data-field="resume-saved"
                            on:click=move |_| open(summary.get_value(), true)>"Resume"</button>
                    })}
                    <button type="button" class="button secondary" data-field="open-saved"
                        on:click=move |_| open(summary.get_value(), false)>"Open"</button>
                    <button type="button" class="button secondary" data-field="forget-saved"
                        on:click=move |_| confirming.set(Some(id.clone()))>"Forget…"</button>
                </div>
                {move || (confirming.get().as_deref() == Some(id_shown.as_str())).then(|| {
                    let id = id_shown.clone();
                    view! {
                        <div class="confirm" role="alertdialog" aria-label="Forget this batch?">
                            <p>
                                "Forget this batch? Its rows, keys and results are deleted from this browser; "
                                "its runs stay in the workspace."
                                {unfinished.then_some(" Rows not sent yet will not be sent, and sending the same file again makes new runs.")}
                            </p>
                            <div class="actions-row">
                                <button type="button" class="button danger" data-field="confirm-forget"
                                    on:click=move |_| forget(id.clone())>"Forget"</button>
                                <button type="button" class="button secondary" on:click=move |_| confirming.set(None)>"Keep"</button>
                            </div>
                        </div>
                    }
                })}
            </li>
        }
    };
    view! {
        {move || problem.get().map(|p| view! { <p class="field-error" role="alert">{p}</p> })}
        {move || saved.get().and_then(|list| match list {
            Ok(list) if list.is_empty() => None,
            Ok(list) => Some(view! {
                <section class="bulk-saved" data-field="saved-batches">
                    <h2 class="section-title">"Batches kept in this browser"</h2>
                    <ul>{list.into_iter().map(item).collect_view()}</ul>
                </section>
            }.into_any()),
            Err(error) => Some(view! {
                <p class="notice" role="status" data-field="storage-unavailable">
                    "Batches kept in this browser could not be read, so a new batch may last only as long as this page. "
                    {error.sentence()}
                </p>
            }.into_any()),
        })}
    }
}

#[component]
fn Prepare() -> impl IntoView {
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

/// The value of a mapping `<select>`: `-` unset, `c3` column 3, `const` a constant.
fn source_choice(source: &Source) -> String {
    match source {
        Source::Unset => "-".to_owned(),
        Source::Column(i) => format!("c{i}"),
        Source::Constant(_) => "const".to_owned(),
    }
}

#[component]
fn PrepareForm(actions: Vec<ActionEntry>) -> impl IntoView {
    let bulk = use_bulk();
    let workspace = use_workspace();
    let environment = crate::state::environment::use_environment();
    let safeguards = crate::state::safeguards::use_safeguards();
    let query = use_query_map();
    let first = query
        .with_untracked(|q| q.get_str("action").map(str::to_owned))
        .filter(|a| actions.iter().any(|e| &e.id == a))
        .or_else(|| actions.first().map(|e| e.id.clone()))
        .unwrap_or_default();
    let action = RwSignal::new(first);
    let entries = StoredValue::new(actions.clone());
    let model = Memo::new(move |_| {
        action.with(|id| {
            entries.with_value(|list| list.iter().find(|e| &e.id == id).map(FormModel::from_entry))
        })
    });
    let text = RwSignal::new(String::new());
    let file_note = RwSignal::new(None::<String>);
    let table = Memo::new(move |_| text.with(|t| (!t.trim().is_empty()).then(|| read_table(t))));
    let headers = Memo::new(move |_| {
        table.with(|t| match t {
            Some(Ok(t)) => t.headers.clone(),
            _ => Vec::new(),
        })
    });
    let mapping = RwSignal::new(ColumnMapping::default());
    // A new action or a new header maps the columns again by name.
    Effect::new(move |_| {
        let headers = headers.get();
        if let Some(model) = model.get() {
            mapping.set(ColumnMapping::by_header(&model, &headers));
        }
    });
    let checked = Memo::new(move |_| {
        let (Some(model), Some(Ok(table))) = (model.get(), table.get()) else {
            return Vec::<CheckedRow>::new();
        };
        mapping.with(|m| check_rows(&model, m, &table))
    });
    let invalid = Memo::new(move |_| {
        checked.with(|rows| rows.iter().filter(|r| !r.errors.is_empty()).count())
    });
    let valid = Memo::new(move |_| checked.with(Vec::len) - invalid.get());
    let worst_case = Memo::new(move |_| {
        checked.with(|rows| {
            rows.iter()
                .filter(|r| r.errors.is_empty())
                .map(|r| r.estimate)
                .sum::<u64>()
        })
    });
    let available = move || {
        workspace
            .get()
            .and_then(Result::ok)
            .map(|w| w.credits_available())
    };
    let leave_out_invalid = RwSignal::new(false);
    let can_start = move || valid.get() > 0 && (invalid.get() == 0 || leave_out_invalid.get());

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

    // The batch's budget: empty is the default (the worst case, capped by what is available).
    let budget_text = RwSignal::new(String::new());
    let default_budget_now = move || default_budget(worst_case.get(), available());
    let budget_error = Memo::new(move |_| {
        budget_text.with(|t| {
            (!t.trim().is_empty())
                .then(|| parse_budget(t).err())
                .flatten()
        })
    });
    let asking = RwSignal::new(None::<Confirmation>);
    let start_with = move |budget: u64| {
        let (Some(Ok(table)), rows) = (table.get_untracked(), checked.get_untracked()) else {
            return;
        };
        if let Some(action) = ActionId::parse(&action.get_untracked()) {
            bulk.start(action, table.headers, rows, Some(budget));
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
                .unwrap_or_else(|| untrack(default_budget_now)),
        };
        // A batch whose budget passes the person's threshold, or what is available, asks first.
        let spend = Spend::Batch {
            rows: valid.get_untracked(),
            budget,
        };
        let available = untrack(available);
        match safeguards.get_untracked().before_spending(
            &environment.current_untracked(),
            spend,
            available,
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
            <div class="field">
                <label for="bulk-text">"Rows: paste CSV or TSV, the first line naming the columns"</label>
                <textarea id="bulk-text" rows="8" spellcheck="false" bind:value=text
                    placeholder="keywords,max_results\nrust engineers berlin,10"></textarea>
                <p class="help">
                    "Or choose a file: "
                    <input type="file" id="bulk-file" accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
                        aria-label="Choose a CSV or TSV file" on:change=on_file />
                    " UTF-8, up to 10,000 rows. " {move || file_note.get()}
                </p>
                {move || match table.get() {
                    Some(Err(reason)) => Some(view! { <p class="field-error" role="alert" data-field="table-error">{reason}</p> }.into_any()),
                    Some(Ok(t)) => Some(view! {
                        <p class="muted" data-field="table-summary">
                            {format!("{} rows, columns: {}", group_thousands(t.rows.len() as u64), t.headers.join(", "))}
                        </p>
                    }.into_any()),
                    None => None,
                }}
            </div>
            {move || (!headers.with(Vec::is_empty)).then(|| view! { <Mapping model mapping headers /> })}
            {move || (invalid.get() > 0).then(|| view! { <InvalidRows checked invalid leave_out_invalid /> })}
            {move || (valid.get() > 0).then(|| {
                let worst = worst_case.get();
                let fits = available().is_none_or(|a| worst <= a);
                view! {
                    <div class="bulk-summary" data-field="bulk-summary">
                        <p>
                            <strong data-field="rows-to-send">{group_thousands(valid.get() as u64)}</strong>
                            {if valid.get() == 1 { " row to send, reserving at most " } else { " rows to send, reserving at most " }}
                            <strong data-field="worst-case">{group_thousands(worst)}</strong>
                            " credits in all"
                            {move || available().map(|a| format!(" ({} available).", group_thousands(a)))}
                        </p>
                        {(!fits).then(|| view! {
                            <p class="notice" role="status" data-field="credits-warning">
                                "The worst case is more than the credits available: the batch pauses when the "
                                "API refuses a row for lack of credits. Runs usually return fewer records than "
                                "they reserve, and reservations are released when runs finish."
                            </p>
                        })}
                    </div>
                }
            })}
            {move || (valid.get() > 0).then(|| view! {
                <div class="field budget-field">
                    <label for="bulk-budget">"Budget, in credits " <span class="optional">"(optional)"</span></label>
                    <input id="bulk-budget" type="text" inputmode="numeric" autocomplete="off"
                        placeholder=move || group_thousands(default_budget_now())
                        aria-describedby="bulk-budget-help bulk-budget-error"
                        aria-invalid=move || budget_error.with(Option::is_some).to_string()
                        bind:value=budget_text />
                    <p class="help" id="bulk-budget-help">
                        "Empty: " {move || group_thousands(default_budget_now())}
                        ", the worst case capped by the credits available. The batch pauses before a row that could take it past the budget, and each row is sent with max_credits within what is left; you can raise it then."
                    </p>
                    <p class="field-error" id="bulk-budget-error" role="alert">
                        {move || budget_error.get().map(|e| format!("Budget {e}"))}
                    </p>
                </div>
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
                {move || format!("Start {} runs", group_thousands(valid.get() as u64))}
            </button>
            <p class="help" data-field="kept-note">
                "The rows, their keys and their results are kept in this browser (IndexedDB), so a reload "
                "or a closed tab loses nothing, until you clear the batch. The credential is never kept with them."
            </p>
        </form>
    }
}

#[component]
fn Mapping(
    model: Memo<Option<FormModel>>,
    mapping: RwSignal<ColumnMapping>,
    headers: Memo<Vec<String>>,
) -> impl IntoView {
    let label_of = move |name: &str| {
        model.with(|m| {
            m.as_ref()
                .and_then(|m| m.fields.iter().find(|f| f.name == name))
                .map_or_else(
                    || name.to_owned(),
                    |f| {
                        format!(
                            "{} ({})",
                            f.label,
                            if f.required { "required" } else { "optional" }
                        )
                    },
                )
        })
    };
    let names = move || mapping.with(|m| m.fields().map(str::to_owned).collect::<Vec<_>>());
    view! {
        <fieldset class="bulk-mapping">
            <legend>"Columns for each field"</legend>
            <p class="help">"Matched by header name; choose another column, or one value for every row."</p>
            <For each=names key=|n| n.clone() let:name>
                {
                    let id = format!("map-{name}");
                    let const_id = format!("map-{name}-value");
                    let n1 = name.clone();
                    let n2 = name.clone();
                    let n3 = name.clone();
                    let n4 = name.clone();
                    let source = move || mapping.with(|m| m.source(&n1));
                    let choice = Memo::new(move |_| source_choice(&source()));
                    let set = move |s: Source| mapping.update(|m| m.set(&n2, s));
                    let on_choice = move |ev: leptos::ev::Event| {
                        let v = event_target_value(&ev);
                        set(match v.as_str() {
                            "const" => Source::Constant(String::new()),
                            c => c.strip_prefix('c').and_then(|i| i.parse().ok()).map_or(Source::Unset, Source::Column),
                        });
                    };
                    let constant = move || mapping.with(|m| match m.source(&n3) {
                        Source::Constant(text) => Some(text),
                        _ => None,
                    });
                    let on_constant = move |ev: leptos::ev::Event| {
                        let v = event_target_value(&ev);
                        mapping.update(|m| m.set(&n4, Source::Constant(v)));
                    };
                    let label = label_of(&name);
                    view! {
                        <div class="mapping-row" data-map=name.clone()>
                            <label for=id.clone()>{label.clone()}</label>
                            <select id=id prop:value=move || choice.get() on:change=on_choice>
                                <option value="-" selected=move || choice.get() == "-">"Not set"</option>
                                {move || headers.get().into_iter().enumerate().map(|(i, h)| {
                                    let v = format!("c{i}");
                                    let selected = v.clone();
                                    view! { <option value=v selected=move || choice.get() == selected>{format!("Column “{h}”")}</option> }
                                }).collect_view()}
                                <option value="const" selected=move || choice.get() == "const">"Same value for every row"</option>
                            </select>
                            {move || (choice.get() == "const").then(|| view! {
                                <input id=const_id.clone() type="text" aria-label=format!("{label}: value for every row")
                                    prop:value={ let constant = constant.clone(); move || constant().unwrap_or_default() }
                                    on:change=on_constant.clone() />
                            })}
                        </div>
                    }
                }
            </For>
        </fieldset>
    }
}

#[component]
fn InvalidRows(
    checked: Memo<Vec<CheckedRow>>,
    invalid: Memo<usize>,
    leave_out_invalid: RwSignal<bool>,
) -> impl IntoView {
    let listed = move || {
        checked.with(|rows| {
            rows.iter()
                .filter(|r| !r.errors.is_empty())
                .take(INVALID_SHOWN)
                .map(|r| (r.line, describe(&r.errors)))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="bulk-invalid" data-field="invalid-rows">
            <h2 class="section-title">
                {move || format!("{} rows break the action's rules", group_thousands(invalid.get() as u64))}
            </h2>
            <ul>
                {move || listed().into_iter().map(|(line, reason)| view! {
                    <li data-line=line>"Line " {line} ": " {reason}</li>
                }).collect_view()}
            </ul>
            {move || (invalid.get() > INVALID_SHOWN).then(|| view! {
                <p class="muted">"…and " {invalid.get() - INVALID_SHOWN} " more (all of them are in the batch's table and export)."</p>
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

#[component]
fn BatchView() -> impl IntoView {
    let bulk = use_bulk();
    let tally = Memo::new(move |_| {
        bulk.batch
            .with(|b| b.as_ref().map(|b| b.tally().clone()).unwrap_or_default())
    });
    let phase = Memo::new(move |_| bulk.batch.with(|b| b.as_ref().map(|b| b.phase().clone())));
    let action = Memo::new(move |_| {
        bulk.batch
            .with(|b| b.as_ref().map_or("", |b| b.action.as_str()))
    });
    let cancelled = Memo::new(move |_| {
        bulk.batch
            .with(|b| b.as_ref().is_some_and(|b| b.cancelled()))
    });
    let keeping = Memo::new(move |_| {
        bulk.batch
            .with(|b| b.as_ref().map_or(Keeping::Pending, |b| b.keeping()))
    });
    let confirming_cancel = RwSignal::new(false);
    let (now, set_now) = signal(js_sys::Date::now());
    // A clock for the rate and the time left, while the batch is going.
    leptos::task::spawn_local_scoped_with_cancellation(async move {
        loop {
            crate::browser::sleep(std::time::Duration::from_secs(1)).await;
            set_now.set(js_sys::Date::now());
        }
    });
    let pace = move || {
        let t = tally.get();
        let (accepted, started) = bulk.batch.with(|b| {
            b.as_ref().map_or((0, 0.0), |b| {
                (b.counters().accepted, b.counters().started_at)
            })
        });
        let elapsed = (now.get() - started) / 1000.0;
        let unsent = t.count(RowState::Waiting) + t.count(RowState::Submitting);
        let going = bulk
            .batch
            .with(|b| b.as_ref().is_some_and(|b| *b.phase() == Phase::Running));
        if !going || accepted < 2 || elapsed < 1.0 || unsent == 0 {
            return None;
        }
        let per_second = accepted as f64 / elapsed;
        let left = unsent as f64 / per_second;
        // Tenths by integer arithmetic: float formatting would add its own code to the bundle.
        let tenths = (per_second * 10.0).round() as u64;
        Some(format!(
            "{}.{} runs per second; about {} left to send",
            tenths / 10,
            tenths % 10,
            crate::model::format::duration(chrono::TimeDelta::milliseconds((left * 1000.0) as i64))
        ))
    };
    // What holds the batch back (the rate limit, or this computer's storage), while it runs.
    let paced_by = move || {
        bulk.batch.with(|b| {
            b.as_ref()
                .filter(|b| *b.phase() == Phase::Running)
                .and_then(|b| b.counters().paced_by)
        })
    };
    let here = move || bulk.role.get() == Role::Runs;
    let running = move || here() && phase.get() == Some(Phase::Running);
    let paused_reason = move || match phase.get() {
        Some(Phase::Paused(reason)) => Some(reason.unwrap_or_else(|| {
            "Paused: nothing is sent until you resume. Runs already submitted go on.".to_owned()
        })),
        _ => None,
    };
    let headline = move || match phase.get() {
        Some(Phase::Running) => "Running",
        Some(Phase::Paused(_)) => "Paused",
        Some(Phase::Cancelling) => "Cancelling",
        Some(Phase::Done) if cancelled.get() => "Cancelled",
        Some(Phase::Done) => "Done",
        None => "",
    };
    let environment = crate::state::environment::use_environment();
    let exporting = RwSignal::new(None::<ExportProgress>);
    let export_problem = RwSignal::new(None::<String>);
    let export = move |format: ExportFormat| {
        if exporting.get_untracked().is_some() {
            return;
        }
        export_problem.set(None);
        let file_prefix = environment.file_name("");
        leptos::task::spawn_local(async move {
            if let Err(problem) = bulk.export(format, &file_prefix, exporting).await {
                export_problem.set(Some(problem));
            }
        });
    };
    // The batch's records read to explore them (a snapshot: read again on request).
    let explored = RwSignal::new(None::<Result<ExploredRecords, String>>);
    let exploring = RwSignal::new(false);
    let explore_notice = RwSignal::new("");
    let explore = move |_| {
        if exploring.get_untracked() {
            return;
        }
        exploring.set(true);
        leptos::task::spawn_local(async move {
            let read = bulk.explore_records(EXPLORED_AT_MOST).await;
            explored.set(Some(read));
            exploring.set(false);
        });
    };
    view! {
        <div class="batch" data-field="batch" data-phase=move || headline().to_lowercase()
            data-outputs-saved=move || bulk.batch.with(|b| b.as_ref().map_or(0, |b| b.counters().outputs_saved))
            data-store-busy-ms=move || bulk.batch.with(|b| b.as_ref().map_or(0, |b| b.counters().store_busy_ms as u64))>
            <h2 class="batch-title">
                <code>{action}</code> " · " <span data-field="batch-phase">{headline}</span>
            </h2>
            <progress class="batch-progress" data-field="batch-progress"
                max=move || tally.get().to_send.max(1)
                value=move || tally.get().finished
                aria-label="Rows finished"
                aria-valuetext=move || { let t = tally.get(); format!("{} of {} rows finished", t.finished, t.to_send) }>
            </progress>
            <p data-field="batch-finished">
                {move || { let t = tally.get(); format!("{} of {} rows finished", group_thousands(t.finished as u64), group_thousands(t.to_send as u64)) }}
                {move || pace().map(|p| format!(" · {p}"))}
                {move || paced_by().map(|by| view! {
                    " · " <span data-field="paced-by" data-paced-by=by.as_str()>{by.sentence()}</span>
                })}
            </p>
            <dl class="stats batch-counts">
                {RowState::ALL.into_iter().map(|state| view! {
                    <div class="stat" data-count=state.label()>
                        <dt>{state.label()}</dt>
                        <dd class="stat-value">{move || group_thousands(tally.get().count(state) as u64)}</dd>
                    </div>
                }).collect_view()}
                <div class="stat" data-count="credits">
                    <dt>"credits used"</dt>
                    <dd class="stat-value">{move || group_thousands(tally.get().credits_used)}</dd>
                </div>
                <div class="stat" data-count="records">
                    <dt>"records"</dt>
                    <dd class="stat-value">{move || group_thousands(tally.get().records as u64)}</dd>
                </div>
            </dl>
            {move || paused_reason().map(|reason| view! { <p class="notice" role="status" data-field="paused-reason">{reason}</p> })}
            <BatchBudget
                here=Signal::derive(here)
                going=Signal::derive(move || matches!(phase.get(), Some(Phase::Running | Phase::Paused(_)))) />
            {move || (!here()).then(|| view! {
                <div class="notice" role="status" data-field="elsewhere">
                    <p>"This batch is running in another tab of this browser. This tab shows its progress as that tab saves it, and sends nothing."</p>
                    <button type="button" class="button primary" data-field="take-over" on:click=move |_| bulk.take_over()>
                        "Run it in this tab instead"
                    </button>
                </div>
            })}
            <p class="help" data-field="keeping">{move || match keeping.get() {
                Keeping::Pending => "Saving the batch in this browser before the first row is sent…",
                Keeping::Kept => "Kept in this browser: after a reload, sign in and open Bulk to take it up. \
                    Clearing the batch deletes its inputs and results from this browser.",
                Keeping::Refused => "This browser does not keep the batch (its storage is unavailable): \
                    leaving or reloading the page stops it.",
            }}</p>
            <div class="actions-row">
                {move || running().then(|| view! {
                    <button type="button" class="button secondary" on:click=move |_| bulk.pause()>"Pause"</button>
                })}
                {move || (here() && matches!(phase.get(), Some(Phase::Paused(_)))).then(|| view! {
                    <button type="button" class="button primary" on:click=move |_| bulk.resume()>"Resume"</button>
                })}
                {move || (here() && matches!(phase.get(), Some(Phase::Running | Phase::Paused(_)))).then(|| view! {
                    <button type="button" class="button secondary" data-field="cancel-batch"
                        on:click=move |_| confirming_cancel.set(true)>"Cancel batch…"</button>
                })}
                {move || (here() && phase.get() == Some(Phase::Done) && tally.get().count(RowState::Failed) > 0).then(|| view! {
                    <button type="button" class="button secondary" data-field="retry-failed" on:click=move |_| bulk.retry_failed()
                        title="New submissions with new keys: they may cost again">
                        {move || format!("Retry {} failed rows", tally.get().count(RowState::Failed))}
                    </button>
                })}
                <button type="button" class="button secondary" data-field="export-csv" disabled=move || exporting.get().is_some()
                    on:click=move |_| export(ExportFormat::Csv)>"Export CSV"</button>
                <button type="button" class="button secondary" data-field="export-json" disabled=move || exporting.get().is_some()
                    on:click=move |_| export(ExportFormat::Json)>"Export JSON"</button>
                <button type="button" class="button secondary" data-field="export-jsonl" disabled=move || exporting.get().is_some()
                    on:click=move |_| export(ExportFormat::JsonLines)>"Export JSON Lines"</button>
                <button type="button" class="button secondary" data-field="explore-results"
                    disabled=move || exploring.get() || tally.with(|t| t.records == 0)
                    on:click=explore>
                    {move || match (exploring.get(), explored.with(Option::is_some)) {
                        (true, _) => "Reading the results…",
                        (false, false) => "Explore the results",
                        (false, true) => "Read the results again",
                    }}
                </button>
                {move || (here() && phase.get() == Some(Phase::Done)).then(|| view! {
                    <button type="button" class="button secondary" data-field="clear-batch" on:click=move |_| bulk.clear()
                        title="Deletes this batch's rows and results from this browser; its runs stay in the workspace">"Clear batch"</button>
                })}
            </div>
            {move || exporting.get().map(|p| view! {
                <p class="help" role="status" data-field="export-progress">
                    {format!("Exporting… {} of {} rows", group_thousands(p.rows_done as u64), group_thousands(p.rows as u64))}
                </p>
            })}
            {move || export_problem.get().map(|problem| view! {
                <p class="notice" role="alert" data-field="export-problem">{problem}</p>
            })}
            {move || explored.get().map(|read| match read {
                Err(problem) => view! { <p class="notice" role="alert" data-field="explore-problem">{problem}</p> }.into_any(),
                Ok(ExploredRecords { records, total }) => {
                    let shown = records.len();
                    view! {
                        <section class="explore-results" data-field="explored-results" aria-label="The batch's results">
                            <h3 class="section-title">"Results"</h3>
                            <p class="help">{if total > shown {
                                format!("The first {} of the batch's {} records, as read just now; the exports hold them all.", group_thousands(shown as u64), group_thousands(total as u64))
                            } else {
                                "The batch's records as read just now, each with its row's line, input and run.".to_owned()
                            }}</p>
                            <OutputExplorer action=action.get_untracked().to_owned()
                                name=crate::state::environment::use_environment().file_name(&format!("bulk-{}-results", action.get_untracked()))
                                records notice=explore_notice />
                            <p class="help" role="status">{move || explore_notice.get()}</p>
                        </section>
                    }.into_any()
                }
            })}
            {move || confirming_cancel.get().then(|| view! {
                <div class="confirm" role="alertdialog" aria-labelledby="confirm-cancel-title" data-field="confirm-cancel">
                    <p id="confirm-cancel-title"><strong>"Cancel the batch?"</strong></p>
                    <p>"Rows not sent yet are not sent, and the batch's queued and processing runs are cancelled. Finished runs keep their results."</p>
                    <div class="actions-row">
                        <button type="button" class="button danger" on:click=move |_| { confirming_cancel.set(false); bulk.cancel(); }>"Cancel batch"</button>
                        <button type="button" class="button secondary" on:click=move |_| confirming_cancel.set(false)>"Keep running"</button>
                    </div>
                </div>
            })}
            <BatchRows />
        </div>
    }
}

/// One line of the batch's table: what it shows of a row.
#[derive(Clone, Debug, PartialEq)]
struct ShownRow {
    line: usize,
    input: String,
    state: RowState,
    run_id: Option<String>,
    credits: u64,
    records: usize,
    error: Option<RowError>,
}

impl ShownRow {
    fn of(row: &crate::model::bulk::BatchRow) -> ShownRow {
        ShownRow {
            line: row.line,
            input: row.cells.join(" · "),
            state: row.state,
            run_id: row.run_id.clone(),
            credits: row.credits_used,
            records: row.records,
            error: row.error.clone(),
        }
    }
}

/// The batch's rows, a page at a time (fast at 10,000 rows), filterable by state.
#[component]
fn BatchRows() -> impl IntoView {
    let bulk = use_bulk();
    let page = RwSignal::new(0_usize);
    let filter = RwSignal::new(String::from("all"));
    let matching = move |state: RowState| filter.with(|f| f == "all" || f == state.label());
    let total = Memo::new(move |_| {
        bulk.batch.with(|b| {
            b.as_ref()
                .map_or(0, |b| b.rows().iter().filter(|r| matching(r.state)).count())
        })
    });
    let pages = move || total.get().div_ceil(PAGE_ROWS).max(1);
    Effect::new(move |_| {
        filter.track();
        page.set(0);
    });
    // A memo: the batch changes with every answer, the rows on show far less often, and only
    // then is the table redrawn (a 1,000-row batch spent most of its main-thread time redrawing).
    let rows = Memo::new(move |_| {
        let first = page.get() * PAGE_ROWS;
        bulk.batch.with(|b| {
            b.as_ref()
                .map(|b| {
                    b.rows()
                        .iter()
                        .filter(|r| matching(r.state))
                        .skip(first)
                        .take(PAGE_ROWS)
                        .map(ShownRow::of)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    view! {
        <div class="toolbar">
            <label for="bulk-filter">"Show"</label>
            <select id="bulk-filter" bind:value=filter>
                <option value="all">"all rows"</option>
                {RowState::ALL.into_iter().map(|s| view! { <option value=s.label()>{s.label()}</option> }).collect_view()}
            </select>
            <span class="muted">{move || format!("{} rows", group_thousands(total.get() as u64))}</span>
        </div>
        <div class="table-wrap" role="region" aria-label="The batch's rows" tabindex="0">
            <table class="batch-rows" data-field="batch-rows">
                <thead><tr>
                    <th scope="col" class="num">"Line"</th><th scope="col">"Input"</th><th scope="col">"State"</th>
                    <th scope="col">"Run"</th><th scope="col" class="num">"Credits"</th><th scope="col" class="num">"Records"</th><th scope="col">"Error"</th>
                </tr></thead>
                <tbody>
                    {move || rows.get().into_iter().map(|ShownRow { line, input, state, run_id, credits, records, error }| view! {
                        <tr data-line=line data-state=state.label()>
                            <td class="num">{line}</td>
                            <td class="bulk-input">{input}</td>
                            <td><span class=format!("status status-{}", state.label())>{state.label()}</span></td>
                            <td>{run_id.map(|id| view! { <a href=run_path(&id)><code>{id[..8.min(id.len())].to_owned()} "…"</code></a> })}</td>
                            <td class="num">{credits}</td>
                            <td class="num">{records}</td>
                            <td class="bulk-error">{error.map(|RowError { code, message, request_id }| view! {
                                <code>{code}</code> " " {message}
                                {request_id.map(|id| view! { " " <span class="muted">"(request " <code>{id}</code> ")"</span> })}
                            })}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <nav class="pager" aria-label="Pages of rows">
            <button type="button" class="button secondary" disabled=move || page.get() == 0
                on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>"Previous"</button>
            <span data-field="page-of">{move || format!("Page {} of {}", page.get() + 1, pages())}</span>
            <button type="button" class="button secondary" disabled=move || { page.get() + 1 >= pages() }
                on:click=move |_| page.update(|p| *p += 1)>"Next"</button>
        </nav>
    }
}

/// The batch's credits against its budget ("budget · charged · reserved · left"), and, in the
/// tab that runs it while it goes, the way to change the budget (a paused batch then resumes
/// on Resume).
#[component]
fn BatchBudget(
    /// This tab runs the batch.
    here: Signal<bool>,
    /// The batch is running or paused.
    going: Signal<bool>,
) -> impl IntoView {
    let bulk = use_bulk();
    let spending = Memo::new(move |_| {
        bulk.batch
            .with(|b| b.as_ref().map(|b| *b.spending()))
            .unwrap_or_default()
    });
    let typed = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let on_set = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match parse_budget(&typed.get_untracked()) {
            Ok(budget) => {
                bulk.set_budget(Some(budget));
                typed.set(String::new());
                error.set(None);
            }
            Err(reason) => {
                error.set(Some(format!("Budget {reason}")));
                crate::browser::focus_id("batch-budget");
            }
        }
    };
    let sentence = move || {
        let spending: Spending = spending.get();
        format!("Credits: {}", spending.sentence())
    };
    view! {
        <p data-field="batch-spending">{sentence}</p>
        {move || (here.get() && going.get()).then(|| view! {
            <form class="budget-change" on:submit=on_set novalidate>
                <label for="batch-budget">"New budget, in credits"</label>
                <input id="batch-budget" type="text" inputmode="numeric" autocomplete="off"
                    aria-describedby="batch-budget-error"
                    aria-invalid=move || error.with(Option::is_some).to_string()
                    bind:value=typed />
                <button type="submit" class="button secondary" data-field="set-budget">"Set budget"</button>
                <p class="field-error" id="batch-budget-error" role="alert">{move || error.get()}</p>
            </form>
        })}
    }
}
