//! `/workspace`: name, id, credits and today's usage, from the shared `GET /v1/workspace`, and
//! credits over time from the latest runs (`GET /v1/runs`); `/credits` has them over the history
//! this browser keeps.

use std::time::Duration;

use api_contract::Workspace;
use chrono::Local;
use leptos::prelude::*;

use crate::api::ApiError;
use crate::components::{ApiErrorPanel, CreditsChart, Notice};
use crate::model::credits::CreditsOverTime;
use crate::model::format::group_thousands;
use crate::state::environment::use_environment;
use crate::state::polling::use_every_while_shown;
use crate::state::safeguards::use_safeguards;
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;

/// How often the workspace refreshes while the tab is visible.
const REFRESH_EVERY: Duration = Duration::from_secs(30);

#[component]
pub fn WorkspacePage() -> impl IntoView {
    let workspace = use_workspace();
    let session = use_session();
    // The latest runs, for the chart: their records counted, not kept (100 runs can carry
    // 10,000 records, which the chart has no use for).
    let runs = LocalResource::new(move || {
        let client = session.client_untracked();
        async move {
            let read = client.ok_or(ApiError::SignedOut)?.runs_counted().await?;
            Ok::<_, ApiError>(read.value.runs)
        }
    });
    // Fresh numbers on arrival (unless a load is under way), then every 30 s while the tab is
    // visible, the chart with them; the header's summary follows, as it reads the same
    // resource. The loop ends with the page.
    workspace.refresh_unless_loading();
    use_every_while_shown(REFRESH_EVERY, move || {
        workspace.refresh();
        runs.refetch();
    });

    view! {
        <section class="page">
            <h1>"Workspace"</h1>
            <p class="lead">"Refreshes every 30 seconds while this tab is visible."</p>
            <Transition fallback=|| view! { <p class="loading">"Loading the workspace…"</p> }>
                {move || Suspend::new(async move {
                    match workspace.loaded().await {
                        Ok(ws) => view! { <WorkspaceSummary ws /> }.into_any(),
                        Err(error) => view! { <ApiErrorPanel error context="Loading the workspace" /> }.into_any(),
                    }
                })}
            </Transition>
            <h3 class="section-title">"Credits over time"</h3>
            <p class="help"><a href="/credits">"Over the history kept in this browser, by day, week or month"</a></p>
            <Transition fallback=|| view! { <p class="loading">"Loading the latest runs…"</p> }>
                {move || Suspend::new(async move {
                    match runs.await {
                        Ok(runs) => {
                            let data = CreditsOverTime::from_counted(runs, &Local);
                            let scope = if data.runs == 1 {
                                "From the workspace's only run; the API keeps no longer history.".to_owned()
                            } else {
                                format!("From the workspace's latest {} runs; the API keeps no longer history.", data.runs)
                            };
                            view! { <CreditsChart data scope /> }.into_any()
                        }
                        Err(error) => view! { <ApiErrorPanel error context="Loading the latest runs" /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn WorkspaceSummary(ws: Workspace) -> impl IntoView {
    let stat = |label: &'static str, field: &'static str, value: u64, note: &'static str| {
        view! {
            <div class="stat" data-field=field>
                <dt>{label}</dt>
                <dd class="stat-value">{group_thousands(value)}</dd>
                <dd class="stat-note">{note}</dd>
            </div>
        }
    };
    view! {
        <div class="workspace-identity">
            <h2 class="workspace-name" data-field="name">{ws.name.clone()}</h2>
            <p class="muted">"ID " <code data-field="workspace_id">{ws.workspace_id.clone()}</code></p>
        </div>
        <h3 class="section-title">"Credits"</h3>
        <dl class="stats">
            {stat("Balance", "credits_balance", ws.credits_balance, "credits held")}
            {stat("Reserved", "credits_reserved", ws.credits_reserved, "held by runs in progress")}
            {stat("Available", "credits_available", ws.credits_available(), "balance minus reserved")}
        </dl>
        <SafeguardsSummary available=ws.credits_available() />
        <h3 class="section-title">"Usage today"</h3>
        <dl class="stats">
            {stat("Profiles", "profiles", ws.usage_today.profiles, "enriched profiles returned")}
            {stat("Premium lines", "premium_lines", ws.usage_today.premium_lines, "premium-search records returned")}
        </dl>
    }
}

/// The safeguards in one sentence, the low-balance warning when it applies, and the way to
/// change them.
#[component]
fn SafeguardsSummary(available: u64) -> impl IntoView {
    let safeguards = use_safeguards();
    let environment = use_environment();
    view! {
        {move || safeguards.get().low_balance(available).map(|low| view! {
            <Notice field="low-balance-notice">{low.sentence()}</Notice>
        })}
        <p class="help" data-field="safeguards-summary">
            {move || safeguards.get().summary(environment.current().kind)} " "
            <a href="/safeguards">"Spending safeguards"</a>
        </p>
    }
}
