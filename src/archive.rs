//! The workspace's run history in this browser (`model::archive`), read and written through
//! `crate::store`, from a page or from the bulk worker. Writing is best effort: a browser that
//! keeps nothing (or a full disk) leaves the history as it was, and the API's own answer is
//! still shown.

use api_contract::{Run, RunCounted};

use crate::browser::FileParts;
use crate::model::archive::{KeptRun, ListReads, SkippedLine, input_of_body, read_history_file};
use crate::model::same_input::{AskedBefore, KeptRunsAsked, Question};
use crate::model::store_table::{FactKey, RunKey, WorkspaceFact, workspace_of};
use crate::store::{
    self, Change, Decided, HISTORY_SINCE, KEPT_RUNS, LIST_READS, LOG_ENTRIES, Listed,
    SAVED_BATCHES, SAVED_SUBMISSIONS, StoreError,
};

mod outputs;
mod readings;
pub use outputs::*;
pub use readings::{balance_readings, keep_reading};

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
    let reads = history_reads(workspace, &seen);
    store::update(reads, |kept| {
        let (changes, merge) = history_changes(workspace, seen, kept)?;
        Ok(Decided {
            changes,
            answer: merge,
        })
    })
    .await
}

/// The key of `workspace`'s run `run_id`.
fn run_key(workspace: &str, run_id: &str) -> RunKey {
    RunKey {
        workspace: workspace.to_owned(),
        id: run_id.to_owned(),
    }
}

/// The key of one of `workspace`'s facts.
fn fact_key(workspace: &str, fact: WorkspaceFact) -> FactKey {
    FactKey {
        workspace: workspace.to_owned(),
        fact,
    }
}

/// What [`history_changes`] reads first: each sighting's kept run, then when the history
/// started. For a writer that puts the history's changes into a transaction of its own.
pub fn history_reads(workspace: &str, seen: &[KeptRun]) -> Vec<store::Read> {
    let mut reads: Vec<store::Read> = seen
        .iter()
        .map(|kept| KEPT_RUNS.read(&run_key(workspace, &kept.run.id)))
        .collect();
    reads.push(HISTORY_SINCE.read(&fact_key(workspace, WorkspaceFact::HistorySince)));
    reads
}

/// The changes that keep `seen` in `workspace`'s history, given what [`history_reads`] read
/// (in its order): each sighting merged with what was kept of it. A kept run that does not
/// read back (damaged) is replaced by the sighting. `Err` when a run cannot be written.
pub fn history_changes(
    workspace: &str,
    seen: Vec<KeptRun>,
    mut kept: Vec<Option<String>>,
) -> Result<(Vec<Change>, Merge), StoreError> {
    let mut merge = Merge::default();
    // A damaged start is written again, as a missing one.
    let since = HISTORY_SINCE
        .decode_read(kept.pop().flatten().as_deref())
        .ok()
        .flatten();
    let mut changes = Vec::new();
    for (seen, kept) in seen.into_iter().zip(kept) {
        let key = run_key(workspace, &seen.run.id);
        let before = KEPT_RUNS.decode_read(kept.as_deref()).ok().flatten();
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
        changes.push(KEPT_RUNS.put_change(&key, &after)?);
    }
    // The first run kept for a workspace starts its history: when is kept with it (what the
    // history covers, and a mark that this browser holds data for the workspace).
    if merge.added > 0 && since.is_none() {
        let since = fact_key(workspace, WorkspaceFact::HistorySince);
        changes.push(HISTORY_SINCE.put_change(&since, &js_sys::Date::now())?);
    }
    Ok((changes, merge))
}

/// When this browser started keeping `workspace`'s history, ms since the epoch; `None` before
/// the first run was kept, and when the date does not read back (damaged: the next kept run
/// writes it again, [`history_changes`]), so that one damaged date hides no history.
pub async fn kept_since(workspace: &str) -> Result<Option<f64>, StoreError> {
    match HISTORY_SINCE
        .get(&fact_key(workspace, WorkspaceFact::HistorySince))
        .await
    {
        Err(StoreError::Damaged) => Ok(None),
        read => read,
    }
}

/// Runs merged into the history per transaction ([`keep_in_groups`]). A read of the whole list
/// (100 runs) merged in one transaction was one task of 266 to 371 ms at 4× CPU: every kept run
/// decoded, merged and written again in the task where the last read answered. Each run's
/// merge stays whole in its transaction; the groups are a task apart.
const RUNS_PER_TRANSACTION: usize = 20;

