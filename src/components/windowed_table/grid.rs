//! What `WindowedTable` does between its frames: reading the view and its pace, the grid's keys,
//! the focus, and the rows' measures (`SizeObserver`).

use std::ops::Range;

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{
    Element, HtmlElement, HtmlTableCellElement, HtmlTableRowElement, KeyboardEvent, ResizeObserver,
    ResizeObserverEntry,
};

use super::{Measures, ViewFor};
use crate::model::row_window::{
    BoxPlace, FLING_SETTLES_MS, GridCell, GridKey, GridSize, ScrollMap, ScrollPace, Shown,
    Viewport, moved,
};

/// What the keys and the measures work on.
#[derive(Clone, Copy)]
pub(super) struct Grid {
    pub(super) scroller: NodeRef<html::Div>,
    pub(super) table: NodeRef<html::Table>,
    pub(super) head_row: NodeRef<html::Tr>,
    /// The list of rows shown, by generation.
    pub(super) list: RwSignal<u64>,
    /// The rows in the document: the window they were last drawn for. Not the window to draw
    /// (`Memo<RowWindow>`), which, asked between a measure and the rows drawn for it, is made
    /// again from the new heights and the view before them, rows the document does not hold.
    pub(super) drawn: StoredValue<Range<usize>>,
    pub(super) measures: StoredValue<Measures>,
    pub(super) view: RwSignal<ViewFor>,
    /// How the view moves: a fling draws only the rows in view.
    pub(super) pace: RwSignal<ScrollPace>,
    /// The timer that ends a fling once the view has been still for a moment.
    pub(super) fling_ends: StoredValue<Option<TimeoutHandle>>,
    /// The next frame's follow-up of the rows' measures (`follow_measures`), if one is due.
    pub(super) follow_up: StoredValue<Option<AnimationFrameRequestHandle>>,
    /// A cell to focus once its row is drawn (a key moved to a row out of the window).
    pub(super) pending: StoredValue<Option<GridCell>>,
    /// The cell that has the grid's focus. Its row may be redrawn (after a fling), moved in the
    /// document as rows are drawn above it, or scrolled out and back: the cell gets the focus
    /// back once its row is drawn, until the person puts the focus or a click elsewhere.
    pub(super) focused: StoredValue<Option<GridCell>>,
    /// The row a key moved to: while the person has not scrolled since, it stays in view as
    /// the rows around it are measured (rather than the row at the top).
    pub(super) revealing: StoredValue<Option<usize>>,
    /// The last scroll place the table set itself, to tell a person's scroll from its own.
    pub(super) placed: StoredValue<Option<BoxPlace>>,
    /// Where the rows are placed now: the box's scroll place and the rows' place it shows. In a
    /// stretched box (`ScrollMap`) the rows' place may be held while the box stays (rows
    /// measured above the view), and a move goes on from it (`ScrollMap::place_after`).
    pub(super) at: StoredValue<BoxPlace>,
}

impl Grid {
    /// Reads where the box is scrolled to and how tall its view is.
    pub(super) fn read_view(self) {
        let Some(scroller) = self.scroller.get_untracked() else {
            return;
        };
        let head = self
            .head_row
            .get_untracked()
            .map_or(0.0, |h| f64::from(h.offset_height()));
        let box_top = f64::from(scroller.scroll_top());
        let height = (f64::from(scroller.client_height()) - head).max(0.0);
        // A place the table did not set is the person's scroll: they read from there now.
        let placed = self
            .placed
            .get_value()
            .filter(|placed| (placed.box_top - box_top).abs() <= 1.0);
        let own_move = placed.is_some();
        if !own_move {
            self.revealing.set_value(None);
            self.placed.set_value(None);
        }
        let map = self.measures.with_value(|m| m.heights.scroll_map(height));
        // At the end of what the box holds now, the view is at the rows' end, even when the
        // browser cut the box's place short to a space made smaller by rows drawn shorter than
        // they were counted (the margins that make it whole again come with their measures).
        let box_end = f64::from(scroller.scroll_height() - scroller.client_height());
        let at = match placed {
            Some(placed) => placed,
            None if map.is_stretched() && box_top > 0.0 && box_top >= box_end - 1.0 => map.end(),
            None => BoxPlace {
                box_top,
                place: self.place_shown(box_top, height),
            },
        };
        let scroll_top = at.place;
        self.at.set_value(at);
        let next = ViewFor {
            list: self.list.get_untracked(),
            view: Viewport { scroll_top, height },
            box_top,
        };
        if self.view.get_untracked() != next {
            self.set_pace(next, own_move);
            self.view.set(next);
        }
    }

