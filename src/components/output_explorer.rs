//! A run's records to explore: identity columns first, columns chosen and reordered (kept in
//! this browser per action), sorted by any column, filtered as one types, every record in one
//! scrolling table that draws only the rows near the view (`WindowedTable`), the current view
//! exported as CSV, JSON or JSON Lines (`model::explore`), or all of them as JSON.
//!
//! The rules of [`crate::model::output`] hold for every cell: every value is inserted as text
//! (never as HTML), only [`safe_link`] URLs become links, long text is shortened with the whole
//! text a click away, nested values are summarised and expand to indented JSON.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use serde_json::Value;

use super::{RealDataGate, RealDataQuestion, WindowedTable};
use crate::browser::{copy_text, download, sleep};
use crate::model::explore::{ColumnChoice, ColumnState, Explorer, SortBy};
use crate::model::format::{counted, group_thousands};
use crate::model::output::{
    cell, chain_links, plain, pretty, safe_link, shorten, summary, visible,
};
use crate::model::presenter::MaskedRecords;
use crate::model::slice_pace::SlicePace;
use crate::state::presenter::use_masker;

/// Where an action's column choice is kept in this browser (not a secret: column names).
fn choice_key(action: &str) -> String {
    format!("console.columns.{action}")
}

fn remembered_choice(action: &str) -> ColumnChoice {
    window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item(&choice_key(action)).ok().flatten())
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

fn remember_choice(action: &str, choice: &ColumnChoice) {
    if let (Some(storage), Ok(json)) = (
        window().local_storage().ok().flatten(),
        serde_json::to_string(choice),
    ) {
        let _ = storage.set_item(&choice_key(action), &json);
    }
}

