//! A table's rows built a slice at a time: the first screenful with the table, the rest a slice
//! per frame, so that a page of 100 or 200 rows never holds the page for one long task. Adding a
//! slice to a table lays out only its rows; a whole page at once took 300 to 400 ms with the CPU
//! four times slower (docs/performance.md).

use std::ops::Range;

use leptos::prelude::*;

use crate::browser::after_next_paint;

/// The rows `0..count` of a table body, as `build` makes them for a range: the first `first`
/// at once, then `per_slice` at a time, each slice added a frame after the one before was
/// painted. If the rows are gone before their turn (a new sort, another page), nothing more is
/// built.
pub fn sliced_rows(
    count: usize,
    first: usize,
    per_slice: usize,
    build: impl Fn(Range<usize>) -> AnyView + Clone + Send + Sync + 'static,
) -> impl IntoView {
    let first = first.min(count);
    let first_rows = build(0..first);
    let rest: Vec<(Range<usize>, RwSignal<bool>)> = (first..count)
        .step_by(per_slice.max(1))
        .map(|start| {
            (
                start..(start + per_slice.max(1)).min(count),
                RwSignal::new(false),
            )
        })
        .collect();
    show_one_per_frame(rest.iter().map(|(_, shown)| *shown).collect());
    let rest = rest
        .into_iter()
        .map(|(range, shown)| {
            let build = build.clone();
            move || shown.get().then(|| build(range.clone()))
        })
        .collect_view();
    (first_rows, rest)
}

/// Sets each of `slices` to shown, one at a time, each a frame after the one before was
/// painted; stops when the rows are gone (their signals disposed).
fn show_one_per_frame(mut slices: Vec<RwSignal<bool>>) {
    if slices.is_empty() {
        return;
    }
    let next = slices.remove(0);
    after_next_paint(move || {
        if next.try_set(true).is_none() {
            show_one_per_frame(slices);
        }
    });
}

/// How many of a table's rows to draw, for a table whose lines follow their data in place (a
/// keyed `<For>`), where [`sliced_rows`] would build them all again at every change: none at
/// first (the lines come in a task after the view around them), then `per_slice` more a frame
/// after each, until `total`. When `restart` changes (another batch, page or filter), the count
/// is none again at once, in the same read, and grows from there: the old lines are taken away
/// in the task that changed what is shown, and no line is built or updated in it, whatever
/// order the page's effects run in.
pub fn rows_drawn_in_slices<Key>(
    total: Signal<usize>,
    restart: Memo<Key>,
    per_slice: usize,
) -> Signal<usize>
where
    Key: Clone + PartialEq + Send + Sync + 'static,
{
    let per_slice = per_slice.max(1);
    // How many lines are drawn, and for which key: a count of another key counts none.
    let drawn = RwSignal::new(SlicesDrawn {
        key: restart.get_untracked(),
        lines: 0,
    });
    let now_drawn = Signal::derive(move || {
        restart.with(|key| drawn.with(|drawn| if drawn.key == *key { drawn.lines } else { 0 }))
    });
    // One slice waits for its frame at a time.
    let waiting = StoredValue::new(false);
    Effect::new(move |_| {
        if now_drawn.get() >= total.get() || waiting.get_value() {
            return;
        }
        waiting.set_value(true);
        after_next_paint(move || {
            waiting.try_set_value(false);
            let Some(key) = restart.try_get_untracked() else {
                return;
            };
            drawn.try_update(|drawn| {
                if drawn.key != key {
                    *drawn = SlicesDrawn { key, lines: 0 };
                }
                drawn.lines += per_slice;
            });
        });
    });
    now_drawn
}

/// The lines drawn of a table, for what it showed when they were counted.
#[derive(Clone, PartialEq)]
struct SlicesDrawn<Key> {
    key: Key,
    lines: usize,
}
