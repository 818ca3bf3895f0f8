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

/// The most space a table's box gives its rows, in CSS pixels. Browsers cap an element's height
/// (Chromium and WebKit at about 33.5 million pixels, Firefox at about 17.9 million): past it the
/// space kept for the rows not drawn is cut short and the last rows cannot be scrolled to, which
/// a batch's search records (about 100 px a row) pass at 170,000 rows. A table whose rows are
/// taller than this keeps this much space and maps the box's scroll places onto the rows'
/// ([`ScrollMap`]), as large data grids do.
pub const BOX_SPACE_AT_MOST_PX: f64 = 15_000_000.0;

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
    /// The box's margin above them: the height of the rows before them, or where a stretched
    /// box places them ([`RowHeights::window_in`]).
    pub space_above: f64,
    /// The box's margin below them: the height of the rows after them, or the rest of a stretched
    /// box's space.
    pub space_below: f64,
}

/// How the box's scroll places map onto the rows' places. Up to [`BOX_SPACE_AT_MOST_PX`] the box
/// holds the rows' whole height and a scroll place is the rows' place. Past it the box holds that
/// much, and its scroll places are stretched over the rows' places: the top of the box is the
/// first row's top, its end the last row's end, and a pixel scrolled moves the view over
/// `rows / box` pixels of rows. The rows themselves are drawn at their own heights, placed
/// where the view is ([`RowHeights::window_in`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScrollMap {
    /// The rows' height, all of them.
    rows_px: f64,
    /// The space the box keeps for them.
    box_px: f64,
    /// The view's height, in both: the rows are drawn at their own heights.
    view_px: f64,
}

impl ScrollMap {
    /// The map for rows `rows_px` tall in all, seen through a view `view_px` tall.
    pub fn new(rows_px: f64, view_px: f64) -> ScrollMap {
        let rows_px = rows_px.max(0.0);
        ScrollMap {
            rows_px,
            box_px: rows_px.min(BOX_SPACE_AT_MOST_PX),
            view_px: view_px.max(0.0),
        }
    }

    /// The space the box keeps for the rows: its content's height.
    pub fn box_space(self) -> f64 {
        self.box_px
    }

    /// Whether the rows are taller than the box may be, so that its scroll places are stretched.
    pub fn is_stretched(self) -> bool {
        self.rows_px > self.box_px
    }

    /// The furthest the view goes: among the rows, and in the box.
    fn ends(self) -> (f64, f64) {
        (
            (self.rows_px - self.view_px).max(0.0),
            (self.box_px - self.view_px).max(0.0),
        )
    }

    /// The rows' place at the top of the view when the box is scrolled to `box_top`.
    pub fn place_at(self, box_top: f64) -> f64 {
        if !self.is_stretched() {
            return box_top;
        }
        let (rows_end, box_end) = self.ends();
        if box_end <= 0.0 {
            return 0.0;
        }
        (box_top.clamp(0.0, box_end) / box_end) * rows_end
    }

    /// The box's end, and the rows' place it shows: the last row's end at the view's end.
    pub fn end(self) -> BoxPlace {
        let (rows_end, box_end) = self.ends();
        BoxPlace {
            box_top: box_end,
            place: rows_end,
        }
    }

    /// The rows' place at the top of the view once the box moved from `from` to `box_top`. A
    /// place and a box's place that agree ([`ScrollMap::place_at`]) go on agreeing. A place the
    /// table held while the box stayed (rows measured above the view: the view stays on the row
    /// read) is taken on from where it is: the rows between it and the end the box moves toward
    /// are spread over the box's pixels left that way. So a move never jumps, and the box's top
    /// is the first row's top and its end the last row's end, whatever was held on the way.
    pub fn place_after(self, from: BoxPlace, box_top: f64) -> f64 {
        if !self.is_stretched() {
            return box_top;
        }
        let (rows_end, box_end) = self.ends();
        let (box_top, from_box) = (
            box_top.clamp(0.0, box_end),
            from.box_top.clamp(0.0, box_end),
        );
        let place = from.place.clamp(0.0, rows_end);
        if box_top <= 0.0 {
            0.0
        } else if box_top >= box_end {
            rows_end
        } else if box_top >= from_box {
            let box_left = box_end - from_box;
            if box_left <= 0.0 {
                return rows_end;
            }
            place + (box_top - from_box) / box_left * (rows_end - place)
        } else {
            place * (box_top / from_box)
        }
    }

