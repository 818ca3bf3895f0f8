//! The batches this browser keeps for the workspace, each to resume, open or forget.

use leptos::prelude::*;

use crate::components::{Confirm, Notice};
use crate::model::bulk::SavedBatch;
use crate::model::bulk_view::saved_state;
use crate::model::format::{group_thousands, local_time};
use crate::state::bulk::{Bulk, saved_batches, saved_rows, use_bulk};
use crate::state::workspace::use_workspace;
use crate::store::{self, Change};

/// What the kept batches' list does: open a batch into the page, forget one, and the problem
/// either met. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
struct KeptBatches {
    bulk: Bulk,
    /// Counts the forgotten batches, so the list is read again after each.
    reload: RwSignal<u32>,
    /// The last problem reading or deleting a batch, for people.
    problem: RwSignal<Option<String>>,
    /// The batch whose "Forget…" waits for its confirmation.
    confirming: RwSignal<Option<String>>,
}

impl KeptBatches {
    /// For the page in view: takes the batch's state from the context.
    fn new() -> KeptBatches {
        KeptBatches {
            bulk: use_bulk(),
            reload: RwSignal::new(0),
            problem: RwSignal::new(None),
            confirming: RwSignal::new(None),
        }
    }

    /// Reads the batch's rows back and shows it, running again if `resume`.
    fn open(self, summary: SavedBatch, resume: bool) {
        let KeptBatches { bulk, problem, .. } = self;
        leptos::task::spawn_local(async move {
            match saved_rows(&summary.id).await {
                Ok(rows) if !rows.is_empty() => {
                    if !bulk.open(summary, rows, resume) {
                        problem.set(Some(
                            "This batch's action is not one this console knows.".to_owned(),
                        ));
                    }
                }
                Ok(_) => problem.set(Some(
                    "This batch's rows could not be read back from this browser's storage."
                        .to_owned(),
                )),
                Err(error) => problem.set(Some(format!(
                    "This batch's rows could not be read back from this browser's storage. {error}"
                ))),
            }
        });
    }

    /// Deletes the batch from this browser, then reads the list again.
    fn forget(self, id: String) {
        let KeptBatches {
            reload,
            problem,
            confirming,
            ..
        } = self;
        confirming.set(None);
        leptos::task::spawn_local(async move {
            if let Err(error) = store::write(vec![Change::DeleteBatch(id)]).await {
                problem.set(Some(format!(
                    "This browser's storage refused to delete the batch. {error}"
                )));
            }
            reload.update(|n| *n += 1);
        });
    }
}

/// The batches this browser keeps for the workspace: an unfinished one (a reload, a closed
/// tab) is taken up from here, a finished one opened for its export, either forgotten.
#[component]
pub(super) fn SavedBatches() -> impl IntoView {
    let workspace = use_workspace();
    let kept = KeptBatches::new();
    let saved = LocalResource::new(move || {
        kept.reload.track();
        let id = workspace.get().and_then(Result::ok).map(|w| w.workspace_id);
        async move {
            match id {
                Some(id) => saved_batches(&id).await,
                None => Ok(Vec::new()),
            }
        }
    });
    view! {
        {move || kept.problem.get().map(|p| view! { <p class="field-error" role="alert">{p}</p> })}
        {move || saved.get().and_then(|list| match list {
            Ok(list) if list.is_empty() => None,
            Ok(list) => Some(view! {
                <section class="bulk-saved" data-field="saved-batches">
                    <h2 class="section-title">"Batches kept in this browser"</h2>
                    <ul>{list.into_iter().map(|batch| view! { <SavedBatchItem batch kept /> }).collect_view()}</ul>
                </section>
            }.into_any()),
            Err(error) => Some(view! {
                <Notice field="storage-unavailable">
                    "Batches kept in this browser could not be read, so a new batch may last only as long as this page. "
                    {error.sentence()}
                </Notice>
            }.into_any()),
        })}
    }
}

/// One kept batch: where it stands, its buttons, and the confirmation before forgetting it.
#[component]
fn SavedBatchItem(batch: SavedBatch, kept: KeptBatches) -> impl IntoView {
    let unfinished = !batch.done;
    let state = saved_state(&batch);
    let started = chrono::DateTime::from_timestamp_millis(batch.created_at as i64)
        .map(local_time)
        .unwrap_or_default();
    let id = batch.id.clone();
    let id_shown = id.clone();
    let summary = StoredValue::new(batch.clone());
    let confirming = kept.confirming;
    view! {
        <li data-batch=batch.id.clone() data-state=state>
            <p>
                <code>{batch.action.clone()}</code> " · " <strong>{state}</strong> " · "
                {format!("{} of {} rows finished · started {started}",
                    group_thousands(batch.finished as u64), group_thousands(batch.to_send as u64))}
                {batch.expiry.records_forgotten.map(|forgotten| view! {
                    " · " <span class="age" data-field="records-forgotten">
                        {format!("records forgotten after {} days", forgotten.after_days)}
                    </span>
                })}
            </p>
            <div class="actions-row">
                {unfinished.then(|| view! {
                    <button type="button" class="button primary" data-field="resume-saved"
                        on:click=move |_| kept.open(summary.get_value(), true)>"Resume"</button>
                })}
                <button type="button" class="button secondary" data-field="open-saved"
                    on:click=move |_| kept.open(summary.get_value(), false)>"Open"</button>
                <button type="button" class="button secondary" data-field="forget-saved"
                    on:click=move |_| confirming.set(Some(id.clone()))>"Forget…"</button>
            </div>
            {move || (confirming.get().as_deref() == Some(id_shown.as_str())).then(|| {
                let id = id_shown.clone();
                view! {
                    <Confirm field="confirm-forget-batch" title=|| "Forget this batch?" confirm_label="Forget" cancel_label="Keep"
                        confirm_field="confirm-forget"
                        on_confirm=Callback::new(move |()| kept.forget(id.clone()))
                        on_cancel=Callback::new(move |()| confirming.set(None))>
                        <p>
                            "Its rows, keys and results are deleted from this browser; its runs stay in the workspace."
                            {unfinished.then_some(" Rows not sent yet will not be sent, and sending the same file again makes new runs.")}
                        </p>
                    </Confirm>
                }
            })}
        </li>
    }
}
