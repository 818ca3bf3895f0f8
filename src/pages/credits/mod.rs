//! `/credits`: credits over time over the history this browser keeps (`crate::archive`), not
//! only the API's latest 100 runs: by day, week or month over a chosen range, with the
//! per-action breakdown, saying what the numbers cover. The range and the bucket are in the URL
//! (`?range=90d&per=week`; `model::credits_view` reads and prints it). Below it, the credit
//! ledger ([`ledger`]): where the balance went, day by day, and what no run seen here explains.

mod ledger;

use api_contract::RUN_LIST_LIMIT;
use chrono::Local;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query};
use leptos_router::params::Params;

use crate::api::ApiError;
use crate::archive;
use crate::components::{ApiErrorPanel, CreditsChart, MissedRuns, Notice, StoreRefusalNotice};
use crate::model::archive::{KeptRun, MissedSpan};
use crate::model::credits::{CreditsOverTime, SpentRun};
use crate::model::credits_view::{BUCKETS, CreditsQuery, CreditsView, RANGES};
use crate::model::format::{counted, local_time};
use crate::model::ledger::BalanceReading;
use crate::nav::in_place;
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;
use crate::store::StoreError;

/// `/credits`'s query as text: [`CreditsView::from_query`] leaves a value it does not know at
/// its default, so no link is refused.
#[derive(Params, Clone, Debug, PartialEq, Default)]
struct CreditsParams {
    range: Option<String>,
    per: Option<String>,
}

impl CreditsParams {
    fn query(&self) -> CreditsQuery<'_> {
        CreditsQuery {
            range: self.range.as_deref(),
            per: self.per.as_deref(),
        }
    }
}

/// The workspace's history as this browser keeps it, after a read of the API's latest runs.
#[derive(Clone, Debug)]
struct History {
    /// The workspace's id.
    workspace: String,
    runs: Vec<KeptRun>,
    /// Kept runs that could not be read back (damaged) and are left out, told.
    left_out: Option<String>,
    /// When this browser started keeping it, ms since the epoch.
    since: Option<f64>,
    missed: Vec<MissedSpan>,
    /// The API's list could not be read: the history is shown as it was.
    list_error: Option<ApiError>,
    /// The balances this browser read (the last answer's included, kept or not yet), or why
    /// they could not be read.
    readings: Result<Vec<BalanceReading>, StoreError>,
}

