//! The workspace's run history in this browser (`model::archive`), read and written through
//! `crate::store`, from a page or from the bulk worker. Writing is best effort: a browser that
//! keeps nothing (or a full disk) leaves the history as it was, and the API's own answer is
//! still shown.

use api_contract::Run;

use crate::browser::FileParts;
use crate::model::archive::{
    DEFAULT_OUTPUT_ALLOWANCE, KeptOutput, KeptRun, ListReads, OutputIndex, SkippedLine,
    history_line, input_of_body, kept_run_key, read_history_file,
};
use crate::model::bulk::SavedBatch;
use crate::model::form::SavedSubmission;
use crate::store::{self, Change, StoreError};

/// How a [`keep`] went: the runs it added, changed, and found already kept as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merge {
    pub added: usize,
    pub updated: usize,
    pub unchanged: usize,
}

/// Keeps `seen` in `workspace`'s history: each merged with what was kept of it
/// (`KeptRun::merged`), read and written in one transaction, so that sightings written at once
/// (a run page and its submission, two tabs, the bulk worker) all count. A run already kept as
/// it is now is not written again.
async fn keep(workspace: &str, seen: Vec<KeptRun>) -> Result<Merge, StoreError> {
    if workspace.is_empty() || seen.is_empty() {
        return Ok(Merge::default());
    }
    let mut merge = Merge::default();
    let reads = history_reads(workspace, &seen);
    let decide = |kept: Vec<Option<String>>| {
        let (changes, merged) = history_changes(workspace, seen, kept);
        merge = merged;
        changes
    };
    store::update(reads, decide).await?;
    Ok(merge)
}

/// What [`history_changes`] reads first: each sighting's kept run, then when the history
/// started. For a writer that puts the history's changes into a transaction of its own.
pub fn history_reads(workspace: &str, seen: &[KeptRun]) -> Vec<store::Read> {
    let mut reads: Vec<store::Read> = seen
        .iter()
        .map(|kept| store::Read {
            store: store::RUNS,
            key: kept_run_key(workspace, &kept.run.id),
        })
        .collect();
    reads.push(store::Read {
        store: store::META,
        key: since_key(workspace),
    });
    reads
}

/// The changes that keep `seen` in `workspace`'s history, given what [`history_reads`] read
/// (in its order): each sighting merged with what was kept of it.
pub fn history_changes(
    workspace: &str,
    seen: Vec<KeptRun>,
    mut kept: Vec<Option<String>>,
) -> (Vec<Change>, Merge) {
    let mut merge = Merge::default();
    let since = kept.pop().flatten();
    let mut changes = Vec::new();
    for (seen, kept) in seen.into_iter().zip(kept) {
        let key = kept_run_key(workspace, &seen.run.id);
        let before = kept.and_then(|json| serde_json::from_str::<KeptRun>(&json).ok());
        let after = match &before {
            Some(before) => before.clone().merged(seen),
            None => seen,
        };
        match &before {
            // Written when the run changed, not for every sighting of a finished run.
            Some(before)
                if before.run == after.run
                    && before.records == after.records
                    && before.input == after.input
                    && before.idempotency_key == after.idempotency_key =>
            {
                merge.unchanged += 1;
                continue;
            }
            Some(_) => merge.updated += 1,
            None => merge.added += 1,
        }
        changes.push(Change::Put {
            store: store::RUNS,
            key,
            json: serde_json::to_string(&after).unwrap_or_default(),
        });
    }
    // The first run kept for a workspace starts its history: when is kept with it (what the
    // history covers, and a mark that this browser holds data for the workspace).
    if merge.added > 0 && since.is_none() {
        changes.push(Change::Put {
            store: store::META,
            key: since_key(workspace),
            json: serde_json::to_string(&js_sys::Date::now()).unwrap_or_default(),
        });
    }
    (changes, merge)
}

/// The key of the time `workspace`'s history started in this browser (ms since the epoch).
fn since_key(workspace: &str) -> String {
    format!("{workspace}/since")
}

/// When this browser started keeping `workspace`'s history, ms since the epoch; `None` before
/// the first run was kept.
pub async fn kept_since(workspace: &str) -> Result<Option<f64>, StoreError> {
    Ok(store::get(store::META, &since_key(workspace))
        .await?
        .and_then(|text| serde_json::from_str(&text).ok()))
}

