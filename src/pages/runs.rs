//! `/runs`: the workspace's latest 100 runs, filtered and sorted by the URL's query (so a view
//! can be shared), refreshing by itself while any of them is still queued or processing.

use std::rc::Rc;

use api_contract::{Run, RunList, RunStatus};
use leptos::prelude::*;

use crate::browser::now_ms;
use crate::components::{ApiErrorPanel, PollNotice, RunStatusBadge};
use crate::format::{age, duration, group_thousands, local_time_iso, millis_between};
use crate::navigation::{Navigation, use_navigation};
use crate::polling::poll;
use crate::routes::Route;
use crate::session::use_session;
use crate::transport::ApiError;

/// The list's view as the URL gives it: `?status=failed&action=…&order=oldest`.
#[derive(Clone, Debug, Default, PartialEq)]
struct View {
    status: Option<RunStatus>,
    action: String,
    oldest_first: bool,
}

impl View {
    fn from_url(nav: Navigation) -> View {
        View {
            status: nav
                .query("status")
                .and_then(|s| RunStatus::ALL.into_iter().find(|r| r.as_str() == s)),
            action: nav.query("action").unwrap_or_default(),
            oldest_first: nav.query("order").as_deref() == Some("oldest"),
        }
    }

    /// The runs to show, in order.
    fn apply<'a>(&self, runs: &'a [Run]) -> Vec<&'a Run> {
        // Each time parsed once, then stable sorts: runs created in the same millisecond keep
        // the API's order (newest first), reversed for oldest first.
        let mut shown: Vec<(f64, &Run)> = runs
            .iter()
            .filter(|r| self.status.is_none_or(|s| r.status == s))
            .filter(|r| self.action.is_empty() || r.action == self.action)
            .map(|r| {
                let t = js_sys::Date::parse(&r.created_at);
                (if t.is_nan() { 0.0 } else { t }, r)
            })
            .collect();
        if self.oldest_first {
            shown.reverse();
            shown.sort_by(|a, b| a.0.total_cmp(&b.0));
        } else {
            shown.sort_by(|a, b| b.0.total_cmp(&a.0));
        }
        shown.into_iter().map(|(_, r)| r).collect()
    }
}

/// Sets or (with an empty value) removes one query parameter, in place of the current entry.
fn set_param(nav: Navigation, name: &str, value: &str) {
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&nav.search_untracked()) else {
        return;
    };
    if value.is_empty() {
        params.delete(name);
    } else {
        params.set(name, value);
    }
    let query = String::from(params.to_string());
    nav.redirect(&if query.is_empty() {
        "/runs".to_owned()
    } else {
        format!("/runs?{query}")
    });
}

