//! A long table drawn a window at a time (`components::WindowedTable`): only the rows near the
//! view are in the document, and the space the others would take is kept above and below them,
//! so a table of 10,000 records lays out and paints what a screenful holds.
//!
//! Rows are of unequal height (a long text, a nested value opened): each row is measured as it is
//! drawn, and a row not drawn yet counts as the mean of those measured. The measured heights are
//! summed in a Fenwick tree, so the place of any row and the row at any place are found in
//! O(log² n) steps even for 900,000 rows, and a height changing costs O(log n).
//!
//! Places are in CSS pixels from the top of the first row.

use std::collections::HashMap;
use std::hash::Hash;
use std::ops::{Add, Range, Sub};

/// The height a row counts for before any row was measured: the shortest row of the output
/// table (one line of text).
pub const FIRST_ESTIMATE_PX: f64 = 40.0;

/// Rows drawn beyond each edge of the view, in CSS pixels: a wheel step or two, so that a slow
/// scroll finds its next rows drawn already and a fling draws only the rows it reaches.
pub const OVERSCAN_PX: f64 = 400.0;

/// How long the view stays still before a fling counts as ended and the rows past the view's
/// edges are drawn again, in milliseconds: a few frames, longer than the pause between two wheel
/// events of one gesture.
pub const FLING_SETTLES_MS: u64 = 120;

/// A change of a row's height smaller than this is noise (sub-pixel layout), not a new height:
/// ignoring it keeps a measure from moving the view by fractions forever.
const NOISE_PX: f64 = 0.5;

/// What the measured rows up to some row add up to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Measured {
    /// Their heights, summed.
    px: f64,
    /// How many they are.
    rows: u32,
}

impl Add for Measured {
    type Output = Measured;
    fn add(self, other: Measured) -> Measured {
        Measured {
            px: self.px + other.px,
            rows: self.rows + other.rows,
        }
    }
}

impl Sub for Measured {
    type Output = Measured;
    fn sub(self, other: Measured) -> Measured {
        Measured {
            px: self.px - other.px,
            rows: self.rows - other.rows,
        }
    }
}

/// Prefix sums that change one place at a time (a Fenwick, or binary indexed, tree).
#[derive(Clone, Debug)]
struct PrefixSums {
    /// `tree[i - 1]` holds the sum of the `i & i.wrapping_neg()` places ending at place `i - 1`.
    tree: Vec<Measured>,
}

impl PrefixSums {
    fn new(places: usize) -> Self {
        PrefixSums {
            tree: vec![Measured::default(); places],
        }
    }

    /// Adds `change` at `place`.
    fn add(&mut self, place: usize, change: Measured) {
        let mut i = place + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1] + change;
            i += i & i.wrapping_neg();
        }
    }

    /// Removes `change` from `place` (the inverse of [`PrefixSums::add`]).
    fn remove(&mut self, place: usize, change: Measured) {
        let mut i = place + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1] - change;
            i += i & i.wrapping_neg();
        }
    }

    /// The sum of the places before `end`.
    fn before(&self, end: usize) -> Measured {
        let mut sum = Measured::default();
        let mut i = end.min(self.tree.len());
        while i > 0 {
            sum = sum + self.tree[i - 1];
            i -= i & i.wrapping_neg();
        }
        sum
    }
}

/// The heights of a table's rows: those measured, and an estimate for the rest.
#[derive(Clone, Debug)]
pub struct RowHeights {
    /// Each row's measured height, 0 while it has not been measured.
    heights: Vec<f32>,
    /// The measured heights, summed by place.
    sums: PrefixSums,
    /// All the measured rows together.
    measured: Measured,
    /// What a row counts for while none is measured.
    first_estimate: f64,
}

/// The part of the rows a person sees: where it starts and how tall it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// The place at the top of the view.
    pub scroll_top: f64,
    /// The view's height (what is under a sticky header not counted).
    pub height: f64,
}

/// The rows to draw, and the space to keep for the others.
#[derive(Clone, Debug, PartialEq)]
pub struct RowWindow {
    /// The rows in the document.
    pub rows: Range<usize>,
    /// The height of the rows before them.
    pub space_above: f64,
    /// The height of the rows after them.
    pub space_below: f64,
}