    /// Takes the pace of a move to `next`: a fling while the view leaves every row drawn, until
    /// it has been still for [`FLING_SETTLES_MS`] (then the rows past its edges are drawn). A
    /// move the table made itself (a key's, which goes once to its place) is never a fling.
    fn set_pace(self, next: ViewFor, own_move: bool) {
        let pace = if next.list == self.view.get_untracked().list && !own_move {
            let drawn = self.drawn.get_value();
            self.measures
                .with_value(|m| m.heights.pace(&drawn, next.view))
        } else {
            ScrollPace::Reading
        };
        if let Some(timer) = self.fling_ends.get_value() {
            timer.clear();
        }
        self.fling_ends.set_value(None);
        if pace == ScrollPace::Flinging {
            // Cleared when the table goes (`on_cleanup`), so the grid is still there.
            self.fling_ends.set_value(
                set_timeout_with_handle(
                    move || self.change_pace(ScrollPace::Reading),
                    std::time::Duration::from_millis(FLING_SETTLES_MS),
                )
                .ok(),
            );
        }
        // A view that comes back among the rows drawn (a fling slowing down) reads on at once.
        self.change_pace(pace);
    }

    /// Takes `pace`. A fling's placeholders hold no content to size the columns by: while it
    /// lasts the columns keep the widths they had (each heading's, with a fixed layout, which
    /// also spares the browser measuring every cell); after it, they follow the rows again.
    fn change_pace(self, pace: ScrollPace) {
        // The fling's timer is cleared when the table goes, but a clear can miss (as a frame's
        // cancel, `follow_measures`): a table gone takes no pace.
        if self.pace.try_get_untracked().is_none_or(|now| now == pace) {
            return;
        }
        let (Some(table), Some(head)) = (self.table.get_untracked(), self.head_row.get_untracked())
        else {
            return;
        };
        let headings: Vec<HtmlElement> = (0..head.cells().length())
            .filter_map(|i| head.cells().item(i))
            .filter_map(|cell| cell.dyn_into().ok())
            .collect();
        let hold = pace == ScrollPace::Flinging;
        // All widths read before any is written: one layout, not one a column.
        let widths: Vec<f64> = if hold {
            headings
                .iter()
                .map(|h| h.get_bounding_client_rect().width())
                .collect()
        } else {
            Vec::new()
        };
        for (i, heading) in headings.iter().enumerate() {
            let style = HtmlElement::style(heading);
            let _ = match widths.get(i) {
                Some(width) => style.set_property("width", &format!("{width}px")),
                None => style.remove_property("width").map(drop),
            };
        }
        let style = HtmlElement::style(&table);
        let _ = if hold {
            style.set_property("table-layout", "fixed")
        } else {
            style.remove_property("table-layout").map(drop)
        };
        self.pace.set(pace);
        // A cell a key moved to during the fling (or the focused cell) is in a placeholder's
        // row: focus it once the row itself is drawn. The rows are made again in this task's
        // microtasks, so a frame is surely after them (and a row as tall as its placeholder
        // is not measured again, so the size observer would not say so).
        if !hold {
            request_animation_frame(move || self.focus_pending());
        }
    }

    /// The rows' place at the top of the view with the box at `box_top`: up to the box's limit,
    /// the box's place; in a stretched box, where the rows are if the box has not moved, else
    /// where its move from there brings them.
    fn place_shown(self, box_top: f64, height: f64) -> f64 {
        let map = self.measures.with_value(|m| m.heights.scroll_map(height));
        let at = self.at.get_value();
        if !map.is_stretched() {
            box_top
        } else if (at.box_top - box_top).abs() < 0.5 {
            at.place
        } else {
            map.place_after(at, box_top)
        }
    }

    /// Scrolls the box to show the rows' `place` at the top of its view, as the table's own move.
    pub(super) fn scroll_to(self, place: f64) {
        let Some(scroller) = self.scroller.get_untracked() else {
            return;
        };
        let wanted = self.scroll_map().box_top_of(place).round();
        scroller.set_scroll_top(wanted as i32);
        self.take_placed(f64::from(scroller.scroll_top()), wanted, place);
    }

