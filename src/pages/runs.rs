//! `/runs`: the workspace's latest 100 runs as the API lists them, and the older runs this
//! browser kept (`crate::archive`: the API keeps no longer list), each marked by where it comes
//! from; filtered (status, action, text) and sorted by the URL's query (so a view can be
//! shared), all in one scrolling table that draws the rows near the view, refreshing by itself
//! while any of the API's runs is still queued or processing.
//! The rules (the view, its rows, which kept runs are read again) are `model::runs_view`'s.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use api_contract::{Run, RunList, RunStatus};
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query};
use leptos_router::params::Params;

use crate::api::{ApiError, WithRequestId};
use crate::components::{
    ApiErrorPanel, MissedRuns, Notice, PollNotice, RowAttribute, RunStatusBadge,
    StoreRefusalNotice, WindowedTable,
};
use crate::model::archive::RunSource;
use crate::model::format::{age, counted, group_thousands, local_time, run_duration};
use crate::model::runs_view::{
    KeptHistory, ListedRun, RunRow, RunsQuery, RunsShown, RunsView, SortBy, StaleRound, StaleWatch,
    kept_search_text, listed, parse_date, run_rows, select_for_comparison,
};
use crate::model::urls::run_path;
use crate::nav::in_place;
use crate::pages::compare::compare_path;
use crate::state::polling::{Poll, use_poll};
use crate::state::refusals::use_store_refusals;
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;
use crate::store::StoreError;

/// Kept runs prepared at a time before the page gets a turn.
const PREPARE_SLICE: usize = 10_000;

/// The history as the page reads it: `Err` where this browser keeps nothing.
type KeptResource = LocalResource<Result<KeptHistory, StoreError>>;

/// `/runs`'s query as text. Every field is text so that no value is refused here:
/// [`RunsView::from_query`] reports an unknown status or date and leaves anything else unknown
/// at its default.
#[derive(Params, Clone, Debug, PartialEq, Default)]
struct RunsParams {
    status: Option<String>,
    action: Option<String>,
    q: Option<String>,
    from: Option<String>,
    until: Option<String>,
    sort: Option<String>,
    order: Option<String>,
}

impl RunsParams {
    fn query(&self) -> RunsQuery<'_> {
        RunsQuery {
            status: self.status.as_deref(),
            action: self.action.as_deref(),
            text: self.q.as_deref(),
            from: self.from.as_deref(),
            until: self.until.as_deref(),
            sort: self.sort.as_deref(),
            order: self.order.as_deref(),
        }
    }
}

/// The list's view as the URL gives it.
fn use_runs_view() -> Memo<RunsView> {
    let params = use_query::<RunsParams>();
    Memo::new(move |_| {
        params.with(|params| {
            RunsView::from_query(params.as_ref().map(RunsParams::query).unwrap_or_default())
        })
    })
}

/// Shows the URL's view as `change` changes it, in place (a filter, not a new page).
fn use_show_view(view_of_url: Memo<RunsView>) -> impl Fn(&dyn Fn(&mut RunsView)) + Clone {
    let navigate = use_navigate();
    move |change: &dyn Fn(&mut RunsView)| {
        let mut view = view_of_url.get_untracked();
        change(&mut view);
        navigate(&view.url(), in_place());
    }
}

/// `workspace`'s history, read and prepared for the list a slice at a time.
/// Kept runs that could not be read back (damaged) are left out, and `left_out` says so.
async fn read_history(
    workspace: &str,
    left_out: RwSignal<Option<String>>,
) -> Result<KeptHistory, StoreError> {
    let kept = crate::archive::kept_runs(workspace).await?;
    left_out.set(kept.left_out("kept run", "kept runs"));
    let runs = kept.items;
    let reads = crate::archive::list_reads(workspace).await?;
    let mut search = Vec::with_capacity(runs.len());
    for slice in runs.chunks(PREPARE_SLICE) {
        search.extend(slice.iter().map(kept_search_text));
        crate::browser::sleep(std::time::Duration::ZERO).await;
    }
    Ok(KeptHistory::new(runs, search, reads))
}

