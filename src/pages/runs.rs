//! `/runs`: the workspace's latest 100 runs, filtered and sorted by the URL's query (so a view
//! can be shared), refreshing by itself while any of them is still queued or processing.

use api_contract::{Run, RunList, RunStatus};
use chrono::Utc;
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::app::replace;
use crate::components::{ApiErrorPanel, PollNotice, RunStatusBadge};
use crate::model::format::{age, group_thousands, local_time, run_duration};
use crate::model::urls::{encode, run_path};
use crate::state::polling::use_poll;
use crate::state::session::use_session;

/// The list's view as the URL gives it: `?status=failed&action=…&order=oldest`.
#[derive(Clone, Debug, Default, PartialEq)]
struct View {
    status: Option<RunStatus>,
    /// A `status` in the URL that is not a run status: shown as a notice, then ignored.
    unknown_status: Option<String>,
    action: String,
    oldest_first: bool,
}

impl View {
    fn from_query(status: Option<&str>, action: Option<&str>, order: Option<&str>) -> View {
        let known = status.and_then(|s| RunStatus::ALL.into_iter().find(|r| r.as_str() == s));
        View {
            status: known,
            unknown_status: status
                .filter(|s| known.is_none() && !s.is_empty())
                .map(str::to_owned),
            action: action.unwrap_or_default().to_owned(),
            oldest_first: order == Some("oldest"),
        }
    }

    /// `/runs` with this view's query.
    fn url(&self) -> String {
        let mut query = Vec::new();
        if let Some(status) = self.status {
            query.push(format!("status={}", status.as_str()));
        }
        if !self.action.is_empty() {
            query.push(format!("action={}", encode(&self.action)));
        }
        if self.oldest_first {
            query.push("order=oldest".to_owned());
        }
        if query.is_empty() {
            "/runs".to_owned()
        } else {
            format!("/runs?{}", query.join("&"))
        }
    }

    /// The runs to show, in order. The API lists newest first; a stable sort by creation time
    /// keeps its order for runs created in the same instant (reversed for oldest first).
    fn apply<'a>(&self, runs: &'a [Run]) -> Vec<&'a Run> {
        let mut shown: Vec<&Run> = runs
            .iter()
            .filter(|r| self.status.is_none_or(|s| r.status == s))
            .filter(|r| self.action.is_empty() || r.action == self.action)
            .collect();
        if self.oldest_first {
            shown.reverse();
            shown.sort_by_key(|r| r.created_at);
        } else {
            shown.sort_by_key(|r| std::cmp::Reverse(r.created_at));
        }
        shown
    }
}