    /// Notes the box's scroll place `box_top`, which the table set for the rows' `place` (the
    /// box's `wanted`): in a stretched box the rows are placed at `place` itself, unless the box
    /// could not go there; else the box's place is the rows'.
    fn take_placed(self, box_top: f64, wanted: f64, place: f64) {
        let map = self.scroll_map();
        let place = if map.is_stretched() && (box_top - wanted).abs() <= 1.0 {
            place
        } else {
            map.place_at(box_top)
        };
        let placed = BoxPlace { box_top, place };
        self.placed.set_value(Some(placed));
        self.at.set_value(placed);
    }

    /// How the box's scroll places map onto the rows, as they are measured now.
    fn scroll_map(self) -> ScrollMap {
        let height = self.view.get_untracked().view.height;
        self.measures.with_value(|m| m.heights.scroll_map(height))
    }

    /// Moves between cells with the grid's keys; Escape from inside a cell goes back to it.
    pub(super) fn key(self, event: &KeyboardEvent) {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
            return;
        };
        let cell = target
            .closest("tbody td, tbody th")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<HtmlTableCellElement>().ok());
        let is_box = self
            .scroller
            .get_untracked()
            .is_some_and(|s| s.is_same_node(Some(&target)));
        let Some(key) = GridKey::from_key(&event.key(), event.ctrl_key() || event.meta_key())
        else {
            if event.key() == "Escape"
                && let Some(cell) = cell
                && !cell.is_same_node(Some(&target))
            {
                event.prevent_default();
                let _ = cell.focus();
            }
            return;
        };
        let to = match cell {
            // Keys act on a focused cell, not on a button or a link inside one.
            Some(cell) if cell.is_same_node(Some(&target)) => {
                cell_of(&cell).and_then(|from| moved(from, key, self.size(from)))
            }
            // The box is the grid's way in: a key there goes to the first cell in view.
            None if is_box => self.first_in_view(),
            _ => None,
        };
        let Some(to) = to else {
            return;
        };
        event.prevent_default();
        self.go_to(to);
    }

    /// The grid's size, with the columns of the row `from` is in.
    fn size(self, from: GridCell) -> GridSize {
        let columns = self
            .row_element(from.row)
            .map_or(1, |r| r.cells().length() as usize);
        let (rows, rows_in_view) = self.measures.with_value(|m| {
            let view = self.view.get_untracked().view;
            (
                m.heights.rows(),
                (view.height / m.heights.estimate()).floor() as usize,
            )
        });
        GridSize {
            rows,
            columns,
            rows_in_view: rows_in_view.max(1),
        }
    }

    /// The first row in view, its first cell.
    fn first_in_view(self) -> Option<GridCell> {
        let scroll_top = self.view.get_untracked().view.scroll_top;
        let row = self.measures.with_value(|m| {
            (m.heights.rows() > 0).then(|| {
                let row = m.heights.row_at(scroll_top);
                // A row half under the sticky header is not the one people see first.
                if m.heights.top_of(row) < scroll_top {
                    (row + 1).min(m.heights.rows() - 1)
                } else {
                    row
                }
            })
        })?;
        Some(GridCell { row, column: 0 })
    }

    /// Scrolls `to` into view and focuses it, now if its row is drawn, else once it is.
    fn go_to(self, to: GridCell) {
        let view = self.view.get_untracked().view;
        if let Some(place) = self.measures.with_value(|m| m.heights.reveal(to.row, view)) {
            self.scroll_to(place);
        }
        self.revealing.set_value(Some(to.row));
        self.pending.set_value(Some(to));
        self.focus_pending();
    }

    /// Notes where the focus went (`focusin`) or a click (`pointerdown`, `on_box`): a cell of
    /// this table is the grid's focused cell; anything outside the table (for a click, outside
    /// its box: a scrollbar dragged keeps the cell) ends it.
    pub(super) fn focus_moved(self, target: Option<web_sys::EventTarget>, on_box: bool) {
        let Some(target) = target.and_then(|t| t.dyn_into::<web_sys::Node>().ok()) else {
            return;
        };
        let within = if on_box {
            self.scroller
                .get_untracked()
                .is_some_and(|s| s.contains(Some(&target)))
        } else {
            self.table
                .get_untracked()
                .is_some_and(|t| t.contains(Some(&target)))
        };
        if !within {
            self.focused.set_value(None);
            return;
        }
        if on_box {
            return;
        }
        let cell = target
            .dyn_into::<Element>()
            .ok()
            .and_then(|t| t.closest("tbody td, tbody th").ok().flatten())
            .and_then(|c| c.dyn_into::<HtmlTableCellElement>().ok())
            .and_then(|c| cell_of(&c));
        if cell.is_some() {
            self.focused.set_value(cell);
        }
    }

    /// Gives the focus back to the grid's focused cell when its row was redrawn or moved (the
    /// focus fell to the page's body), once the row is drawn.
    fn keep_focus(self) {
        if self.pending.get_value().is_some() {
            return;
        }
        let Some(cell) = self.focused.get_value() else {
            return;
        };
        let lost = document()
            .active_element()
            .is_none_or(|a| document().body().is_some_and(|b| b.is_same_node(Some(&a))));
        if !lost {
            return;
        }
        if let Some(element) = self.cell_element(cell) {
            let options = web_sys::FocusOptions::new();
            options.set_prevent_scroll(true);
            let _ = element.focus_with_options(&options);
        }
    }

    /// Focuses the cell a key moved to, if its row is drawn; else keeps the focused cell's.
    fn focus_pending(self) {
        // Called a frame after a fling ends: the table may have gone since.
        let Some(pending) = self.pending.try_get_value() else {
            return;
        };
        let Some(to) = pending else {
            self.keep_focus();
            return;
        };
        let Some(cell) = self.cell_element(to) else {
            return;
        };
        self.pending.set_value(None);
        // The box has brought the row in below its sticky header; the page and a wide table's
        // columns follow with the least move.
        let options = web_sys::FocusOptions::new();
        options.set_prevent_scroll(true);
        let _ = cell.focus_with_options(&options);
        let nearest = web_sys::ScrollIntoViewOptions::new();
        nearest.set_block(web_sys::ScrollLogicalPosition::Nearest);
        nearest.set_inline(web_sys::ScrollLogicalPosition::Nearest);
        cell.scroll_into_view_with_scroll_into_view_options(&nearest);
        // That move is the table's own too, not the person's: the rows moved with the box.
        if let Some(scroller) = self.scroller.get_untracked() {
            let box_top = f64::from(scroller.scroll_top());
            let at = self.at.get_value();
            self.take_placed(box_top, box_top, at.place + (box_top - at.box_top));
        }
    }

    /// The drawn cell at `cell`, if its row is drawn in full.
    fn cell_element(self, cell: GridCell) -> Option<HtmlElement> {
        self.row_element(cell.row)?
            .cells()
            .item(cell.column as u32)?
            .dyn_into()
            .ok()
    }

    /// The drawn row at `place` among the rows shown (not a fling's placeholder).
    fn row_element(self, place: usize) -> Option<HtmlTableRowElement> {
        self.scroller
            .get_untracked()?
            .query_selector(&format!(
                "tbody tr[aria-rowindex=\"{}\"]:not([data-placeholder])",
                place + 2
            ))
            .ok()
            .flatten()?
            .dyn_into()
            .ok()
    }

    /// Takes the rows' measured heights, keeps the row read in place if rows above it changed,
    /// and focuses a cell a key moved to once its row is drawn.
    fn measured(self, entries: &js_sys::Array) {
        let Some(scroller) = self.scroller.get_untracked() else {
            return;
        };
        let box_top = f64::from(scroller.scroll_top());
        let ViewFor {
            view: seen,
            box_top: seen_box_top,
            ..
        } = self.view.get_untracked();
        let was = self.at.get_value();
        let scroll_top = self.place_shown(box_top, seen.height);
        let view = Viewport { scroll_top, ..seen };
        let revealing = self.revealing.get_value();
        let flinging = self.pace.get_untracked() == ScrollPace::Flinging;
        let drawn = self.drawn.get_value();
        let mut changed = false;
        let mut place_now = None;
        let mut placing = None;
        self.measures.update_value(|m| {
            let anchor = m.heights.anchor(scroll_top);
            for entry in entries.iter() {
                let Ok(entry) = entry.dyn_into::<ResizeObserverEntry>() else {
                    continue;
                };
                let target = entry.target();
                // A placeholder's height is the estimate it was given, not a measure.
                if !target.is_connected() || target.has_attribute("data-placeholder") {
                    continue;
                }
                let Some(place) = target
                    .get_attribute("aria-rowindex")
                    .and_then(|i| i.parse::<usize>().ok())
                    .and_then(|i| i.checked_sub(2))
                else {
                    continue;
                };
                changed |= m
                    .heights
                    .measure(place, target.get_bounding_client_rect().height());
            }
            if changed {
                // The row a key moved to stays in view; else the row read stays in place, but
                // not in a fling: the view moves anyway, and holding it would lay the rows out
                // again in every frame.
                place_now = match revealing {
                    Some(row) => m.heights.reveal(row, view),
                    None => (scroll_top > 0.0 && !flinging).then(|| m.heights.place_of(anchor)),
                };
                let shown = Shown {
                    was,
                    box_top,
                    held: place_now,
                };
                placing = Some(m.heights.placing(&drawn, view, shown));
            }
        });
        let Some(placing) = placing else {
            self.focus_pending();
            return;
        };
        // The space kept for the rows not drawn follows their new heights at once, before the
        // view moves: a place past the old end would be cut short to it. The reactive margins
        // then agree (`drawn` is made again from the same heights and place).
        if let Some(table) = self.table.get_untracked() {
            let style = HtmlElement::style(&table);
            let (above, below) = placing.margins;
            let _ = style.set_property("margin-top", &format!("{above}px"));
            let _ = style.set_property("margin-bottom", &format!("{below}px"));
        }
        let at = placing.at;
        if (at.box_top - box_top).abs() >= 1.0 || placing.held_at_end {
            scroller.set_scroll_top(at.box_top.round() as i32);
            self.take_placed(f64::from(scroller.scroll_top()), at.box_top, at.place);
        } else {
            self.at.set_value(at);
            // The rows' place held where the box stays (a stretched box) is the table's own move,
            // unless a scroll of the person's waits to be read (the box moved since the last read).
            if (seen_box_top - box_top).abs() < 0.5 {
                self.placed.set_value(Some(at));
            }
        }
        self.focus_pending();
    }

    /// Draws the rows the new measures (and the box's size) call for, in the next frame. Rows
    /// drawn now, inside the observer's callback, would be new observations at the depth the
    /// browser has just delivered: it reports them as an error ("ResizeObserver loop completed
    /// with undelivered notifications") and measures them a frame later anyway. The rows drawn
    /// reach 400 px past the view's edges, so a frame's wait shows nothing missing.
    fn follow_measures(self, measured: Trigger) {
        if self.follow_up.get_value().is_some() {
            return;
        }
        // Cancelled when the table goes (`on_cleanup`); but a cancel can miss (a fake clock's
        // ids do not fit the i32 web-sys keeps), so a frame that comes after the table went
        // does nothing.
        let handle = request_animation_frame_with_handle(move || {
            if self.follow_up.try_set_value(None).is_some() {
                return;
            }
            measured.notify();
            self.read_view();
        });
        self.follow_up.set_value(handle.ok());
    }
}

