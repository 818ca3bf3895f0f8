//! `/credits`: credits over time over the history this browser keeps (`crate::archive`), not
//! only the API's latest 100 runs: by day, week or month over a chosen range, with the
//! per-action breakdown, saying what the numbers cover. The range and the bucket are in the URL
//! (`?range=90d&per=week`).

use api_contract::RUN_LIST_LIMIT;
use chrono::{Duration, Local, NaiveDateTime, NaiveTime};
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_query_map};

use crate::api::ApiError;
use crate::app::in_place;
use crate::archive;
use crate::components::{ApiErrorPanel, CreditsChart, MissedRuns};
use crate::model::archive::{KeptRun, MissedSpan};
use crate::model::credits::{Bucket, CreditsOverTime, Span, SpentRun};
use crate::model::format::{counted, local_time};
use crate::state::session::use_session;
use crate::state::workspace::use_workspace;

/// A span of time the chart can cover, ending now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    /// Its name in the URL.
    key: &'static str,
    label: &'static str,
    /// Today and the days before it; `None`: everything this browser keeps.
    days: Option<i64>,
    /// The bucket it is shown in unless the URL says otherwise.
    bucket: Bucket,
}

const RANGES: [Range; 5] = [
    Range {
        key: "7d",
        label: "Last 7 days",
        days: Some(7),
        bucket: Bucket::Day,
    },
    Range {
        key: "30d",
        label: "Last 30 days",
        days: Some(30),
        bucket: Bucket::Day,
    },
    Range {
        key: "90d",
        label: "Last 90 days",
        days: Some(90),
        bucket: Bucket::Week,
    },
    Range {
        key: "365d",
        label: "Last 12 months",
        days: Some(365),
        bucket: Bucket::Month,
    },
    Range {
        key: "all",
        label: "Everything kept",
        days: None,
        bucket: Bucket::Month,
    },
];

/// The buckets a person can choose, with their names in the URL.
const BUCKETS: [(&str, &str, Bucket); 3] = [
    ("day", "Day", Bucket::Day),
    ("week", "Week", Bucket::Week),
    ("month", "Month", Bucket::Month),
];

/// The page's view as the URL gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct View {
    range: Range,
    bucket: Bucket,
}

impl View {
    fn from_query(range: Option<&str>, per: Option<&str>) -> View {
        let range = RANGES
            .into_iter()
            .find(|r| Some(r.key) == range)
            .unwrap_or(RANGES[1]);
        let bucket = BUCKETS
            .into_iter()
            .find(|(key, ..)| Some(*key) == per)
            .map_or(range.bucket, |(.., bucket)| bucket);
        View { range, bucket }
    }

    fn url(self) -> String {
        let per = BUCKETS
            .into_iter()
            .find(|(.., bucket)| *bucket == self.bucket)
            .map_or("day", |(key, ..)| key);
        format!("/credits?range={}&per={per}", self.range.key)
    }
}

/// The workspace's history as this browser keeps it, after a read of the API's latest runs.
#[derive(Clone, Debug, Default)]
struct History {
    runs: Vec<KeptRun>,
    /// When this browser started keeping it, ms since the epoch.
    since: Option<f64>,
    missed: Vec<MissedSpan>,
    /// The API's list could not be read: the history is shown as it was.
    list_error: Option<ApiError>,
}

