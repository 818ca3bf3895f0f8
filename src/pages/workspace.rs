//! The workspace: name, id, credits and today's usage, from `GET /v1/workspace`.

use api_contract::Workspace;
use leptos::prelude::*;

use crate::browser::{page_hidden, sleep_ms};
use crate::components::ApiErrorPanel;
use crate::format::group_thousands;
use crate::shared_state::use_shared_state;

/// How often the workspace refreshes while the tab is visible.
const REFRESH_MS: u32 = 30_000;

#[component]
pub fn WorkspacePage() -> impl IntoView {
    // Refreshed every REFRESH_MS while the tab is visible, keeping the numbers on screen; the
    // shared tick refreshes the header's summary at the same time.
    let shared = use_shared_state();
    let alive = StoredValue::new(true);
    Owner::on_cleanup(move || alive.set_value(false));
    leptos::task::spawn_local(async move {
        loop {
            sleep_ms(REFRESH_MS).await;
            if !alive.try_get_value().unwrap_or(false) {
                break;
            }
            if !page_hidden() {
                shared.workspace_changed();
            }
        }
    });
    shared.refresh_workspace();
    let workspace = shared.workspace();

    view! {
        <section class="page">
            <h1>"Workspace"</h1>
            <p class="lead">"Refreshes every 30 seconds while this tab is visible."</p>
            {move || match workspace.get() {
                None => view! { <p class="loading">"Loading the workspace…"</p> }.into_any(),
                Some(Ok(ws)) => view! { <WorkspaceSummary ws /> }.into_any(),
                Some(Err(error)) => view! { <ApiErrorPanel error context="Loading the workspace" /> }.into_any(),
            }}
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
        <h3 class="section-title">"Usage today"</h3>
        <dl class="stats">
            {stat("Profiles", "profiles", ws.usage_today.profiles, "enriched profiles returned")}
            {stat("Premium lines", "premium_lines", ws.usage_today.premium_lines, "premium-search records returned")}
        </dl>
    }
}
