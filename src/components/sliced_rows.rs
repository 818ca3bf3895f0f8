//! A table's rows built a slice at a time: the first screenful with the table, the rest a slice
//! per frame, so that a page of 100 or 200 rows never holds the page for one long task. Adding a
//! slice to a table lays out only its rows; a whole page at once took 300 to 400 ms with the CPU
//! four times slower (docs/performance.md).

use std::ops::Range;

use leptos::prelude::*;

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
/// painted (a timeout set from an animation frame runs after that frame); stops when the rows
/// are gone (their signals disposed).
fn show_one_per_frame(mut slices: Vec<RwSignal<bool>>) {
    if slices.is_empty() {
        return;
    }
    let next = slices.remove(0);
    request_animation_frame(move || {
        set_timeout(
            move || {
                if next.try_set(true).is_none() {
                    show_one_per_frame(slices);
                }
            },
            std::time::Duration::ZERO,
        )
    });
}
