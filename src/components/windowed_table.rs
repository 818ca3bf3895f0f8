//! `WindowedTable`: a table of any length in one scrolling box, with only the rows near the view
//! in the document. The rows' heights are measured as they are drawn (a `ResizeObserver` on each
//! row drawn, which also sees a nested value opened) and the space of the rows not drawn is the
//! table's top and bottom margins (`model::row_window`); so a table of 10,000 records lays out and
//! paints about a screenful, and a scroll draws only the rows it brings in.
//!
//! It is a WAI-ARIA data grid: `aria-rowcount` and each row's `aria-rowindex` tell assistive
//! technology where a row stands among all of them, and the arrow keys, Page Up and Down, Home
//! and End (with Ctrl: the first and last row) move between cells, bringing rows in as they go.
//! Escape from a button or link in a cell goes back to the cell.
//!
//! Why not a crate: docs/decisions/windowed-table.md.

use std::hash::Hash;
use std::sync::Arc;

use leptos::either::Either;
use leptos::html;
use leptos::prelude::*;
use web_sys::Element;

use crate::browser::after_next_paint;

use crate::model::row_window::{
    BoxPlace, FIRST_ESTIMATE_PX, GridCell, RowHeights, RowWindow, ScrollPace, Viewport,
    updated_list,
};

mod grid;
mod row_key;

use grid::{Grid, SizeObserver};
use row_key::{RowKey, RowKeys, RowMaker};

/// The heights of the rows the table shows (its `shown` keys, place by place).
struct Measures {
    heights: RowHeights,
}

/// Where the scrolling box is, for one list of rows: the rows' place at the top of its view, and
/// its own scroll place (the two differ once the rows are taller than a box may be:
/// `model::row_window::ScrollMap`).
#[derive(Clone, Copy, PartialEq)]
struct ViewFor {
    list: u64,
    view: Viewport,
    box_top: f64,
}

/// How far the table's first drawing has come. Each stage is a task of its own, a frame after
/// the one before is painted: built in one, the table's head, a screenful of rows in full and
/// the rows past the view's edges were one task over 100 ms at 4× CPU (docs/performance.md).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Opening {
    /// The head, and a placeholder of its height for each row in view.
    Placeholders,
    /// The rows in view in full.
    RowsInView,
    /// The rows past the view's edges too (the pace's overscan): the table is open.
    Open,
}

/// The part of the view's height the box takes before it is measured: its CSS `max-height`.
const BOX_SHARE_OF_WINDOW: f64 = 0.75;

/// An attribute on each drawn row (`<tr>`), made from its key: what tests and other parts of
/// the page find a row by (`data-entry`, `data-run`).
pub struct RowAttribute {
    pub name: &'static str,
    pub value: String,
}

/// A table of `rows` in a scrolling box, drawing only those near the view. `head` is the header
/// row's cells; `row` makes a row's cells (each focusable: `tabindex="-1"`, the one that names
/// the row a `<th scope="row">`) from its place and key, and may track signals (the shown columns): the row
/// is made again when they change. A new list of rows goes back to the top; with `list_of`, rows
/// changing while it stays are the same list updated, and the view stays on the row it showed.
#[component]
pub fn WindowedTable<Key, Head, Row, Cells>(
    /// The rows' keys, in the order shown.
    #[prop(into)]
    rows: Signal<Vec<Key>>,
    /// The header row's cells.
    head: Head,
    /// A row's cells, from its place among the rows shown and its key.
    row: Row,
    /// What the table holds, for assistive technology.
    label: &'static str,
    /// The table's `class` and `data-field`.
    class: &'static str,
    field: &'static str,
    /// What the rows are a list of (their filter and sort, as text): while it stays the same, a
    /// change of `rows` is the list updated (a log read again), not a new list. Without it,
    /// every change of `rows` is a new list.
    #[prop(optional, into)]
    list_of: Option<Signal<String>>,
    /// Attributes each drawn row carries, from its key.
    #[prop(optional)]
    row_attributes: Option<fn(&Key) -> Vec<RowAttribute>>,
) -> impl IntoView
where
    Key: Clone + Eq + Hash + Send + Sync + 'static,
    Head: IntoView + 'static,
    Row: Fn(usize, &Key) -> Cells + Send + Sync + 'static,
    Cells: IntoView + 'static,
{
    let keys = Memo::new(move |_| {
        RowKeys::Made(rows.with(|rows| rows.iter().cloned().map(RowKey::new).collect()))
    });
    windowed_table(Table {
        rows: keys,
        head: head.into_any(),
        row: RowMaker::new(row, row_attributes),
        label,
        class,
        field,
        list_of,
    })
}