/// Keeps `runs`, as seen now, in `workspace`'s history ([`keep`]).
pub async fn keep_runs(workspace: &str, runs: &[Run]) -> Result<(), StoreError> {
    let now = js_sys::Date::now();
    let seen = runs
        .iter()
        .map(|run| KeptRun::seen(workspace, run, now))
        .collect();
    keep(workspace, seen).await.map(|_| ())
}

/// Keeps a run this console just submitted, with the input it sent (the request's body) and
/// its idempotency key.
pub async fn keep_submitted(
    workspace: &str,
    run: &Run,
    body: &str,
    idempotency_key: &str,
) -> Result<(), StoreError> {
    let seen = KeptRun::seen(workspace, run, js_sys::Date::now())
        .made_here(input_of_body(body), idempotency_key);
    keep(workspace, vec![seen]).await.map(|_| ())
}

/// Kept runs read back at a time before the page gets a turn (a large history is read without
/// one long task).
const READ_SLICE: u32 = 5_000;

/// Every run this browser keeps for `workspace`, newest first; `Err` when the browser keeps
/// nothing. Entries that cannot be read back are left out.
pub async fn kept_runs(workspace: &str) -> Result<Vec<KeptRun>, StoreError> {
    let stored = store::all_under_unread(store::RUNS, workspace).await?;
    let mut runs: Vec<KeptRun> = Vec::with_capacity(stored.length() as usize);
    let mut start = 0;
    while start < stored.length() {
        let end = (start + READ_SLICE).min(stored.length());
        runs.extend(
            stored
                .slice(start, end)
                .iter()
                .filter_map(|json| serde_json::from_str(&json.as_string()?).ok()),
        );
        start = end;
        if start < stored.length() {
            crate::browser::sleep(std::time::Duration::ZERO).await;
        }
    }
    runs.sort_by_key(|kept| std::cmp::Reverse(kept.run.created_at));
    Ok(runs)
}

/// The run `run_id` as this browser kept it for `workspace`, if it did.
pub async fn kept_run(workspace: &str, run_id: &str) -> Result<Option<KeptRun>, StoreError> {
    Ok(store::get(store::RUNS, &kept_run_key(workspace, run_id))
        .await?
        .and_then(|json| serde_json::from_str(&json).ok()))
}

/// [`keep_runs`] in the background, for code that shows the API's answer without waiting for
/// the history (a page's poll, the bulk worker's reads). Nothing without a workspace.
pub fn keep_in_background(workspace: Option<String>, runs: Vec<Run>) {
    let Some(workspace) = workspace else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let _ = keep_runs(&workspace, &runs).await;
    });
}

/// The key of a workspace's [`ListReads`] in the store's meta.
pub fn list_reads_key(workspace: &str) -> String {
    format!("{workspace}/list-reads")
}

/// What this browser knows of its reads of `workspace`'s runs list (nothing yet: the default).
pub async fn list_reads(workspace: &str) -> Result<ListReads, StoreError> {
    let kept = store::get(store::META, &list_reads_key(workspace)).await?;
    Ok(kept
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default())
}

/// Keeps a read of the whole runs list (the latest runs, newest first): the runs, as
/// [`keep_runs`], and the read itself, which tells whether runs may have been missed since the
/// read before ([`ListReads::after_read`]).
pub async fn keep_list(workspace: &str, runs: &[Run]) -> Result<(), StoreError> {
    if workspace.is_empty() {
        return Ok(());
    }
    keep_runs(workspace, runs).await?;
    let kept = store::get(store::META, &list_reads_key(workspace)).await?;
    let now = js_sys::Date::now();
    store::write(vec![list_reads_change(workspace, kept, &[(runs, now)])]).await
}

/// The change that records reads of the runs list, each its runs and when, in the order they
/// were made, after what was kept of the earlier ones (`kept`, as stored).
pub fn list_reads_change(workspace: &str, kept: Option<String>, reads: &[(&[Run], f64)]) -> Change {
    let before: ListReads = kept
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default();
    let after = reads
        .iter()
        .fold(before, |known, (runs, at)| known.after_read(runs, *at));
    Change::Put {
        store: store::META,
        key: list_reads_key(workspace),
        json: serde_json::to_string(&after).unwrap_or_default(),
    }
}