/// The records as a table to explore, or as JSON; `name` is the exports' file name without
/// its extension; `notice` says what the last copy or export did.
#[component]
pub fn OutputExplorer(
    /// The action that produced the records (it decides the chained actions and where the
    /// column choice is kept).
    action: String,
    /// The records (a `Vec` or a shared slice: nothing is copied).
    #[prop(into)]
    records: Arc<[Value]>,
    /// The records' columns (`output::columns`), when the caller found them already.
    #[prop(optional)]
    columns: Option<Vec<String>>,
    /// The records masked already (read a slice at a time in presenter mode); used when
    /// presenter mode is on with the same masker, else they are masked here.
    #[prop(optional_no_strip)]
    masked: Option<MaskedRecords>,
    /// The exports' file name, without the extension.
    name: String,
    /// Set to a sentence after a copy or an export.
    notice: RwSignal<&'static str>,
) -> impl IntoView {
    // In presenter mode the table, the JSON, the filter, the sort and the copies work on the
    // masked records; the real ones are kept for an export the person says yes to.
    let masker = use_masker();
    let gate = RealDataGate::default();
    let (records, real) = if masker.is_on() {
        let masked: Arc<[Value]> = match masked {
            Some(done) if done.by == masker && done.records.len() == records.len() => done.records,
            _ => records.iter().map(|record| masker.json(record)).collect(),
        };
        (masked, Some(StoredValue::new(records)))
    } else {
        (records, None)
    };
    let explorer = StoredValue::new(match columns {
        Some(found) => Explorer::with_columns(found, records),
        None => Explorer::new(records),
    });
    prepare_search_after_first_screenful(explorer);
    let count = explorer.with_value(|e| e.records.len());
    let choice = RwSignal::new(remembered_choice(&action));
    let arranged =
        Memo::new(move |_| choice.with(|c| explorer.with_value(|e| c.arrange(&e.found))));
    let columns = Memo::new(move |_| {
        arranged.with(|a| {
            a.iter()
                .filter(|c| c.shown)
                .map(|c| c.name.clone())
                .collect::<Vec<_>>()
        })
    });
    let filter = RwSignal::new(String::new());
    let sort = RwSignal::new(None::<SortBy>);
    let shown = Memo::new(move |_| {
        let typed = filter.get();
        sort.with(|sort| explorer.with_value(|e| e.view(&typed, sort.as_ref())))
    });
    let show_json = RwSignal::new(false);

    let name = StoredValue::new(name);
    let export = move |format: ExportFormat| {
        let (shown, columns) = (shown.get_untracked(), columns.get_untracked());
        let holds = format!(
            "{} with the columns {}",
            counted(shown.len() as u64, "record", "records"),
            columns.join(", ")
        );
        gate.export(holds, move || {
            let write = |e: &Explorer| match format {
                // A byte-order mark, so spreadsheet programs read the UTF-8 correctly.
                ExportFormat::Csv => format!("\u{feff}{}", e.csv(&shown, &columns)),
                ExportFormat::Json => e.json(&shown, &columns),
                ExportFormat::JsonLines => e.json_lines(&shown, &columns),
            };
            let text = match real {
                Some(real) => write(&Explorer::new(real.get_value())),
                None => explorer.with_value(write),
            };
            let file = name.with_value(|name| format!("{name}.{}", format.extension()));
            download(&file, format.mime(), &text);
            notice.set(format.notice());
        });
    };
    let on_copy = Callback::new(move |index: usize| {
        if let Some(text) = explorer.with_value(|e| e.records.get(index).map(pretty)) {
            copy_text(&text);
            notice.set("Copied the record as JSON.");
        }
    });
    let pressed = move |json: bool| move || (show_json.get() == json).to_string();
    view! {
        <div class="output-toolbar">
            <div class="segmented" role="group" aria-label="Output view">
                <button type="button" aria-pressed=pressed(false) on:click=move |_| show_json.set(false)>"Table"</button>
                <button type="button" aria-pressed=pressed(true) on:click=move |_| show_json.set(true)>"JSON"</button>
            </div>
            <input type="search" class="output-filter" aria-label="Filter the records" placeholder="Filter the records"
                data-field="output-filter" hidden=show_json
                prop:value=filter on:input:target=move |ev| filter.set(ev.target().value()) />
            <span class="muted" data-field="output-count">{move || {
                let matching = shown.with(Vec::len);
                if matching == count {
                    counted(count as u64, "record", "records")
                } else {
                    format!("{} of {}", group_thousands(matching as u64), counted(count as u64, "record", "records"))
                }
            }}</span>
            <span class="export-group" role="group" aria-label="Export the records shown">
                <button type="button" class="button secondary" on:click=move |_| export(ExportFormat::Csv)>"Export CSV"</button>
                <button type="button" class="button secondary" on:click=move |_| export(ExportFormat::Json)>"Export JSON"</button>
                <button type="button" class="button secondary" on:click=move |_| export(ExportFormat::JsonLines)>"Export JSON Lines"</button>
            </span>
        </div>
        <RealDataQuestion gate />
        <ColumnsPanel action=action.clone() columns=ColumnView { choice, arranged, shown: columns } hidden=show_json />
        {move || if show_json.get() {
            let text = explorer.with_value(|e| {
                serde_json::to_string_pretty(&e.records[..]).unwrap_or_default()
            });
            view! {
                <details class="json-view" open>
                    <summary>"All records as JSON"</summary>
                    <pre class="code" tabindex="0" data-field="output-json">{text}</pre>
                </details>
            }.into_any()
        } else {
            let action = action.clone();
            view! {
                <OutputTable action explorer columns shown sort on_copy chained=!masker.is_on() />
            }.into_any()
        }}
    }
}

/// How long the explorer waits after it opens before it prepares the filter's search text:
/// long enough for the first screenful and the rest of the page's rows to be drawn first.
const SEARCH_AFTER: Duration = Duration::from_millis(300);

