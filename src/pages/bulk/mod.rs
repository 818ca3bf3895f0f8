//! `/bulk`: a CSV or TSV of inputs becomes one async run per row. Prepare (action, file,
//! column mapping, every row checked, the worst-case cost against the credits available),
//! confirm, then follow the batch: progress, counts per state, pause, resume, cancel, the rows
//! page by page with links to their runs, and one merged export.

//!
//! A page folder: this file is the page; its parts are the kept batches (`saved`), the
//! preparation (`prepare`, `mapping`) and the batch (`batch`, `rows`). What they show is
//! worked out in `model::bulk_view`.

mod batch;
mod chain;
mod mapping;
mod prepare;
mod rows;
mod saved;

use leptos::prelude::*;

pub use self::chain::ChainsPage;

use self::batch::BatchView;
use self::prepare::Prepare;
use self::saved::SavedBatches;
use crate::components::{Notice, StoreRefusalNotice};
use crate::model::format::group_thousands;
use crate::state::bulk::use_bulk;

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
            <p class="help">
                "To follow the API's chaining over a spreadsheet (profiles → posts → comments), with the whole "
                "chain's worst case before anything is sent: " <a href="/chains" data-field="chains-link">"Chains"</a> "."
            </p>
            <StoreRefusalNotice />
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
                <Notice field="batch-elsewhere">
                    {format!(
                        "This tab is running a batch for {workspace}: {} of {} rows finished. \
                         Switch to {workspace} from the header to see it. A tab runs one batch at a time: \
                         starting or opening a batch here pauses it, and it resumes from {workspace}'s Bulk page.",
                        group_thousands(other.finished as u64),
                        group_thousands(other.to_send as u64),
                    )}
                </Notice>
            }
        })
    }
}