/// What this browser keeps for a workspace, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptCounts {
    /// Runs in the history.
    pub runs: u32,
    /// Bulk batches, with their rows.
    pub batches: usize,
    /// Submissions made from the form (their inputs).
    pub submissions: usize,
    /// Entries of the request log.
    pub requests: u32,
}

impl KeptCounts {
    pub fn is_empty(&self) -> bool {
        *self == KeptCounts::default()
    }
}

/// The ids of `workspace`'s bulk batches in this browser.
async fn batch_ids(workspace: &str) -> Result<Vec<String>, StoreError> {
    Ok(store::all(store::BATCHES)
        .await?
        .iter()
        .filter_map(|json| serde_json::from_str::<SavedBatch>(json).ok())
        .filter(|batch| batch.workspace == workspace)
        .map(|batch| batch.id)
        .collect())
}

/// The keys (run ids) of the submissions this browser keeps for `workspace`.
async fn submission_keys(workspace: &str) -> Result<Vec<String>, StoreError> {
    Ok(store::entries(store::SUBMISSIONS)
        .await?
        .into_iter()
        .filter(|entry| {
            SavedSubmission::from_json(&entry.json).is_some_and(|s| s.workspace == workspace)
        })
        .map(|entry| entry.key)
        .collect())
}

/// Counts what this browser keeps for `workspace`.
pub async fn counts(workspace: &str) -> Result<KeptCounts, StoreError> {
    Ok(KeptCounts {
        runs: store::count_under(store::RUNS, workspace).await?,
        batches: batch_ids(workspace).await?.len(),
        submissions: submission_keys(workspace).await?.len(),
        requests: store::count_under(store::LOG, workspace).await?,
    })
}

/// Kept runs written into an export file at a time.
const EXPORT_SLICE: usize = 1_000;

/// Saves `workspace`'s history as a JSON Lines file (one kept run per line, as stored);
/// resolves with the number of runs, and saves nothing when there are none. `file_prefix` (the
/// environment's, `Environment::file_name`) starts the file's name. The error is a sentence for
/// the person.
pub async fn export_history(workspace: &str, file_prefix: &str) -> Result<usize, String> {
    let lines = store::all_under(store::RUNS, workspace)
        .await
        .map_err(|error| format!("The history could not be read. {error}"))?;
    if lines.is_empty() {
        return Ok(0);
    }
    let no_room = || "This browser could not hold the export file.".to_owned();
    let mut file = FileParts::new("application/jsonl").ok_or_else(no_room)?;
    for slice in lines.chunks(EXPORT_SLICE) {
        let text: String = slice.iter().map(|json| history_line(json)).collect();
        file.push(&text).ok_or_else(no_room)?;
    }
    // The local date, as the rest of the console shows times.
    let now = crate::model::format::local_time(chrono::Utc::now());
    let today = now.split(' ').next().unwrap_or_default();
    file.download(&format!("{file_prefix}runs-{workspace}-{today}.jsonl"));
    Ok(lines.len())
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    /// Runs the file held for the workspace (after merging repeated ids).
    pub read: usize,
    pub merge: Merge,
    pub skipped: Vec<SkippedLine>,
}

/// Imports a history file into `workspace`'s history: the runs it holds for the workspace,
/// merged with what this browser keeps, in one write (all of them or, on a refused write,
/// none); the lines left out are reported.
pub async fn import_history(workspace: &str, text: &str) -> Result<Imported, StoreError> {
    let file = read_history_file(text, workspace);
    let read = file.runs.len();
    let merge = keep(workspace, file.runs).await?;
    Ok(Imported {
        read,
        merge,
        skipped: file.skipped,
    })
}

/// Forgets `workspace`'s run history in this browser (and what it knew of its reads of the
/// runs list); resolves with the number of runs forgotten.
pub async fn forget_history(workspace: &str) -> Result<u32, StoreError> {
    let runs = store::count_under(store::RUNS, workspace).await?;
    store::update(output_reads(), |values| {
        let mut changes = history_deletions(workspace);
        changes.extend(output_deletions(workspace, &values));
        changes
    })
    .await?;
    Ok(runs)
}