/// Makes the filter's search text a slice at a time (`SlicePace`) once the first screenful is
/// on screen, so the first filter over 10,000 records is a pass over plain text rather than one
/// long task that makes it; cancelled with the explorer (its owner).
fn prepare_search_after_first_screenful(explorer: StoredValue<Explorer>) {
    leptos::task::spawn_local_scoped_with_cancellation(async move {
        sleep(SEARCH_AFTER).await;
        let mut pace = SlicePace::default();
        loop {
            let began = js_sys::Date::now();
            match explorer.try_with_value(|e| e.prepare_search(pace.records())) {
                None | Some(0) => return,
                Some(prepared) => pace.took(prepared, js_sys::Date::now() - began),
            }
            sleep(Duration::ZERO).await;
        }
    });
}

/// The person's column choice and what it makes of the columns found.
#[derive(Clone, Copy)]
struct ColumnView {
    /// The choice, as kept in this browser.
    choice: RwSignal<ColumnChoice>,
    /// Every column found, in the chosen order, each shown or not.
    arranged: Memo<Vec<ColumnState>>,
    /// The names of the columns shown, in order.
    shown: Memo<Vec<String>>,
}

/// `<details class="columns-panel">`: the columns shown, in their order, each one to hide or
/// show and to move; the choice is kept in this browser for `action`.
#[component]
fn ColumnsPanel(
    /// Where the choice is kept (`choice_key`).
    action: String,
    /// The choice this panel changes.
    columns: ColumnView,
    /// Hidden while the JSON view is shown.
    #[prop(into)]
    hidden: Signal<bool>,
) -> impl IntoView {
    let ColumnView {
        choice,
        arranged,
        shown: columns,
    } = columns;
    let change_choice = move |change: &dyn Fn(&mut ColumnChoice, &[ColumnState])| {
        let arranged_now = arranged.get_untracked();
        choice.update(|c| change(c, &arranged_now));
        remember_choice(&action, &choice.get_untracked());
    };
    let (toggle_change, move_change, reset_change) =
        (change_choice.clone(), change_choice.clone(), change_choice);
    view! {
        <details class="columns-panel" hidden=hidden data-field="columns-panel">
            <summary>{move || format!("Columns: {} of {} shown", columns.with(Vec::len), arranged.with(Vec::len))}</summary>
            <p class="help">"Exports hold the records shown, in this order, with these columns. Your choice is kept in this browser for this action."</p>
            <ul class="column-list">
                <For each=move || arranged.get() key=|c| (c.name.clone(), c.shown) let(column)>
                    {
                        let (name, up, down) = (column.name.clone(), column.name.clone(), column.name.clone());
                        let (toggle_change, up_change, down_change) = (toggle_change.clone(), move_change.clone(), move_change.clone());
                        view! {
                            <li data-column=column.name.clone()>
                                <label>
                                    <input type="checkbox" prop:checked=column.shown
                                        on:change=move |_| toggle_change(&|c, _| c.toggle(&name)) />
                                    " " {column.name.clone()}
                                </label>
                                <button type="button" class="button link" aria-label=format!("Move {} earlier", column.name)
                                    on:click=move |_| up_change(&|c, a| c.move_column(a, &up, -1))>"↑"</button>
                                <button type="button" class="button link" aria-label=format!("Move {} later", column.name)
                                    on:click=move |_| down_change(&|c, a| c.move_column(a, &down, 1))>"↓"</button>
                            </li>
                        }
                    }
                </For>
            </ul>
            <button type="button" class="button secondary" on:click=move |_| reset_change(&|c, _| *c = ColumnChoice::default())>"Reset the columns"</button>
        </details>
    }
}

/// What the current view can be exported as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExportFormat {
    Csv,
    Json,
    JsonLines,
}