/// The API's latest runs, polled while any can still change; each read goes into the history.
fn use_runs_list() -> Poll<RunList> {
    let session = use_session();
    let workspace = use_workspace();
    let refusals = use_store_refusals();
    use_poll(
        move || {
            let client = session.client_untracked();
            let workspace_id = workspace.id_untracked();
            async move {
                let read = client.ok_or(ApiError::SignedOut)?.runs().await?;
                // Every run the API lists goes into the history, in the background: the page
                // shows the API's answer at once (a write waits for a large history's read to
                // end), over the kept copies.
                if let Some(id) = workspace_id {
                    let runs = read.value.runs.clone();
                    leptos::task::spawn_local(async move {
                        let kept = crate::archive::keep_list(&id, &runs).await;
                        refusals.record(&id, crate::archive::RUNS_NOT_KEPT, kept);
                        let kept = crate::archive::keep_outputs(&id, &runs).await;
                        refusals.record(&id, crate::archive::OUTPUTS_NOT_KEPT, kept);
                    });
                }
                Ok(read)
            }
        },
        // Poll only while a listed run can still change.
        |list: &RunList| list.runs.iter().all(|r| r.status.is_terminal()),
    )
}

/// The ids of the runs in the API's list as last read.
fn listed_ids(list: &Option<RunList>) -> HashSet<String> {
    list.iter()
        .flat_map(|l| l.runs.iter().map(|r| r.id.clone()))
        .collect()
}

/// The workspace's history in this browser, read when the page opens, and again only when a
/// run of the API's list left it while the page was open (it is in the history now).
fn use_kept_history(list: Poll<RunList>, left_out: RwSignal<Option<String>>) -> KeptResource {
    let workspace = use_workspace();
    let left_the_list = RwSignal::new(0_u32);
    let last_listed = StoredValue::new(HashSet::<String>::new());
    Effect::new(move |_| {
        let ids = list.value.with(listed_ids);
        let left = last_listed.with_value(|before| before.iter().any(|id| !ids.contains(id)));
        last_listed.set_value(ids);
        if left {
            left_the_list.update(|n| *n += 1);
        }
    });
    LocalResource::new(move || {
        left_the_list.track();
        let workspace_id = workspace.id();
        async move {
            match workspace_id {
                Some(id) => read_history(&id, left_out).await,
                None => Ok(KeptHistory::default()),
            }
        }
    })
}

/// Kept runs read again from the API on this page, by id, shown over their kept copies.
///
/// A kept run that was not final when last seen, and that the API's list no longer holds, would
/// stay queued or processing here for ever: while the page is open such runs are read, a few
/// picked at a time ([`StaleWatch`]), by the polling rules (`use_poll`: one request at a time,
/// nothing while the tab is hidden, ended when the page is left), and each answer kept.
fn use_stale_reads(list: Poll<RunList>, kept: KeptResource) -> RwSignal<HashMap<String, Run>> {
    let session = use_session();
    let workspace = use_workspace();
    let refusals = use_store_refusals();
    let read_here = RwSignal::new(HashMap::<String, Run>::new());
    let watch = StoredValue::new(StaleWatch::default());
    let rounds = use_poll(
        move || {
            let client = session.client_untracked();
            let workspace_id = workspace.id_untracked();
            let asked = watch.with_value(StaleWatch::to_read);
            async move {
                let mut read = Vec::new();
                if let Some(client) = &client {
                    for run_id in &asked {
                        if let Ok(answer) = client.run(run_id).await {
                            read.push(answer.value);
                        }
                    }
                }
                if let (Some(id), false) = (workspace_id, read.is_empty()) {
                    let kept = crate::archive::keep_runs(&id, &read).await;
                    refusals.record(&id, crate::archive::RUNS_NOT_KEPT, kept);
                }
                let round = watch
                    .try_update_value(|watch| watch.after_round(&asked, read))
                    .unwrap_or(StaleRound {
                        read: Vec::new(),
                        ended: true,
                    });
                Ok(WithRequestId {
                    value: round,
                    request_id: None,
                    body_bytes: 0,
                })
            }
        },
        |round: &StaleRound| round.ended,
    );
    Effect::new(move |_| {
        rounds.value.with(|round| {
            if let Some(round) = round.as_ref().filter(|round| !round.read.is_empty()) {
                read_here.update(|runs| {
                    for run in &round.read {
                        runs.insert(run.id.clone(), run.clone());
                    }
                });
            }
        });
    });
    Effect::new(move |_| {
        // Again after each round: the next stale runs, if more than a round's were found.
        rounds.value.track();
        if session.client_untracked().is_none() || workspace.id_untracked().is_none() {
            return;
        }
        let listed = list.value.with_untracked(listed_ids);
        let picked = kept.with(|history| match history {
            Some(Ok(history)) => watch
                .try_update_value(|watch| watch.pick(history, &listed))
                .unwrap_or(false),
            _ => false,
        });
        if picked {
            rounds.restart();
        }
    });
    read_here
}

