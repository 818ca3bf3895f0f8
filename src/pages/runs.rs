//! `/runs`: the workspace's latest 100 runs as the API lists them, and the older runs this
//! browser kept (`crate::archive`: the API keeps no longer list), each marked by where it comes
//! from; filtered (status, action, text), sorted and paged by the URL's query (so a view can be
//! shared), refreshing by itself while any of the API's runs is still queued or processing.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};

use api_contract::{Run, RunList, RunStatus};
use chrono::{Local, NaiveDate, Utc};
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};
use serde_json::Value;

use crate::app::in_place;
use crate::components::{ApiErrorPanel, MissedRuns, PollNotice, RunStatusBadge};
use crate::model::archive::{KeptRun, ListReads, RunSource, input_text};
use crate::model::format::{age, group_thousands, local_time, run_duration};
use crate::model::urls::{encode, run_path};
use crate::pages::compare::compare_path;
use crate::state::polling::use_poll;
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;

/// Runs shown on a page of the list.
const RUNS_PER_PAGE: usize = 100;

/// Kept runs not final when last seen, read again from the API at a time.
const STALE_READS_AT_ONCE: usize = 20;
/// How often they are read while still running, and for how many rounds at most.
const STALE_READ_EVERY: std::time::Duration = std::time::Duration::from_secs(3);
const STALE_ROUNDS: usize = 100;

/// The workspace's history as this browser keeps it, read once when the page opens (and again
/// only when a run leaves the API's list meanwhile).
#[derive(Clone, Debug, Default, PartialEq)]
struct History {
    runs: Vec<KeptRun>,
    /// Each run's [`search_text`], in the same order: made once per read, not per keystroke.
    search: Vec<String>,
    /// The actions the history holds, for the Action filter.
    actions: BTreeSet<String>,
    /// Each run's place in `runs`, by id: an API run's kept input is found without a pass over
    /// the history.
    index_of: HashMap<String, usize>,
    reads: ListReads,
}

/// Kept runs prepared at a time before the page gets a turn.
const PREPARE_SLICE: usize = 10_000;

impl History {
    /// `workspace`'s history, read and prepared for the list a slice at a time.
    async fn read(workspace: &str) -> Result<History, ()> {
        let runs = crate::archive::kept_runs(workspace).await?;
        let reads = crate::archive::list_reads(workspace).await?;
        let mut search = Vec::with_capacity(runs.len());
        for slice in runs.chunks(PREPARE_SLICE) {
            search.extend(slice.iter().map(|k| {
                let mut text = search_text(&k.run, k.input.as_ref());
                // The idempotency key this console sent, for a support person matching logs.
                if let Some(key) = &k.idempotency_key {
                    text.push('\n');
                    text.push_str(&key.to_lowercase());
                }
                text
            }));
            crate::browser::sleep(std::time::Duration::ZERO).await;
        }
        Ok(History::new(runs, search, reads))
    }

    fn new(runs: Vec<KeptRun>, search: Vec<String>, reads: ListReads) -> History {
        History {
            search,
            actions: runs.iter().map(|k| k.run.action.clone()).collect(),
            index_of: runs
                .iter()
                .enumerate()
                .map(|(i, k)| (k.run.id.clone(), i))
                .collect(),
            runs,
            reads,
        }
    }
}

/// What a search looks into, lower case: the run's id, action, error code and message, and the
/// input this console sent for it.
fn search_text(run: &Run, input: Option<&Value>) -> String {
    let error = run.error.as_ref();
    let mut text = [
        Some(run.id.as_str()),
        Some(run.action.as_str()),
        error.map(|e| e.code.as_str()),
        error.map(|e| e.message.as_str()),
    ]
    .into_iter()
    .flatten()
    .map(str::to_lowercase)
    .collect::<Vec<_>>()
    .join("\n");
    if let Some(input) = input {
        text.push('\n');
        text.push_str(&input_text(input));
    }
    text
}