/// How the view moves through the rows, which decides how far past it rows are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScrollPace {
    /// The view moves within or next to the rows drawn (reading, a wheel step, a key): rows
    /// past each edge are drawn ahead ([`OVERSCAN_PX`]), so the next step finds them there.
    Reading,
    /// A fling or a jump: the view left every row drawn at its last move. Rows drawn past its
    /// edges would be gone before anyone saw them, so only the rows in view are drawn: on a slow
    /// machine, where a frame scrolls past a whole window, that halves each frame's work.
    Flinging,
}

impl ScrollPace {
    /// The pixels of rows drawn beyond each edge of the view.
    pub fn overscan(self) -> f64 {
        match self {
            ScrollPace::Reading => OVERSCAN_PX,
            ScrollPace::Flinging => 0.0,
        }
    }
}

/// The view's place as a row and a distance into it: kept while heights change above the view,
/// so what a person reads does not move under their eyes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScrollAnchor {
    pub row: usize,
    pub into_row: f64,
}

impl RowHeights {
    /// `rows` rows, none measured, each counting `first_estimate` until rows are measured (the
    /// mean of another order's rows, or [`FIRST_ESTIMATE_PX`]).
    pub fn new(rows: usize, first_estimate: f64) -> Self {
        RowHeights {
            heights: vec![0.0; rows],
            sums: PrefixSums::new(rows),
            measured: Measured::default(),
            first_estimate: if first_estimate.is_finite() && first_estimate > 0.0 {
                first_estimate
            } else {
                FIRST_ESTIMATE_PX
            },
        }
    }

    pub fn rows(&self) -> usize {
        self.heights.len()
    }

    /// What a row not measured yet counts for: the mean of the measured rows.
    pub fn estimate(&self) -> f64 {
        if self.measured.rows == 0 {
            self.first_estimate
        } else {
            self.measured.px / f64::from(self.measured.rows)
        }
    }

    /// Where `row` starts (the end of the last row for `row` past it).
    pub fn top_of(&self, row: usize) -> f64 {
        let row = row.min(self.rows());
        let before = self.sums.before(row);
        before.px + (row - before.rows as usize) as f64 * self.estimate()
    }

    /// The height `row` counts for: its measured height, else the estimate.
    pub fn height_of(&self, row: usize) -> f64 {
        self.top_of(row + 1) - self.top_of(row)
    }

    /// The height of all the rows.
    pub fn total(&self) -> f64 {
        self.top_of(self.rows())
    }