/// The changes that delete `workspace`'s history: its kept runs and what it knew of its reads.
fn history_deletions(workspace: &str) -> Vec<Change> {
    [store::RUNS, store::META]
        .into_iter()
        .map(|store| Change::DeleteUnder {
            store,
            prefix: workspace.to_owned(),
        })
        .collect()
}

/// Forgets everything this browser keeps for `workspace` in one write: the run history, the
/// bulk batches with their rows, the submissions, the request log (and its switch, in the meta
/// store); resolves with what there was.
pub async fn forget_workspace(workspace: &str) -> Result<KeptCounts, StoreError> {
    let batches = batch_ids(workspace).await?;
    let submissions = submission_keys(workspace).await?;
    let counts = KeptCounts {
        runs: store::count_under(store::RUNS, workspace).await?,
        batches: batches.len(),
        submissions: submissions.len(),
        requests: store::count_under(store::LOG, workspace).await?,
    };
    store::update(output_reads(), |values| {
        let mut changes = history_deletions(workspace);
        changes.extend(crate::request_log::forget_changes(workspace));
        changes.extend(output_deletions(workspace, &values));
        changes.extend(batches.into_iter().map(Change::DeleteBatch));
        changes.extend(submissions.into_iter().map(|key| Change::Delete {
            store: store::SUBMISSIONS,
            key,
        }));
        changes
    })
    .await?;
    Ok(counts)
}

/// A workspace this browser keeps data for, and how much.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptWorkspace {
    pub id: String,
    pub counts: KeptCounts,
}

/// The workspaces this browser keeps data for (for sign-in to say so on a shared computer).
pub async fn kept_workspaces() -> Result<Vec<KeptWorkspace>, StoreError> {
    let mut ids: Vec<String> = store::all(store::BATCHES)
        .await?
        .iter()
        .filter_map(|json| serde_json::from_str::<SavedBatch>(json).ok())
        .map(|batch| batch.workspace)
        .collect();
    ids.extend(
        store::entries(store::SUBMISSIONS)
            .await?
            .iter()
            .filter_map(|entry| SavedSubmission::from_json(&entry.json))
            .map(|submission| submission.workspace),
    );
    // Every workspace whose history or request log was kept has its list reads or log
    // entries there.
    ids.extend(
        store::all_keys(store::LOG)
            .await?
            .into_iter()
            .filter_map(|key| key.split_once('/').map(|(ws, _)| ws.to_owned())),
    );
    ids.extend(
        store::entries(store::META)
            .await?
            .into_iter()
            .filter_map(|entry| entry.key.split_once('/').map(|(ws, _)| ws.to_owned())),
    );
    ids.retain(|id| !id.is_empty());
    ids.sort();
    ids.dedup();
    let mut kept = Vec::new();
    for id in ids {
        let counts = counts(&id).await?;
        if !counts.is_empty() {
            kept.push(KeptWorkspace { id, counts });
        }
    }
    Ok(kept)
}

/// The store's meta keys (browser-wide) of the outputs' index and of their allowance.
const OUTPUT_INDEX: &str = "outputs-index";
const OUTPUT_ALLOWANCE: &str = "outputs-allowance";

fn output_reads() -> Vec<store::Read> {
    [OUTPUT_INDEX, OUTPUT_ALLOWANCE]
        .into_iter()
        .map(|key| store::Read {
            store: store::META,
            key: key.to_owned(),
        })
        .collect()
}

/// The index and the allowance, as [`output_reads`] read them.
fn outputs_read(values: &[Option<String>]) -> (OutputIndex, u64) {
    let index = values
        .first()
        .cloned()
        .flatten()
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default();
    let allowance = values
        .get(1)
        .cloned()
        .flatten()
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or(DEFAULT_OUTPUT_ALLOWANCE);
    (index, allowance)
}

fn index_put(index: &OutputIndex) -> Change {
    Change::Put {
        store: store::META,
        key: OUTPUT_INDEX.to_owned(),
        json: serde_json::to_string(index).unwrap_or_default(),
    }
}