#[component]
pub fn CreditsPage() -> impl IntoView {
    let session = use_session();
    let workspace = use_workspace();
    let navigate = use_navigate();
    let params = use_query::<CreditsParams>();
    let view_of_url = Memo::new(move |_| {
        params.with(|params| {
            CreditsView::from_query(
                params
                    .as_ref()
                    .map(CreditsParams::query)
                    .unwrap_or_default(),
            )
        })
    });
    // The balance as it is now, for the ledger's last interval (unless just read); each answer
    // loads the history again. Asked before the history's resource exists: a resource that
    // reads the workspace's and checks it first would take the refresh's mark for itself, and
    // the workspace would not be read again.
    workspace.refresh_unless_loading();
    let refusals = crate::state::refusals::use_store_refusals();
    let history = LocalResource::new(move || {
        let workspace_id = workspace.id();
        let client = session.client_untracked();
        async move {
            let Some(id) = workspace_id else {
                return Ok(None);
            };
            // The API's latest runs join the history first, so that it holds them as they are.
            let mut list_error = None;
            match client.ok_or(ApiError::SignedOut)?.runs_counted().await {
                Ok(read) => {
                    let kept = archive::keep_list_counted(&id, read.value.runs).await;
                    refusals.record(&id, archive::RUNS_NOT_KEPT, kept);
                }
                Err(error) => list_error = Some(error),
            }
            let readings = archive::balance_readings(&id).await.map(|kept| {
                let mut readings = kept.readings;
                // The last answer's, which its own write may not have kept yet.
                readings.extend(workspace.reading_untracked());
                readings
            });
            let read = async {
                let kept = archive::kept_runs(&id).await?;
                Ok::<_, StoreError>(History {
                    workspace: id.clone(),
                    left_out: kept.left_out("kept run", "kept runs"),
                    runs: kept.items,
                    since: archive::kept_since(&id).await?,
                    missed: archive::list_reads(&id).await?.missed,
                    list_error,
                    readings,
                })
            };
            Ok(read.await.ok())
        }
    });
    let show = move |change: &dyn Fn(CreditsView) -> CreditsView| {
        navigate(&change(view_of_url.get_untracked()).url(), in_place());
    };
    let show_range = show.clone();
    view! {
        <section class="page">
            <h1>"Credits over time"</h1>
            <p class="lead">"Where the workspace's credits went, from the runs this browser has seen: the API lists only the latest " {RUN_LIST_LIMIT} ", so older runs come from the history kept here ("
                <a href="/storage">"what this browser keeps"</a>")."</p>
            // The ledger tells a reading not kept beside itself.
            <StoreRefusalNotice told_elsewhere=crate::state::readings::READING_NOT_KEPT />
            <div class="toolbar">
                <div class="control"><label for="credits-range">"Range"</label>
                    <select id="credits-range" on:change:target=move |ev| {
                        let chosen = ev.target().value();
                        show_range(&|v| v.with_range(&chosen));
                    }>
                        {RANGES.into_iter().map(|r| view! {
                            <option value=r.key selected=move || view_of_url.with(|v| v.range == r)>{r.label}</option>
                        }).collect_view()}
                    </select></div>
                <div class="control"><label for="credits-per">"Per"</label>
                    <select id="credits-per" on:change:target=move |ev| {
                        let chosen = ev.target().value();
                        show(&|v| v.with_bucket(&chosen));
                    }>
                        {BUCKETS.into_iter().map(|choice| view! {
                            <option value=choice.key selected=move || view_of_url.with(|v| v.bucket == choice.bucket)>{choice.label}</option>
                        }).collect_view()}
                    </select></div>
            </div>
            {move || match history.get() {
                None => view! { <p class="loading">"Reading the history…"</p> }.into_any(),
                Some(Err(error)) => view! { <ApiErrorPanel error context="Loading the workspace" /> }.into_any(),
                Some(Ok(None)) => view! {
                    <Notice field="no-history">
                        "This browser keeps no history of runs (its storage is unavailable, as in some private windows). The workspace page shows the API's latest " {RUN_LIST_LIMIT} "."
                    </Notice>
                }.into_any(),
                Some(Ok(Some(history))) => view! {
                    {chart(&history, view_of_url.get())}
                    {ledger::section(&history)}
                }.into_any(),
            }}
        </section>
    }
}

/// The chart over the view's range, and what it covers.
fn chart(history: &History, view: CreditsView) -> impl IntoView + use<> {
    let now = Local::now().naive_local();
    let spent: Vec<SpentRun> = history
        .runs
        .iter()
        .map(|kept| SpentRun {
            run: &kept.run,
            records: kept.records as u64,
        })
        .collect();
    let span = view.span(&spent, &Local, now);
    let data = CreditsOverTime::from_spent(&spent, &Local, span);
    let since = history
        .since
        .and_then(|ms| chrono::DateTime::from_timestamp_millis(ms as i64))
        .map(local_time);
    let scope = format!(
        "{}: {} from the runs this browser has seen{}, the API's latest {RUN_LIST_LIMIT} included. Runs made elsewhere are here when a console tab in this browser read the runs list while the API still listed them.",
        view.range.label,
        counted(data.runs as u64, "run", "runs"),
        since.map(|at| format!(" since {at}")).unwrap_or_default(),
    );
    view! {
        {history.list_error.clone().map(|error| view! {
            <ApiErrorPanel error context="Reading the latest runs (the history is shown as kept)" />
        })}
        <MissedRuns spans=history.missed.clone() />
        {history.left_out.clone().map(|note| view! {
            <Notice field="damaged-runs">{note}</Notice>
        })}
        <CreditsChart data scope />
    }
}
