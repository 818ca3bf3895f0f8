//! `/storage`: what this browser keeps for the workspace (its run history, bulk batches, the
//! submissions the console made), how much space the console's data takes and whether the
//! browser may clear it, and the history's export, import and removal.

use api_contract::RUN_LIST_LIMIT;
use leptos::prelude::*;

use crate::archive::{self, Imported, KeptCounts};
use crate::browser::{self, StorageState};
use crate::components::{Confirm, Notice, RealDataGate, RealDataQuestion, StoreRefusalNotice};
use crate::model::expiry::{ForgetAfter, Freed, MAX_DAYS, PRESET_DAYS};
use crate::model::format::{counted, group_thousands, local_time, size};
use crate::model::store_table;
use crate::state::expiry::{self, Applied, use_output_expiry};
use crate::state::workspace::use_workspace;
use crate::store::StoreError;

/// Skipped lines of an import listed one by one; the rest are counted.
const SKIPPED_LISTED: usize = 20;

/// What this browser keeps for the workspace, and since when.
#[derive(Clone, Copy, Debug, PartialEq)]
struct KeptHere {
    counts: KeptCounts,
    /// When its history started here, ms since the epoch.
    since: Option<f64>,
}

#[component]
pub fn StoragePage() -> impl IntoView {
    let workspace = use_workspace();
    let workspace_id = move || workspace.id();
    // Counted again after each import or removal.
    let changed = RwSignal::new(0_u32);
    let counts = LocalResource::new(move || {
        changed.track();
        let id = workspace_id();
        async move {
            match id {
                Some(id) => Ok::<_, StoreError>(Some(KeptHere {
                    counts: archive::counts(&id).await?,
                    since: archive::kept_since(&id).await?,
                })),
                None => Ok(None),
            }
        }
    });

    view! {
        <section class="page storage-page">
            <h1>"Kept in this browser"</h1>
            <p class="lead">
                "The API lists only a workspace's latest " {RUN_LIST_LIMIT} " runs and does not return what was sent. "
                "This console keeps what it sees in this browser (IndexedDB): the workspace's runs, "
                "the submissions it made, so a run can be run again, and bulk batches, so they survive a reload. "
                "Never a credential. Nothing here leaves this browser unless you export it."
            </p>
            <StoreRefusalNotice />
            <h2 class="section-title">"This workspace"</h2>
            {move || match counts.get() {
                None => view! { <p class="loading">"Counting…"</p> }.into_any(),
                Some(Err(error)) => view! {
                    <Notice field="no-storage">{error.sentence()}</Notice>
                }.into_any(),
                Some(Ok(None)) => view! { <p class="loading">"Loading the workspace…"</p> }.into_any(),
                Some(Ok(Some(kept))) => kept_counts(kept).into_any(),
            }}
            <SpaceSection changed />
            <OutputsSection changed />
            <ExpirySection changed />
            <ExportImport changed />
            <ForgetHistory counts changed />
        </section>
    }
}

/// What [`StoragePage`] counts: the workspace's runs, batches and submissions kept here, or
/// why they could not be counted; `None` until the workspace is known.
type CountsResource = LocalResource<Result<Option<KeptHere>, StoreError>>;

/// A section's heading and what it is for.
#[component]
fn SectionIntro(
    /// The heading.
    title: &'static str,
    /// What the section does, in a `.help` paragraph.
    children: Children,
) -> impl IntoView {
    view! {
        <h2 class="section-title">{title}</h2>
        <p class="help">{children()}</p>
    }
}

/// How much space the console's data takes, whether the browser may remove it, and the
/// question to the browser to keep it. `changed` has it read again after the question.
#[component]
fn SpaceSection(changed: RwSignal<u32>) -> impl IntoView {
    let storage = LocalResource::new(move || {
        changed.track();
        browser::storage_state()
    });
    let persist_asked = RwSignal::new(None::<bool>);
    let ask_persist = move |_| {
        leptos::task::spawn_local(async move {
            persist_asked.set(Some(browser::ask_persistence().await));
            changed.update(|n| *n += 1);
        });
    };
    view! {
        <h2 class="section-title">"Space"</h2>
        {move || storage.get().map(|state| space(state, ask_persist, persist_asked))}
    }
}