#[component]
pub fn RunsPage() -> impl IntoView {
    let session = use_session();
    let navigate = use_navigate();
    let query = use_query_map();
    let list = use_poll(
        move || {
            let client = session.client_untracked();
            async move { client.ok_or(crate::api::ApiError::SignedOut)?.runs().await }
        },
        // Poll only while a listed run can still change.
        |list: &RunList| list.runs.iter().all(|r| r.status.is_terminal()),
    );
    let view_of_url = Memo::new(move |_| {
        query.with(|q| {
            View::from_query(q.get_str("status"), q.get_str("action"), q.get_str("order"))
        })
    });
    let show = {
        let navigate = navigate.clone();
        move |change: &dyn Fn(&mut View)| {
            let mut view = view_of_url.get_untracked();
            change(&mut view);
            navigate(&view.url(), replace());
        }
    };
    let (show_status, show_action, show_order) = (show.clone(), show.clone(), show);
    let find = RwSignal::new(String::new());
    let find_error = RwSignal::new(false);
    let on_find = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let id = find.get_untracked().trim().to_owned();
        find_error.set(id.is_empty());
        if !id.is_empty() {
            navigate(&run_path(&id), Default::default());
        }
    };
    let action_options = move || {
        let current = view_of_url.with(|v| v.action.clone());
        let mut actions: Vec<String> = list.value.with(|l| {
            l.iter()
                .flat_map(|l| l.runs.iter().map(|r| r.action.clone()))
                .collect()
        });
        if !current.is_empty() {
            actions.push(current.clone());
        }
        actions.sort();
        actions.dedup();
        actions
            .into_iter()
            .map(|a| {
                let selected = a == current;
                let label = a.clone();
                view! { <option value=a selected=selected>{label}</option> }
            })
            .collect_view()
    };

    view! {
        <section class="page">
            <div class="page-head">
                <h1>"Runs"</h1>
                <button type="button" class="button secondary" on:click=move |_| list.restart()>"Refresh"</button>
            </div>
            <p class="lead">"The workspace's latest 100 runs. "
                {move || list.active.get().then_some("Refreshing by itself while runs are queued or processing.")}
            </p>
            <div class="toolbar">
                <div class="control"><label for="filter-status">"Status"</label>
                    <select id="filter-status" on:change:target=move |ev| {
                        let chosen = ev.target().value();
                        show_status(&|v| {
                            v.status = RunStatus::ALL.into_iter().find(|s| s.as_str() == chosen);
                        });
                    }>
                        <option value="" selected=move || view_of_url.with(|v| v.status.is_none())>"All"</option>
                        {RunStatus::ALL.into_iter().map(|s| view! {
                            <option value=s.as_str() selected=move || view_of_url.with(|v| v.status == Some(s))>{s.as_str()}</option>
                        }).collect_view()}
                    </select></div>
                <div class="control"><label for="filter-action">"Action"</label>
                    <select id="filter-action" on:change:target=move |ev| {
                        let chosen = ev.target().value();
                        show_action(&|v| v.action = chosen.clone());
                    }>
                        <option value="">"All"</option>
                        {action_options}
                    </select></div>
                <div class="control"><label for="filter-order">"Order"</label>
                    <select id="filter-order" on:change:target=move |ev| {
                        let oldest = ev.target().value() == "oldest";
                        show_order(&|v| v.oldest_first = oldest);
                    }>
                        <option value="newest">"Newest first"</option>
                        <option value="oldest" selected=move || view_of_url.with(|v| v.oldest_first)>"Oldest first"</option>
                    </select></div>
                <form class="find" on:submit=on_find>
                    <label for="find-run">"Run ID "</label>
                    <input id="find-run" type="text" autocomplete="off" spellcheck="false"
                        placeholder="Paste a run id" aria-describedby="find-run-error"
                        bind:value=find on:input=move |_| find_error.set(false) />
                    <button type="submit" class="button secondary">"Open"</button>
                    <span id="find-run-error" class="field-error" role="alert">
                        {move || find_error.get().then_some("Paste a run id first.")}
                    </span>
                </form>
            </div>
            {move || view_of_url.with(|v| v.unknown_status.clone()).map(|s| view! {
                <p class="notice" role="status">
                    "The link asks for runs with status “" {s} "”, which runs do not have; showing every status."
                </p>
            })}
            <PollNotice transient=list.transient last_update=list.last_update />
            {move || match (list.value.get(), list.fatal.get()) {
                (_, Some(error)) => view! { <ApiErrorPanel error context="Loading the runs" /> }.into_any(),
                (None, None) => view! { <p class="loading">"Loading the runs…"</p> }.into_any(),
                (Some(list), None) => view_of_url.with(|v| runs_table(&list.runs, v)),
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
    let now = Utc::now();
    let count = format!("Showing {} of {} runs.", shown.len(), runs.len());
    let rows = shown
        .into_iter()
        .map(|run| {
            let short_id: String = run.id.chars().take(8).collect();
            let error = run.error.as_ref().map(|e| e.code.clone());
            view! {
                <tr data-run=run.id.clone()>
                    <td><a href=run_path(&run.id) title=run.id.clone()
                        aria-label=format!("Run {}", run.id)><code>{short_id}</code></a></td>
                    <td>{local_time(run.created_at)}<span class="age">{age(now, run.created_at)}</span></td>
                    <td><code>{run.action.clone()}</code></td>
                    <td><RunStatusBadge status=run.status /></td>
                    <td class="num">{run.output.len()}</td>
                    <td class="num">{group_thousands(run.credits_used)}</td>
                    <td class="num">{group_thousands(run.credits_reserved)}</td>
                    <td class="num">{run_duration(run.created_at, run.completed_at)}</td>
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_round_trips_the_view() {
        let view = View::from_query(Some("failed"), Some("a b&c"), Some("oldest"));
        assert_eq!(view.status, Some(RunStatus::Failed));
        assert_eq!(
            view.url(),
            "/runs?status=failed&action=a%20b%26c&order=oldest"
        );
        assert_eq!(View::default().url(), "/runs");
        assert_eq!(
            View::from_query(None, None, Some("newest")).url(),
            "/runs",
            "newest first is the default"
        );
    }

    #[test]
    fn an_unknown_status_is_reported_not_silently_dropped() {
        let view = View::from_query(Some("finished"), None, None);
        assert_eq!(view.status, None);
        assert_eq!(view.unknown_status.as_deref(), Some("finished"));
        assert_eq!(view.url(), "/runs", "choosing a filter drops it");
        assert_eq!(View::from_query(Some(""), None, None).unknown_status, None);
    }
}
