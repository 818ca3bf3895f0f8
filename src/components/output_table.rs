//! A run's records as a table: a column per key, text only, with copy and the chained actions.
//!
//! The rules are those of [`crate::model::output`]: every value is inserted as text (never as
//! HTML), only [`safe_link`] URLs become links, long text is shortened with the whole text a
//! click away, nested values are summarised and expand to indented JSON.

use leptos::prelude::*;
use serde_json::Value;

use crate::model::output::{
    cell, chain_links, columns, plain, pretty, safe_link, shorten, summary, visible,
};

/// `<table class="output-table">`: `#`, the records' keys, then per row a Copy button and the
/// record's chained actions. Records of a finished run never change, so the rows are built once,
/// in two slices: the rows a tall window can show are built with the page, the rest one frame
/// after it has been painted. A 100-record table costs about 60 ms of script and 60 ms of layout;
/// the first slice is what anyone sees at once, so it is on screen in a fraction of that.
#[component]
pub fn OutputTable(
    /// The action that produced the records (it decides the chained actions).
    action: String,
    /// The run's `output`.
    records: StoredValue<Vec<Value>>,
    /// Called with a record's index when its Copy button is pressed.
    on_copy: Callback<usize>,
) -> impl IntoView {
    let columns = records.with_value(|r| columns(r));
    let head = columns
        .iter()
        .map(|name| view! { <th scope="col">{name.clone()}</th> })
        .collect_view();
    let count = records.with_value(Vec::len);
    let first = first_slice(window().inner_height().ok().and_then(|h| h.as_f64()), count);
    let rows = {
        let (action, columns) = (action.clone(), columns.clone());
        move |range: std::ops::Range<usize>| {
            records.with_value(|records| {
                records[range.clone()]
                    .iter()
                    .zip(range)
                    .map(|(record, i)| record_row(i, record, &columns, &action, on_copy))
                    .collect_view()
                    .into_any()
            })
        }
    };
    let first_rows = rows(0..first);
    let rest_shown = RwSignal::new(false);
    if first < count {
        // A timeout set from an animation frame runs after that frame, with the first slice, has
        // been painted. If the table is gone by then (the JSON view, another page), nothing is set.
        request_animation_frame(move || {
            set_timeout(
                move || {
                    rest_shown.try_set(true);
                },
                std::time::Duration::ZERO,
            )
        });
    }
    view! {
        <table class="output-table" data-field="output-table">
            <thead>
                <tr>
                    <th scope="col">"#"</th>
                    {head}
                    <th scope="col">"Actions"</th>
                </tr>
            </thead>
            <tbody>
                {first_rows}
                {move || rest_shown.get().then(|| rows(first..count))}
            </tbody>
        </table>
    }
}

/// Height of the shortest row (one line of text), in CSS pixels.
const SHORTEST_ROW_PX: f64 = 40.0;

/// The least the run page puts above the table (title, summary, output toolbar), in CSS pixels;
/// about 590 at 1280 px wide, more on narrower windows.
const TABLE_TOP_MIN_PX: f64 = 400.0;

/// Rows built with the page: enough to fill the rest of a window of `height` CSS pixels below the
/// table's top with one-line rows (at least 8, at most 60; 25 when the height is unknown), never
/// more than `count`.
fn first_slice(height: Option<f64>, count: usize) -> usize {
    let fill = height
        .filter(|h| h.is_finite() && *h > 0.0)
        .map_or(25, |h| {
            ((h - TABLE_TOP_MIN_PX).max(0.0) / SHORTEST_ROW_PX).ceil() as usize
        });
    fill.clamp(8, 60).min(count)
}

/// One record's row: its number, a cell per column, then Copy and the chained actions.
fn record_row(
    i: usize,
    record: &Value,
    columns: &[String],
    action: &str,
    on_copy: Callback<usize>,
) -> impl IntoView + use<> {
    let cells = columns
        .iter()
        .map(|column| view! { <td>{cell(record, column).map(value_view)}</td> })
        .collect_view();
    let chained = chain_links(action, record)
        .into_iter()
        .map(|(label, href)| view! { <a class="button secondary small" href=href>{label}</a> })
        .collect_view();
    view! {
        <tr>
            <th scope="row" class="num">{i + 1}</th>
            {cells}
            <td class="row-actions">
                <button type="button" class="button link" on:click=move |_| on_copy.run(i)>
                    "Copy"
                </button>
                {chained}
            </td>
        </tr>
    }
}

/// One value in a cell: a clean `https:` URL as a link, long text shortened with the whole text
/// a click away, a nested value as a summary that expands to indented JSON, else text.
fn value_view(value: &Value) -> AnyView {
    match value {
        Value::String(text) => match (safe_link(text), shorten(text)) {
            (Some(url), (short, cut)) => {
                let label = if cut {
                    format!("{short}…")
                } else {
                    short.to_owned()
                };
                view! { <a href=url.to_owned() rel="noopener noreferrer" target="_blank">{label}</a> }
                    .into_any()
            }
            (None, (_, false)) => visible(text).into_any(),
            (None, (short, true)) => {
                let label = format!("{}… ({} characters)", visible(short), text.chars().count());
                view! {
                    <details class="long">
                        <summary>{label}</summary>
                        <span class="full-text">{visible(text)}</span>
                    </details>
                }
                .into_any()
            }
        },
        Value::Object(_) | Value::Array(_) => view! {
            <details class="nested">
                <summary>{summary(value)}</summary>
                <pre class="code" tabindex="0">{pretty(value)}</pre>
            </details>
        }
        .into_any(),
        scalar => plain(scalar).into_any(),
    }
}

#[cfg(test)]
mod tests {
    use super::first_slice;

    #[test]
    fn the_first_slice_fills_the_window_with_one_line_rows() {
        assert_eq!(first_slice(Some(860.0), 100), 12);
        assert_eq!(first_slice(Some(2160.0), 100), 44);
        // Bounds: a tiny or unknown window still gets a screenful, a huge one at most 60.
        assert_eq!(first_slice(Some(100.0), 100), 8);
        assert_eq!(first_slice(Some(9000.0), 100), 60);
        assert_eq!(first_slice(None, 100), 25);
        assert_eq!(first_slice(Some(f64::NAN), 100), 25);
        // Never more rows than there are.
        assert_eq!(first_slice(Some(860.0), 3), 3);
        assert_eq!(first_slice(Some(860.0), 0), 0);
    }
}
