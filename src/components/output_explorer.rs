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

use super::{Notice, NoticeKind, RealDataGate, RealDataQuestion, WindowedPlaces};
use crate::browser::{after_next_paint, copy_text, download, sleep};
use crate::model::bulk::ExportFormat;
use crate::model::explore::{Explorer, SortBy};
use crate::model::format::{counted, group_thousands};
use crate::model::output::{
    cell, chain_links, plain, pretty, safe_link, shorten, summary, visible,
};
use crate::model::presenter::{MaskedRecords, Masker};
use crate::model::record_order::OrderAsked;
use crate::model::slice_pace::SlicePace;
use crate::state::bulk::KeptRecords;
use crate::state::presenter::use_masker;

mod columns;
mod kept;

use columns::{ColumnView, ColumnsPanel, remembered_choice};
use kept::KeptView;

/// The records an explorer shows.
#[derive(Clone)]
pub enum ExplorerRecords {
    /// Held in the page (a run's output, a chain's joined rows), with their columns when the
    /// caller found them already (`output::columns`), and masked already when they were read in
    /// presenter mode (used when presenter mode is on with the same masker, else they are
    /// masked here).
    Held {
        records: Arc<[Value]>,
        columns: Option<Vec<String>>,
        masked: Option<MaskedRecords>,
    },
    /// A batch's records where this browser keeps them (any number: the table reads the rows
    /// near its view, a sort or a filter is a pass over the store), with the columns of the
    /// first records read.
    Kept {
        records: KeptRecords,
        columns: Vec<String>,
    },
}

impl From<Vec<Value>> for ExplorerRecords {
    fn from(records: Vec<Value>) -> Self {
        ExplorerRecords::Held {
            records: records.into(),
            columns: None,
            masked: None,
        }
    }
}

/// Where the explorer's records are, as it works on them.
#[derive(Clone, Copy)]
enum Source {
    /// In the page: the shown records' order is made at once (`Explorer::view`). In presenter
    /// mode `explorer` holds the masked records and `real` the real ones, for an export the
    /// person says yes to.
    Held {
        explorer: StoredValue<Explorer>,
        real: Option<StoredValue<Arc<[Value]>>>,
    },
    /// In this browser's store.
    Kept(KeptView),
}

