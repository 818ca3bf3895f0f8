//! The order of a record set too large to hold in the page (a batch's records kept in this
//! browser's store: 10,000 to 900,000 of them): which records hold every word of a filter, sorted
//! by a column, as [`Explorer::view`](super::explore::Explorer::view) orders records it holds.
//!
//! The records are read a slice at a time and each slice is given to an [`OrderPass`], which keeps
//! only what the order needs: the place of each record that matched and, for a sort, its key;
//! each slice's matches are sorted as they come (a run). The runs are then merged a step at a
//! time ([`Merge`]), each step bounded by time, so neither the reading nor the sort is one long
//! task however many records there are. [`RecordPlaces`] says which row holds the record at a
//! place, so a table of the order reads only the rows near its view.

use std::cmp::Ordering;
use std::collections::{BTreeSet, BinaryHeap, HashMap, VecDeque};
use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

use super::explore::{SortBy, SortKey, filter_words, search_text, sort_key, sorted_order};
use super::output::cell;

/// Where each record of a set read row by row stands: the records are numbered across the rows
/// in order (a row may hold none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordPlaces {
    /// The place of each row's first record, and after the last row the count of records.
    starts: Vec<usize>,
}

/// Which row holds a record, and where among its records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordPlace {
    /// The row's index (not its line).
    pub row: usize,
    /// The record's index among the row's.
    pub offset: usize,
}

impl RecordPlaces {
    /// The places of the records of rows holding `records_per_row` each, in order.
    pub fn new(records_per_row: impl IntoIterator<Item = usize>) -> Self {
        let mut starts = vec![0];
        let mut count = 0;
        for records in records_per_row {
            count += records;
            starts.push(count);
        }
        RecordPlaces { starts }
    }

    /// How many records the rows hold.
    pub fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many rows there are.
    pub fn rows(&self) -> usize {
        self.starts.len() - 1
    }

    /// The place of row `row`'s first record.
    pub fn first_of(&self, row: usize) -> usize {
        self.starts[row.min(self.rows())]
    }

    /// The row holding the record at `place`, and where in it (`None` past the last record).
    pub fn place(&self, place: usize) -> Option<RecordPlace> {
        if place >= self.len() {
            return None;
        }
        // The last row starting at or before `place` (rows without records start where the
        // next one does, and are skipped).
        let row = self.starts.partition_point(|&start| start <= place) - 1;
        Some(RecordPlace {
            row,
            offset: place - self.starts[row],
        })
    }

    /// The rows holding the records at `places`, ascending, each once.
    pub fn rows_holding(&self, places: impl IntoIterator<Item = usize>) -> Vec<usize> {
        let mut rows: Vec<usize> = places
            .into_iter()
            .filter_map(|place| self.place(place).map(|p| p.row))
            .collect();
        rows.sort_unstable();
        rows.dedup();
        rows
    }
}

/// The records of the rows a table of places has read, at most `capacity` rows: a row read
/// when the table is full sends away the row read longest ago (a row still drawn is read again
/// if it comes to that).
#[derive(Clone, Debug, Default)]
pub struct RowsHeld {
    capacity: usize,
    rows: HashMap<usize, Arc<[Value]>>,
    /// The rows held, the one read longest ago first.
    read_order: VecDeque<usize>,
}

impl PartialEq for RowsHeld {
    /// Two holdings are the same when they hold the same rows' same lists (not a deep compare).
    fn eq(&self, other: &RowsHeld) -> bool {
        self.rows.len() == other.rows.len()
            && self.rows.iter().all(|(row, records)| {
                other
                    .rows
                    .get(row)
                    .is_some_and(|theirs| Arc::ptr_eq(records, theirs))
            })
    }
}

impl RowsHeld {
    pub fn new(capacity: usize) -> Self {
        RowsHeld {
            capacity: capacity.max(1),
            rows: HashMap::new(),
            read_order: VecDeque::new(),
        }
    }

    /// The record at `place`, if its row is held.
    pub fn record(&self, place: RecordPlace) -> Option<&Value> {
        self.rows.get(&place.row)?.get(place.offset)
    }

    pub fn holds(&self, row: usize) -> bool {
        self.rows.contains_key(&row)
    }

