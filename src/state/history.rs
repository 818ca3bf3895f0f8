//! The background read of the workspace's runs list: while a console tab is signed in and
//! visible, the list is read about once a minute (`model::archive::READ_LIST_EVERY_MS`), by one
//! tab of the browser per workspace (a Web Lock, and the time of the last read kept with the
//! history), so runs made by scripts and colleagues join the history in this browser
//! (`crate::archive`) even when nobody opens the runs page.

use std::time::Duration;

use leptos::task::spawn_local;

use super::refusals::StoreRefusals;
use super::session::Session;
use super::workspace::SharedWorkspace;
use crate::browser::{LockAnswer, LockRequest, request_lock, sleep, until_visible};

/// How often a tab asks itself whether the read is due.
const LOOK_EVERY: Duration = Duration::from_secs(10);

/// The reads start once per tab, whichever page first loads the chunk.
static START: std::sync::Once = std::sync::Once::new();

/// Starts the reads for this tab (once; later calls do nothing). Called from the pages' chunk
/// once it has arrived, so that its code is not part of the first load.
pub fn read_in_background(session: Session, workspace: SharedWorkspace, refusals: StoreRefusals) {
    START.call_once(|| spawn_local(read_list_while_visible(session, workspace, refusals)));
}

/// Reads the runs list when due, while this tab is visible, for as long as the tab lives.
async fn read_list_while_visible(
    session: Session,
    workspace: SharedWorkspace,
    refusals: StoreRefusals,
) {
    let mut asked = false;
    loop {
        // Nothing while hidden: a tab in front reads for the workspace.
        until_visible().await;
        if let (Some(client), Some(id)) = (session.client_untracked(), workspace.id_untracked()) {
            if !asked {
                asked = true;
                ask_persistence_once(&id, refusals).await;
            }
            let lock =
                request_lock(&format!("console-history-{id}"), LockRequest::IfAvailable).await;
            if !matches!(lock, LockAnswer::HeldElsewhere) {
                // Reads that do not read back (damaged) are due: the next read writes them anew.
                let due = match crate::archive::list_reads(&id).await {
                    Ok(reads) => reads.due(js_sys::Date::now()),
                    Err(error) => error == crate::store::StoreError::Damaged,
                };
                if due && let Ok(read) = client.runs_counted().await {
                    let kept = crate::archive::keep_list_counted(&id, read.value.runs).await;
                    refusals.record(&id, crate::archive::RUNS_NOT_KEPT, kept);
                }
            }
            if let LockAnswer::Held(lock) = lock {
                lock.release();
            }
        }
        sleep(LOOK_EVERY).await;
    }
}

/// What a refused mark of the persistence question leaves, as `state::refusals` tells it.
const PERSISTENCE_NOT_KEPT: &str = "This browser did not keep that it asked to keep the \
    console's data for good, so it will ask again.";

/// The first time this browser keeps a history, asks it to keep the console's data until the
/// person clears it (`navigator.storage.persist()`), rather than remove it when space runs low:
/// the history and unfinished batches exist nowhere else. Chrome answers by itself (it grants
/// it to sites used often or installed); Firefox asks the person. `/storage` says why, shows
/// the answer, and can ask again.
async fn ask_persistence_once(workspace: &str, refusals: StoreRefusals) {
    use crate::store::{PERSISTENCE_ASKED, PERSISTENCE_ASKED_KEY};
    if matches!(
        PERSISTENCE_ASKED.get(&PERSISTENCE_ASKED_KEY).await,
        Ok(None)
    ) {
        let granted = crate::browser::ask_persistence().await;
        let kept = PERSISTENCE_ASKED
            .put(&PERSISTENCE_ASKED_KEY, &granted)
            .await;
        refusals.record(workspace, PERSISTENCE_NOT_KEPT, kept);
    }
}

/// Keeps `runs` in the workspace's history and their outputs ([`crate::archive::keep_runs`],
/// [`crate::archive::keep_outputs`]) in the background, for a page's poll that shows the API's
/// answer without waiting for the history; a refusal is told (`state::refusals`). Nothing
/// without a workspace.
pub fn keep_in_background(
    refusals: StoreRefusals,
    workspace: Option<String>,
    runs: Vec<api_contract::Run>,
) {
    let Some(workspace) = workspace else {
        return;
    };
    spawn_local(async move {
        let kept = crate::archive::keep_runs(&workspace, &runs).await;
        refusals.record(&workspace, crate::archive::RUNS_NOT_KEPT, kept);
        let kept = crate::archive::keep_outputs(&workspace, &runs).await;
        refusals.record(&workspace, crate::archive::OUTPUTS_NOT_KEPT, kept);
    });
}