/// Keeps the outputs of `runs` that are final and not kept yet, within the browser's allowance
/// (the oldest outputs dropped first), in one transaction with the index.
pub async fn keep_outputs(workspace: &str, runs: &[Run]) -> Result<(), StoreError> {
    let mut finished: Vec<&Run> = runs
        .iter()
        .filter(|run| run.status.is_terminal() && !run.output.is_empty())
        .collect();
    // Oldest first, so that the index's order is the runs' (a list is newest first).
    finished.sort_by_key(|run| run.created_at);
    if workspace.is_empty() || finished.is_empty() {
        return Ok(());
    }
    let decide = |values: Vec<Option<String>>| {
        let (mut index, allowance) = outputs_read(&values);
        let mut texts = std::collections::HashMap::new();
        let new = finished
            .iter()
            .filter_map(|run| {
                let key = kept_run_key(workspace, &run.id);
                if index.holds(&key) {
                    return None;
                }
                let text = serde_json::to_string(&run.output).ok()?;
                let output = KeptOutput {
                    key: key.clone(),
                    bytes: text.len() as u64,
                };
                texts.insert(key, text);
                Some(output)
            })
            .collect();
        let changes = index.keep(new, allowance);
        if changes.added.is_empty() && changes.dropped.is_empty() {
            return Vec::new();
        }
        let mut writes: Vec<Change> = changes
            .added
            .into_iter()
            .filter_map(|added| {
                let json = texts.remove(&added.key)?;
                Some(Change::Put {
                    store: store::OUTPUTS,
                    key: added.key,
                    json,
                })
            })
            .collect();
        writes.extend(changes.dropped.into_iter().map(|key| Change::Delete {
            store: store::OUTPUTS,
            key,
        }));
        writes.push(index_put(&index));
        writes
    };
    store::update(output_reads(), decide).await
}

/// [`keep_outputs`] in the background, for a page's poll.
pub fn keep_outputs_in_background(workspace: Option<String>, runs: Vec<Run>) {
    if let Some(workspace) = workspace {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = keep_outputs(&workspace, &runs).await;
        });
    }
}

/// The output this browser kept of `run_id`, if it did.
pub async fn kept_output(
    workspace: &str,
    run_id: &str,
) -> Result<Option<Vec<serde_json::Value>>, StoreError> {
    Ok(store::get(store::OUTPUTS, &kept_run_key(workspace, run_id))
        .await?
        .and_then(|json| serde_json::from_str(&json).ok()))
}

/// What the kept outputs take, all workspaces together, and the allowance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputSpace {
    /// Outputs kept, and their bytes.
    pub outputs: usize,
    pub bytes: u64,
    pub allowance: u64,
}

pub async fn output_space() -> Result<OutputSpace, StoreError> {
    let mut values = Vec::new();
    for key in [OUTPUT_INDEX, OUTPUT_ALLOWANCE] {
        values.push(store::get(store::META, key).await?);
    }
    let (index, allowance) = outputs_read(&values);
    Ok(OutputSpace {
        outputs: index.outputs.len(),
        bytes: index.bytes(),
        allowance,
    })
}

/// Sets the outputs' allowance (bytes), dropping the oldest outputs that no longer fit.
pub async fn set_output_allowance(allowance: u64) -> Result<(), StoreError> {
    let decide = |values: Vec<Option<String>>| {
        let (mut index, _) = outputs_read(&values);
        let mut changes: Vec<Change> = index
            .fit(allowance)
            .into_iter()
            .map(|key| Change::Delete {
                store: store::OUTPUTS,
                key,
            })
            .collect();
        changes.push(index_put(&index));
        changes.push(Change::Put {
            store: store::META,
            key: OUTPUT_ALLOWANCE.to_owned(),
            json: allowance.to_string(),
        });
        changes
    };
    store::update(output_reads(), decide).await
}

/// The changes that forget `workspace`'s kept outputs, decided from the index read in the same
/// transaction.
fn output_deletions(workspace: &str, values: &[Option<String>]) -> Vec<Change> {
    let (mut index, _) = outputs_read(values);
    let _ = index.forget_under(workspace);
    vec![
        Change::DeleteUnder {
            store: store::OUTPUTS,
            prefix: workspace.to_owned(),
        },
        index_put(&index),
    ]
}