#[component]
pub fn CreditsPage() -> impl IntoView {
    let session = use_session();
    let workspace = use_workspace();
    let navigate = use_navigate();
    let query = use_query_map();
    let view_of_url =
        Memo::new(move |_| query.with(|q| View::from_query(q.get_str("range"), q.get_str("per"))));
    let history = LocalResource::new(move || {
        let workspace_id = workspace.id();
        let client = session.client_untracked();
        async move {
            let Some(id) = workspace_id else {
                return Ok(None);
            };
            // The API's latest runs join the history first, so that it holds them as they are.
            let mut list_error = None;
            match client.ok_or(ApiError::SignedOut)?.runs().await {
                Ok(read) => {
                    let _ = archive::keep_list(&id, &read.value.runs).await;
                }
                Err(error) => list_error = Some(error),
            }
            let read = async {
                Ok::<_, ()>(History {
                    runs: archive::kept_runs(&id).await?,
                    since: archive::kept_since(&id).await?,
                    missed: archive::list_reads(&id).await?.missed,
                    list_error,
                })
            };
            Ok(read.await.ok())
        }
    });
    let show = move |change: &dyn Fn(&mut View)| {
        let mut view = view_of_url.get_untracked();
        change(&mut view);
        navigate(&view.url(), in_place());
    };
    let show_range = show.clone();
    view! {
        <section class="page">
            <h1>"Credits over time"</h1>
            <p class="lead">"Where the workspace's credits went, from the runs this browser has seen: the API lists only the latest " {RUN_LIST_LIMIT} ", so older runs come from the history kept here ("
                <a href="/storage">"what this browser keeps"</a>")."</p>
            <div class="toolbar">
                <div class="control"><label for="credits-range">"Range"</label>
                    <select id="credits-range" on:change:target=move |ev| {
                        let chosen = ev.target().value();
                        show_range(&|v| {
                            if let Some(range) = RANGES.into_iter().find(|r| r.key == chosen) {
                                v.range = range;
                                v.bucket = range.bucket;
                            }
                        });
                    }>
                        {RANGES.into_iter().map(|r| view! {
                            <option value=r.key selected=move || view_of_url.with(|v| v.range == r)>{r.label}</option>
                        }).collect_view()}
                    </select></div>
                <div class="control"><label for="credits-per">"Per"</label>
                    <select id="credits-per" on:change:target=move |ev| {
                        let chosen = ev.target().value();
                        show(&|v| {
                            if let Some((.., bucket)) = BUCKETS.into_iter().find(|(key, ..)| *key == chosen) {
                                v.bucket = bucket;
                            }
                        });
                    }>
                        {BUCKETS.into_iter().map(|(key, label, bucket)| view! {
                            <option value=key selected=move || view_of_url.with(|v| v.bucket == bucket)>{label}</option>
                        }).collect_view()}
                    </select></div>
            </div>
            {move || match history.get() {
                None => view! { <p class="loading">"Reading the history…"</p> }.into_any(),
                Some(Err(error)) => view! { <ApiErrorPanel error context="Loading the workspace" /> }.into_any(),
                Some(Ok(None)) => view! {
                    <p class="notice" role="status" data-field="no-history">
                        "This browser keeps no history of runs (its storage is unavailable, as in some private windows). The workspace page shows the API's latest " {RUN_LIST_LIMIT} "."
                    </p>
                }.into_any(),
                Some(Ok(Some(history))) => chart(&history, view_of_url.get()).into_any(),
            }}
        </section>
    }
}

/// The chart over the view's range, and what it covers.
fn chart(history: &History, view: View) -> impl IntoView + use<> {
    let now = Local::now().naive_local();
    let spent: Vec<SpentRun> = history
        .runs
        .iter()
        .map(|kept| SpentRun {
            run: &kept.run,
            records: kept.records as u64,
        })
        .collect();
    let from = match view.range.days {
        Some(days) => Some((now.date() - Duration::days(days - 1)).and_time(NaiveTime::MIN)),
        // Everything: from the oldest finished run kept.
        None => history
            .runs
            .iter()
            .filter(|k| k.run.status.is_terminal())
            .map(|k| {
                k.run
                    .completed_at
                    .unwrap_or(k.run.created_at)
                    .with_timezone(&Local)
                    .naive_local()
            })
            .min(),
    };
    let span = from.map(|from: NaiveDateTime| Span {
        bucket: view.bucket,
        from,
        until: now,
    });
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
        <CreditsChart data scope />
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_chooses_the_range_and_the_bucket_with_defaults_for_each_range() {
        let view = View::from_query(Some("90d"), None);
        assert_eq!((view.range.days, view.bucket), (Some(90), Bucket::Week));
        assert_eq!(view.url(), "/credits?range=90d&per=week");
        let view = View::from_query(Some("365d"), Some("day"));
        assert_eq!(view.bucket, Bucket::Day);
        let default = View::from_query(None, Some("fortnight"));
        assert_eq!((default.range.key, default.bucket), ("30d", Bucket::Day));
    }
}