/// A table of records by their place in a set (`places`, in the order shown), as
/// [`WindowedTable`] with `usize` keys, for a set of any size: a row's key is made only as the row
/// is drawn (10,000 to 900,000 places cost what the places do). Every change of `places` is a new
/// list.
#[component]
pub fn WindowedPlaces<Head, Row, Cells>(
    /// The records' places, in the order shown.
    #[prop(into)]
    places: Signal<Arc<[usize]>>,
    /// The header row's cells.
    head: Head,
    /// A row's cells, from its place among the rows shown and its record's place in the set.
    row: Row,
    /// What the table holds, for assistive technology.
    label: &'static str,
    /// The table's `class` and `data-field`.
    class: &'static str,
    field: &'static str,
    /// Whether the record at a place is there to draw (it may track signals); until it is,
    /// its row is a placeholder of its height, as in a fling, and is not measured. Without it,
    /// every record is there.
    #[prop(optional_no_strip)]
    ready: Option<Callback<usize, bool>>,
) -> impl IntoView
where
    Head: IntoView + 'static,
    Row: Fn(usize, &usize) -> Cells + Send + Sync + 'static,
    Cells: IntoView + 'static,
{
    let keys = Memo::new(move |_| RowKeys::Places(places.get()));
    let mut row = RowMaker::new(row, None);
    if let Some(ready) = ready {
        row = row.with_ready(move |&place: &usize| ready.run(place));
    }
    windowed_table(Table {
        rows: keys,
        head: head.into_any(),
        row,
        label,
        class,
        field,
        list_of: None,
    })
}

/// A `WindowedTable`'s parts, its keys' type erased.
struct Table {
    rows: Memo<RowKeys>,
    head: AnyView,
    row: RowMaker,
    label: &'static str,
    class: &'static str,
    field: &'static str,
    list_of: Option<Signal<String>>,
}

