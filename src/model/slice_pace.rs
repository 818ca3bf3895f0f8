//! How much work the page does between two chances to draw and answer, when it goes through a
//! large set of records on its main thread (a batch's merged export, the records read to explore
//! them, the explorer's search text): sized by the time the last slices took on this computer,
//! so that a slice takes about [`SLICE_BUDGET_MS`] on a fast machine and on a slow one alike.
//!
//! A fixed slice does not hold: 50 rows of 100 records took 90 ms here and over 250 ms with the
//! CPU four times slower (`bench/explore.mjs`), the kind of laptop people have. A person feels a
//! task over 100 ms as the page freezing.

/// The time one slice aims at, in milliseconds: half the 100 ms a person feels as a freeze,
/// leaving room for the frame drawn after it.
pub const SLICE_BUDGET_MS: f64 = 40.0;

/// Records in the first slice, before anything was measured: sized for a slow computer, since
/// the aim doubles at each slice on a fast one. With 1,000 (ten full rows of a search) and the
/// CPU four times slower, reading a batch's records to explore them had script tasks of 100 to
/// 165 ms, and masking 1,000 records for presenter mode takes 80 to 130 ms more there (10,000
/// took 0.8 to 1.3 s). With 250 (two full rows), a sort's or a filter's first slice over records
/// kept in the store still took 139 to 148 ms there (`bench/explore.mjs`, 2026-11-30): one full
/// row is what a slow computer does in well under 100 ms.
const FIRST_SLICE_RECORDS: usize = 100;

/// The fewest records a slice aims at: below that the store's own time per read (a transaction,
/// a few milliseconds) is most of the slice.
const FEWEST_RECORDS: usize = 50;

/// The most records a slice aims at, however fast the computer: what the page holds at once
/// stays bounded.
const MOST_RECORDS: usize = 10_000;

/// The slices' size, adapted to what they took. A slice is whole rows (or records), so it can
/// hold more than the aim when a single row is larger.
#[derive(Clone, Debug, PartialEq)]
pub struct SlicePace {
    /// Records the next slice aims at.
    records: usize,
}

impl Default for SlicePace {
    fn default() -> Self {
        SlicePace {
            records: FIRST_SLICE_RECORDS,
        }
    }
}

impl SlicePace {
    /// Records the next slice aims at.
    pub fn records(&self) -> usize {
        self.records
    }

    /// How many of the rows ahead the next slice takes, from each row's count of records: rows
    /// up to the aim, at least one (a row with more records than the aim is a slice alone), none
    /// when no row is left.
    pub fn rows_to_take(&self, records_per_row: impl IntoIterator<Item = usize>) -> usize {
        let mut rows = 0;
        let mut records = 0;
        for row_records in records_per_row {
            // A row without records still costs a little (its cells, its line): count it as one.
            let row_records = row_records.max(1);
            if rows > 0 && records + row_records > self.records {
                break;
            }
            rows += 1;
            records += row_records;
        }
        rows
    }

    /// After a slice of `records` took `elapsed_ms`: the next one aims at what fits in the budget
    /// at the speed just measured, changing by at most half or double at a time (one slow slice,
    /// e.g. a garbage collection, does not swing it), within the bounds.
    pub fn took(&mut self, records: usize, elapsed_ms: f64) {
        if records == 0 || !elapsed_ms.is_finite() || elapsed_ms < 0.0 {
            return;
        }
        // A slice too quick for the clock (0 ms) counts as 1 ms.
        let per_ms = records as f64 / elapsed_ms.max(1.0);
        let fits = (per_ms * SLICE_BUDGET_MS) as usize;
        self.records = fits
            .clamp(self.records / 2, self.records.saturating_mul(2))
            .clamp(FEWEST_RECORDS, MOST_RECORDS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_takes_whole_rows_up_to_the_aim() {
        let pace = SlicePace { records: 250 };
        // Two full rows of 100 records fit the aim; the third would pass it.
        assert_eq!(pace.rows_to_take([100; 30]), 2);
        // Rows without records count as one each.
        assert_eq!(pace.rows_to_take([0; 3000]), 250);
        // A row larger than the aim is a slice alone.
        assert_eq!(pace.rows_to_take([5_000, 10, 10]), 1);
        // What is left, when it is less than the aim.
        assert_eq!(pace.rows_to_take([100, 100, 7]), 3);
        assert_eq!(pace.rows_to_take([]), 0);
    }

    #[test]
    fn the_first_slice_is_one_full_row_of_a_search() {
        // Before anything is measured: what a slow computer does in well under 100 ms.
        let pace = SlicePace::default();
        assert_eq!(pace.records(), 100);
        assert_eq!(pace.rows_to_take([100; 30]), 1);
        assert_eq!(pace.rows_to_take([40; 30]), 2);
    }

    #[test]
    fn the_aim_follows_the_measured_speed_by_at_most_half_or_double_at_a_time() {
        let mut pace = SlicePace { records: 400 };
        // 400 records in 256 ms (a slow laptop, the records masked): 6.4 times over the budget;
        // halved first.
        pace.took(400, 256.0);
        assert_eq!(pace.records(), 200);
        // The same speed again: 62 fit in 40 ms.
        pace.took(200, 128.0);
        assert_eq!(pace.records(), 100);
        pace.took(100, 64.0);
        assert_eq!(pace.records(), 62);
        pace.took(62, 40.0);
        assert_eq!(pace.records(), 62);
        // A fast machine: 100 records in 1 ms would allow 4,000; doubled at most.
        let mut fast = SlicePace::default();
        fast.took(100, 1.0);
        assert_eq!(fast.records(), 200);
        fast.took(200, 2.0);
        assert_eq!(fast.records(), 400);
    }

    #[test]
    fn the_aim_stays_within_its_bounds_and_ignores_what_measures_nothing() {
        let mut slow = SlicePace::default();
        for _ in 0..20 {
            slow.took(slow.records(), 10_000.0);
        }
        assert_eq!(slow.records(), FEWEST_RECORDS);
        let mut fast = SlicePace::default();
        for _ in 0..20 {
            fast.took(fast.records(), 0.0);
        }
        assert_eq!(fast.records(), MOST_RECORDS);
        let before = SlicePace::default();
        let mut same = before.clone();
        same.took(0, 50.0);
        same.took(100, f64::NAN);
        same.took(100, -1.0);
        assert_eq!(same, before);
    }
}