/// The outputs kept for all workspaces and their allowance, in MB as typed; saving it counts
/// again (`changed`).
#[component]
fn OutputsSection(changed: RwSignal<u32>) -> impl IntoView {
    let outputs = LocalResource::new(move || {
        changed.track();
        archive::output_space()
    });
    let allowance_text = RwSignal::new(String::new());
    // A typed allowance that is not a number; the saved one's answer is the action's value.
    let typo = RwSignal::new(None::<String>);
    let save = Action::new_local(move |megabytes: &f64| {
        let megabytes = *megabytes;
        async move {
            let note = match archive::set_output_allowance((megabytes * 1e6).round() as u64).await {
                Ok(()) => format!("Outputs are now kept up to {}.", size(megabytes * 1e6)),
                Err(error) => format!("The allowance could not be saved. {error}"),
            };
            changed.update(|n| *n += 1);
            note
        }
    });
    let save_allowance = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = allowance_text.get_untracked();
        // Read as JSON reads a number (the parser the page carries already).
        let Some(megabytes) = serde_json::from_str::<f64>(text.trim())
            .ok()
            .filter(|mb| mb.is_finite() && *mb >= 0.0)
        else {
            typo.set(Some(format!(
                "“{}” is not a number of megabytes (0 or more, such as 200 or 0.5).",
                text.trim()
            )));
            return;
        };
        typo.set(None);
        save.dispatch_local(megabytes);
    };
    let allowance_note = move || typo.get().or_else(|| save.value().get());
    view! {
        <SectionIntro title="Outputs">
            "The records of finished runs this console read are kept too, up to an allowance for all workspaces together, "
            "so a run the API no longer has can still be looked at. When a new output does not fit, the oldest go first; "
            "the runs themselves stay in the history."
        </SectionIntro>
        {move || outputs.get().and_then(Result::ok).map(|space| view! {
            <p data-field="outputs-space">{format!(
                "{} kept, {} of the {} allowance.",
                counted(space.outputs as u64, "output", "outputs"),
                size(space.bytes as f64),
                size(space.allowance as f64),
            )}</p>
        })}
        <form class="inline-form" on:submit=save_allowance novalidate>
            <label for="outputs-allowance">"Allowance (MB)"</label>
            <input id="outputs-allowance" type="number" min="0" step="any" inputmode="decimal"
                placeholder=move || outputs.get().and_then(Result::ok)
                    .and_then(|space| serde_json::to_string(&(space.allowance as f64 / 1e6)).ok())
                    .unwrap_or_default()
                bind:value=allowance_text />
            <button type="submit" class="button secondary">"Save"</button>
            <span role="status" data-field="allowance-note">{allowance_note}</span>
        </form>
    }
}

/// What a rule frees (or freed), as a sentence's end.
fn freed_text(freed: &Freed) -> String {
    let batches = match (freed.batches, freed.batch_rows) {
        (0, _) => String::new(),
        // Before the rule applies, the batches are counted, not their rows.
        (batches, 0) => format!(
            ", and the records of {}",
            counted(
                batches as u64,
                "finished bulk batch",
                "finished bulk batches"
            )
        ),
        (batches, rows) => format!(
            ", and the records of {} ({})",
            counted(
                batches as u64,
                "finished bulk batch",
                "finished bulk batches"
            ),
            counted(rows as u64, "row", "rows")
        ),
    };
    format!(
        "{} ({}) and the bodies of {} in the request log ({}){batches}",
        counted(freed.outputs as u64, "kept output", "kept outputs"),
        size(freed.output_bytes as f64),
        counted(freed.log_bodies as u64, "request", "requests"),
        size(freed.log_bytes as f64),
    )
}