/// The list's view as the URL gives it:
/// `?status=failed&action=…&q=…&from=2026-11-01&until=2026-11-24&sort=credits&order=asc&page=2`.
#[derive(Clone, Debug, PartialEq)]
struct View {
    status: Option<RunStatus>,
    /// Text to find in a run's id, action, error code or message, or the input this console
    /// sent for it (any case).
    text: String,
    /// A `status` in the URL that is not a run status: shown as a notice, then ignored.
    unknown_status: Option<String>,
    action: String,
    /// Runs created on these days or between them, in the browser's time zone (inclusive).
    from: Option<NaiveDate>,
    until: Option<NaiveDate>,
    /// A `from` or `until` in the URL that is not a date: shown as a notice, then ignored.
    bad_dates: Vec<String>,
    sort: SortBy,
    descending: bool,
    /// The page shown, from 0 (the URL counts from 1).
    page: usize,
}

impl Default for View {
    fn default() -> View {
        View {
            status: None,
            text: String::new(),
            unknown_status: None,
            action: String::new(),
            from: None,
            until: None,
            bad_dates: Vec::new(),
            sort: SortBy::Created,
            descending: true,
            page: 0,
        }
    }
}

/// The column the list is sorted by (`sort=` in the URL; creation time without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SortBy {
    Created,
    Action,
    Status,
    Records,
    Credits,
    Reserved,
    Duration,
    Error,
    Source,
}

impl SortBy {
    const ALL: [SortBy; 9] = [
        SortBy::Created,
        SortBy::Action,
        SortBy::Status,
        SortBy::Records,
        SortBy::Credits,
        SortBy::Reserved,
        SortBy::Duration,
        SortBy::Error,
        SortBy::Source,
    ];

    /// Its name in the URL.
    fn key(self) -> &'static str {
        match self {
            SortBy::Created => "created",
            SortBy::Action => "action",
            SortBy::Status => "status",
            SortBy::Records => "records",
            SortBy::Credits => "credits",
            SortBy::Reserved => "reserved",
            SortBy::Duration => "duration",
            SortBy::Error => "error",
            SortBy::Source => "source",
        }
    }

    /// The column's heading.
    fn label(self) -> &'static str {
        match self {
            SortBy::Created => "Created",
            SortBy::Action => "Action",
            SortBy::Status => "Status",
            SortBy::Records => "Records",
            SortBy::Credits => "Credits used",
            SortBy::Reserved => "Reserved",
            SortBy::Duration => "Duration",
            SortBy::Error => "Error",
            SortBy::Source => "From",
        }
    }

    /// The first click on a column: the newest, the largest and the longest first; text A to Z.
    fn descending_first(self) -> bool {
        matches!(
            self,
            SortBy::Created
                | SortBy::Records
                | SortBy::Credits
                | SortBy::Reserved
                | SortBy::Duration
        )
    }

    fn is_numeric(self) -> bool {
        matches!(
            self,
            SortBy::Records | SortBy::Credits | SortBy::Reserved | SortBy::Duration
        )
    }

    /// Two listed runs in this column's ascending order.
    fn compare(self, a: &ListedRun<'_>, b: &ListedRun<'_>) -> Ordering {
        let duration = |r: &ListedRun<'_>| r.run.completed_at.map(|end| end - r.run.created_at);
        fn error<'a>(listed: &ListedRun<'a>) -> Option<&'a str> {
            listed.run.error.as_ref().map(|e| e.code.as_str())
        }
        match self {
            SortBy::Created => a.run.created_at.cmp(&b.run.created_at),
            SortBy::Action => a.run.action.cmp(&b.run.action),
            SortBy::Status => a.run.status.as_str().cmp(b.run.status.as_str()),
            SortBy::Records => a.records.cmp(&b.records),
            SortBy::Credits => a.run.credits_used.cmp(&b.run.credits_used),
            SortBy::Reserved => a.run.credits_reserved.cmp(&b.run.credits_reserved),
            SortBy::Duration => duration(a).cmp(&duration(b)),
            SortBy::Error => error(a).cmp(&error(b)),
            SortBy::Source => source_rank(a.source).cmp(&source_rank(b.source)),
        }
    }
}

fn source_rank(source: RunSource) -> u8 {
    match source {
        RunSource::Api => 0,
        RunSource::KeptHere => 1,
    }
}

/// A date as the URL and a date field write it (`2026-11-24`).
fn parse_date(text: &str) -> Option<NaiveDate> {
    text.trim().parse().ok()
}

/// A run as the list shows it.
#[derive(Clone, Debug, PartialEq)]
struct ListedRun<'a> {
    run: &'a Run,
    /// Records in its output (a kept run's output is not kept, its count is).
    records: usize,
    source: RunSource,
    /// Its [`search_text`].
    search: Cow<'a, str>,
}

