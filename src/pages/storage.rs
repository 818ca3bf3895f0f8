//! `/storage`: what this browser keeps for the workspace (its run history, bulk batches, the
//! submissions the console made), how much space the console's data takes and whether the
//! browser may clear it, and the history's export, import and removal.

use api_contract::RUN_LIST_LIMIT;
use leptos::prelude::*;

use crate::archive::{self, Imported, KeptCounts};
use crate::browser::{self, StorageState};
use crate::model::format::{counted, group_thousands, local_time, size};
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
    let environment = crate::state::environment::use_environment();
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

    let export_note = RwSignal::new(None::<String>);
    let exporting = RwSignal::new(false);
    let export = move |_| {
        let Some(id) = workspace.id_untracked() else {
            return;
        };
        exporting.set(true);
        let file_prefix = environment.file_name("");
        leptos::task::spawn_local(async move {
            let note = match archive::export_history(&id, &file_prefix).await {
                Ok(0) => {
                    "There is nothing to export yet: this browser keeps no run of this workspace."
                        .to_owned()
                }
                Ok(runs) => format!(
                    "Exported {} runs as JSON Lines.",
                    group_thousands(runs as u64)
                ),
                Err(sentence) => sentence,
            };
            export_note.set(Some(note));
            exporting.set(false);
        });
    };

    let import_result = RwSignal::new(None::<Result<(String, Imported), String>>);
    let importing = RwSignal::new(false);
    let on_import = move |ev: leptos::ev::Event| {
        let (Some((input, file)), Some(id)) = (browser::chosen_file(&ev), workspace.id_untracked())
        else {
            return;
        };
        // The same file can be chosen again after a fix.
        input.set_value("");
        let name = file.name();
        importing.set(true);
        import_result.set(None);
        leptos::task::spawn_local(async move {
            let result = match browser::file_text(&file).await {
                Err(reason) => Err(format!("{name} could not be read ({reason}). Nothing was imported.")),
                Ok(text) => archive::import_history(&id, &text)
                    .await
                    .map(|imported| (name.clone(), imported))
                    .map_err(|error| {
                        format!("{name} could not be saved in this browser, so nothing was imported. {error}")
                    }),
            };
            import_result.set(Some(result));
            importing.set(false);
            changed.update(|n| *n += 1);
        });
    };

    // The outputs' allowance, in MB as typed.
    let outputs = LocalResource::new(move || {
        changed.track();
        archive::output_space()
    });
    let allowance_text = RwSignal::new(String::new());
    let allowance_note = RwSignal::new(None::<String>);
    let save_allowance = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = allowance_text.get_untracked();
        // Read as JSON reads a number (the parser the page carries already).
        let Some(megabytes) = serde_json::from_str::<f64>(text.trim())
            .ok()
            .filter(|mb| mb.is_finite() && *mb >= 0.0)
        else {
            allowance_note.set(Some(format!(
                "“{}” is not a number of megabytes (0 or more, such as 200 or 0.5).",
                text.trim()
            )));
            return;
        };
        leptos::task::spawn_local(async move {
            let note = match archive::set_output_allowance((megabytes * 1e6).round() as u64).await {
                Ok(()) => format!("Outputs are now kept up to {}.", size(megabytes * 1e6)),
                Err(error) => format!("The allowance could not be saved. {error}"),
            };
            allowance_note.set(Some(note));
            changed.update(|n| *n += 1);
        });
    };

    let confirming_forget = RwSignal::new(false);
    let forget_note = RwSignal::new(None::<String>);
    let forget = move |_| {
        confirming_forget.set(false);
        let Some(id) = workspace.id_untracked() else {
            return;
        };
        leptos::task::spawn_local(async move {
            let note = match archive::forget_history(&id).await {
                Ok(runs) => format!(
                    "Forgot the {} runs this browser kept for this workspace.",
                    group_thousands(u64::from(runs))
                ),
                Err(error) => format!("The history could not be removed. {error}"),
            };
            forget_note.set(Some(note));
            changed.update(|n| *n += 1);
        });
    };

    view! {
        <section class="page storage-page">
            <h1>"Kept in this browser"</h1>
            <p class="lead">
                "The API lists only a workspace's latest " {RUN_LIST_LIMIT} " runs and does not return what was sent. "
                "This console keeps what it sees in this browser (IndexedDB): the workspace's runs, "
                "the submissions it made, so a run can be run again, and bulk batches, so they survive a reload. "
                "Never a credential. Nothing here leaves this browser unless you export it."
            </p>
            <h2 class="section-title">"This workspace"</h2>
            {move || match counts.get() {
                None => view! { <p class="loading">"Counting…"</p> }.into_any(),
                Some(Err(error)) => view! {
                    <p class="notice" role="status" data-field="no-storage">{error.sentence()}</p>
                }.into_any(),
                Some(Ok(None)) => view! { <p class="loading">"Loading the workspace…"</p> }.into_any(),
                Some(Ok(Some(kept))) => kept_counts(kept).into_any(),
            }}
            <h2 class="section-title">"Space"</h2>
            {move || storage.get().map(|state| space(state, ask_persist, persist_asked))}

            <h2 class="section-title">"Outputs"</h2>
            <p class="help">
                "The records of finished runs this console read are kept too, up to an allowance for all workspaces together, "
                "so a run the API no longer has can still be looked at. When a new output does not fit, the oldest go first; "
                "the runs themselves stay in the history."
            </p>
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
                <span role="status" data-field="allowance-note">{move || allowance_note.get()}</span>
            </form>

            <h2 class="section-title">"Export and import"</h2>
            <p class="help">
                "The run history as a JSON Lines file, one run per line: to keep it, or to import it in another browser. "
                "Importing merges it with what this browser keeps (the furthest state of a run wins), in one step: "
                "a file that cannot be saved leaves the history as it was."
            </p>
            <div class="actions-row">
                <button type="button" class="button secondary" on:click=export disabled=exporting>
                    {move || if exporting.get() { "Exporting…" } else { "Export the history" }}
                </button>
                <label class="button secondary file-button">
                    {move || if importing.get() { "Importing…" } else { "Import a history file…" }}
                    <input type="file" class="sr-only" accept=".jsonl,.json,.txt,application/jsonl,application/x-ndjson"
                        data-field="import-file" on:change=on_import disabled=importing />
                </label>
            </div>
            <p role="status" data-field="export-note">{move || export_note.get()}</p>
            {move || import_result.get().map(import_report)}

            <h2 class="section-title">"Forget"</h2>
            <p class="help">
                "Removes the runs this browser kept for this workspace. The API's runs are not touched; "
                "the latest " {RUN_LIST_LIMIT} " are listed again on the next read. Bulk batches and submissions stay: "
                "to remove everything of this workspace, sign out and choose to forget its data."
            </p>
            <div class="actions-row" hidden=move || confirming_forget.get()>
                <button type="button" class="button danger" on:click=move |_| confirming_forget.set(true)>
                    "Forget this workspace's history…"
                </button>
            </div>
            {move || confirming_forget.get().then(|| view! {
                <div class="confirm" role="alertdialog" aria-labelledby="confirm-forget-title" data-field="confirm-forget">
                    <p id="confirm-forget-title"><strong>{move || counts.get().and_then(Result::ok).flatten().map(|c| format!(
                        "Forget the {} runs kept for this workspace in this browser?", group_thousands(u64::from(c.counts.runs))
                    ))}</strong></p>
                    <p>"This cannot be undone, unless you exported the history first."</p>
                    <div class="actions-row">
                        <button type="button" class="button danger" on:click=forget>"Forget the history"</button>
                        <button type="button" class="button secondary" on:click=move |_| confirming_forget.set(false)>"Keep it"</button>
                    </div>
                </div>
            })}
            <p role="status" data-field="forget-note">{move || forget_note.get()}</p>
        </section>
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
            <div class="notice" role="status" data-field="kept-data">
                <p>"This browser keeps data from earlier sign-ins, shown to whoever signs in to the same workspace here:"</p>
                <ul>{each}</ul>
                <p class="help">"To delete a workspace's data, sign in to it and choose “Sign out and forget this workspace's data in this browser”."</p>
            </div>
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