/// The table itself, built once for every kind of row.
fn windowed_table(
    Table {
        rows,
        head,
        row,
        label,
        class,
        field,
        list_of,
    }: Table,
) -> impl IntoView {
    let scroller = NodeRef::<html::Div>::new();
    let head_row = NodeRef::<html::Tr>::new();
    // The keys drawn from: `rows` as the table last took them, with their heights (`measures`).
    let shown = RwSignal::new(rows.get_untracked());
    // Each new list of rows is a generation.
    let list = RwSignal::new(0_u64);
    let measures = StoredValue::new(Measures {
        heights: RowHeights::new(shown.with_untracked(RowKeys::len), FIRST_ESTIMATE_PX),
    });
    let measured = Trigger::new();
    let first_height = window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .map_or(600.0, |h| h * BOX_SHARE_OF_WINDOW);
    let view = RwSignal::new(ViewFor {
        list: 0,
        view: Viewport {
            scroll_top: 0.0,
            height: first_height,
        },
        box_top: 0.0,
    });
    let pace = RwSignal::new(ScrollPace::Reading);
    let opening = RwSignal::new(Opening::Placeholders);
    // The rows to draw: for a list the view has not seen yet, from the top.
    let row_window = Memo::new(move |_| {
        measured.track();
        let overscan = if opening.get() == Opening::Open {
            pace.get().overscan()
        } else {
            0.0
        };
        let list = list.get();
        shown.track();
        let seen = view.get();
        let (at, box_top) = if seen.list == list {
            (seen.view, seen.box_top)
        } else {
            (
                Viewport {
                    scroll_top: 0.0,
                    ..seen.view
                },
                0.0,
            )
        };
        measures.with_value(|m| m.heights.window_in(at, box_top, overscan))
    });
    let grid = Grid {
        scroller,
        table: NodeRef::new(),
        head_row,
        list,
        drawn: StoredValue::new(0..0),
        measures,
        view,
        pace,
        fling_ends: StoredValue::new(None),
        follow_up: StoredValue::new(None),
        pending: StoredValue::new(None),
        focused: StoredValue::new(None),
        revealing: StoredValue::new(None),
        placed: StoredValue::new(None),
        at: StoredValue::new(BoxPlace {
            box_top: 0.0,
            place: 0.0,
        }),
    };
    // Rows taken as a new list go back to the top; as the same list updated, keep the view.
    Effect::new(move |list_was: Option<Option<String>>| {
        let list_now = list_of.map(|l| l.get());
        let keys = rows.get();
        if list_was.is_some() {
            let old = shown.get_untracked();
            match (old, keys) {
                (RowKeys::Made(old), RowKeys::Made(keys))
                    if list_of.is_some() && list_was.as_ref() == Some(&list_now) =>
                {
                    take_update(grid, shown, &old, keys);
                }
                (_, keys) => take_new_list(grid, shown, keys),
            }
        }
        list_now
    });
    let observer = StoredValue::new_local(SizeObserver::new(grid, measured));
    // The box is watched too: a window made taller shows more rows without a scroll.
    scroller.on_load(move |scroller| {
        observer.with_value(|o| o.as_ref().map(|o| o.observer.observe(&scroller)));
        grid.read_view();
        open_in_stages(opening);
    });
    // Focus put elsewhere, or a click outside the box: the grid no longer keeps a cell focused.
    let focus_elsewhere = window_event_listener(leptos::ev::focusin, move |event| {
        grid.focus_moved(event.target(), false);
    });
    let click_elsewhere = window_event_listener(leptos::ev::pointerdown, move |event| {
        grid.focus_moved(event.target(), true);
    });
    on_cleanup(move || {
        focus_elsewhere.remove();
        click_elsewhere.remove();
        observer.try_with_value(|o| o.as_ref().map(|o| o.observer.disconnect()));
        if let Some(Some(timer)) = grid.fling_ends.try_get_value() {
            timer.clear();
        }
        if let Some(Some(frame)) = grid.follow_up.try_get_value() {
            frame.cancel();
        }
    });
    let observe = move |element: Element| {
        observer.with_value(|o| o.as_ref().map(|o| o.observer.observe(&element)));
    };

    let body_rows = move || {
        let RowWindow { rows: range, .. } = row_window.get();
        grid.drawn.set_value(range.clone());
        shown.with(|keys| {
            range
                .filter_map(|place| keys.get(place).map(|key| (place, key)))
                .collect::<Vec<_>>()
        })
    };
    let row = StoredValue::new(row);
    view! {
        <div class="table-wrap windowed" node_ref=scroller tabindex="0" role="region" aria-label=label
            on:scroll=move |_| grid.read_view()
            on:keydown=move |event| grid.key(&event)>
            <table class=class data-field=field role="grid" aria-label=label node_ref=grid.table
                aria-rowcount=move || shown.with(RowKeys::len) + 1
                style:margin-top=move || format!("{}px", row_window.with(|w| w.space_above))
                style:margin-bottom=move || format!("{}px", row_window.with(|w| w.space_below))>
                <thead>
                    <tr aria-rowindex="1" node_ref=head_row>{head}</tr>
                </thead>
                <tbody>
                    <For each=body_rows key=|(place, key)| (*place, key.clone()) let((place, key))>
                        {body_row(place, key, grid, row, opening, observe)}
                    </For>
                </tbody>
            </table>
        </div>
    }
}