    /// The row at `place`: the last row that starts at or before it (the first row above the
    /// top, the last row below the end; 0 when there are none).
    pub fn row_at(&self, place: f64) -> usize {
        // The first row that starts after `place`, less one.
        let (mut low, mut high) = (0, self.rows());
        while low < high {
            let middle = low + (high - low) / 2;
            if self.top_of(middle) <= place {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low.saturating_sub(1)
    }

    /// Takes `height` as the drawn height of `row`; whether anything changed (a row out of range,
    /// a height that is not a height, or a change under [`NOISE_PX`] changes nothing).
    pub fn measure(&mut self, row: usize, height: f64) -> bool {
        let Some(&known) = self.heights.get(row) else {
            return false;
        };
        if !height.is_finite() || height <= 0.0 {
            return false;
        }
        let known = f64::from(known);
        if known > 0.0 && (known - height).abs() < NOISE_PX {
            return false;
        }
        if known > 0.0 {
            let old = Measured { px: known, rows: 1 };
            self.sums.remove(row, old);
            self.measured = self.measured - old;
        }
        let new = Measured {
            px: f64::from(height as f32),
            rows: 1,
        };
        self.sums.add(row, new);
        self.measured = self.measured + new;
        self.heights[row] = height as f32;
        true
    }

    /// The rows to draw for `view`, with `overscan` pixels of rows beyond each edge.
    pub fn window(&self, view: Viewport, overscan: f64) -> RowWindow {
        if self.rows() == 0 {
            return RowWindow {
                rows: 0..0,
                space_above: 0.0,
                space_below: 0.0,
            };
        }
        let top = (view.scroll_top - overscan).max(0.0);
        let bottom = view.scroll_top + view.height.max(0.0) + overscan;
        let first = self.row_at(top);
        let end = (self.row_at(bottom) + 1).max(first + 1).min(self.rows());
        let (above, below_start) = (self.top_of(first), self.top_of(end));
        RowWindow {
            rows: first..end,
            space_above: above,
            space_below: (self.total() - below_start).max(0.0),
        }
    }

    /// The pace of a move of the view to `view` from where the rows `drawn` were drawn for:
    /// [`ScrollPace::Flinging`] when none of them is in the new view.
    pub fn pace(&self, drawn: &Range<usize>, view: Viewport) -> ScrollPace {
        if drawn.is_empty() {
            return ScrollPace::Reading;
        }
        let (top, bottom) = (self.top_of(drawn.start), self.top_of(drawn.end));
        let overlaps = top < view.scroll_top + view.height && view.scroll_top < bottom;
        if overlaps {
            ScrollPace::Reading
        } else {
            ScrollPace::Flinging
        }
    }

    /// Where the view is, as a row and a distance into it.
    pub fn anchor(&self, scroll_top: f64) -> ScrollAnchor {
        let row = self.row_at(scroll_top);
        ScrollAnchor {
            row,
            into_row: (scroll_top - self.top_of(row)).max(0.0),
        }
    }

    /// The scroll place that puts `anchor` where it was (after heights changed).
    pub fn place_of(&self, anchor: ScrollAnchor) -> f64 {
        self.top_of(anchor.row) + anchor.into_row
    }

    /// The scroll place that brings `row` wholly into `view` with the least move, or `None`
    /// when it is in view already (a row taller than the view shows its top).
    pub fn reveal(&self, row: usize, view: Viewport) -> Option<f64> {
        let (top, bottom) = (self.top_of(row), self.top_of(row + 1));
        let shows_top = (top - view.scroll_top).abs() < NOISE_PX;
        if bottom - top > view.height {
            (!shows_top).then_some(top)
        } else if top < view.scroll_top {
            Some(top)
        } else if bottom > view.scroll_top + view.height {
            Some(bottom - view.height)
        } else {
            None
        }
    }
}

/// The same list, updated: rows added (a log read again has new entries at its top), gone or
/// moved, while its filter and sort stay. What was measured and what the person reads carry over.
#[derive(Clone, Debug)]
pub struct ListUpdate {
    /// The new list's heights: each row still in the list keeps its measured height.
    pub heights: RowHeights,
    /// Where the view goes: the row at its top stays there, at the same distance into it (the
    /// next row still listed if it is gone). A view at the very top stays there: the newest rows
    /// show as they come.
    pub scroll_top: f64,
}

/// How the view and the heights follow a list going from `old` to `new` keys (`before`: the old
/// list's heights; `scroll_top`: the view's place in it).
pub fn updated_list<Key: Eq + Hash>(
    old: &[Key],
    new: &[Key],
    before: &RowHeights,
    scroll_top: f64,
) -> ListUpdate {
    let place_now: HashMap<&Key, usize> = new
        .iter()
        .enumerate()
        .rev()
        .map(|(place, key)| (key, place))
        .collect();
    let mut heights = RowHeights::new(new.len(), before.estimate());
    for (old_place, key) in old.iter().enumerate() {
        let measured = f64::from(before.heights[old_place]);
        if let Some(&place) = place_now.get(key)
            && measured > 0.0
        {
            heights.measure(place, measured);
        }
    }
    let scroll_top = if scroll_top <= 0.0 || old.is_empty() {
        0.0
    } else {
        let anchor = before.anchor(scroll_top);
        let still_listed = (anchor.row..old.len())
            .find_map(|row| place_now.get(&old[row]).map(|&place| (row, place)));
        match still_listed {
            Some((row, place)) if row == anchor.row => heights.top_of(place) + anchor.into_row,
            Some((_, place)) => heights.top_of(place),
            None => scroll_top.min(heights.total()),
        }
    };
    ListUpdate {
        heights,
        scroll_top,
    }
}

/// A key that moves the focus in a grid of cells (the WAI-ARIA data grid's keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridKey {
    Up,
    Down,
    Left,
    Right,
    /// A view's worth of rows up.
    PageUp,
    PageDown,
    /// The first cell of the row (Home).
    RowStart,
    /// The last cell of the row (End).
    RowEnd,
    /// The first row (Ctrl+Home).
    FirstRow,
    /// The last row (Ctrl+End).
    LastRow,
}

impl GridKey {
    /// The move a key (`KeyboardEvent.key`) makes, with Ctrl (or ⌘) held or not.
    pub fn from_key(key: &str, control: bool) -> Option<GridKey> {
        Some(match (key, control) {
            ("ArrowUp", _) => GridKey::Up,
            ("ArrowDown", _) => GridKey::Down,
            ("ArrowLeft", _) => GridKey::Left,
            ("ArrowRight", _) => GridKey::Right,
            ("PageUp", _) => GridKey::PageUp,
            ("PageDown", _) => GridKey::PageDown,
            ("Home", false) => GridKey::RowStart,
            ("End", false) => GridKey::RowEnd,
            ("Home", true) => GridKey::FirstRow,
            ("End", true) => GridKey::LastRow,
            _ => return None,
        })
    }
}

/// A cell of a grid, by row and column from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridCell {
    pub row: usize,
    pub column: usize,
}