    /// Holds the records of `row`, sending away the row read longest ago when full.
    pub fn hold(&mut self, row: usize, records: Arc<[Value]>) {
        if self.rows.insert(row, records).is_some() {
            self.read_order.retain(|&held| held != row);
        }
        self.read_order.push_back(row);
        while self.rows.len() > self.capacity {
            let Some(oldest) = self.read_order.pop_front() else {
                break;
            };
            self.rows.remove(&oldest);
        }
    }
}

/// The rows a table of places wants read, taken a run of neighbouring rows at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowsWanted {
    rows: BTreeSet<usize>,
}

impl RowsWanted {
    pub fn want(&mut self, row: usize) {
        self.rows.insert(row);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The next rows to read: the first one wanted and those wanted right after it, at most
    /// `at_most`; they are no longer wanted.
    pub fn next_read(&mut self, at_most: usize) -> Option<Range<usize>> {
        let first = self.rows.pop_first()?;
        let mut end = first + 1;
        while end - first < at_most.max(1) && self.rows.remove(&end) {
            end += 1;
        }
        Some(first..end)
    }
}

/// A record that matched, with its key in the sort.
#[derive(Debug)]
struct Keyed {
    key: SortKey,
    place: usize,
}

/// What an order asks: the filter's words (none: every record) and the sort (none: the records'
/// own order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderAsked {
    pub filter: String,
    pub sort: Option<SortBy>,
}

impl OrderAsked {
    /// Every record in its own order: no pass over the records is needed.
    pub fn is_every_record(&self) -> bool {
        self.sort.is_none() && filter_words(&self.filter).is_empty()
    }
}

/// The pass over the records that an order needs, fed a slice at a time in the records' order.
pub struct OrderPass {
    words: Vec<String>,
    sort: Option<SortBy>,
    /// Records taken so far: the place of the next slice's first.
    read: usize,
    /// Without a sort: the places of the records that matched, in order.
    matched: Vec<usize>,
    /// With a sort: each slice's matches, sorted.
    runs: Vec<Vec<Keyed>>,
    /// Records that matched so far.
    matches: usize,
}

impl OrderPass {
    pub fn new(asked: &OrderAsked) -> Self {
        OrderPass {
            words: filter_words(&asked.filter),
            sort: asked.sort.clone(),
            read: 0,
            matched: Vec::new(),
            runs: Vec::new(),
            matches: 0,
        }
    }

    /// Takes the next records, in order. A filter's words are looked for in every value of a
    /// record, as the explorer's filter does.
    pub fn take(&mut self, records: &[Value]) {
        let first = self.read;
        self.read += records.len();
        let holds_every_word = |record: &Value| {
            if self.words.is_empty() {
                return true;
            }
            let text = match record {
                Value::Object(fields) => search_text(fields.values()),
                other => search_text(std::iter::once(other)),
            };
            self.words.iter().all(|word| text.contains(word.as_str()))
        };
        let matching = records
            .iter()
            .enumerate()
            .filter(|(_, record)| holds_every_word(record));
        match &self.sort {
            None => {
                let before = self.matched.len();
                self.matched
                    .extend(matching.map(|(offset, _)| first + offset));
                self.matches += self.matched.len() - before;
            }
            Some(sort) => {
                let mut run: Vec<Keyed> = matching
                    .map(|(offset, record)| Keyed {
                        key: sort_key(cell(record, &sort.column)),
                        place: first + offset,
                    })
                    .collect();
                // Stable: equal keys keep the records' order.
                run.sort_by(|a, b| sorted_order(&a.key, &b.key, sort.descending));
                self.matches += run.len();
                if !run.is_empty() {
                    self.runs.push(run);
                }
            }
        }
    }

    /// Records read so far.
    pub fn read(&self) -> usize {
        self.read
    }

    /// Records that matched so far.
    pub fn matches(&self) -> usize {
        self.matches
    }

    /// Once every record was taken: what is left to do, the sorted runs' merge.
    pub fn finish(self) -> Merge {
        let descending = self.sort.as_ref().is_some_and(|s| s.descending);
        let mut merge = Merge {
            runs: Vec::with_capacity(self.runs.len()),
            heads: BinaryHeap::with_capacity(self.runs.len()),
            order: self.matched,
            descending,
            total: self.matches,
        };
        if self.sort.is_some() {
            merge.order = Vec::with_capacity(self.matches);
            for (run, entries) in self.runs.into_iter().enumerate() {
                let mut entries = entries.into_iter();
                if let Some(first) = entries.next() {
                    merge.heads.push(Head {
                        entry: first,
                        run,
                        descending,
                    });
                }
                merge.runs.push(entries);
            }
        }
        merge
    }
}