#[component]
pub fn RunsPage() -> impl IntoView {
    let session = use_session();
    let nav = use_navigation();
    let list = poll(
        Rc::new(move || {
            let client = session.client_untracked();
            Box::pin(async move {
                match client {
                    Some(client) => client.runs().await,
                    None => Err(ApiError::Network("not signed in".into())),
                }
            })
        }),
        // Poll only while a listed run can still change.
        |list: &RunList| list.runs.iter().all(|r| r.status.is_terminal()),
    );
    // Parsed on each read: cheap, and no memo type in the bundle.
    let view_of_url = move || View::from_url(nav);
    let find = RwSignal::new(String::new());
    let find_error = RwSignal::new(false);
    let on_find = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let id = find.get_untracked().trim().to_owned();
        find_error.set(id.is_empty());
        if !id.is_empty() {
            nav.navigate(&Route::RunDetail(id).path());
        }
    };

    view! {
        <section class="page">
            <div class="page-head">
                <h1>"Runs"</h1>
                <button type="button" class="button secondary" on:click=move |_| list.restart()>"Refresh"</button>
            </div>
            <p class="lead">"The workspace's latest 100 runs. "
                {move || if list.active.get() { "Refreshing by itself while runs are queued or processing." } else { "" }}
            </p>
            <div class="toolbar">
                <div class="control"><label for="filter-status">"Status"</label>
                    <select id="filter-status" on:change=move |ev| set_param(nav, "status", &event_target_value(&ev))>
                        <option value="" selected=move || view_of_url().status.is_none()>"All"</option>
                        {RunStatus::ALL.into_iter().map(|s| view! {
                            <option value=s.as_str() selected=move || view_of_url().status == Some(s)>{s.as_str()}</option>
                        }).collect_view()}
                    </select></div>
                <div class="control"><label for="filter-action">"Action"</label>
                    <select id="filter-action" on:change=move |ev| set_param(nav, "action", &event_target_value(&ev))>
                        <option value="">"All"</option>
                        {move || {
                            let current = view_of_url().action;
                            let mut actions: Vec<String> = list.value.with(|l| {
                                l.iter().flat_map(|l| l.runs.iter().map(|r| r.action.clone())).collect()
                            });
                            if !current.is_empty() {
                                actions.push(current.clone());
                            }
                            actions.sort();
                            actions.dedup();
                            actions.into_iter().map(|a| {
                                let selected = a == current;
                                let label = a.clone();
                                view! { <option value=a selected=selected>{label}</option> }
                            }).collect_view()
                        }}
                    </select></div>
                <div class="control"><label for="filter-order">"Order"</label>
                    <select id="filter-order" on:change=move |ev| {
                        let oldest = event_target_value(&ev) == "oldest";
                        set_param(nav, "order", if oldest { "oldest" } else { "" });
                    }>
                        <option value="newest">"Newest first"</option>
                        <option value="oldest" selected=move || view_of_url().oldest_first>"Oldest first"</option>
                    </select></div>
                <form class="find" on:submit=on_find>
                    <label for="find-run">"Run ID "</label>
                    <input id="find-run" type="text" autocomplete="off" spellcheck="false"
                        placeholder="Paste a run id" aria-describedby="find-run-error"
                        prop:value=move || find.get()
                        on:input=move |ev| { find.set(event_target_value(&ev)); find_error.set(false); } />
                    <button type="submit" class="button secondary">"Open"</button>
                    <span id="find-run-error" class="field-error" role="alert">
                        {move || if find_error.get() { "Paste a run id first." } else { "" }}
                    </span>
                </form>
            </div>
            <PollNotice transient=list.transient last_update=list.last_update />
            {move || match (list.value.get(), list.fatal.get()) {
                (_, Some(error)) => view! { <ApiErrorPanel error context="Loading the runs" /> }.into_any(),
                (None, None) => view! { <p class="loading">"Loading the runs…"</p> }.into_any(),
                (Some(list), None) => runs_table(&list.runs, &view_of_url()),
            }}
        </section>
    }
}

fn runs_table(runs: &[Run], view: &View) -> AnyView {
    let shown = view.apply(runs);
    if runs.is_empty() {
        return view! {
            <p class="muted" data-field="no-runs">"No runs yet. " <a href="/actions">"Submit an action"</a> " to start one."</p>
        }
        .into_any();
    }
    if shown.is_empty() {
        return view! {
            <p class="muted" data-field="no-runs">"No runs match these filters. " <a href="/runs">"Show all runs"</a> "."</p>
        }
        .into_any();
    }
    let now = now_ms();
    let count = format!("Showing {} of {} runs.", shown.len(), runs.len());
    let rows = shown
        .into_iter()
        .map(|run| {
            let created = js_sys::Date::parse(&run.created_at);
            let took = run
                .completed_at
                .as_deref()
                .and_then(|done| millis_between(&run.created_at, done))
                .map_or_else(|| "—".to_owned(), duration);
            let short_id: String = run.id.chars().take(8).collect();
            let error = run.error.as_ref().map(|e| e.code.clone());
            view! {
                <tr data-run=run.id.clone()>
                    <td><a href=Route::RunDetail(run.id.clone()).path() title=run.id.clone()
                        aria-label=format!("Run {}", run.id)><code>{short_id}</code></a></td>
                    <td>{local_time_iso(&run.created_at)}<span class="age">{age(now, created)}</span></td>
                    <td><code>{run.action.clone()}</code></td>
                    <td><RunStatusBadge status=run.status /></td>
                    <td class="num">{run.output.len()}</td>
                    <td class="num">{group_thousands(run.credits_used)}</td>
                    <td class="num">{group_thousands(run.credits_reserved)}</td>
                    <td class="num">{took}</td>
                    <td>{error.map(|code| view! { <code class="error-code">{code}</code> })}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="muted">{count}</p>
        <div class="table-wrap">
            <table class="runs-table" data-field="runs-table">
                <thead><tr>
                    <th scope="col">"Run"</th><th scope="col">"Created"</th><th scope="col">"Action"</th>
                    <th scope="col">"Status"</th><th scope="col" class="num">"Records"</th>
                    <th scope="col" class="num">"Credits used"</th><th scope="col" class="num">"Reserved"</th>
                    <th scope="col" class="num">"Duration"</th><th scope="col">"Error"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
