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
/// record's chained actions. The table is built once: records of a finished run never change.
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
    let rows = records.with_value(|records| {
        records
            .iter()
            .enumerate()
            .map(|(i, record)| {
                let cells = columns
                    .iter()
                    .map(|column| view! { <td>{cell(record, column).map(value_view)}</td> })
                    .collect_view();
                let chained = chain_links(&action, record)
                    .into_iter()
                    .map(|(label, href)| {
                        view! { <a class="button secondary small" href=href>{label}</a> }
                    })
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
            })
            .collect_view()
    });
    view! {
        <table class="output-table" data-field="output-table">
            <thead>
                <tr>
                    <th scope="col">"#"</th>
                    {head}
                    <th scope="col">"Actions"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
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
