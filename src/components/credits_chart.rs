//! Credits over time as an SVG bar chart (stacked by action group), with a legend, the same
//! numbers as a table on demand, and the per-action breakdown.

use leptos::prelude::*;

use crate::model::credits::{CreditsOverTime, SERIES, axis_label, bucket_label, nice_ceiling};
use crate::model::format::group_thousands;

// The drawing's own units (the SVG scales to its box): the plot area and the labels around it.
const WIDTH: u64 = 640;
const HEIGHT: u64 = 230;
const LEFT: u64 = 72;
const RIGHT: u64 = 8;
const TOP: u64 = 12;
const BOTTOM: u64 = 200;
/// At most this many labels under the bars (half of them on a narrow screen: `.minor`).
const AXIS_LABELS: usize = 8;
/// Bars are never wider than a twelfth of the plot, so one bucket is a bar, not a block.
const MIN_SLOTS: u64 = 12;

/// The chart of `data`, or a sentence when it holds no spending; `scope` says what it covers.
#[component]
pub fn CreditsChart(data: CreditsOverTime, scope: String) -> impl IntoView {
    let reserved = (data.in_progress > 0).then(|| {
        let runs = if data.in_progress == 1 {
            "run in progress holds "
        } else {
            "runs in progress hold "
        };
        view! {
            <p class="muted" data-field="credits-reserved">
                {data.in_progress} " " {runs}
                <strong>{group_thousands(data.reserved)}</strong>
                " credits in reserve, counted once they finish."
            </p>
        }
    });
    if data.columns.is_empty() {
        return view! {
            <p class="muted" data-field="credits-empty">"No finished runs yet, so no credits spent. " {scope}</p>
            {reserved}
        }
        .into_any();
    }
    let summary = format!(
        "{} credits spent, {}, over {} buckets from {} to {}",
        group_thousands(data.total),
        data.bucket.per(),
        data.columns.len(),
        bucket_label(data.bucket, data.columns[0].start),
        bucket_label(data.bucket, data.columns[data.columns.len() - 1].start),
    );
    view! {
        <p class="muted" data-field="credits-scope">{scope}</p>
        <p>
            <strong data-field="credits-total">{group_thousands(data.total)}</strong>
            " credits spent, shown " {data.bucket.per()} "."
        </p>
        {reserved}
        <figure class="chart">
            {bars(&data, summary)}
            <ul class="legend">
                {SERIES.iter().enumerate().map(|(i, label)| view! {
                    <li><span class=format!("swatch series-{i}") aria-hidden="true"></span>{*label}</li>
                }).collect_view()}
            </ul>
        </figure>
        <details class="chart-table">
            <summary>"The chart's numbers as a table"</summary>
            // Focusable: on a narrow screen it scrolls sideways, also for keyboard users.
            <div class="table-wrap" tabindex="0" role="region" aria-label="Credits per bucket">{bucket_table(&data)}</div>
        </details>
        <h4 class="section-title">"By action"</h4>
        <div class="table-wrap" tabindex="0" role="region" aria-label="Credits by action">{action_table(&data)}</div>
    }
    .into_any()
}

/// The bars: one per bucket, one stacked segment per series with credits in it.
fn bars(data: &CreditsOverTime, summary: String) -> impl IntoView {
    let top = nice_ceiling(data.peak());
    let plot = WIDTH - LEFT - RIGHT;
    let n = data.columns.len() as u64;
    let slot = (plot / n.max(MIN_SLOTS)).max(1);
    let gap = slot / 6;
    let height = |credits: u64| credits * (BOTTOM - TOP) / top;
    let every = data.columns.len().div_ceil(AXIS_LABELS);
    let mut segments = Vec::new();
    let mut labels = Vec::new();
    for (i, column) in data.columns.iter().enumerate() {
        let x = LEFT + i as u64 * slot + gap;
        let mut y = BOTTOM;
        let when = bucket_label(data.bucket, column.start);
        for (series, credits) in column.credits.iter().enumerate().filter(|(_, c)| **c > 0) {
            let h = height(*credits).max(1);
            y -= h;
            let title = format!(
                "{when} · {}: {} credits",
                SERIES[series],
                group_thousands(*credits)
            );
            segments.push(view! {
                <rect class=format!("series-{series}") x=x y=y width=(slot - 2 * gap).max(1) height=h>
                    <title>{title}</title>
                </rect>
            });
        }
        if i % every == 0 {
            let first_of_day = i == 0 || data.columns[i - 1].start.date() != column.start.date();
            let class = if (i / every).is_multiple_of(2) {
                "axis"
            } else {
                "axis minor"
            };
            labels.push(view! {
                <text class=class x=x y=BOTTOM + 18>{axis_label(data.bucket, column.start, first_of_day)}</text>
            });
        }
    }
    view! {
        <svg class="chart-bars" viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=summary
            preserveAspectRatio="xMinYMin meet">
            <line class="grid" x1=LEFT y1=TOP x2=WIDTH - RIGHT y2=TOP />
            <line class="grid" x1=LEFT y1=(TOP + BOTTOM) / 2 x2=WIDTH - RIGHT y2=(TOP + BOTTOM) / 2 />
            <line class="baseline" x1=LEFT y1=BOTTOM x2=WIDTH - RIGHT y2=BOTTOM />
            <text class="axis" x=LEFT - 6 y=TOP + 4 text-anchor="end">{group_thousands(top)}</text>
            <text class="axis" x=LEFT - 6 y=(TOP + BOTTOM) / 2 + 4 text-anchor="end">{group_thousands(top / 2)}</text>
            <text class="axis" x=LEFT - 6 y=BOTTOM + 4 text-anchor="end">"0"</text>
            {segments}
            {labels}
        </svg>
    }
}

/// Every bucket with its credits per series and in total.
fn bucket_table(data: &CreditsOverTime) -> impl IntoView {
    let rows = data
        .columns
        .iter()
        .map(|column| {
            view! {
                <tr>
                    <th scope="row">{bucket_label(data.bucket, column.start)}</th>
                    {column.credits.iter().map(|c| view! { <td class="num">{group_thousands(*c)}</td> }).collect_view()}
                    <td class="num" data-field="bucket-total">{group_thousands(column.total())}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table" data-field="credits-table">
            <thead><tr>
                <th scope="col">"When"</th>
                {SERIES.iter().map(|s| view! { <th scope="col" class="num">{*s}</th> }).collect_view()}
                <th scope="col" class="num">"Total"</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Runs, records and credits per action, most credits first.
fn action_table(data: &CreditsOverTime) -> impl IntoView {
    let rows = data
        .by_action
        .iter()
        .map(|a| {
            view! {
                <tr data-action=a.action.clone()>
                    <th scope="row"><span class=format!("swatch series-{}", a.series) aria-hidden="true"></span>
                        <code>{a.action.clone()}</code></th>
                    <td class="num">{a.runs}</td>
                    <td class="num" data-field="records">{group_thousands(a.records)}</td>
                    <td class="num" data-field="credits">{group_thousands(a.credits)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table" data-field="credits-by-action">
            <thead><tr>
                <th scope="col">"Action"</th><th scope="col" class="num">"Finished runs"</th>
                <th scope="col" class="num">"Records"</th><th scope="col" class="num">"Credits"</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