#[component]
pub fn RunsPage() -> impl IntoView {
    let list = use_runs_list();
    let left_out = RwSignal::new(None);
    let kept = use_kept_history(list, left_out);
    let read_here = use_stale_reads(list, kept);
    let view_of_url = use_runs_view();
    // The runs picked to compare (two at most).
    let selected = RwSignal::new(Vec::<String>::new());
    // The runs listed (the API's at once, the history's joining them once read), given to `then`
    // with whether the history is still being read.
    let with_listed = move |then: &mut dyn FnMut(&[ListedRun<'_>], bool)| {
        let nothing_kept = KeptHistory::default();
        list.value.with(|api| {
            let api = api.as_ref().map_or(&[][..], |l| l.runs.as_slice());
            kept.with(|history| {
                let reading = history.is_none();
                let history = match history {
                    Some(Ok(history)) => history,
                    _ => &nothing_kept,
                };
                read_here.with(|read_here| then(&listed(api, history, read_here), reading));
            });
        });
    };
    // Every listed run's row: made again when the runs change, not for another filter or sort.
    let every_row = Memo::new(move |_| {
        let mut rows = Vec::new();
        with_listed(&mut |runs, _| rows = run_rows(runs));
        rows
    });
    // The runs the view shows.
    let shown = Memo::new(move |_| {
        let mut shown = RunsShown::default();
        with_listed(&mut |runs, reading| {
            shown = every_row
                .with(|rows| view_of_url.with(|view| RunsShown::of(runs, rows, view, reading)));
        });
        shown
    });
    let missed = move || {
        kept.with(|history| match history {
            Some(Ok(history)) => history.reads.missed.clone(),
            _ => Vec::new(),
        })
    };
    view! {
        <section class="page">
            <div class="page-head">
                <h1>"Runs"</h1>
                <button type="button" class="button secondary" on:click=move |_| list.restart()>"Refresh"</button>
            </div>
            <p class="lead">"The workspace's latest 100 runs from the API, and the older runs this browser has seen, kept in this browser ("
                <a href="/storage">"what this browser keeps"</a>"). "
                {move || list.active.get().then_some("Refreshing by itself while runs are queued or processing.")}
            </p>
            <div class="toolbar">
                <RunFilters view_of_url list kept />
                <FindRun />
            </div>
            <ViewNotices view_of_url />
            {move || kept.with(|k| match k {
                Some(Err(error)) => Some(error.sentence()),
                _ => None,
            }).map(|why| view! {
                <Notice field="no-history">
                    "Only the API's latest 100 runs are listed: this browser's history of runs could not be read. " {why}
                </Notice>
            })}
            {move || left_out.get().map(|note| view! {
                <Notice field="damaged-runs">{note}</Notice>
            })}
            {move || view! { <MissedRuns spans=missed() /> }}
            <StoreRefusalNotice />
            <PollNotice transient=list.transient last_update=list.last_update />
            {move || match (list.value.with(Option::is_some), list.fatal.get()) {
                (_, Some(error)) => Some(view! { <ApiErrorPanel error context="Loading the runs" /> }.into_any()),
                (false, None) => Some(view! { <p class="loading">"Loading the runs…"</p> }.into_any()),
                (true, None) => None,
            }}
            <Show when=move || list.value.with(Option::is_some) && list.fatal.with(Option::is_none)>
                <RunsList shown view_of_url selected />
            </Show>
        </section>
    }
}

/// The filters: status, action, text and creation days, each a change of the URL's view.
#[component]
fn RunFilters(
    view_of_url: Memo<RunsView>,
    list: Poll<RunList>,
    kept: KeptResource,
) -> impl IntoView {
    let show = use_show_view(view_of_url);
    let (show_status, show_action, show_text, show_from, show_until) =
        (show.clone(), show.clone(), show.clone(), show.clone(), show);
    // The actions of the listed and kept runs, and the one the URL asks for.
    let action_options = move || {
        let current = view_of_url.with(|v| v.action.clone());
        let mut actions: Vec<String> = list.value.with(|l| {
            l.iter()
                .flat_map(|l| l.runs.iter().map(|r| r.action.clone()))
                .collect()
        });
        kept.with(|history| {
            if let Some(Ok(history)) = history {
                actions.extend(history.actions.iter().cloned());
            }
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
        <div class="control"><label for="filter-status">"Status"</label>
            <select id="filter-status" on:change:target=move |ev| {
                let chosen = ev.target().value();
                show_status(&|v| v.status = RunStatus::ALL.into_iter().find(|s| s.as_str() == chosen));
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
        <div class="control"><label for="filter-text">"Search"</label>
            <input id="filter-text" type="search" autocomplete="off" spellcheck="false"
                placeholder="Input, run id, action or error"
                prop:value=move || view_of_url.with(|v| v.text.clone())
                on:change:target=move |ev| {
                    let text = ev.target().value();
                    show_text(&|v| v.text = text.trim().to_owned());
                } /></div>
        <div class="control dates"><label for="filter-from">"Created from"</label>
            <input id="filter-from" type="date"
                prop:value=move || view_of_url.with(|v| v.from.map(|d| d.to_string()).unwrap_or_default())
                on:change:target=move |ev| {
                    let from = parse_date(&ev.target().value());
                    show_from(&|v| v.from = from);
                } />
            <label for="filter-until">"until"</label>
            <input id="filter-until" type="date"
                prop:value=move || view_of_url.with(|v| v.until.map(|d| d.to_string()).unwrap_or_default())
                on:change:target=move |ev| {
                    let until = parse_date(&ev.target().value());
                    show_until(&|v| v.until = until);
                } /></div>
    }
}

/// Opens a run by its id, pasted.
#[component]
fn FindRun() -> impl IntoView {
    let navigate = use_navigate();
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
    view! {
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
    }
}

/// What the URL asked for that the list leaves out: a day that is not a date, a status runs do
/// not have.
#[component]
fn ViewNotices(view_of_url: Memo<RunsView>) -> impl IntoView {
    view! {
        {move || view_of_url.with(|v| v.bad_dates.clone()).into_iter().map(|d| view! {
            <Notice>
                "The link asks for runs created on “" {d} "”, which is not a date such as 2026-01-31; that bound is left out."
            </Notice>
        }).collect_view()}
        {move || view_of_url.with(|v| v.unknown_status.clone()).map(|s| view! {
            <Notice>
                "The link asks for runs with status “" {s} "”, which runs do not have; showing every status."
            </Notice>
        })}
    }
}

/// The runs `shown`, or why there are none: a count line, the pick of two runs to compare, and
/// every run that matches in one scrolling table (`WindowedTable`). A new view (filter, sort)
/// starts at the top; the list refreshed keeps the run being read in place.
#[component]
fn RunsList(
    shown: Memo<RunsShown>,
    view_of_url: Memo<RunsView>,
    selected: RwSignal<Vec<String>>,
) -> impl IntoView {
    let rows = Memo::new(move |_| shown.with(|s| s.rows.clone()));
    let count = move || {
        shown.with(|s| {
            let count = format!(
                "{}; {} listed: {} from the API's latest 100, {} kept in this browser.",
                counted(s.rows.len() as u64, "matching run", "matching runs"),
                group_thousands(s.listed as u64),
                group_thousands(s.from_api as u64),
                group_thousands((s.listed - s.from_api) as u64),
            );
            if s.reading {
                format!("{count} Reading the runs kept in this browser…")
            } else {
                count
            }
        })
    };
    let empty = move || {
        shown.with(|s| match (s.listed, s.rows.len(), s.reading) {
            (_, 1.., _) => None,
            (_, 0, true) => Some(view! { <p class="loading">"Reading the runs kept in this browser…"</p> }.into_any()),
            (0, 0, false) => Some(view! {
                <p class="muted" data-field="no-runs">"No runs yet. " <a href="/actions">"Submit an action"</a> " to start one."</p>
            }.into_any()),
            (1.., 0, false) => Some(view! {
                <p class="muted" data-field="no-runs">"No runs match these filters. " <a href="/runs">"Show all runs"</a> "."</p>
            }.into_any()),
        })
    };
    let head = move || {
        view! {
            <th scope="col"><span class="sr-only">"Compare"</span></th>
            <th scope="col">"Run"</th>
            {SortBy::ALL.into_iter().map(|column| sort_heading(view_of_url, column)).collect_view()}
        }
    };
    let list_of = Signal::derive(move || view_of_url.with(RunsView::url));
    let row = move |_place: usize, row: &Arc<RunRow>| run_cells(row, Utc::now(), selected);
    view! {
        {empty}
        <Show when=move || rows.with(|r| !r.is_empty())>
            <p class="muted" data-field="runs-count">{count}</p>
            <p class="compare-selected" data-field="compare-selected">{move || selected.with(|s| match s.as_slice() {
                [a, b] => view! {
                    <a class="button secondary" href=compare_path(a, b)>"Compare the 2 selected runs"</a>
                    " "
                    <button type="button" class="button link" on:click=move |_| selected.set(Vec::new())>"Clear the selection"</button>
                }.into_any(),
                [_] => view! { <span class="help">"Select one more run to compare the two."</span> }.into_any(),
                _ => view! { <span class="help">"Select two runs to compare them."</span> }.into_any(),
            })}</p>
            <WindowedTable rows head=head() row list_of row_attributes=run_attributes
                label="Runs" class="runs-table" field="runs-table" />
        </Show>
    }
}

/// What a run's row is found by: its id and where it comes from.
fn run_attributes(row: &Arc<RunRow>) -> Vec<RowAttribute> {
    let source = match row.source {
        RunSource::Api => "api",
        RunSource::KeptHere => "kept",
    };
    vec![
        RowAttribute {
            name: "data-run",
            value: row.id.clone(),
        },
        RowAttribute {
            name: "data-source",
            value: source.to_owned(),
        },
    ]
}

/// One run's cells, each focusable for the grid's keys, with its checkbox to pick it for a
/// comparison; ages are told from `now`.
fn run_cells(
    row: &RunRow,
    now: DateTime<Utc>,
    selected: RwSignal<Vec<String>>,
) -> impl IntoView + use<> {
    let short_id: String = row.id.chars().take(8).collect();
    let source_label = match row.source {
        RunSource::Api => "API",
        RunSource::KeptHere => "This browser",
    };
    let (id, checked_id) = (row.id.clone(), row.id.clone());
    // The day and the time of day: a narrow column breaks the line between them only.
    let created = local_time(row.created_at);
    let (created_day, created_time) = created
        .split_once(' ')
        .map_or((created.clone(), String::new()), |(day, time)| {
            (day.to_owned(), time.to_owned())
        });
    view! {
        <td class="select" tabindex="-1"><input type="checkbox" aria-label=format!("Select run {} to compare", row.id)
            prop:checked=move || selected.with(|s| s.contains(&checked_id))
            on:change:target=move |ev| {
                let on = ev.target().checked();
                selected.update(|s| select_for_comparison(s, &id, on));
            } /></td>
        <th scope="row" tabindex="-1"><a href=run_path(&row.id) title=row.id.clone()
            aria-label=format!("Run {}", row.id)><code>{short_id}</code></a></th>
        <td class="created" tabindex="-1"><span class="day">{created_day}</span>" "<span class="time">{created_time}</span><span class="age">{age(now, row.created_at)}</span></td>
        <td tabindex="-1"><code>{row.action.clone()}</code></td>
        <td tabindex="-1"><RunStatusBadge status=row.status /></td>
        <td class="num" tabindex="-1">{row.records}{row.output_forgotten_after.map(|days| view! {
            <span class="age" data-field="output-forgotten">{format!("output forgotten after {days} days")}</span>
        })}</td>
        <td class="num" tabindex="-1">{group_thousands(row.credits_used)}</td>
        <td class="num" tabindex="-1">{group_thousands(row.credits_reserved)}</td>
        <td class="num" tabindex="-1">{run_duration(row.created_at, row.completed_at)}</td>
        <td tabindex="-1">{row.error_code.clone().map(|code| view! { <code class="error-code">{code}</code> })}</td>
        <td data-field="source" tabindex="-1">{source_label}</td>
    }
}

/// A column's heading: a link that sorts the list by it (again: the other way), with
/// `aria-sort` on the column the list is sorted by; following the URL's view.
fn sort_heading(view_of_url: Memo<RunsView>, column: SortBy) -> impl IntoView + use<> {
    // The way the list is sorted by this column, if it is.
    let descending = Memo::new(move |_| {
        view_of_url.with(|view| (view.sort == column).then_some(view.descending))
    });
    view! {
        <th scope="col" class=column.is_numeric().then_some("num")
            aria-sort=move || descending.get().map(|d| if d { "descending" } else { "ascending" })>
            <a class="sort" href=move || view_of_url.with(|view| view.sorted_by(column).url())>{column.label()}</a>
            <span aria-hidden="true">{move || descending.get().map(|d| if d { " ↓" } else { " ↑" })}</span>
        </th>
    }
}