/// How many rows and columns a grid has, and how many rows a view shows (a page's move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridSize {
    pub rows: usize,
    pub columns: usize,
    pub rows_in_view: usize,
}

/// The cell `key` moves to from `from`: never outside the grid (a move past an edge stays at
/// the edge), none when the grid is empty.
pub fn moved(from: GridCell, key: GridKey, size: GridSize) -> Option<GridCell> {
    if size.rows == 0 || size.columns == 0 {
        return None;
    }
    let (last_row, last_column) = (size.rows - 1, size.columns - 1);
    let (row, column) = (from.row.min(last_row), from.column.min(last_column));
    let page = size.rows_in_view.max(1);
    let (row, column) = match key {
        GridKey::Up => (row.saturating_sub(1), column),
        GridKey::Down => ((row + 1).min(last_row), column),
        GridKey::Left => (row, column.saturating_sub(1)),
        GridKey::Right => (row, (column + 1).min(last_column)),
        GridKey::PageUp => (row.saturating_sub(page), column),
        GridKey::PageDown => ((row + page).min(last_row), column),
        GridKey::RowStart => (row, 0),
        GridKey::RowEnd => (row, last_column),
        GridKey::FirstRow => (0, column),
        GridKey::LastRow => (last_row, column),
    };
    Some(GridCell { row, column })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn view(scroll_top: f64, height: f64) -> Viewport {
        Viewport { scroll_top, height }
    }

    /// Heights of `rows` rows, row `i` measured `20 + i` pixels tall.
    fn measured_rows(rows: usize) -> RowHeights {
        let mut heights = RowHeights::new(rows, 40.0);
        for row in 0..rows {
            heights.measure(row, 20.0 + row as f64);
        }
        heights
    }

    #[test]
    fn an_updated_list_keeps_the_row_read_in_place_as_rows_come_above_it() {
        let old = ["c", "d", "e", "f"];
        let before = measured_rows(old.len());
        // Reading 5 px into "d" (c is 20 px tall).
        let update = updated_list(&old, &["a", "b", "c", "d", "e", "f"], &before, 25.0);
        // "a" and "b" are new: they count the old rows' mean; "c" to "f" keep theirs.
        let mean = before.estimate();
        assert_eq!(update.heights.rows(), 6);
        assert_eq!(update.heights.height_of(2), 20.0);
        assert_eq!(update.heights.height_of(5), 23.0);
        assert_eq!(update.heights.height_of(0), mean);
        assert_eq!(update.scroll_top, 2.0 * mean + 20.0 + 5.0);
    }

    #[test]
    fn a_view_at_the_top_stays_at_the_top_to_show_the_newest_rows() {
        let before = measured_rows(3);
        let update = updated_list(&[1, 2, 3], &[0, 1, 2, 3], &before, 0.0);
        assert_eq!(update.scroll_top, 0.0);
    }

    #[test]
    fn when_the_row_read_is_gone_the_view_goes_to_the_next_row_still_listed() {
        let before = measured_rows(4);
        // Reading 3 px into "b", which a filter or a trim took out.
        let update = updated_list(&["a", "b", "c", "d"], &["a", "c", "d"], &before, 23.0);
        assert_eq!(update.scroll_top, 20.0);
        // Nothing after it is listed: the view stays where it was, within the new list.
        let update = updated_list(&["a", "b", "c", "d"], &["a"], &before, 50.0);
        assert_eq!(update.scroll_top, 20.0);
        let update = updated_list(&["a", "b"], &["x", "y", "z", "w"], &measured_rows(2), 30.0);
        assert_eq!(update.scroll_top, 30.0);
    }

    #[test]
    fn rows_not_measured_before_are_not_measured_after() {
        let mut before = RowHeights::new(3, 40.0);
        before.measure(1, 90.0);
        let update = updated_list(&[1, 2, 3], &[3, 2, 1], &before, 0.0);
        // Row 2 moved to place 1 with its height; rows 1 and 3 count the estimate (90).
        assert_eq!(update.heights.height_of(1), 90.0);
        assert_eq!(update.heights.total(), 270.0);
        assert_eq!(updated_list::<u8>(&[], &[], &before, 10.0).scroll_top, 0.0);
    }

    #[test]
    fn rows_not_measured_count_the_first_estimate_then_the_mean_of_those_measured() {
        let mut heights = RowHeights::new(10, 40.0);
        assert_eq!(heights.total(), 400.0);
        assert!(heights.measure(0, 60.0));
        assert!(heights.measure(1, 100.0));
        // Two rows of 60 and 100; the other eight count their mean, 80.
        assert_eq!(heights.estimate(), 80.0);
        assert_eq!(heights.top_of(1), 60.0);
        assert_eq!(heights.top_of(2), 160.0);
        assert_eq!(heights.top_of(3), 240.0);
        assert_eq!(heights.height_of(1), 100.0);
        assert_eq!(heights.height_of(5), 80.0);
        assert_eq!(heights.total(), 160.0 + 8.0 * 80.0);
        // Measured again: the new height replaces the old one.
        assert!(heights.measure(1, 20.0));
        assert_eq!(heights.estimate(), 40.0);
        assert_eq!(heights.total(), 80.0 + 8.0 * 40.0);
    }

    #[test]
    fn noise_and_nonsense_change_nothing() {
        let mut heights = RowHeights::new(3, 40.0);
        assert!(heights.measure(0, 41.0));
        assert!(!heights.measure(0, 41.3), "under half a pixel is noise");
        assert!(!heights.measure(0, f64::NAN));
        assert!(!heights.measure(0, 0.0));
        assert!(!heights.measure(0, -5.0));
        assert!(!heights.measure(3, 50.0), "no row 3");
        assert_eq!(heights.top_of(1), 41.0);
        // A bad first estimate falls back to the shortest row.
        assert_eq!(RowHeights::new(2, f64::NAN).estimate(), FIRST_ESTIMATE_PX);
        assert_eq!(RowHeights::new(2, 0.0).estimate(), FIRST_ESTIMATE_PX);
    }

    #[test]
    fn the_row_at_a_place_is_the_last_one_starting_at_or_before_it() {
        let mut heights = RowHeights::new(4, 40.0);
        heights.measure(1, 100.0);
        heights.measure(0, 40.0);
        heights.measure(2, 40.0);
        heights.measure(3, 40.0);
        // Rows start at 0, 40, 140, 180; the end is 220.
        assert_eq!(heights.row_at(-10.0), 0);
        assert_eq!(heights.row_at(0.0), 0);
        assert_eq!(heights.row_at(39.9), 0);
        assert_eq!(heights.row_at(40.0), 1);
        assert_eq!(heights.row_at(139.0), 1);
        assert_eq!(heights.row_at(140.0), 2);
        assert_eq!(heights.row_at(10_000.0), 3);
        assert_eq!(RowHeights::new(0, 40.0).row_at(5.0), 0);
    }

    #[test]
    fn a_window_holds_the_rows_in_view_and_the_overscan_with_the_space_of_the_others() {
        let heights = RowHeights::new(10_000, 40.0);
        let window = heights.window(view(40_000.0, 600.0), 400.0);
        // From 39,600 to 41,000: rows 990 to 1,025.
        assert_eq!(window.rows, 990..1026);
        assert_eq!(window.space_above, 990.0 * 40.0);
        assert_eq!(window.space_below, (10_000.0 - 1026.0) * 40.0);
        // At the top and past the end.
        assert_eq!(heights.window(view(0.0, 600.0), 400.0).rows, 0..26);
        let end = heights.window(view(1e9, 600.0), 400.0);
        assert_eq!(end.rows, 9_999..10_000);
        assert_eq!(end.space_below, 0.0);
        // No rows: nothing to draw.
        let none = RowHeights::new(0, 40.0).window(view(0.0, 600.0), 400.0);
        assert_eq!(none.rows, 0..0);
        assert_eq!(none.space_above + none.space_below, 0.0);
    }

    #[test]
    fn a_view_that_left_every_row_drawn_is_a_fling_and_draws_no_rows_past_its_edges() {
        // 100 rows of 40 px; rows 10 to 30 drawn (400 to 1200 px).
        let heights = RowHeights::new(100, 40.0);
        let drawn = 10..30;
        // A wheel step: the view still shows some of the rows drawn.
        assert_eq!(
            heights.pace(&drawn, view(1000.0, 400.0)),
            ScrollPace::Reading
        );
        assert_eq!(
            heights.pace(&drawn, view(100.0, 400.0)),
            ScrollPace::Reading
        );
        // Past them, either way, even by a pixel.
        assert_eq!(
            heights.pace(&drawn, view(1200.0, 400.0)),
            ScrollPace::Flinging
        );
        assert_eq!(heights.pace(&drawn, view(0.0, 400.0)), ScrollPace::Flinging);
        assert_eq!(
            heights.pace(&drawn, view(3000.0, 400.0)),
            ScrollPace::Flinging
        );
        // Nothing drawn yet (an empty table, a first draw): reading.
        assert_eq!(
            heights.pace(&(0..0), view(3000.0, 400.0)),
            ScrollPace::Reading
        );
        // A fling draws the rows in view only.
        let at = view(3000.0, 400.0);
        assert_eq!(
            heights.window(at, ScrollPace::Flinging.overscan()).rows,
            75..86
        );
        assert_eq!(
            heights.window(at, ScrollPace::Reading.overscan()).rows,
            65..96
        );
    }

    #[test]
    fn an_anchor_keeps_the_row_read_in_place_when_rows_above_change() {
        let mut heights = RowHeights::new(1_000, 40.0);
        let anchor = heights.anchor(4_010.0);
        assert_eq!(
            anchor,
            ScrollAnchor {
                row: 100,
                into_row: 10.0
            }
        );
        // Rows above are measured taller: the same row is now further down.
        for row in 90..100 {
            heights.measure(row, 80.0);
        }
        let place = heights.place_of(anchor);
        assert_eq!(heights.row_at(place), 100);
        assert_eq!(place - heights.top_of(100), 10.0);
    }

    #[test]
    fn reveal_moves_the_least_that_shows_the_whole_row() {
        let heights = RowHeights::new(100, 40.0);
        let at = view(400.0, 200.0);
        assert_eq!(heights.reveal(11, at), None, "rows 10 to 14 are in view");
        assert_eq!(heights.reveal(14, at), None);
        assert_eq!(heights.reveal(15, at), Some(440.0), "bottom aligned");
        assert_eq!(heights.reveal(9, at), Some(360.0), "top aligned");
        assert_eq!(heights.reveal(99, at), Some(3_800.0));
        // A row taller than the view shows its top.
        let mut tall = RowHeights::new(3, 40.0);
        for (row, px) in [(0, 40.0), (1, 500.0), (2, 40.0)] {
            tall.measure(row, px);
        }
        assert_eq!(tall.reveal(1, view(0.0, 200.0)), Some(40.0));
        assert_eq!(tall.reveal(1, view(300.0, 200.0)), Some(40.0));
        assert_eq!(tall.reveal(1, view(40.0, 200.0)), None);
    }

    #[test]
    fn keys_move_within_the_grid() {
        let size = GridSize {
            rows: 100,
            columns: 5,
            rows_in_view: 12,
        };
        let at = |row, column| GridCell { row, column };
        let go = |from, key| moved(from, key, size).unwrap();
        assert_eq!(go(at(0, 0), GridKey::Up), at(0, 0));
        assert_eq!(go(at(0, 0), GridKey::Down), at(1, 0));
        assert_eq!(go(at(99, 4), GridKey::Down), at(99, 4));
        assert_eq!(go(at(5, 0), GridKey::Left), at(5, 0));
        assert_eq!(go(at(5, 4), GridKey::Right), at(5, 4));
        assert_eq!(go(at(5, 2), GridKey::Right), at(5, 3));
        assert_eq!(go(at(50, 2), GridKey::PageDown), at(62, 2));
        assert_eq!(go(at(95, 2), GridKey::PageDown), at(99, 2));
        assert_eq!(go(at(5, 2), GridKey::PageUp), at(0, 2));
        assert_eq!(go(at(5, 2), GridKey::RowStart), at(5, 0));
        assert_eq!(go(at(5, 2), GridKey::RowEnd), at(5, 4));
        assert_eq!(go(at(5, 2), GridKey::FirstRow), at(0, 2));
        assert_eq!(go(at(5, 2), GridKey::LastRow), at(99, 2));
        // A cell left outside (the rows were filtered) comes back inside.
        assert_eq!(go(at(500, 9), GridKey::Up), at(98, 4));
        assert_eq!(
            moved(at(0, 0), GridKey::Down, GridSize { rows: 0, ..size }),
            None
        );
        assert_eq!(GridKey::from_key("End", true), Some(GridKey::LastRow));
        assert_eq!(GridKey::from_key("End", false), Some(GridKey::RowEnd));
        assert_eq!(GridKey::from_key("a", false), None);
    }

    proptest! {
        /// Whatever is measured in whatever order, places are the sum of the rows before (each
        /// its measure or the mean), the row at a row's top is that row, and a window covers the
        /// view with its spaces adding up to the whole.
        #[test]
        fn places_add_up(
            rows in 1_usize..300,
            measures in prop::collection::vec((0_usize..300, 1.0_f64..400.0), 0..200),
            scroll in 0.0_f64..100_000.0,
            height in 1.0_f64..2_000.0,
        ) {
            let mut heights = RowHeights::new(rows, 40.0);
            let mut by_row = vec![None; rows];
            for (row, px) in measures {
                if heights.measure(row, px) {
                    by_row[row] = Some(px as f32 as f64);
                }
            }
            let estimate = heights.estimate();
            let mut top = 0.0;
            for (row, measured) in by_row.iter().enumerate() {
                prop_assert!((heights.top_of(row) - top).abs() < 1e-6 * (1.0 + top));
                prop_assert_eq!(heights.row_at(heights.top_of(row)), row);
                top += measured.unwrap_or(estimate);
            }
            prop_assert!((heights.total() - top).abs() < 1e-6 * (1.0 + top));
            let scroll = scroll.min(heights.total());
            let window = heights.window(view(scroll, height), 0.0);
            prop_assert!(!window.rows.is_empty());
            prop_assert!(window.space_above <= scroll + 1e-6);
            let drawn = heights.top_of(window.rows.end) - heights.top_of(window.rows.start);
            prop_assert!(window.space_above + drawn + window.space_below - heights.total() < 1e-6 * (1.0 + top));
            prop_assert!(window.space_above + drawn + 1e-6 >= (scroll + height).min(heights.total()));
        }
    }
}
