//! The workspace's run history in this browser (`model::archive`), read and written through
//! `crate::store`, from a page or from the bulk worker. Writing is best effort: a browser that
//! keeps nothing (or a full disk) leaves the history as it was, and the API's own answer is
//! still shown.

use api_contract::Run;

use crate::model::archive::{KeptRun, ListReads, kept_run_key};
use crate::store::{self, Change};

/// Keeps `runs`, as seen now, in `workspace`'s history: each merged with what was kept of it
/// (`KeptRun::merged`), in one write. A run already kept as it is now is not written again.
pub async fn keep_runs(workspace: &str, runs: &[Run]) -> Result<(), ()> {
    if workspace.is_empty() || runs.is_empty() {
        return Ok(());
    }
    let now = js_sys::Date::now();
    let keys: Vec<String> = runs
        .iter()
        .map(|run| kept_run_key(workspace, &run.id))
        .collect();
    let kept = store::get_many(store::RUNS, &keys).await.map_err(|_| ())?;
    let changes: Vec<Change> = runs
        .iter()
        .zip(kept)
        .zip(keys)
        .filter_map(|((run, kept), key)| {
            let seen = KeptRun::seen(workspace, run, now);
            let before = kept.and_then(|json| serde_json::from_str::<KeptRun>(&json).ok());
            let after = match &before {
                Some(before) => before.clone().merged(seen),
                None => seen,
            };
            // Written when the run changed, not for every sighting of a finished run.
            let unchanged = before
                .as_ref()
                .is_some_and(|b| b.run == after.run && b.records == after.records);
            (!unchanged).then(|| Change::Put {
                store: store::RUNS,
                key,
                json: serde_json::to_string(&after).unwrap_or_default(),
            })
        })
        .collect();
    store::write(changes).await.map_err(|_| ())
}

/// Every run this browser keeps for `workspace`, newest first; `Err` when the browser keeps
/// nothing. Entries that cannot be read back are left out.
pub async fn kept_runs(workspace: &str) -> Result<Vec<KeptRun>, ()> {
    let mut runs: Vec<KeptRun> = store::all_under(store::RUNS, workspace)
        .await
        .map_err(|_| ())?
        .iter()
        .filter_map(|json| serde_json::from_str(json).ok())
        .collect();
    runs.sort_by_key(|kept| std::cmp::Reverse(kept.run.created_at));
    Ok(runs)
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
fn list_reads_key(workspace: &str) -> String {
    format!("{workspace}/list-reads")
}

/// What this browser knows of its reads of `workspace`'s runs list (nothing yet: the default).
pub async fn list_reads(workspace: &str) -> Result<ListReads, ()> {
    let kept = store::get(store::META, &list_reads_key(workspace))
        .await
        .map_err(|_| ())?;
    Ok(kept
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default())
}

/// Keeps a read of the whole runs list (the latest runs, newest first): the runs, as
/// [`keep_runs`], and the read itself, which tells whether runs may have been missed since the
/// read before ([`ListReads::after_read`]).
pub async fn keep_list(workspace: &str, runs: &[Run]) -> Result<(), ()> {
    if workspace.is_empty() {
        return Ok(());
    }
    keep_runs(workspace, runs).await?;
    let reads = list_reads(workspace)
        .await?
        .after_read(runs, js_sys::Date::now());
    store::write(vec![Change::Put {
        store: store::META,
        key: list_reads_key(workspace),
        json: serde_json::to_string(&reads).unwrap_or_default(),
    }])
    .await
    .map_err(|_| ())
}