/// A run's first entry not merged yet, ordered so that the heap's top is the one to come next.
struct Head {
    entry: Keyed,
    run: usize,
    descending: bool,
}

impl Head {
    /// The sort's order, and among equal keys the records' own order (places are unique).
    fn comes_before(&self, other: &Head) -> Ordering {
        sorted_order(&self.entry.key, &other.entry.key, self.descending)
            .then(self.entry.place.cmp(&other.entry.place))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.entry.place == other.entry.place
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    // `BinaryHeap` is a max-heap: the entry that comes first is the greatest.
    fn cmp(&self, other: &Self) -> Ordering {
        self.comes_before(other).reverse()
    }
}

/// The sorted runs merged into one order, a step at a time.
pub struct Merge {
    runs: Vec<std::vec::IntoIter<Keyed>>,
    heads: BinaryHeap<Head>,
    order: Vec<usize>,
    descending: bool,
    total: usize,
}

/// Entries merged between two looks at the clock.
const MERGED_BETWEEN_LOOKS: usize = 1024;

impl Merge {
    /// Merges until the runs are done or `now()` is `until`: at least one look's worth of entries
    /// per step (the clock is read every [`MERGED_BETWEEN_LOOKS`] entries). Whether it is done.
    pub fn step_until(&mut self, until: f64, now: impl Fn() -> f64) -> bool {
        loop {
            for _ in 0..MERGED_BETWEEN_LOOKS {
                let Some(Head { entry, run, .. }) = self.heads.pop() else {
                    return true;
                };
                self.order.push(entry.place);
                if let Some(next) = self.runs[run].next() {
                    self.heads.push(Head {
                        entry: next,
                        run,
                        descending: self.descending,
                    });
                }
            }
            if now() >= until {
                return self.is_done();
            }
        }
    }

    pub fn is_done(&self) -> bool {
        self.heads.is_empty()
    }

    /// Entries in order so far, of [`Merge::total`].
    pub fn merged(&self) -> usize {
        self.order.len()
    }

    pub fn total(&self) -> usize {
        self.total
    }