/// What an application of the rule did, for the person.
fn applied_text(applied: &Applied) -> String {
    let when = chrono::DateTime::from_timestamp_millis(applied.at as i64)
        .map(local_time)
        .unwrap_or_default();
    let how = if applied.automatic {
        "Applied by itself"
    } else {
        "Applied"
    };
    match &applied.result {
        Ok(freed) if freed.is_nothing() => {
            format!(
                "{how} on {when}: nothing was older than {} days.",
                applied.rule.text()
            )
        }
        Ok(freed) => format!("{how} on {when}: forgot {}.", freed_text(freed)),
        Err(error) => format!("{how} on {when}, but nothing was forgotten. {error}"),
    }
}

/// The expiry rule: forget kept outputs (and the request log's bodies) older than a number of
/// days, chosen here (kept as a preference), applied at once and then by itself
/// (`state::expiry`); what the chosen rule frees is said before it is saved.
#[component]
fn ExpirySection(changed: RwSignal<u32>) -> impl IntoView {
    let workspace = use_workspace();
    let applications = use_output_expiry();
    let saved = expiry::rule();
    // The select's value: "off", one of the presets, or "other" (a number typed).
    let preset = |rule: ForgetAfter| match rule.0 {
        None => "off".to_owned(),
        Some(days) if PRESET_DAYS.contains(&days) => days.to_string(),
        Some(_) => "other".to_owned(),
    };
    let choice = RwSignal::new(preset(saved));
    let typed = RwSignal::new(saved.0.map(|d| d.to_string()).unwrap_or_default());
    let chosen = Memo::new(move |_| match choice.get().as_str() {
        "other" => ForgetAfter::parse(&typed.get()),
        text => ForgetAfter::parse(text),
    });
    let preview = LocalResource::new(move || {
        changed.track();
        let rule = chosen.get();
        async move {
            match rule {
                Ok(rule) if rule.0.is_some() => {
                    Some(expiry::preview(rule, js_sys::Date::now()).await)
                }
                _ => None,
            }
        }
    });
    let save = Action::new_local(move |rule: &ForgetAfter| {
        let rule = *rule;
        let workspace_id = workspace.id_untracked();
        async move {
            let kept = expiry::set_rule(rule);
            let note = if rule.0.is_none() {
                "Off: nothing is forgotten by age.".to_owned()
            } else {
                applied_text(&applications.apply(rule, workspace_id, false).await)
            };
            changed.update(|n| *n += 1);
            match kept {
                Ok(()) => note,
                Err(why) => format!("{note} {why}"),
            }
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if let Ok(rule) = chosen.get_untracked() {
            save.dispatch_local(rule);
        }
    };
    let last = move || {
        applications
            .last_applied()
            .filter(|applied| applied.automatic)
            .map(|applied| applied_text(&applied))
    };
    view! {
        <SectionIntro title="Forget old outputs">
            "Forget the kept outputs older than a number of days, in every workspace: applied when the console starts and every hour while it is open. "
            "The runs stay in the history with their cost, marked “output forgotten”; a run's page can fetch its output again while the API still has it. "
            "The request log's bodies older than the days are dropped too (its entries stay, with method, path, status and time). "
            "Outputs kept before this rule existed count their days from its first application. "
            "A bulk batch's records are not touched: a batch is cleared whole, on the Bulk page."
        </SectionIntro>
        <form class="inline-form" on:submit=submit novalidate>
            <label for="forget-after">"Forget kept outputs older than"</label>
            <select id="forget-after" data-field="forget-after" bind:value=choice>
                <option value="off">"Off"</option>
                {PRESET_DAYS.map(|days| view! { <option value=days.to_string()>{format!("{days} days")}</option> }).collect_view()}
                <option value="other">"Another number of days"</option>
            </select>
            <span hidden=move || choice.get() != "other">
                <label for="forget-after-days">"Days"</label>
                <input id="forget-after-days" type="number" min="1" max=MAX_DAYS step="1" inputmode="numeric"
                    bind:value=typed />
            </span>
            <button type="submit" class="button secondary" disabled=move || save.pending().get() || chosen.get().is_err()>"Save and apply"</button>
            <span role="status" data-field="expiry-note">{move || save.value().get()}</span>
        </form>
        {move || chosen.get().err().map(|why| view! { <p class="field-error" data-field="expiry-typo">{why}</p> })}
        {move || preview.get().flatten().map(|freed| match freed {
            Ok(freed) => view! {
                <p data-field="expiry-frees">{format!("Applied now, this rule forgets {}.", freed_text(&freed))}</p>
            }.into_any(),
            Err(error) => view! { <Notice field="expiry-frees">{error.sentence()}</Notice> }.into_any(),
        })}
        {move || last().map(|text| view! { <p class="help" data-field="expiry-last">{text}</p> })}
    }
}

/// A file chosen to import into a workspace's history.
struct ImportFile {
    workspace: String,
    file: web_sys::File,
}

/// The history's export as JSON Lines and the import of such a file; an import counts again
/// (`changed`).
/// What an export says it did, damaged runs left out included.
fn export_note(export: &archive::HistoryExport) -> String {
    let left_out = store_table::left_out(export.damaged, "kept run", "kept runs");
    let done = match export.runs {
        0 => "There is nothing to export yet: this browser keeps no run of this workspace."
            .to_owned(),
        runs => format!(
            "Exported {} as JSON Lines.",
            counted(runs as u64, "run", "runs")
        ),
    };
    let done = match left_out {
        Some(left_out) => format!("{done} {left_out}"),
        None => done,
    };
    // The export never holds outputs; the runs whose output the expiry rule forgot say so.
    match export.output_forgotten {
        0 => done,
        forgotten => format!(
            "{done} Outputs are never exported; {} marked “output forgotten” (the rule above).",
            counted(forgotten as u64, "run is", "runs are")
        ),
    }
}

#[component]
fn ExportImport(changed: RwSignal<u32>) -> impl IntoView {
    let workspace = use_workspace();
    let environment = crate::state::environment::use_environment();
    let export = Action::new_local(|(id, file_prefix): &(String, String)| {
        let (id, file_prefix) = (id.clone(), file_prefix.clone());
        async move {
            match archive::export_history(&id, &file_prefix).await {
                Ok(export) => export_note(&export),
                Err(sentence) => sentence,
            }
        }
    });
    // Presenter mode asks first: the file holds the runs' inputs and outputs.
    let gate = RealDataGate::default();
    let on_export = move |_| {
        if let Some(id) = workspace.id_untracked() {
            let file_prefix = environment.file_name("");
            gate.export(
                "every run this browser keeps of the workspace, with the input this console sent and the run's error message"
                    .to_owned(),
                move || {
                    export.dispatch_local((id.clone(), file_prefix.clone()));
                },
            );
        }
    };
    let import = Action::new_local(move |ImportFile { workspace, file }: &ImportFile| {
        let (id, file, name) = (workspace.clone(), file.clone(), file.name());
        async move {
            let result = match browser::file_text(&file).await {
                Err(reason) => Err(format!("{name} could not be read ({reason}). Nothing was imported.")),
                Ok(text) => archive::import_history(&id, &text)
                    .await
                    .map(|imported| (name.clone(), imported))
                    .map_err(|error| {
                        format!("{name} could not be saved in this browser, so nothing was imported. {error}")
                    }),
            };
            changed.update(|n| *n += 1);
            result
        }
    });
    let on_import = move |ev: leptos::ev::Event| {
        let (Some((input, file)), Some(workspace)) =
            (browser::chosen_file(&ev), workspace.id_untracked())
        else {
            return;
        };
        // The same file can be chosen again after a fix.
        input.set_value("");
        import.dispatch_local(ImportFile { workspace, file });
    };
    let (exporting, importing) = (export.pending(), import.pending());
    view! {
        <SectionIntro title="Export and import">
            "The run history as a JSON Lines file, one run per line: to keep it, or to import it in another browser. "
            "Importing merges it with what this browser keeps (the furthest state of a run wins), in one step: "
            "a file that cannot be saved leaves the history as it was."
        </SectionIntro>
        <div class="actions-row">
            <button type="button" class="button secondary" on:click=on_export disabled=exporting>
                {move || if exporting.get() { "Exporting…" } else { "Export the history" }}
            </button>
            <label class="button secondary file-button">
                {move || if importing.get() { "Importing…" } else { "Import a history file…" }}
                <input type="file" class="sr-only" accept=".jsonl,.json,.txt,application/jsonl,application/x-ndjson"
                    data-field="import-file" on:change=on_import disabled=importing />
            </label>
        </div>
        <RealDataQuestion gate />
        <p role="status" data-field="export-note">{move || export.value().get()}</p>
        // The last import's report, gone while the next is read.
        {move || (!importing.get()).then(|| import.value().get().map(import_report)).flatten()}
    }
}

/// Forgetting the workspace's history, after a confirmation that says how many runs go; it
/// counts again (`changed`).
#[component]
fn ForgetHistory(counts: CountsResource, changed: RwSignal<u32>) -> impl IntoView {
    let workspace = use_workspace();
    let confirming = RwSignal::new(false);
    let forget = Action::new_local(move |id: &String| {
        let id = id.clone();
        async move {
            let note = match archive::forget_history(&id).await {
                Ok(runs) => format!(
                    "Forgot the {} runs this browser kept for this workspace.",
                    group_thousands(u64::from(runs))
                ),
                Err(error) => format!("The history could not be removed. {error}"),
            };
            changed.update(|n| *n += 1);
            note
        }
    });
    let on_forget = Callback::new(move |()| {
        confirming.set(false);
        if let Some(id) = workspace.id_untracked() {
            forget.dispatch_local(id);
        }
    });
    let question = move || {
        counts.get().and_then(Result::ok).flatten().map(|c| {
            format!(
                "Forget the {} runs kept for this workspace in this browser?",
                group_thousands(u64::from(c.counts.runs))
            )
        })
    };
    view! {
        <SectionIntro title="Forget">
            "Removes the runs this browser kept for this workspace. The API's runs are not touched; "
            "the latest " {RUN_LIST_LIMIT} " are listed again on the next read. Bulk batches and submissions stay: "
            "to remove everything of this workspace, sign out and choose to forget its data."
        </SectionIntro>
        <div class="actions-row" hidden=move || confirming.get()>
            <button type="button" class="button danger" on:click=move |_| confirming.set(true)>
                "Forget this workspace's history…"
            </button>
        </div>
        {move || confirming.get().then(|| view! {
            <Confirm field="confirm-forget" title=question confirm_label="Forget the history" cancel_label="Keep it"
                on_confirm=on_forget on_cancel=Callback::new(move |()| confirming.set(false))>
                <p>"This cannot be undone, unless you exported the history first."</p>
            </Confirm>
        })}
        <p role="status" data-field="forget-note">{move || forget.value().get()}</p>
    }
}

fn kept_counts(KeptHere { counts, since }: KeptHere) -> impl IntoView {
    let since = since
        .and_then(|ms| chrono::DateTime::from_timestamp_millis(ms as i64))
        .map(|at| format!("seen by this browser since {}", local_time(at)));
    view! {
        <dl class="stats">
            <div class="stat" data-field="kept-runs">
                <dt>"Runs"</dt>
                <dd class="stat-value">{group_thousands(u64::from(counts.runs))}</dd>
                <dd class="stat-note">{since.unwrap_or_else(|| "in the history".to_owned())}</dd>
            </div>
            <div class="stat" data-field="kept-batches">
                <dt>"Bulk batches"</dt>
                <dd class="stat-value">{group_thousands(counts.batches as u64)}</dd>
                <dd class="stat-note">"with their rows and results"</dd>
            </div>
            <div class="stat" data-field="kept-submissions">
                <dt>"Submissions"</dt>
                <dd class="stat-value">{group_thousands(counts.submissions as u64)}</dd>
                <dd class="stat-note">"inputs sent from the form"</dd>
            </div>
        </dl>
    }
}

fn space(
    state: StorageState,
    ask_persist: impl Fn(leptos::ev::MouseEvent) + Copy + 'static,
    asked: RwSignal<Option<bool>>,
) -> impl IntoView {
    let used = match (state.usage, state.quota) {
        (Some(usage), Some(quota)) => format!(
            "The console's data takes {} of the {} this browser allows it (all workspaces).",
            size(usage),
            size(quota)
        ),
        _ => "This browser does not say how much space the console's data takes.".to_owned(),
    };
    view! {
        <p data-field="space-used">{used}</p>
        {match state.persisted {
            Some(true) => view! {
                <p data-field="persistence">"This browser keeps it until you clear it: it will not remove it to make room."</p>
            }.into_any(),
            Some(false) => view! {
                <p data-field="persistence">
                    "This browser may remove it when space runs low, oldest sites first. "
                    "Asking it to keep the data protects the history and unfinished batches; the browser decides "
                    "(Chrome grants it to sites you use often or installed, Firefox asks you)."
                </p>
                <div class="actions-row">
                    <button type="button" class="button secondary" on:click=ask_persist>"Ask the browser to keep it"</button>
                    <span role="status">{move || asked.get().map(|granted| if granted {
                        "Granted: this browser keeps it."
                    } else {
                        "Not granted for now: the browser may still remove it when space runs low."
                    })}</span>
                </div>
            }.into_any(),
            None => view! {
                <p data-field="persistence">"This browser does not say whether it may remove the data to make room."</p>
            }.into_any(),
        }}
    }
}

fn import_report(result: Result<(String, Imported), String>) -> impl IntoView {
    match result {
        Err(message) => view! {
            <div class="error-panel" role="alert" data-field="import-report">
                <p class="error-title">"Import failed"</p>
                <p class="error-message">{message}</p>
            </div>
        }
        .into_any(),
        Ok((name, imported)) => {
            let skipped = imported.skipped.len();
            let more = skipped.saturating_sub(SKIPPED_LISTED);
            view! {
                <div class="notice import-report" role="status" data-field="import-report">
                    <p>{format!(
                        "Imported {} from {name}: {} new, {} updated, {} already as kept.",
                        counted(imported.read as u64, "run", "runs"),
                        group_thousands(imported.merge.added as u64),
                        group_thousands(imported.merge.updated as u64),
                        group_thousands(imported.merge.unchanged as u64),
                    )}</p>
                    {(skipped > 0).then(|| view! {
                        <p>{format!("Skipped {}:", counted(skipped as u64, "line", "lines"))}</p>
                        <ul class="skipped-lines" data-field="skipped-lines">
                            {imported.skipped.into_iter().take(SKIPPED_LISTED).map(|s| view! {
                                <li>"Line " {group_thousands(s.line as u64)} ": " {s.reason}</li>
                            }).collect_view()}
                            {(more > 0).then(|| view! { <li>{format!("and {} more", counted(more as u64, "line", "lines"))}</li> })}
                        </ul>
                    })}
                </div>
            }
            .into_any()
        }
    }
}

/// Sign-in's notice of what this browser keeps from earlier sign-ins, shown to whoever signs in
/// to the same workspace here (a shared computer); `None` when it keeps nothing.
pub async fn kept_data_notice() -> Option<AnyView> {
    let kept = archive::kept_workspaces().await.ok()?;
    if kept.is_empty() {
        return None;
    }
    let each = kept
        .into_iter()
        .map(|ws| view! { <li><code>{ws.id}</code> ": " {describe_kept(&ws.counts)}</li> })
        .collect_view();
    Some(
        view! {
            <Notice field="kept-data" block=true>
                <p>"This browser keeps data from earlier sign-ins, shown to whoever signs in to the same workspace here:"</p>
                <ul>{each}</ul>
                <p class="help">"To delete a workspace's data, sign in to it and choose “Sign out and forget this workspace's data in this browser”."</p>
            </Notice>
        }
        .into_any(),
    )
}

/// "1,234 runs of history, 2 bulk batches, 5 submissions": what is kept, leaving out what is not.
fn describe_kept(kept: &KeptCounts) -> String {
    [
        (u64::from(kept.runs), "run of history", "runs of history"),
        (kept.batches as u64, "bulk batch", "bulk batches"),
        (kept.submissions as u64, "submission", "submissions"),
        (
            u64::from(kept.requests),
            "logged request",
            "logged requests",
        ),
    ]
    .into_iter()
    .filter(|(count, ..)| *count > 0)
    .map(|(count, one, many)| counted(count, one, many))
    .collect::<Vec<_>>()
    .join(", ")
}
