//! The batch's rows, a page at a time, filtered by state.

use leptos::prelude::*;

use crate::model::bulk::{RowError, RowState};
use crate::model::bulk_view::{
    ALL_ROWS, ShownRow, matching_rows, page_count, rows_on_page, short_run_id,
};
use crate::model::format::group_thousands;
use crate::model::urls::run_path;
use crate::state::bulk::use_bulk;
use crate::state::presenter::use_masker;

/// The batch's rows, a page at a time (fast at 10,000 rows), filterable by state.
#[component]
pub(super) fn BatchRows() -> impl IntoView {
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
    // A memo: the batch changes with every answer, the rows on show far less often, and only
    // then is the table redrawn (a 1,000-row batch spent most of its main-thread time redrawing);
    // keyed by what each line shows, so only the lines that changed are drawn again (redrawing
    // the whole page at each change took over 100 ms at 4× CPU throttling).
    let rows = Memo::new(move |_| {
        let page = page.get();
        bulk.batch.with(|b| {
            b.as_ref()
                .map(|b| filter.with(|f| rows_on_page(b.rows(), f, page)))
                .unwrap_or_default()
        })
    });
    // The table's lines are drawn in a task of their own, after the rest of the batch's view:
    // at the start of a batch, drawing them in the same task as the form they replace and the
    // view around them took the click's task well over 100 ms at 4× CPU throttling.
    let drawn = RwSignal::new(false);
    leptos::task::spawn_local_scoped_with_cancellation(async move {
        crate::browser::sleep(std::time::Duration::ZERO).await;
        drawn.set(true);
    });
    let lines = move || if drawn.get() { rows.get() } else { Vec::new() };
    view! {
        <div class="toolbar">
            <label for="bulk-filter">"Show"</label>
            <select id="bulk-filter" bind:value=filter>
                <option value=ALL_ROWS>"all rows"</option>
                {RowState::ALL.into_iter().map(|s| view! { <option value=s.label()>{s.label()}</option> }).collect_view()}
            </select>
            <span class="muted">{move || format!("{} rows", group_thousands(total.get() as u64))}</span>
        </div>
        <div class="table-wrap" role="region" aria-label="The batch's rows" tabindex="0">
            <table class="batch-rows" data-field="batch-rows">
                <thead><tr>
                    <th scope="col" class="num">"Line"</th><th scope="col">"Input"</th><th scope="col">"State"</th>
                    <th scope="col">"Run"</th><th scope="col" class="num">"Credits"</th><th scope="col" class="num">"Records"</th><th scope="col">"Error"</th>
                </tr></thead>
                <tbody>
                    <For each=lines key=ShownRow::clone let(row)>
                        <BatchRowLine row />
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

/// One row of the table: its line, input, state, run, credits, records and error.
#[component]
fn BatchRowLine(row: ShownRow) -> impl IntoView {
    let ShownRow {
        line,
        input,
        state,
        run_id,
        credits,
        records,
        error,
        same_as,
        reused,
    } = row;
    let masker = use_masker();
    let input = masker.cells(&input).into_owned();
    let error = error.map(|error| RowError {
        message: masker.text(&error.message).into_owned(),
        ..error
    });
    view! {
        <tr data-line=line data-state=state.label() data-same-as=same_as.map(|first| first.line)>
            <td class="num">{line}</td>
            <td class="bulk-input">{input}</td>
            <td>{match same_as {
                // A repeated row: the first row's state, and which row that is.
                Some(first) => view! {
                    <span class=format!("status status-{}", first.state.label())>{first.state.label()}</span>
                    " " <span class="muted">{format!("same as line {}", first.line)}</span>
                }.into_any(),
                None => view! {
                    <span class=format!("status status-{}", state.label())>{state.label()}</span>
                    {reused.then(|| view! { " " <span class="muted" data-field="reused">"reused, not sent"</span> })}
                }.into_any(),
            }}</td>
            <td>{run_id.map(|id| view! { <a href=run_path(&id)><code>{short_run_id(&id)} "…"</code></a> })}</td>
            <td class="num">{credits}</td>
            <td class="num">{records}</td>
            <td class="bulk-error">{error.map(|RowError { code, message, request_id }| view! {
                <code>{code}</code> " " {message}
                {request_id.map(|id| view! { " " <span class="muted">"(request " <code>{id}</code> ")"</span> })}
            })}</td>
        </tr>
    }
}