    /// The place a held place comes to at the box's edges: at its top the first row's top, at
    /// its end the last row's end (else, rows measured on the way would leave the first or the
    /// last rows past where the box can go).
    pub fn held_place(self, box_top: f64, place: f64) -> f64 {
        let (rows_end, box_end) = self.ends();
        if box_top <= 0.0 {
            0.0
        } else if self.is_stretched() && box_top >= box_end - 0.5 {
            rows_end
        } else {
            place.clamp(0.0, rows_end)
        }
    }

    /// Where the box is scrolled to for the rows' `place` at the top of the view.
    pub fn box_top_of(self, place: f64) -> f64 {
        if !self.is_stretched() {
            return place;
        }
        let (rows_end, box_end) = self.ends();
        if rows_end <= 0.0 {
            return 0.0;
        }
        (place.clamp(0.0, rows_end) / rows_end) * box_end
    }
}

/// What [`RowHeights::placing`] places the rows from: where they were placed before (`was`), where
/// the box is now (`box_top`), and the rows' place to hold, if any (`held`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    pub was: BoxPlace,
    pub box_top: f64,
    pub held: Option<f64>,
}

/// Where the rows go once measured anew ([`RowHeights::placing`]): the box's margins above and
/// below the rows drawn, and where the box is and what it shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placing {
    pub margins: (f64, f64),
    pub at: BoxPlace,
    /// The view is held at the box's end: the box is set there even if it seems there already
    /// (after the rows drawn came out shorter than counted, the browser may still cut its place
    /// short to the space it had before these margins).
    pub held_at_end: bool,
}