impl ExportFormat {
    fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
            ExportFormat::JsonLines => "jsonl",
        }
    }

    fn mime(self) -> &'static str {
        match self {
            ExportFormat::Csv => "text/csv",
            ExportFormat::Json => "application/json",
            ExportFormat::JsonLines => "application/jsonl",
        }
    }

    fn notice(self) -> &'static str {
        match self {
            ExportFormat::Csv => "Exported the records shown as CSV.",
            ExportFormat::Json => "Exported the records shown as JSON.",
            ExportFormat::JsonLines => "Exported the records shown as JSON Lines.",
        }
    }
}

/// `<table class="output-table">` in a `WindowedTable`: `#` (the record's place in the run), the
/// shown columns (each heading sorts), then per row a Copy button and the record's chained
/// actions; every record shown is in one scroll, and only the rows near the view are drawn.
#[component]
fn OutputTable(
    action: String,
    explorer: StoredValue<Explorer>,
    columns: Memo<Vec<String>>,
    /// The records shown (filtered and sorted), by their place in the run.
    shown: Memo<Vec<usize>>,
    sort: RwSignal<Option<SortBy>>,
    on_copy: Callback<usize>,
    /// Links to the actions a record chains into (not in presenter mode: their addresses hold
    /// the record's values).
    chained: bool,
) -> impl IntoView {
    let head = move || {
        columns
            .get()
            .into_iter()
            .map(|name| {
                let sorted = {
                    let name = name.clone();
                    Memo::new(move |_| {
                        sort.with(|s| {
                            s.as_ref()
                                .filter(|s| s.column == name)
                                .map(|s| s.descending)
                        })
                    })
                };
                let aria = move || match sorted.get() {
                    None => "none",
                    Some(false) => "ascending",
                    Some(true) => "descending",
                };
                let label = name.clone();
                let by = name.clone();
                view! {
                    <th scope="col" aria-sort=aria>
                        <button type="button" class="sort"
                            on:click=move |_| sort.update(|s| {
                                *s = match s.take() {
                                    Some(SortBy { column, descending: false }) if column == by => Some(SortBy { column, descending: true }),
                                    Some(SortBy { column, descending: true }) if column == by => None,
                                    _ => Some(SortBy { column: by.clone(), descending: false }),
                                };
                            })>
                            {label}
                            <span aria-hidden="true">{move || match sorted.get() { None => "", Some(false) => " ▲", Some(true) => " ▼" }}</span>
                        </button>
                    </th>
                }
            })
            .collect_view()
    };
    let head = view! {
        <th scope="col">"#"</th>
        {head}
        <th scope="col">"Actions"</th>
    };
    let action = StoredValue::new(action);
    let row = move |_place: usize, &record: &usize| {
        let columns = columns.get();
        explorer.with_value(|e| {
            action.with_value(|action| {
                record_cells(
                    record,
                    &e.records[record],
                    &columns,
                    chained.then_some(action.as_str()),
                    on_copy,
                )
            })
        })
    };
    view! {
        <WindowedTable rows=shown head row label="Records" class="output-table" field="output-table" />
    }
}

/// One record's cells: its number, a cell per column, then Copy and the chained actions; each
/// focusable, for the grid's keys.
fn record_cells(
    i: usize,
    record: &Value,
    columns: &[String],
    chained_from: Option<&str>,
    on_copy: Callback<usize>,
) -> AnyView {
    let cells = columns
        .iter()
        .map(|column| view! { <td tabindex="-1">{cell(record, column).map(value_view)}</td> })
        .collect_view();
    let chained = chained_from
        .map(|action| chain_links(action, record))
        .unwrap_or_default()
        .into_iter()
        .map(|link| view! { <a class="button secondary small" href=link.href>{link.label}</a> })
        .collect_view();
    view! {
        <th scope="row" class="num" tabindex="-1">{i + 1}</th>
        {cells}
        <td class="row-actions" tabindex="-1">
            <button type="button" class="button link" on:click=move |_| on_copy.run(i)>
                "Copy"
            </button>
            {chained}
        </td>
    }
    .into_any()
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