/// Keeps `runs`, as seen now, in `workspace`'s history ([`keep`]).
pub async fn keep_runs(workspace: &str, runs: &[Run]) -> Result<(), StoreError> {
    keep_in_groups(workspace, seen_now(workspace, runs)).await
}

/// `runs` as seen now, for `workspace`.
fn seen_now(workspace: &str, runs: &[Run]) -> Vec<KeptRun> {
    let now = js_sys::Date::now();
    runs.iter()
        .map(|run| KeptRun::seen(workspace, run, now))
        .collect()
}

/// Keeps `seen` ([`keep`]), [`RUNS_PER_TRANSACTION`] at a time, letting the page draw and
/// answer between them.
async fn keep_in_groups(workspace: &str, seen: Vec<KeptRun>) -> Result<(), StoreError> {
    let mut rest = seen;
    while !rest.is_empty() {
        let group: Vec<KeptRun> = rest.drain(..RUNS_PER_TRANSACTION.min(rest.len())).collect();
        keep(workspace, group).await?;
        if !rest.is_empty() {
            crate::browser::sleep(std::time::Duration::ZERO).await;
        }
    }
    Ok(())
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

/// Every run this browser keeps for `workspace`, newest first, and how many could not be read
/// back (damaged, left out); `Err` when the browser keeps nothing.
pub async fn kept_runs(workspace: &str) -> Result<Listed<KeptRun>, StoreError> {
    let mut runs = KEPT_RUNS.all_under(workspace).await?;
    runs.items
        .sort_by_key(|kept| std::cmp::Reverse(kept.run.created_at));
    Ok(runs)
}

/// The run `run_id` as this browser kept it for `workspace`, if it did.
pub async fn kept_run(workspace: &str, run_id: &str) -> Result<Option<KeptRun>, StoreError> {
    KEPT_RUNS.get(&run_key(workspace, run_id)).await
}

/// What a refused [`keep_runs`] leaves out, as `state::refusals` tells it (the caller records
/// the refusal: this module sits below `state`).
pub const RUNS_NOT_KEPT: &str = "The runs shown were not kept in this browser's history.";

/// The read of a workspace's [`ListReads`], for a writer that puts [`list_reads_change`] into a
/// transaction of its own.
pub fn list_reads_read(workspace: &str) -> store::Read {
    LIST_READS.read(&fact_key(workspace, WorkspaceFact::ListReads))
}

/// What this browser knows of its reads of `workspace`'s runs list (nothing yet: the default,
/// also when it does not read back, as [`list_reads_change`] starts again from nothing then),
/// so that one damaged entry hides no kept run.
pub async fn list_reads(workspace: &str) -> Result<ListReads, StoreError> {
    let key = fact_key(workspace, WorkspaceFact::ListReads);
    match LIST_READS.get(&key).await {
        Ok(reads) => Ok(reads.unwrap_or_default()),
        Err(StoreError::Damaged) => Ok(ListReads::default()),
        Err(error) => Err(error),
    }
}

/// Keeps a read of the whole runs list (the latest runs, newest first): the runs, as
/// [`keep_runs`], and the read itself, which tells whether runs may have been missed since the
/// read before ([`ListReads::after_read`]).
pub async fn keep_list(workspace: &str, runs: &[Run]) -> Result<(), StoreError> {
    keep_list_seen(workspace, seen_now(workspace, runs)).await
}

/// [`keep_list`] for a read whose records were counted, not kept (`RunCounted`): the history's
/// background read, which has no use for the records.
pub async fn keep_list_counted(workspace: &str, runs: Vec<RunCounted>) -> Result<(), StoreError> {
    let now = js_sys::Date::now();
    let seen = runs
        .into_iter()
        .map(|run| KeptRun::seen_counted(workspace, run, now))
        .collect();
    keep_list_seen(workspace, seen).await
}

/// Keeps the runs of a list read (`seen`, in the list's order) and the read itself.
async fn keep_list_seen(workspace: &str, seen: Vec<KeptRun>) -> Result<(), StoreError> {
    if workspace.is_empty() {
        return Ok(());
    }
    let runs: Vec<Run> = seen.iter().map(|kept| kept.run.clone()).collect();
    keep_in_groups(workspace, seen).await?;
    // Recorded once its runs are kept (a page gone before then leaves no read that claims
    // them), and merged with the reads kept in the same transaction (another tab's, the bulk
    // worker's).
    let now = js_sys::Date::now();
    store::update_one(list_reads_read(workspace), |kept| {
        list_reads_change(workspace, kept, &[(&runs, now)])
    })
    .await
}

/// The change that records reads of the runs list, each its runs and when, in the order they
/// were made, after what was kept of the earlier ones (`kept`, as stored: when it does not read
/// back, the reads start again from these).
pub fn list_reads_change(
    workspace: &str,
    kept: Option<String>,
    reads: &[(&[Run], f64)],
) -> Result<Change, StoreError> {
    let before = LIST_READS
        .decode_read(kept.as_deref())
        .ok()
        .flatten()
        .unwrap_or_default();
    let after = reads
        .iter()
        .fold(before, |known, (runs, at)| known.after_read(runs, *at));
    LIST_READS.put_change(&fact_key(workspace, WorkspaceFact::ListReads), &after)
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
    Ok(SAVED_BATCHES
        .all()
        .await?
        .items
        .into_iter()
        .filter(|batch| batch.workspace == workspace)
        .map(|batch| batch.id)
        .collect())
}

/// The runs this console submitted to `workspace` for `action` (registry ceiling
/// `max_results_ceiling`), each with the question its body asked, so the form can offer a
/// kept result for the same input (`model::same_input`). One read of the kept submissions.
pub async fn asked_before(
    workspace: &str,
    action: &str,
    max_results_ceiling: u32,
) -> Result<Vec<AskedBefore>, StoreError> {
    Ok(SAVED_SUBMISSIONS
        .entries()
        .await?
        .items
        .into_iter()
        .filter(|entry| entry.value.workspace == workspace && entry.value.action == action)
        .filter_map(|entry| {
            Some(AskedBefore {
                question: Question::of_body(action, max_results_ceiling, &entry.value.body)?,
                run_id: entry.key,
            })
        })
        .collect())
}

/// The runs `ids` as this browser keeps them for `workspace` (those it keeps and can read back),
/// read together.
async fn kept_runs_named(workspace: &str, ids: &[String]) -> Result<Vec<KeptRun>, StoreError> {
    let keys: Vec<RunKey> = ids.iter().map(|id| run_key(workspace, id)).collect();
    Ok(KEPT_RUNS.get_many(&keys).await?.items)
}

/// What this browser keeps that may answer `questions` (a batch's rows' questions for `action`,
/// registry ceiling `max_results_ceiling`, by position): the runs it submitted to `workspace`
/// for that action with what each asked, and the kept runs among them whose input is one of
/// the questions'. [`KeptRunsAsked::newest_answers`] then gives each row its answer.
pub async fn kept_runs_asking(
    workspace: &str,
    action: &str,
    max_results_ceiling: u32,
    questions: &[Option<Question>],
) -> Result<KeptRunsAsked, StoreError> {
    if questions.iter().all(Option::is_none) {
        return Ok(KeptRunsAsked::default());
    }
    let asked = asked_before(workspace, action, max_results_ceiling).await?;
    let ids = KeptRunsAsked::ids_to_read(&asked, questions);
    // A run asked before but not readable back is no answer: the rows that asked it are sent.
    let runs = kept_runs_named(workspace, &ids).await.unwrap_or_default();
    Ok(KeptRunsAsked { asked, runs })
}

/// The keys (run ids) of the submissions this browser keeps for `workspace`.
async fn submission_keys(workspace: &str) -> Result<Vec<String>, StoreError> {
    Ok(SAVED_SUBMISSIONS
        .entries()
        .await?
        .items
        .into_iter()
        .filter(|entry| entry.value.workspace == workspace)
        .map(|entry| entry.key)
        .collect())
}

/// Counts what this browser keeps for `workspace`.
pub async fn counts(workspace: &str) -> Result<KeptCounts, StoreError> {
    Ok(KeptCounts {
        runs: KEPT_RUNS.count_under(workspace).await?,
        batches: batch_ids(workspace).await?.len(),
        submissions: submission_keys(workspace).await?.len(),
        requests: LOG_ENTRIES.count_under(workspace).await?,
    })
}

/// Kept runs written into an export file at a time.
const EXPORT_SLICE: usize = 1_000;

/// What [`export_history`] wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryExport {
    /// Kept runs written to the file.
    pub runs: usize,
    /// Kept runs left out because they do not read back (damaged).
    pub damaged: usize,
    /// Runs written whose output the expiry rule forgot (marked so in the file).
    pub output_forgotten: usize,
}

