//! The batch's rows, a page at a time, filtered by state.

use leptos::prelude::*;

use crate::components::rows_drawn_in_slices;
use crate::model::bulk::{RowError, RowState};
use crate::model::bulk_view::{
    ALL_ROWS, ShownRow, matching_rows, page_count, rows_on_page, short_run_id,
};
use crate::model::format::counted;
use crate::model::presenter::CELL_SEPARATOR;
use crate::model::urls::run_path;
use crate::state::bulk::use_bulk;
use crate::state::presenter::use_masker;

/// Lines of the table drawn a frame: a slice well under 50 ms of building at 4× CPU throttling.
const LINES_PER_SLICE: usize = 20;

/// The batch's rows, a page at a time (fast at 10,000 rows), filterable by state.
#[component]
pub(super) fn BatchRows(
    /// The batch shown: a chain shows its steps' batches one after the other.
    batch_id: Memo<Option<String>>,
) -> impl IntoView {
    let bulk = use_bulk();
    let page = RwSignal::new(0_usize);
    let filter = RwSignal::new(String::from(ALL_ROWS));
    let total = Memo::new(move |_| {
        bulk.batch.with(|b| {
            b.as_ref()
                .map_or(0, |b| filter.with(|f| matching_rows(b.rows(), f)))
        })
    });
    let pages = move || page_count(total.get());
    Effect::new(move |_| {
        filter.track();
        page.set(0);
    });
    // Each batch from its first page, all its rows.
    Effect::new(move |first_run: Option<()>| {
        batch_id.track();
        if first_run.is_some() {
            filter.set(String::from(ALL_ROWS));
            page.set(0);
        }
    });
    // A memo: the batch changes with every answer, the rows on show far less often, and only
    // then is the table redrawn (a 1,000-row batch spent most of its main-thread time redrawing).
    // The table's lines are keyed by line, and each line follows its own row (`BatchRowLine`):
    // a row that changes updates its cells in place. Keyed by what each line shows, as before,
    // every change removed the line and built it again: at a batch's start, when a page's 50
    // rows change together several times a second, that took tasks over 100 ms at 4× CPU.
    let rows = Memo::new(move |_| {
        let page = page.get();
        bulk.batch.with(|b| {
            b.as_ref()
                .map(|b| filter.with(|f| rows_on_page(b.rows(), f, page)))
                .unwrap_or_default()
        })
    });
    // The table's lines are drawn a slice a frame, the first after the rest of the batch's view
    // (and again from none for another batch, page or filter): at a batch's start, and at each
    // step of a chain, drawing a page of 50 lines in the same task as the view around them took
    // tasks well over 100 ms at 4× CPU throttling. A memo of what is shown, so that setting the
    // page or filter to what it already is (the effects above) draws nothing again.
    let shown = Memo::new(move |_| (batch_id.get(), page.get(), filter.get()));
    let drawn = rows_drawn_in_slices(
        Signal::derive(move || rows.with(Vec::len)),
        shown,
        LINES_PER_SLICE,
    );
    // The lines drawn. Each line follows its row here rather than in `rows`: when another
    // batch, page or filter is shown, none is drawn at once, so the lines about to go find
    // nothing new to show (a line of the same number in the next step's batch is another row).
    let lines = Memo::new(move |_| {
        let drawn = drawn.get();
        rows.with(|rows| rows.iter().take(drawn).cloned().collect::<Vec<_>>())
    });
    view! {
        <div class="toolbar">
            <label for="bulk-filter">"Show"</label>
            <select id="bulk-filter" bind:value=filter>
                <option value=ALL_ROWS>"all rows"</option>
                {RowState::ALL.into_iter().map(|s| view! { <option value=s.label()>{s.label()}</option> }).collect_view()}
            </select>
            <span class="muted" data-field="rows-matching">{move || counted(total.get() as u64, "row", "rows")}</span>
        </div>
        <div class="table-wrap" role="region" aria-label="The batch's rows" tabindex="0">
            <table class="batch-rows" data-field="batch-rows">
                <thead><tr>
                    <th scope="col" class="num">"Line"</th><th scope="col">"Input"</th><th scope="col">"State"</th>
                    <th scope="col">"Run"</th><th scope="col" class="num">"Credits"</th><th scope="col" class="num">"Records"</th><th scope="col">"Error"</th>
                </tr></thead>
                <tbody>
                    <For each=move || lines.get() key=|row| row.line let(row)>
                        <BatchRowLine first=row lines />
                    </For>
                </tbody>
            </table>
        </div>
        <nav class="pager" aria-label="Pages of rows">
            <button type="button" class="button secondary" disabled=move || page.get() == 0
                on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>"Previous"</button>
            <span data-field="page-of">{move || format!("Page {} of {}", page.get() + 1, pages())}</span>
            <button type="button" class="button secondary" disabled=move || { page.get() + 1 >= pages() }
                on:click=move |_| page.update(|p| *p += 1)>"Next"</button>
        </nav>
    }
}

/// One line of the table: its line, input, state, run, credits, records and error. It follows
/// the row of its line in `lines` (the lines drawn), from `first`, what it showed when it was
/// drawn; each cell changes in place when the row does.
#[component]
fn BatchRowLine(first: ShownRow, lines: Memo<Vec<ShownRow>>) -> impl IntoView {
    let line = first.line;
    let masker = use_masker();
    // The line's input never changes; presenter mode draws the page again.
    let input = masker.cells(&first.input).into_owned();
    // What an error's message may quote of the row.
    let cells: Vec<String> = first
        .input
        .split(CELL_SEPARATOR)
        .map(str::to_owned)
        .collect();
    // Kept as last seen when the row leaves the page: the line is being removed.
    let row = Memo::new(move |previous: Option<&ShownRow>| {
        lines
            .with(|lines| lines.iter().find(|row| row.line == line).cloned())
            .or_else(|| previous.cloned())
            .unwrap_or_else(|| first.clone())
    });
    let state = Memo::new(move |_| row.with(|r| (r.state, r.same_as, r.reused)));
    let run_id = Memo::new(move |_| row.with(|r| r.run_id.clone()));
    let error = Memo::new(move |_| {
        row.with(|r| {
            r.error.clone().map(|error| RowError {
                message: masker.message(&error.message, &cells).into_owned(),
                ..error
            })
        })
    });
    view! {
        <tr data-line=line data-state=move || state.get().0.label()
            data-same-as=move || state.get().1.map(|first| first.line)>
            <td class="num">{line}</td>
            <td class="bulk-input">{input}</td>
            <td>{move || match state.get() {
                // A repeated row: the first row's state, and which row that is.
                (_, Some(first), _) => view! {
                    <span class=format!("status status-{}", first.state.label())>{first.state.label()}</span>
                    " " <span class="muted">{format!("same as line {}", first.line)}</span>
                }.into_any(),
                (state, None, reused) => view! {
                    <span class=format!("status status-{}", state.label())>{state.label()}</span>
                    {reused.then(|| view! { " " <span class="muted" data-field="reused">"reused, not sent"</span> })}
                }.into_any(),
            }}</td>
            <td>{move || run_id.get().map(|id| view! { <a href=run_path(&id)><code>{short_run_id(&id)} "…"</code></a> })}</td>
            <td class="num">{move || row.with(|r| r.credits)}</td>
            <td class="num">{move || row.with(|r| r.records)}</td>
            <td class="bulk-error">{move || error.get().map(|RowError { code, message, request_id }| view! {
                <code>{code}</code> " " {message}
                {request_id.map(|id| view! { " " <span class="muted">"(request " <code>{id}</code> ")"</span> })}
            })}</td>
        </tr>
    }
}