/// The API's runs, then the kept runs the API no longer lists (as read again on this page, if
/// they were); each with the input kept for it.
fn listed<'a>(
    api: &'a [Run],
    history: &'a History,
    read_here: &'a HashMap<String, Run>,
) -> Vec<ListedRun<'a>> {
    let input_of = |id: &str| {
        let at = *history.index_of.get(id)?;
        history.runs[at].input.as_ref()
    };
    let in_api: HashSet<&str> = api.iter().map(|r| r.id.as_str()).collect();
    api.iter()
        .map(|run| ListedRun {
            run,
            records: run.output.len(),
            source: RunSource::Api,
            search: Cow::Owned(search_text(run, input_of(&run.id))),
        })
        .chain(
            history
                .runs
                .iter()
                .zip(&history.search)
                .filter(|(k, _)| !in_api.contains(k.run.id.as_str()))
                .map(|(k, search)| ListedRun {
                    run: read_here.get(&k.run.id).unwrap_or(&k.run),
                    records: k.records,
                    source: RunSource::KeptHere,
                    search: Cow::Borrowed(search),
                }),
        )
        .collect()
}

/// The view's parameters as the URL's query holds them.
#[derive(Clone, Copy, Debug, Default)]
struct Query<'a> {
    status: Option<&'a str>,
    action: Option<&'a str>,
    text: Option<&'a str>,
    from: Option<&'a str>,
    until: Option<&'a str>,
    sort: Option<&'a str>,
    order: Option<&'a str>,
    page: Option<&'a str>,
}

impl View {
    fn from_query(query: Query<'_>) -> View {
        let known = query
            .status
            .and_then(|s| RunStatus::ALL.into_iter().find(|r| r.as_str() == s));
        let mut bad_dates = Vec::new();
        let mut date = |text: Option<&str>| {
            let text = text.map(str::trim).filter(|t| !t.is_empty())?;
            let date = parse_date(text);
            if date.is_none() {
                bad_dates.push(text.to_owned());
            }
            date
        };
        let (from, until) = (date(query.from), date(query.until));
        let sort = query
            .sort
            .and_then(|key| SortBy::ALL.into_iter().find(|s| s.key() == key))
            .unwrap_or(SortBy::Created);
        View {
            status: known,
            unknown_status: query
                .status
                .filter(|s| known.is_none() && !s.is_empty())
                .map(str::to_owned),
            action: query.action.unwrap_or_default().to_owned(),
            text: query.text.unwrap_or_default().trim().to_owned(),
            from,
            until,
            bad_dates,
            sort,
            descending: match query.order {
                Some("oldest" | "asc") => false,
                Some("newest" | "desc") => true,
                _ => sort.descending_first(),
            },
            page: query
                .page
                .and_then(|p| p.parse::<usize>().ok())
                .map_or(0, |p| p.saturating_sub(1)),
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
        if !self.text.is_empty() {
            query.push(format!("q={}", encode(&self.text)));
        }
        if let Some(from) = self.from {
            query.push(format!("from={from}"));
        }
        if let Some(until) = self.until {
            query.push(format!("until={until}"));
        }
        match (self.sort, self.descending) {
            (SortBy::Created, true) => {}
            (SortBy::Created, false) => query.push("order=oldest".to_owned()),
            (sort, descending) => {
                query.push(format!("sort={}", sort.key()));
                query.push(format!("order={}", if descending { "desc" } else { "asc" }));
            }
        }
        if self.page > 0 {
            query.push(format!("page={}", self.page + 1));
        }
        if query.is_empty() {
            "/runs".to_owned()
        } else {
            format!("/runs?{}", query.join("&"))
        }
    }

    /// This view sorted by `sort`: the other direction if it is sorted so already, else the
    /// column's first direction; from the first page.
    fn sorted_by(&self, sort: SortBy) -> View {
        View {
            descending: if self.sort == sort {
                !self.descending
            } else {
                sort.descending_first()
            },
            sort,
            page: 0,
            ..self.clone()
        }
    }

    /// The runs that match, in order (all pages). The API lists newest first; a stable sort
    /// keeps its order between equals, and equals in a column keep the newest first.
    fn apply<'a>(&self, runs: &[ListedRun<'a>]) -> Vec<ListedRun<'a>> {
        let wanted = self.text.to_lowercase();
        let mut shown: Vec<ListedRun> = runs
            .iter()
            .filter(|r| self.status.is_none_or(|s| r.run.status == s))
            .filter(|r| self.action.is_empty() || r.run.action == self.action)
            .filter(|r| self.within_dates(r.run))
            .filter(|r| matches_text(r, &wanted))
            .cloned()
            .collect();
        let newest_first = |a: &ListedRun, b: &ListedRun| b.run.created_at.cmp(&a.run.created_at);
        shown.sort_by(|a, b| {
            let column = self.sort.compare(a, b);
            let column = if self.descending {
                column.reverse()
            } else {
                column
            };
            match self.sort {
                SortBy::Created => column,
                _ => column.then_with(|| newest_first(a, b)),
            }
        });
        shown
    }

    /// Whether the run was created within the view's days, in the browser's time zone.
    fn within_dates(&self, run: &Run) -> bool {
        if self.from.is_none() && self.until.is_none() {
            return true;
        }
        let day = run.created_at.with_timezone(&Local).date_naive();
        self.from.is_none_or(|from| day >= from) && self.until.is_none_or(|until| day <= until)
    }
}