/// Saves `workspace`'s history as a JSON Lines file (one kept run per line, as stored);
/// resolves with what it wrote, and saves nothing when there is no run; a kept run that
/// does not read back (damaged) is left out and counted. `file_prefix` (the environment's,
/// `Environment::file_name`) starts the file's name. The error is a sentence for the person.
pub async fn export_history(workspace: &str, file_prefix: &str) -> Result<HistoryExport, String> {
    let could_not_read = |error: StoreError| format!("The history could not be read. {error}");
    let listed = KEPT_RUNS
        .all_under(workspace)
        .await
        .map_err(could_not_read)?;
    let (runs, damaged) = (listed.items, listed.damaged);
    if runs.is_empty() {
        return Ok(HistoryExport {
            damaged,
            ..HistoryExport::default()
        });
    }
    let no_room = || "This browser could not hold the export file.".to_owned();
    let mut file = FileParts::new("application/jsonl").ok_or_else(no_room)?;
    for slice in runs.chunks(EXPORT_SLICE) {
        let mut text = String::new();
        for kept in slice {
            // One kept run per line, as stored.
            text.push_str(&KEPT_RUNS.encode(kept).map_err(could_not_read)?);
            text.push('\n');
        }
        file.push(&text).ok_or_else(no_room)?;
    }
    // The local date, as the rest of the console shows times.
    let now = crate::model::format::local_time(chrono::Utc::now());
    let today = now.split(' ').next().unwrap_or_default();
    file.download(&format!("{file_prefix}runs-{workspace}-{today}.jsonl"));
    Ok(HistoryExport {
        runs: runs.len(),
        damaged,
        output_forgotten: runs.iter().filter(|r| r.output_forgotten.is_some()).count(),
    })
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
    let runs = KEPT_RUNS.count_under(workspace).await?;
    store::update(output_reads(), |values| {
        let mut changes = history_deletions(workspace);
        changes.extend(output_deletions(workspace, &values));
        Ok(Decided::to_write(changes))
    })
    .await?;
    Ok(runs)
}