/// Where a box is scrolled to, and the rows' place at the top of its view there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxPlace {
    pub box_top: f64,
    pub place: f64,
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

    /// How the box's scroll places map onto these rows, seen through a view `view_height` tall.
    pub fn scroll_map(&self, view_height: f64) -> ScrollMap {
        ScrollMap::new(self.total(), view_height)
    }

    /// The rows to draw for `view`, with `overscan` pixels of rows beyond each edge, and the
    /// box's margins around them with the box scrolled to where `view` is.
    pub fn window(&self, view: Viewport, overscan: f64) -> RowWindow {
        let box_top = self.scroll_map(view.height).box_top_of(view.scroll_top);
        self.window_in(view, box_top, overscan)
    }

    /// The rows to draw for `view`, with `overscan` pixels of rows beyond each edge, and the
    /// box's margins around them with the box scrolled to `box_top`. While the box holds the
    /// rows' whole height, the margins are the rows' before and after. Past it
    /// ([`ScrollMap::is_stretched`]) the rows drawn are placed so that the one at the view's place
    /// shows at the box's `box_top`, and the margin below fills the rest of the box's space; the
    /// margin above is negative near the top, where the rows drawn above the view need more room
    /// than the box has above it (it is out of sight there).
    pub fn window_in(&self, view: Viewport, box_top: f64, overscan: f64) -> RowWindow {
        let rows = self.rows_in(view, overscan);
        let (space_above, space_below) = self.margins(&rows, view, box_top);
        RowWindow {
            rows,
            space_above,
            space_below,
        }
    }

    /// The box's margins above and below `rows` drawn for `view`, with the box scrolled to
    /// `box_top` (as [`RowHeights::window_in`] places them).
    pub fn margins(&self, rows: &Range<usize>, view: Viewport, box_top: f64) -> (f64, f64) {
        let (start, end) = (self.top_of(rows.start), self.top_of(rows.end));
        let map = self.scroll_map(view.height);
        if !map.is_stretched() {
            return (start, (self.total() - end).max(0.0));
        }
        let above = box_top + (start - view.scroll_top);
        (above, (map.box_space() - above - (end - start)).max(0.0))
    }

    /// Where the rows go once some were measured anew, drawn as `drawn` for `view` with the box
    /// at `box_top`: the rows' place to hold (`held`: the row read kept in place, or a row a key
    /// moved to kept in view), and the margins that put them there. Up to the box's limit the box
    /// goes to the place held, pixel for pixel. In a stretched box the box stays and the rows are
    /// placed at the place held (or where they were), moved to the rows' edge at the box's
    /// edges ([`ScrollMap::held_place`]): a move of the box would move every row drawn; a view
    /// that was at the box's end stays there.
    pub fn placing(&self, drawn: &Range<usize>, view: Viewport, shown: Shown) -> Placing {
        let Shown { was, box_top, held } = shown;
        let map = self.scroll_map(view.height);
        let held_at_end = map.is_stretched() && was.box_top >= map.ends().1 - 0.5;
        let at = if held_at_end {
            // The view was at the end, and stays there: the browser cuts the box's place short
            // when the rows drawn came out shorter than they were counted, before they are
            // measured, so the box's place now need not be the end.
            map.end()
        } else if map.is_stretched() {
            BoxPlace {
                box_top,
                place: map.held_place(box_top, held.unwrap_or(view.scroll_top)),
            }
        } else {
            let box_top = held.map_or(box_top, f64::round);
            BoxPlace {
                box_top,
                place: box_top,
            }
        };
        let margins = self.margins(
            drawn,
            Viewport {
                scroll_top: at.place,
                ..view
            },
            at.box_top,
        );
        Placing {
            margins,
            at,
            held_at_end,
        }
    }

    /// The rows to draw for `view`, with `overscan` pixels of rows beyond each edge.
    fn rows_in(&self, view: Viewport, overscan: f64) -> Range<usize> {
        if self.rows() == 0 {
            return 0..0;
        }
        let top = (view.scroll_top - overscan).max(0.0);
        let bottom = view.scroll_top + view.height.max(0.0) + overscan;
        let first = self.row_at(top);
        let end = (self.row_at(bottom) + 1).max(first + 1).min(self.rows());
        first..end
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

    #[test]
    fn a_box_holds_rows_up_to_its_limit_one_to_one() {
        let map = ScrollMap::new(BOX_SPACE_AT_MOST_PX, 600.0);
        assert!(!map.is_stretched());
        assert_eq!(map.box_space(), BOX_SPACE_AT_MOST_PX);
        assert_eq!(map.place_at(12_345.5), 12_345.5);
        assert_eq!(map.box_top_of(12_345.5), 12_345.5);
        // The window is the rows' own spaces, wherever the box is said to be.
        let heights = RowHeights::new(10_000, 40.0);
        let at = view(40_000.0, 600.0);
        assert_eq!(heights.window_in(at, 3.0, 400.0), heights.window(at, 400.0));
    }

    #[test]
    fn rows_taller_than_a_box_may_be_are_stretched_over_its_space_end_to_end() {
        // 900,000 rows of 100 px: 90 million px of rows in a box of 15 million.
        let heights = RowHeights::new(900_000, 100.0);
        let map = heights.scroll_map(600.0);
        assert!(map.is_stretched());
        assert_eq!(map.box_space(), BOX_SPACE_AT_MOST_PX);
        let box_end = BOX_SPACE_AT_MOST_PX - 600.0;
        let rows_end = 90_000_000.0 - 600.0;
        assert_eq!(map.place_at(0.0), 0.0);
        assert_eq!(map.place_at(box_end), rows_end);
        assert_eq!(
            map.place_at(box_end + 500.0),
            rows_end,
            "past the end is the end"
        );
        assert_eq!(map.box_top_of(rows_end), box_end);
        assert!((map.place_at(box_end / 2.0) - rows_end / 2.0).abs() < 1e-6);

        // At the top: the first rows, from the box's top.
        let top = heights.window_in(view(0.0, 600.0), 0.0, 400.0);
        assert_eq!(top.rows, 0..11);
        assert_eq!(top.space_above, 0.0);
        assert_eq!(top.space_below, BOX_SPACE_AT_MOST_PX - 1_100.0);
        // At the end: the last rows, the box's space filled to its end.
        let end = heights.window_in(view(rows_end, 600.0), box_end, 400.0);
        assert_eq!(end.rows.end, 900_000);
        let drawn = heights.total() - heights.top_of(end.rows.start);
        assert_eq!(end.space_above + drawn, BOX_SPACE_AT_MOST_PX);
        assert_eq!(end.space_below, 0.0);
        // Ten pixels down the box is 60 px down the rows: the rows drawn above the view need
        // more room than the box has above it, so the margin above is negative.
        let near_top = map.place_at(10.0);
        let window = heights.window_in(view(near_top, 600.0), 10.0, 400.0);
        assert_eq!(window.rows.start, 0);
        assert!((window.space_above - (10.0 - near_top)).abs() < 1e-6);
        assert!(window.space_above < 0.0);
    }

    #[test]
    fn a_place_held_in_a_stretched_box_is_taken_on_to_its_edges() {
        // 30 million px of rows in 15 million: two rows' pixels for a box's.
        let map = ScrollMap::new(30_000_600.0, 600.0);
        let box_end = BOX_SPACE_AT_MOST_PX - 600.0;
        let rows_end = 30_000_000.0;
        // Where the two agree, they go on agreeing.
        let agreed = BoxPlace {
            box_top: 1_000.0,
            place: map.place_at(1_000.0),
        };
        assert!((map.place_after(agreed, 1_100.0) - map.place_at(1_100.0)).abs() < 1e-6);
        assert!((map.place_after(agreed, 900.0) - map.place_at(900.0)).abs() < 1e-6);
        // A place held 5,000 px further down (rows above the view measured taller): a wheel step
        // moves on from it, by about two rows' pixels a box's, and the edges are the rows' edges.
        let held = BoxPlace {
            box_top: 1_000.0,
            place: map.place_at(1_000.0) + 5_000.0,
        };
        let step = map.place_after(held, 1_100.0) - held.place;
        assert!((step - 200.0).abs() < 1.0, "a step of {step} px");
        assert_eq!(map.place_after(held, box_end), rows_end);
        assert_eq!(map.place_after(held, 0.0), 0.0);
        let back = map.place_after(held, 900.0);
        assert!(back < held.place && back > held.place - 1_000.0);
        // Up to the limit the box's place is the rows'.
        let one_to_one = ScrollMap::new(10_000.0, 600.0);
        assert_eq!(one_to_one.place_after(held, 1_234.0), 1_234.0);
        // A place held at the box's edges is the edge.
        assert_eq!(map.held_place(0.0, 500.0), 0.0);
        assert_eq!(map.held_place(box_end, 500.0), rows_end);
        assert_eq!(map.held_place(5_000.0, 12_000.0), 12_000.0);
        assert_eq!(one_to_one.held_place(9_400.0, 9_000.0), 9_000.0);
    }

    #[test]
    fn rows_measured_above_the_view_leave_the_row_read_where_it_shows() {
        // 300,000 rows of 100 px: stretched two to one; and 1,000 rows: one to one.
        for rows in [300_000, 1_000] {
            let mut heights = RowHeights::new(rows, 100.0);
            let map = heights.scroll_map(600.0);
            let box_top = if map.is_stretched() {
                1_000_000.0
            } else {
                50_000.0
            };
            let view = view(map.place_at(box_top), 600.0);
            let window = heights.window_in(view, box_top, OVERSCAN_PX);
            let anchor = heights.anchor(view.scroll_top);
            // Where the row read shows in the box, from the box's top.
            let shown = |heights: &RowHeights, margin_above: f64| {
                margin_above + heights.top_of(anchor.row) - heights.top_of(window.rows.start)
            };
            let before = shown(&heights, window.space_above);
            // The rows drawn above the view are measured 50 px taller each.
            for row in window.rows.start..anchor.row {
                heights.measure(row, 150.0);
            }
            let was = BoxPlace {
                box_top,
                place: view.scroll_top,
            };
            let held = Some(heights.place_of(anchor));
            let placing = heights.placing(&window.rows, view, Shown { was, box_top, held });
            let moved_by = placing.at.box_top - box_top;
            let after = shown(&heights, placing.margins.0) - moved_by;
            assert!(
                (after - before).abs() < 1.0,
                "{rows} rows: {before} then {after}"
            );
            // Every row not measured counts the new mean too: up to the limit the box moves
            // by what the rows above grew; stretched, it stays.
            if heights.scroll_map(600.0).is_stretched() {
                assert_eq!(moved_by, 0.0, "a stretched box stays");
            } else {
                assert_eq!(
                    moved_by,
                    (heights.place_of(anchor) - view.scroll_top).round()
                );
            }
        }
    }

    #[test]
    fn a_view_at_the_end_of_a_stretched_box_stays_at_the_end_as_its_rows_are_measured() {
        let mut heights = RowHeights::new(300_000, 100.0);
        let map = heights.scroll_map(600.0);
        let (rows_end, box_end) = map.ends();
        let view = view(rows_end, 600.0);
        let window = heights.window_in(view, box_end, OVERSCAN_PX);
        // The last rows came out shorter than counted: before they were measured, the browser
        // cut the box's place short by 59 px.
        for row in window.rows.clone() {
            heights.measure(row, 90.0);
        }
        let was = BoxPlace {
            box_top: box_end,
            place: rows_end,
        };
        let shown = Shown {
            was,
            box_top: box_end - 59.0,
            held: Some(rows_end - 30.0),
        };
        let placing = heights.placing(&window.rows, view, shown);
        let (rows_end_now, box_end_now) = heights.scroll_map(600.0).ends();
        assert_eq!(box_end_now, box_end);
        let at_end = BoxPlace {
            box_top: box_end,
            place: rows_end_now,
        };
        assert_eq!(placing.at, at_end);
        assert!(placing.held_at_end);
        // The rows drawn end where the box's space does.
        let drawn = heights.top_of(window.rows.end) - heights.top_of(window.rows.start);
        assert!((placing.margins.0 + drawn - BOX_SPACE_AT_MOST_PX).abs() < 1e-3);
        assert_eq!(placing.margins.1, 0.0);
    }

    proptest! {
        /// A box moved in any steps from any place held goes through the rows in order and
        /// reaches the first and the last.
        #[test]
        fn moves_from_a_held_place_are_in_order_and_reach_both_ends(
            rows_px in 15_000_001.0_f64..100_000_000.0,
            start in 0.0_f64..=1.0,
            held_share in 0.0_f64..=1.0,
            steps in prop::collection::vec(-50_000.0_f64..50_000.0, 1..40),
        ) {
            let map = ScrollMap::new(rows_px, 600.0);
            let (rows_end, box_end) = map.ends();
            let mut at = BoxPlace { box_top: start * box_end, place: held_share * rows_end };
            for step in steps {
                let box_top = (at.box_top + step).clamp(0.0, box_end);
                let place = map.place_after(at, box_top);
                prop_assert!((0.0..=rows_end).contains(&place));
                if box_top > at.box_top { prop_assert!(place >= at.place.min(rows_end)); }
                if box_top < at.box_top { prop_assert!(place <= at.place.max(0.0)); }
                at = BoxPlace { box_top, place };
            }
            prop_assert_eq!(map.place_after(at, box_end), rows_end);
            prop_assert_eq!(map.place_after(at, 0.0), 0.0);
        }

        /// In a stretched box, the rows drawn for any scroll place cover the view (in the box's
        /// pixels: from above its top to below its end), the row at the view's place shows at
        /// the box's scroll place, and the margins and rows fill the box's space exactly.
        #[test]
        fn a_stretched_box_shows_the_rows_at_its_place(
            rows in 200_000_usize..1_000_000,
            measures in prop::collection::vec((0_usize..1_000_000, 20.0_f64..600.0), 0..100),
            share in 0.0_f64..=1.0,
            height in 100.0_f64..2_000.0,
            overscan in prop::sample::select(vec![0.0, OVERSCAN_PX]),
        ) {
            let mut heights = RowHeights::new(rows, 100.0);
            for (row, px) in measures {
                heights.measure(row % rows, px);
            }
            let map = heights.scroll_map(height);
            prop_assume!(map.is_stretched());
            let box_top = share * (map.box_space() - height);
            let place = map.place_at(box_top);
            prop_assert!((map.box_top_of(place) - box_top).abs() < 1e-3);
            let window = heights.window_in(view(place, height), box_top, overscan);
            let drawn = heights.top_of(window.rows.end) - heights.top_of(window.rows.start);
            prop_assert!(window.space_above <= box_top + 1e-6, "the rows drawn reach the view's top");
            let view_end = (box_top + height).min(map.box_space());
            prop_assert!(window.space_above + drawn + 1e-3 >= view_end, "the rows drawn reach the view's end");
            let total = window.space_above + drawn + window.space_below;
            prop_assert!((total - map.box_space()).abs() < 1e-3, "the box's space is {} not {}", total, map.box_space());
            // The row at the view's place is where the box shows it.
            let row = heights.row_at(place);
            let shown_at = window.space_above + (heights.top_of(row) - heights.top_of(window.rows.start));
            prop_assert!((shown_at - (box_top - (place - heights.top_of(row)))).abs() < 1e-3);
        }

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