/// The place of a body cell: its row among the rows shown, and its column.
fn cell_of(cell: &HtmlTableCellElement) -> Option<GridCell> {
    let row = cell
        .parent_element()?
        .get_attribute("aria-rowindex")?
        .parse::<usize>()
        .ok()?
        .checked_sub(2)?;
    Some(GridCell {
        row,
        column: usize::try_from(cell.cell_index()).ok()?,
    })
}

/// The observer of the drawn rows' sizes, with its callback (kept as long as it); it stops
/// watching a row taken out of the document.
pub(super) struct SizeObserver {
    pub(super) observer: ResizeObserver,
    _callback: Closure<dyn Fn(js_sys::Array, ResizeObserver)>,
}

impl SizeObserver {
    pub(super) fn new(grid: Grid, measured: Trigger) -> Option<SizeObserver> {
        let callback = Closure::<dyn Fn(js_sys::Array, ResizeObserver)>::new(
            move |entries: js_sys::Array, observer: ResizeObserver| {
                for entry in entries.iter() {
                    if let Ok(entry) = entry.dyn_into::<ResizeObserverEntry>()
                        && !entry.target().is_connected()
                    {
                        observer.unobserve(&entry.target());
                    }
                }
                grid.measured(&entries);
                grid.follow_measures(measured);
            },
        );
        let observer = ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        Some(SizeObserver {
            observer,
            _callback: callback,
        })
    }
}