/// Takes the table through its [`Opening`] stages, a frame apart. A hidden tab paints no frame:
/// the table opens once it is shown.
fn open_in_stages(opening: RwSignal<Opening>) {
    after_next_paint(move || {
        if opening.try_set(Opening::RowsInView).is_none() {
            after_next_paint(move || {
                opening.try_set(Opening::Open);
            });
        }
    });
}

/// Takes `keys` as a new list (another sort or filter): its heights start anew from the old
/// rows' mean, the grid's focus and a key's move end, and the view goes back to the top.
fn take_new_list(grid: Grid, shown: RwSignal<RowKeys>, keys: RowKeys) {
    grid.measures.update_value(|m| {
        m.heights = RowHeights::new(keys.len(), m.heights.estimate());
    });
    grid.list.update(|generation| *generation += 1);
    shown.set(keys);
    grid.revealing.set_value(None);
    grid.pending.set_value(None);
    grid.focused.set_value(None);
    grid.scroll_to(0.0);
    grid.read_view();
}

/// Takes `keys` as the list shown, updated (`model::row_window::updated_list`): the rows that
/// stay keep their heights, the view stays on the row it showed and the focused cell on its row.
fn take_update(grid: Grid, shown: RwSignal<RowKeys>, old: &[RowKey], keys: Arc<[RowKey]>) {
    if *old == *keys {
        return;
    }
    let scroll_top = grid.view.get_untracked().view.scroll_top;
    let focused = grid.focused.get_value();
    let update = grid
        .measures
        .with_value(|m| updated_list(old, &keys, &m.heights, scroll_top));
    let focused_now = focused.and_then(|cell| {
        let key = old.get(cell.row)?;
        let row = keys.iter().position(|k| k == key)?;
        Some(GridCell { row, ..cell })
    });
    grid.measures.update_value(|m| m.heights = update.heights);
    grid.focused.set_value(focused_now);
    grid.revealing.set_value(None);
    grid.pending.set_value(None);
    shown.set(RowKeys::Made(keys));
    if (update.scroll_top - scroll_top).abs() >= 1.0 {
        grid.scroll_to(update.scroll_top);
    }
    grid.read_view();
}

/// The row at `place`: before the table's first frame is painted (`Opening`), while a fling
/// brought it in and lasts, or while its content is not there (`RowMaker::ready`), a placeholder
/// of its height (one cell across, not measured); then its cells from `row` (after a fling, ever
/// after).
fn body_row(
    place: usize,
    key: RowKey,
    grid: Grid,
    row: StoredValue<RowMaker>,
    opening: RwSignal<Opening>,
    observe: impl Fn(Element) + Clone + 'static,
) -> impl IntoView {
    let pace = grid.pace;
    // Drawn in full once the view is read (not flung past), and ever after.
    let settled = Memo::new(move |was: Option<&bool>| {
        was == Some(&true) || pace.get() == ScrollPace::Reading
    });
    // The row's content is there (the page may make it wait: records read from a store).
    let ready = {
        let key = key.clone();
        Memo::new(move |_| row.with_value(|row| row.ready(&key)))
    };
    let in_full =
        Memo::new(move |_| opening.get() >= Opening::RowsInView && settled.get() && ready.get());
    let height = grid.measures.with_value(|m| m.heights.height_of(place));
    let columns = grid
        .head_row
        .get_untracked()
        .map_or(1, |head| head.cells().length().max(1));
    let attributes = row.with_value(|row| row.attributes(&key));
    let mark = move |element: Element| {
        for RowAttribute { name, value } in &attributes {
            let _ = element.set_attribute(name, value);
        }
    };
    view! {
        <tr aria-rowindex=place + 2 use:observe use:mark
            data-placeholder=move || (!in_full.get()).then_some("")>
            {move || if in_full.get() {
                Either::Left(row.with_value(|row| row.cells(place, &key)))
            } else {
                Either::Right(view! {
                    <td class="placeholder" colspan=columns style:height=format!("{height}px")></td>
                })
            }}
        </tr>
    }
}