    /// The places of the records in order (once done; before, those merged so far).
    pub fn into_order(self) -> Vec<usize> {
        self.order
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::explore::Explorer;
    use super::*;

    fn records() -> Vec<Value> {
        let names = ["Ada", "bob", "Cy", "", "dee", "Ada", "eve", "bob"];
        (0..64)
            .map(|i| {
                let name = names[i % names.len()];
                let mut record = json!({
                    "name": name,
                    "connections": if i % 5 == 0 { Value::Null } else { json!((i * 37) % 11) },
                    "headline": format!("engineer {}", i % 3),
                });
                if i % 7 == 0 {
                    record["tags"] = json!(["acme", i]);
                }
                if i % 9 == 0 {
                    record = json!(format!("plain {i}"));
                }
                record
            })
            .collect()
    }

    /// The order made by a pass over `records` in slices of `slice` records, merged a step at a
    /// time (each step one look's worth).
    fn ordered_in_slices(records: &[Value], asked: &OrderAsked, slice: usize) -> Vec<usize> {
        let mut pass = OrderPass::new(asked);
        for part in records.chunks(slice) {
            pass.take(part);
        }
        assert_eq!(pass.read(), records.len());
        let matches = pass.matches();
        let mut merge = pass.finish();
        assert_eq!(merge.total(), matches);
        // A clock always past the step's end: each step merges one look's worth.
        while !merge.step_until(0.0, || 1.0) {}
        assert!(merge.is_done());
        merge.into_order()
    }

    #[test]
    fn an_order_made_a_slice_at_a_time_is_the_explorers_view() {
        let records = records();
        let explorer = Explorer::new(records.clone());
        let sorts = [
            None,
            Some(("name", false)),
            Some(("name", true)),
            Some(("connections", false)),
            Some(("connections", true)),
            Some(("tags", false)),
            Some(("value", true)),
            Some(("nowhere", false)),
        ];
        for filter in ["", "ada", "engineer 1", "ACME", "plain", "nobody", "b o"] {
            for sort in sorts {
                let asked = OrderAsked {
                    filter: filter.to_owned(),
                    sort: sort.map(|(column, descending)| SortBy {
                        column: column.to_owned(),
                        descending,
                    }),
                };
                let expected = explorer.view(filter, asked.sort.as_ref());
                for slice in [1, 3, 10, 64, 100] {
                    assert_eq!(
                        ordered_in_slices(&records, &asked, slice),
                        expected,
                        "{asked:?} in slices of {slice}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_merge_longer_than_a_look_goes_on_until_its_time_is_up() {
        let records: Vec<Value> = (0..5000)
            .map(|i| json!({ "n": (i * 7919) % 5000 }))
            .collect();
        let asked = OrderAsked {
            filter: String::new(),
            sort: Some(SortBy {
                column: "n".into(),
                descending: true,
            }),
        };
        let mut pass = OrderPass::new(&asked);
        for part in records.chunks(700) {
            pass.take(part);
        }
        let mut merge = pass.finish();
        // One step with the time up at once: one look's worth.
        assert!(!merge.step_until(0.0, || 1.0));
        assert_eq!(merge.merged(), MERGED_BETWEEN_LOOKS);
        // One step with time to spare: the rest.
        assert!(merge.step_until(1.0, || 0.0));
        let order = merge.into_order();
        let values: Vec<i64> = order
            .iter()
            .map(|&place| records[place]["n"].as_i64().unwrap())
            .collect();
        assert_eq!(values.len(), 5000);
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "descending");
    }

    #[test]
    fn every_record_in_its_own_order_needs_no_pass() {
        assert!(OrderAsked::default().is_every_record());
        assert!(
            OrderAsked {
                filter: "  ".into(),
                sort: None
            }
            .is_every_record()
        );
        assert!(
            !OrderAsked {
                filter: "a".into(),
                sort: None
            }
            .is_every_record()
        );
    }

    #[test]
    fn rows_held_are_bounded_and_the_oldest_read_goes_first() {
        let mut held = RowsHeld::new(2);
        let row = |n: i64| Arc::from(vec![json!(n), json!(n + 100)]);
        held.hold(5, row(5));
        held.hold(6, row(6));
        assert_eq!(
            held.record(RecordPlace { row: 5, offset: 1 }),
            Some(&json!(105))
        );
        // Row 5 read again: now the newest.
        held.hold(5, row(5));
        held.hold(7, row(7));
        assert!(held.holds(5) && held.holds(7) && !held.holds(6));
        assert_eq!(held.record(RecordPlace { row: 7, offset: 2 }), None);
        assert_eq!(held.record(RecordPlace { row: 6, offset: 0 }), None);
    }

    #[test]
    fn rows_wanted_are_read_a_run_of_neighbours_at_a_time() {
        let mut wanted = RowsWanted::default();
        for row in [9, 3, 4, 5, 7, 4] {
            wanted.want(row);
        }
        assert_eq!(wanted.next_read(2), Some(3..5));
        assert_eq!(wanted.next_read(10), Some(5..6));
        assert_eq!(wanted.next_read(10), Some(7..8));
        assert_eq!(wanted.next_read(0), Some(9..10));
        assert!(wanted.is_empty());
        assert_eq!(wanted.next_read(10), None);
    }

    #[test]
    fn places_name_the_row_holding_each_record_past_rows_without_any() {
        let places = RecordPlaces::new([2, 0, 0, 3, 1, 0]);
        assert_eq!(places.len(), 6);
        assert_eq!(places.rows(), 6);
        let rows: Vec<(usize, usize)> = (0..6)
            .map(|place| {
                let p = places.place(place).unwrap();
                (p.row, p.offset)
            })
            .collect();
        assert_eq!(rows, [(0, 0), (0, 1), (3, 0), (3, 1), (3, 2), (4, 0)]);
        assert_eq!(places.place(6), None);
        assert_eq!(places.first_of(3), 2);
        assert_eq!(places.first_of(99), 6);
        assert_eq!(places.rows_holding([5, 0, 3, 1, 99]), [0, 3, 4]);
        assert!(RecordPlaces::new([]).is_empty());
        assert_eq!(RecordPlaces::new([0, 0]).place(0), None);
    }
}