/// Whether the run's [`search_text`] holds `wanted` (lower case; empty matches every run).
fn matches_text(listed: &ListedRun<'_>, wanted: &str) -> bool {
    wanted.is_empty() || listed.search.contains(wanted)
}

#[component]
pub fn RunsPage() -> impl IntoView {
    let session = use_session();
    let workspace = use_workspace();
    let navigate = use_navigate();
    let query = use_query_map();
    let list = use_poll(
        move || {
            let client = session.client_untracked();
            let workspace_id = workspace.id_untracked();
            async move {
                let read = client
                    .ok_or(crate::api::ApiError::SignedOut)?
                    .runs()
                    .await?;
                // Every run the API lists goes into the history, in the background: the page
                // shows the API's answer at once (a write waits for a large history's read to
                // end), over the kept copies.
                if let Some(id) = workspace_id {
                    let runs = read.value.runs.clone();
                    leptos::task::spawn_local(async move {
                        let _ = crate::archive::keep_list(&id, &runs).await;
                        let _ = crate::archive::keep_outputs(&id, &runs).await;
                    });
                }
                Ok(read)
            }
        },
        // Poll only while a listed run can still change.
        |list: &RunList| list.runs.iter().all(|r| r.status.is_terminal()),
    );
    // Kept runs read again from the API on this page (see below), shown over their kept copy.
    // The runs picked to compare (two at most).
    let selected = RwSignal::new(Vec::<String>::new());
    let read_here = RwSignal::new(HashMap::<String, Run>::new());
    let asked = StoredValue::new(HashSet::<String>::new());
    // A run of the API's list that left it while the page was open: it is in the history now,
    // which is then read again (a large history is read only when needed).
    let left_the_list = RwSignal::new(0_u32);
    let last_listed = StoredValue::new(HashSet::<String>::new());
    Effect::new(move |_| {
        let ids: HashSet<String> = list.value.with(|l| {
            l.iter()
                .flat_map(|l| l.runs.iter().map(|r| r.id.clone()))
                .collect()
        });
        let left = last_listed.with_value(|before| before.iter().any(|id| !ids.contains(id)));
        last_listed.set_value(ids);
        if left {
            left_the_list.update(|n| *n += 1);
        }
    });
    // The workspace's history in this browser.
    let kept = LocalResource::new(move || {
        left_the_list.track();
        let workspace_id = workspace.id();
        async move {
            match workspace_id {
                Some(id) => History::read(&id).await,
                None => Ok(History::default()),
            }
        }
    });
    let view_of_url = Memo::new(move |_| {
        query.with(|q| {
            View::from_query(Query {
                status: q.get_str("status"),
                action: q.get_str("action"),
                text: q.get_str("q"),
                from: q.get_str("from"),
                until: q.get_str("until"),
                sort: q.get_str("sort"),
                order: q.get_str("order"),
                page: q.get_str("page"),
            })
        })
    });
    let show = {
        let navigate = navigate.clone();
        move |change: &dyn Fn(&mut View)| {
            let mut view = view_of_url.get_untracked();
            change(&mut view);
            navigate(&view.url(), in_place());
        }
    };
    let (show_status, show_action, show_text, show_from, show_until) =
        (show.clone(), show.clone(), show.clone(), show.clone(), show);
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
    // A kept run that was not final when last seen, and that the API's list no longer holds,
    // would stay queued or processing here for ever: while the page is open, such runs are read
    // from the API, a few at a time, every few seconds until they are final (as a run page
    // watches its run), and each answer kept.
    Effect::new(move |_| {
        // Again after each round: the next stale runs, if more than a round's were found.
        read_here.track();
        let listed: HashSet<String> = list.value.with_untracked(|l| {
            l.iter()
                .flat_map(|l| l.runs.iter().map(|r| r.id.clone()))
                .collect()
        });
        let stale: Vec<String> = kept.with(|history| {
            let Some(Ok(history)) = history else {
                return Vec::new();
            };
            asked.with_value(|asked| {
                history
                    .runs
                    .iter()
                    .filter(|k| !k.run.status.is_terminal())
                    .filter(|k| !listed.contains(&k.run.id) && !asked.contains(&k.run.id))
                    .take(STALE_READS_AT_ONCE)
                    .map(|k| k.run.id.clone())
                    .collect()
            })
        });
        let (Some(client), Some(id), false) = (
            session.client_untracked(),
            workspace.id_untracked(),
            stale.is_empty(),
        ) else {
            return;
        };
        asked.update_value(|asked| asked.extend(stale.iter().cloned()));
        leptos::task::spawn_local(async move {
            let mut watching = stale;
            for _ in 0..STALE_ROUNDS {
                let mut read = Vec::new();
                for run_id in &watching {
                    if let Ok(answer) = client.run(run_id).await {
                        read.push(answer.value);
                    }
                }
                if !read.is_empty() {
                    let _ = crate::archive::keep_runs(&id, &read).await;
                }
                // Shown over the kept copies; or the page was left, and the watch ends with it.
                let shown = read_here.try_update(|runs| {
                    for run in &read {
                        runs.insert(run.id.clone(), run.clone());
                    }
                });
                if shown.is_none() {
                    return;
                }
                watching = read
                    .into_iter()
                    .filter(|run| !run.status.is_terminal())
                    .map(|run| run.id)
                    .collect();
                if watching.is_empty() {
                    return;
                }
                crate::browser::sleep(STALE_READ_EVERY).await;
            }
        });
    });
    let missed = move || {
        kept.with(|history| match history {
            Some(Ok(history)) => history.reads.missed.clone(),
            _ => Vec::new(),
        })
    };
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
                <div class="control"><label for="filter-status">"Status"</label>
                    <select id="filter-status" on:change:target=move |ev| {
                        let chosen = ev.target().value();
                        show_status(&|v| {
                            v.status = RunStatus::ALL.into_iter().find(|s| s.as_str() == chosen);
                            v.page = 0;
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
                        show_action(&|v| {
                            v.action = chosen.clone();
                            v.page = 0;
                        });
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
                            show_text(&|v| {
                                v.text = text.trim().to_owned();
                                v.page = 0;
                            });
                        } /></div>
                <div class="control dates"><label for="filter-from">"Created from"</label>
                    <input id="filter-from" type="date"
                        prop:value=move || view_of_url.with(|v| v.from.map(|d| d.to_string()).unwrap_or_default())
                        on:change:target=move |ev| {
                            let from = parse_date(&ev.target().value());
                            show_from(&|v| {
                                v.from = from;
                                v.page = 0;
                            });
                        } />
                    <label for="filter-until">"until"</label>
                    <input id="filter-until" type="date"
                        prop:value=move || view_of_url.with(|v| v.until.map(|d| d.to_string()).unwrap_or_default())
                        on:change:target=move |ev| {
                            let until = parse_date(&ev.target().value());
                            show_until(&|v| {
                                v.until = until;
                                v.page = 0;
                            });
                        } /></div>
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
            {move || view_of_url.with(|v| v.bad_dates.clone()).into_iter().map(|d| view! {
                <p class="notice" role="status">
                    "The link asks for runs created on “" {d} "”, which is not a date such as 2026-01-31; that bound is left out."
                </p>
            }).collect_view()}
            {move || view_of_url.with(|v| v.unknown_status.clone()).map(|s| view! {
                <p class="notice" role="status">
                    "The link asks for runs with status “" {s} "”, which runs do not have; showing every status."
                </p>
            })}
            {move || kept.with(|k| matches!(k, Some(Err(())))).then(|| view! {
                <p class="notice" role="status" data-field="no-history">
                    "This browser keeps no history of runs (its storage is unavailable, as in some private windows): only the API's latest 100 are listed."
                </p>
            })}
            {move || view! { <MissedRuns spans=missed() /> }}
            <PollNotice transient=list.transient last_update=list.last_update />
            {move || match (list.value.get(), list.fatal.get()) {
                (_, Some(error)) => view! { <ApiErrorPanel error context="Loading the runs" /> }.into_any(),
                (None, None) => view! { <p class="loading">"Loading the runs…"</p> }.into_any(),
                // Nothing from the API, and the history still being read: not "No runs yet".
                (Some(list), None) if list.runs.is_empty() && kept.with(Option::is_none) => view! {
                    <p class="loading">"Reading the runs kept in this browser…"</p>
                }.into_any(),
                (Some(list), None) => {
                    let nothing_kept = History::default();
                    kept.with(|history| {
                        // The API's runs are shown at once; the history joins them once read.
                        let reading = history.is_none();
                        let history = match history {
                            Some(Ok(history)) => history,
                            _ => &nothing_kept,
                        };
                        read_here.with(|read_here| {
                            view_of_url.with(|v| runs_table(&listed(&list.runs, history, read_here), v, reading, selected))
                        })
                    })
                }
            }}
        </section>
    }
}

/// The runs table for `view`; `reading`: the history kept in this browser is still being read,
/// so only the API's runs are listed yet.
fn runs_table(
    runs: &[ListedRun<'_>],
    view: &View,
    reading: bool,
    selected: RwSignal<Vec<String>>,
) -> AnyView {
    let matching = view.apply(runs);
    if runs.is_empty() {
        return view! {
            <p class="muted" data-field="no-runs">"No runs yet. " <a href="/actions">"Submit an action"</a> " to start one."</p>
        }
        .into_any();
    }
    if matching.is_empty() && reading {
        return view! { <p class="loading">"Reading the runs kept in this browser…"</p> }
            .into_any();
    }
    if matching.is_empty() {
        return view! {
            <p class="muted" data-field="no-runs">"No runs match these filters. " <a href="/runs">"Show all runs"</a> "."</p>
        }
        .into_any();
    }
    let now = Utc::now();
    let from_api = runs.iter().filter(|r| r.source == RunSource::Api).count();
    let kept_here = runs.len() - from_api;
    let pages = matching.len().div_ceil(RUNS_PER_PAGE);
    let page = view.page.min(pages - 1);
    let first = page * RUNS_PER_PAGE;
    let count = format!(
        "Showing {}–{} of {} matching runs; {} listed: {} from the API's latest 100, {} kept in this browser.",
        group_thousands((first + 1) as u64),
        group_thousands((first + RUNS_PER_PAGE).min(matching.len()) as u64),
        group_thousands(matching.len() as u64),
        group_thousands(runs.len() as u64),
        group_thousands(from_api as u64),
        group_thousands(kept_here as u64),
    );
    let count = if reading {
        format!("{count} Reading the runs kept in this browser…")
    } else {
        count
    };
    let rows = matching
        .into_iter()
        .skip(first)
        .take(RUNS_PER_PAGE)
        .map(|listed| {
            let run = listed.run;
            let short_id: String = run.id.chars().take(8).collect();
            let error = run.error.as_ref().map(|e| e.code.clone());
            let (source, source_label) = match listed.source {
                RunSource::Api => ("api", "API"),
                RunSource::KeptHere => ("kept", "This browser"),
            };
            let (id, checked_id) = (run.id.clone(), run.id.clone());
            view! {
                <tr data-run=run.id.clone() data-source=source>
                    <td class="select"><input type="checkbox" aria-label=format!("Select run {} to compare", run.id)
                        prop:checked=move || selected.with(|s| s.contains(&checked_id))
                        on:change:target=move |ev| {
                            let on = ev.target().checked();
                            selected.update(|s| select_for_comparison(s, &id, on));
                        } /></td>
                    <td><a href=run_path(&run.id) title=run.id.clone()
                        aria-label=format!("Run {}", run.id)><code>{short_id}</code></a></td>
                    <td>{local_time(run.created_at)}<span class="age">{age(now, run.created_at)}</span></td>
                    <td><code>{run.action.clone()}</code></td>
                    <td><RunStatusBadge status=run.status /></td>
                    <td class="num">{listed.records}</td>
                    <td class="num">{group_thousands(run.credits_used)}</td>
                    <td class="num">{group_thousands(run.credits_reserved)}</td>
                    <td class="num">{run_duration(run.created_at, run.completed_at)}</td>
                    <td>{error.map(|code| view! { <code class="error-code">{code}</code> })}</td>
                    <td data-field="source">{source_label}</td>
                </tr>
            }
        })
        .collect_view();
    // The pages are links: a page of a view can be shared, and Back goes to the one before.
    let page_url = |page: usize| {
        View {
            page,
            ..view.clone()
        }
        .url()
    };
    let (previous, next) = (page_url(page.saturating_sub(1)), page_url(page + 1));
    view! {
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
        <div class="table-wrap">
            <table class="runs-table" data-field="runs-table">
                <thead><tr>
                    <th scope="col"><span class="sr-only">"Compare"</span></th>
                    <th scope="col">"Run"</th>
                    {SortBy::ALL.into_iter().map(|column| sort_heading(view, column)).collect_view()}
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {(pages > 1).then(|| view! {
            <nav class="pager" aria-label="Pages of runs">
                {(page > 0).then(|| view! { <a class="button secondary" href=previous rel="prev">"Previous"</a> })}
                <span data-field="runs-page">{format!("Page {} of {}", page + 1, pages)}</span>
                {(page + 1 < pages).then(|| view! { <a class="button secondary" href=next rel="next">"Next"</a> })}
            </nav>
        })}
    }
    .into_any()
}

/// The runs picked for a comparison after `id` was checked (`on`) or unchecked: two at most,
/// a third replacing the one picked first.
fn select_for_comparison(selected: &mut Vec<String>, id: &str, on: bool) {
    selected.retain(|s| s != id);
    if on {
        selected.push(id.to_owned());
        if selected.len() > 2 {
            selected.remove(0);
        }
    }
}

/// A column's heading: a link that sorts the list by it (again: the other way), with
/// `aria-sort` on the column the list is sorted by.
fn sort_heading(view: &View, column: SortBy) -> impl IntoView + use<> {
    let active = view.sort == column;
    let aria_sort = active.then_some(if view.descending {
        "descending"
    } else {
        "ascending"
    });
    let arrow = active.then_some(if view.descending { " ↓" } else { " ↑" });
    view! {
        <th scope="col" class=column.is_numeric().then_some("num") aria-sort=aria_sort>
            <a class="sort" href=view.sorted_by(column).url()>{column.label()}</a>
            <span aria-hidden="true">{arrow}</span>
        </th>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_at_most_are_picked_for_a_comparison() {
        let mut selected = Vec::new();
        select_for_comparison(&mut selected, "a", true);
        select_for_comparison(&mut selected, "b", true);
        select_for_comparison(&mut selected, "c", true);
        assert_eq!(selected, ["b", "c"]);
        select_for_comparison(&mut selected, "b", false);
        assert_eq!(selected, ["c"]);
    }

    fn query(pairs: &[(&str, &'static str)]) -> View {
        let get = |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        View::from_query(Query {
            status: get("status"),
            action: get("action"),
            text: get("q"),
            from: get("from"),
            until: get("until"),
            sort: get("sort"),
            order: get("order"),
            page: get("page"),
        })
    }

    #[test]
    fn the_url_round_trips_the_view() {
        let view = query(&[
            ("status", "failed"),
            ("action", "a b&c"),
            ("q", " Rate limited "),
            ("from", "2026-11-01"),
            ("until", "2026-11-24"),
            ("order", "oldest"),
            ("page", "3"),
        ]);
        assert_eq!(view.status, Some(RunStatus::Failed));
        assert_eq!(
            view.url(),
            "/runs?status=failed&action=a%20b%26c&q=Rate%20limited&from=2026-11-01&until=2026-11-24&order=oldest&page=3"
        );
        assert_eq!(View::default().url(), "/runs");
        assert_eq!(
            query(&[("q", ""), ("order", "newest"), ("page", "1")]).url(),
            "/runs",
            "newest first and the first page are the default"
        );
        let by_credits = query(&[("sort", "credits"), ("order", "asc")]);
        assert_eq!(
            (by_credits.sort, by_credits.descending),
            (SortBy::Credits, false)
        );
        assert_eq!(by_credits.url(), "/runs?sort=credits&order=asc");
    }

    #[test]
    fn an_unknown_status_or_date_is_reported_not_silently_dropped() {
        let view = query(&[
            ("status", "finished"),
            ("from", "yesterday"),
            ("until", "2026-02-30"),
        ]);
        assert_eq!(view.status, None);
        assert_eq!(view.unknown_status.as_deref(), Some("finished"));
        assert_eq!(view.bad_dates, vec!["yesterday", "2026-02-30"]);
        assert_eq!(view.url(), "/runs", "choosing a filter drops them");
        assert_eq!(query(&[("status", ""), ("page", "x")]).unknown_status, None);
    }

    fn run_at(id: &str, hour: u32, credits: u64, error: Option<&str>) -> Run {
        serde_json::from_value(serde_json::json!({
            "id": id, "action": "premium-search-people",
            "status": if error.is_some() { "failed" } else { "completed" },
            "output": [], "credits_used": credits, "credits_reserved": 0,
            "created_at": format!("2026-11-24T{hour:02}:00:00.000Z"),
            "completeness": {"has_more": false, "scope": "single_page"},
            "error": error.map(|code| serde_json::json!({"code": code, "message": "The source did not answer"}))
        }))
        .unwrap()
    }

    #[test]
    fn the_text_is_found_in_the_id_action_error_and_input_in_any_case() {
        let run = run_at("run_AbC123", 9, 0, Some("upstream_timeout"));
        let input =
            serde_json::json!({"keywords": "Ada Lovelace", "company": "Analytical Engines"});
        let listed = ListedRun {
            run: &run,
            records: 0,
            source: RunSource::Api,
            search: Cow::Owned(search_text(&run, Some(&input))),
        };
        for found in [
            "abc1",
            "PEOPLE",
            "upstream_",
            "did not answer",
            "lovelace",
            "ANALYTICAL",
        ] {
            assert!(matches_text(&listed, &found.to_lowercase()), "{found}");
        }
        assert!(!matches_text(&listed, "companies"));
        assert!(matches_text(&listed, ""));
        let without_input = ListedRun {
            search: Cow::Owned(search_text(&run, None)),
            ..listed
        };
        assert!(!matches_text(&without_input, "lovelace"));
    }

    #[test]
    fn any_column_sorts_both_ways_and_equals_keep_the_newest_first() {
        let runs = [
            run_at("a", 9, 5, None),
            run_at("b", 10, 1, Some("upstream_timeout")),
            run_at("c", 11, 5, None),
        ];
        let listed: Vec<ListedRun> = runs
            .iter()
            .map(|run| ListedRun {
                run,
                records: 0,
                source: RunSource::Api,
                search: Cow::Borrowed(""),
            })
            .collect();
        let ids = |view: &View| -> Vec<String> {
            view.apply(&listed)
                .iter()
                .map(|r| r.run.id.clone())
                .collect()
        };
        assert_eq!(ids(&View::default()), ["c", "b", "a"]);
        let by_credits = View::default().sorted_by(SortBy::Credits);
        assert!(by_credits.descending, "the largest first");
        assert_eq!(
            ids(&by_credits),
            ["c", "a", "b"],
            "equals: the newest first"
        );
        assert_eq!(
            ids(&by_credits.sorted_by(SortBy::Credits)),
            ["b", "c", "a"],
            "again: the smallest first, equals still the newest first"
        );
        let by_error = View::default().sorted_by(SortBy::Error);
        assert!(!by_error.descending, "text A to Z first");
        assert_eq!(
            ids(&by_error),
            ["c", "a", "b"],
            "no error before an error code"
        );
        assert_eq!(
            ids(&View::default().sorted_by(SortBy::Created)),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn a_date_range_keeps_the_runs_created_on_those_days() {
        let run = run_at("a", 12, 0, None);
        let listed = [ListedRun {
            run: &run,
            records: 0,
            source: RunSource::KeptHere,
            search: Cow::Borrowed(""),
        }];
        let day = run.created_at.with_timezone(&Local).date_naive();
        let within = |from: Option<NaiveDate>, until: Option<NaiveDate>| {
            let view = View {
                from,
                until,
                ..View::default()
            };
            view.apply(&listed).len() == 1
        };
        assert!(within(Some(day), Some(day)));
        assert!(within(None, Some(day)));
        assert!(!within(day.succ_opt(), None));
        assert!(!within(None, day.pred_opt()));
    }
}