impl Source {
    /// The records as the explorer works on them: in presenter mode the table, the JSON, the
    /// filter, the sort and the copies work on the masked records.
    fn new(records: ExplorerRecords, masker: Masker) -> Source {
        match records {
            ExplorerRecords::Held {
                records,
                columns,
                masked,
            } => {
                let (records, real) = if masker.is_on() {
                    let masked: Arc<[Value]> = match masked {
                        Some(done) if done.by == masker && done.records.len() == records.len() => {
                            done.records
                        }
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
                Source::Held { explorer, real }
            }
            ExplorerRecords::Kept { records, columns } => {
                Source::Kept(KeptView::new(records, columns))
            }
        }
    }

    /// How many records there are.
    fn count(self) -> usize {
        match self {
            Source::Held { explorer, .. } => explorer.with_value(|e| e.records.len()),
            Source::Kept(kept) => kept.total(),
        }
    }

    /// Every column met, in the records' order.
    fn found(self) -> Signal<Vec<String>> {
        match self {
            Source::Held { explorer, .. } => {
                let found = explorer.with_value(|e| e.found.clone());
                Signal::stored(found)
            }
            Source::Kept(kept) => kept.found.into(),
        }
    }

    /// The places of the records shown, in the order `asked` asks.
    fn shown(self, asked: Memo<OrderAsked>) -> Signal<Arc<[usize]>> {
        match self {
            Source::Held { explorer, .. } => Memo::new(move |_| {
                asked.with(|asked| {
                    explorer.with_value(|e| e.view(&asked.filter, asked.sort.as_ref()).into())
                })
            })
            .into(),
            Source::Kept(kept) => {
                kept.follow(asked);
                kept.shown.into()
            }
        }
    }

    /// The record at `place` as JSON, for a copy.
    fn record_text(self, place: usize) -> Option<String> {
        match self {
            Source::Held { explorer, .. } => {
                explorer.with_value(|e| e.records.get(place).map(pretty))
            }
            Source::Kept(kept) => kept.held_record(place).as_ref().map(pretty),
        }
    }
}

/// The records as a table to explore, or as JSON; `name` is the exports' file name without
/// its extension; `notice` says what the last copy or export did.
#[component]
pub fn OutputExplorer(
    /// The action that produced the records (it decides the chained actions and where the
    /// column choice is kept).
    action: String,
    /// The records (a run's `Vec` is held as it is: nothing is copied).
    #[prop(into)]
    records: ExplorerRecords,
    /// The exports' file name, without the extension.
    name: String,
    /// Set to a sentence after a copy or an export.
    notice: RwSignal<&'static str>,
) -> impl IntoView {
    let masker = use_masker();
    let gate = RealDataGate::default();
    let source = Source::new(records, masker);
    let count = source.count();
    let found = source.found();
    let choice = RwSignal::new(remembered_choice(&action));
    let arranged = Memo::new(move |_| choice.with(|c| found.with(|found| c.arrange(found))));
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
    let asked = Memo::new(move |_| OrderAsked {
        filter: filter.get(),
        sort: sort.get(),
    });
    let shown = source.shown(asked);
    let show_json = RwSignal::new(false);
    // An export of kept records under way: how far it has come.
    let exporting = RwSignal::new(None::<String>);
    let export_problem = RwSignal::new(None::<String>);

    let name = StoredValue::new(name);
    let export = move |format: ExportFormat| {
        let (shown, columns) = (shown.get_untracked(), columns.get_untracked());
        let holds = format!(
            "{} with the columns {}",
            counted(shown.len() as u64, "record", "records"),
            columns.join(", ")
        );
        let file = name.with_value(|name| format!("{name}.{}", format.extension()));
        gate.export(holds, move || match source {
            Source::Held { explorer, real } => {
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
                download(&file, format.mime(), &text);
                notice.set(export_notice(format));
            }
            Source::Kept(kept) => {
                if exporting.with_untracked(Option::is_some) {
                    return;
                }
                let records = kept.records();
                // The person said yes to the real data (presenter mode), or sees it already.
                let records = if masker.is_on() {
                    records.unmasked()
                } else {
                    records
                };
                let (shown, columns, file) = (shown.clone(), columns.clone(), file.clone());
                export_problem.set(None);
                leptos::task::spawn_local(async move {
                    let done = kept::export(records, shown, columns, format, file, exporting).await;
                    exporting.try_set(None);
                    match done {
                        Ok(()) => {
                            notice.try_set(export_notice(format));
                        }
                        Err(problem) => {
                            export_problem.try_set(Some(problem));
                        }
                    }
                });
            }
        });
    };
    let on_copy = Callback::new(move |place: usize| {
        if let Some(text) = source.record_text(place) {
            copy_text(&text);
            notice.set("Copied the record as JSON.");
        }
    });
    let pressed = move |json: bool| move || (show_json.get() == json).to_string();
    let count_line = move || {
        if let Source::Kept(kept) = source
            && let Some(progress) = kept.progress.get()
        {
            return asked.with(|asked| KeptView::progress_line(progress, asked));
        }
        let matching = shown.with(|s| s.len());
        if matching == count {
            counted(count as u64, "record", "records")
        } else {
            format!(
                "{} of {}",
                group_thousands(matching as u64),
                counted(count as u64, "record", "records")
            )
        }
    };
    let problem = move || match source {
        Source::Kept(kept) => kept.problem.get().or_else(|| export_problem.get()),
        Source::Held { .. } => None,
    };
    let exporting_now = move || exporting.with(Option::is_some);
    // In presenter mode the filter and the sort go by the values shown: searching the real ones
    // would tell what a hidden value is. The box says so.
    let (filter_label, filter_title) = if masker.is_on() {
        (
            "Filter the masked values",
            Some(
                "Presenter mode is on: the filter and the sort use the values as shown, so that a search cannot reveal a hidden one.",
            ),
        )
    } else {
        ("Filter the records", None)
    };
    // The table (or the JSON) is built a frame after the toolbar: built with it, the explorer
    // of a batch's records was one task of 150 ms at 4× CPU (docs/performance.md).
    let body_drawn = RwSignal::new(false);
    after_next_paint(move || {
        body_drawn.try_set(true);
    });
    view! {
        <div class="output-toolbar">
            <div class="segmented" role="group" aria-label="Output view">
                <button type="button" aria-pressed=pressed(false) on:click=move |_| show_json.set(false)>"Table"</button>
                <button type="button" aria-pressed=pressed(true) on:click=move |_| show_json.set(true)>"JSON"</button>
            </div>
            <input type="search" class="output-filter" aria-label=filter_label placeholder=filter_label
                title=filter_title data-field="output-filter" hidden=show_json
                prop:value=filter on:input:target=move |ev| filter.set(ev.target().value()) />
            <span class="muted" data-field="output-count" role="status">{count_line}</span>
            <span class="export-group" role="group" aria-label="Export the records shown">
                <button type="button" class="button secondary" disabled=exporting_now on:click=move |_| export(ExportFormat::Csv)>"Export CSV"</button>
                <button type="button" class="button secondary" disabled=exporting_now on:click=move |_| export(ExportFormat::Json)>"Export JSON"</button>
                <button type="button" class="button secondary" disabled=exporting_now on:click=move |_| export(ExportFormat::JsonLines)>"Export JSON Lines"</button>
            </span>
            <span class="muted" data-field="output-exporting">{move || exporting.get()}</span>
        </div>
        {move || problem().map(|problem| view! { <Notice kind=NoticeKind::Problem field="output-problem">{problem}</Notice> })}
        <RealDataQuestion gate />
        <ColumnsPanel action=action.clone() columns=ColumnView { choice, arranged, shown: columns } hidden=show_json />
        {move || body_drawn.get().then(|| if show_json.get() {
            view! { <JsonView source shown /> }.into_any()
        } else {
            let action = action.clone();
            view! {
                <OutputTable action source columns shown sort on_copy chained=!masker.is_on() />
            }.into_any()
        })}
    }
}

/// The records shown whose JSON the JSON view holds when they are kept in the store.
const KEPT_JSON_SHOWN: usize = 100;

/// The JSON view: every record held, or the first of the records kept in the store, in the
/// order shown.
#[component]
fn JsonView(source: Source, shown: Signal<Arc<[usize]>>) -> impl IntoView {
    match source {
        Source::Held { explorer, .. } => {
            let text = explorer
                .with_value(|e| serde_json::to_string_pretty(&e.records[..]).unwrap_or_default());
            view! {
                <details class="json-view" open>
                    <summary>"All records as JSON"</summary>
                    <pre class="code" tabindex="0" data-field="output-json">{text}</pre>
                </details>
            }
            .into_any()
        }
        Source::Kept(kept) => {
            let first = LocalResource::new(move || {
                let places: Vec<usize> = shown.with(|s| s[..s.len().min(KEPT_JSON_SHOWN)].to_vec());
                let records = kept.records();
                async move {
                    let made = records.made_at(&places, Value::clone).await?;
                    Ok::<_, String>((
                        serde_json::to_string_pretty(&made).unwrap_or_default(),
                        places.len(),
                        records.total(),
                    ))
                }
            });
            view! {
                <Transition fallback=|| view! { <p class="loading">"Reading the records…"</p> }>
                    {move || Suspend::new(async move {
                        match first.await {
                            Ok((text, shown_here, total)) => view! {
                                <details class="json-view" open>
                                    <summary>{format!("The first {} as JSON (an export holds all of them)", counted(shown_here as u64, "record shown", "records shown"))}
                                        <span class="muted">{format!(" · {} in all", group_thousands(total as u64))}</span></summary>
                                    <pre class="code" tabindex="0" data-field="output-json">{text}</pre>
                                </details>
                            }.into_any(),
                            Err(problem) => view! { <Notice kind=NoticeKind::Problem field="output-problem">{problem}</Notice> }.into_any(),
                        }
                    })}
                </Transition>
            }
            .into_any()
        }
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

/// What an export of the records shown says once it is saved.
fn export_notice(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Csv => "Exported the records shown as CSV.",
        ExportFormat::Json => "Exported the records shown as JSON.",
        ExportFormat::JsonLines => "Exported the records shown as JSON Lines.",
    }
}

/// `<table class="output-table">` in a `WindowedTable`: `#` (the record's place in the run), the
/// shown columns (each heading sorts), then per row a Copy button and the record's chained
/// actions; every record shown is in one scroll, and only the rows near the view are drawn.
#[component]
fn OutputTable(
    action: String,
    source: Source,
    columns: Memo<Vec<String>>,
    /// The records shown (filtered and sorted), by their place among all.
    shown: Signal<Arc<[usize]>>,
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
        let cells = move |value: &Value| {
            action.with_value(|action| {
                record_cells(
                    record,
                    value,
                    &columns,
                    chained.then_some(action.as_str()),
                    on_copy,
                )
            })
        };
        match source {
            Source::Held { explorer, .. } => explorer.with_value(|e| cells(&e.records[record])),
            // Drawn once its row's records are read (`ready`).
            Source::Kept(kept) => match kept.held_record(record) {
                Some(value) => cells(&value),
                None => ().into_any(),
            },
        }
    };
    // A kept record's row is drawn once its records are read from the store; until then, the
    // table's placeholder.
    let ready = match source {
        Source::Kept(kept) => Some(Callback::new(move |place: usize| kept.is_held(place))),
        Source::Held { .. } => None,
    };
    view! {
        <WindowedPlaces places=shown head row ready label="Records" class="output-table" field="output-table" />
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