/// The changes that delete `workspace`'s history: its kept runs and what it knew of its reads.
fn history_deletions(workspace: &str) -> Vec<Change> {
    // The meta store's entries under the workspace are its facts (the log's switch included).
    vec![
        KEPT_RUNS.delete_under_change(workspace),
        Change::DeleteUnder {
            store: store::META,
            prefix: workspace.to_owned(),
        },
    ]
}

/// Forgets everything this browser keeps for `workspace` in one write: the run history, the
/// bulk batches with their rows, the submissions, the request log (and its switch, in the meta
/// store); resolves with what there was.
pub async fn forget_workspace(workspace: &str) -> Result<KeptCounts, StoreError> {
    let batches = batch_ids(workspace).await?;
    let submissions = submission_keys(workspace).await?;
    let counts = KeptCounts {
        runs: KEPT_RUNS.count_under(workspace).await?,
        batches: batches.len(),
        submissions: submissions.len(),
        requests: LOG_ENTRIES.count_under(workspace).await?,
    };
    store::update(output_reads(), |values| {
        let mut changes = history_deletions(workspace);
        changes.extend(crate::request_log::forget_changes(workspace));
        changes.extend(output_deletions(workspace, &values));
        changes.extend(batches.into_iter().map(Change::DeleteBatch));
        changes.extend(
            submissions
                .iter()
                .map(|key| SAVED_SUBMISSIONS.delete_change(key)),
        );
        Ok(Decided::to_write(changes))
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
    let mut ids: Vec<String> = SAVED_BATCHES
        .all()
        .await?
        .items
        .into_iter()
        .map(|batch| batch.workspace)
        .collect();
    ids.extend(
        SAVED_SUBMISSIONS
            .all()
            .await?
            .items
            .into_iter()
            .map(|submission| submission.workspace),
    );
    // Every workspace whose history or request log was kept has its list reads or log
    // entries there.
    for store in [LOG_ENTRIES.store, store::META] {
        let keys = store::all_keys(store).await?;
        ids.extend(
            keys.iter()
                .filter_map(|key| workspace_of(key))
                .map(str::to_owned),
        );
    }
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
