//! A row's key with its type erased (`RowKey`), and a row's cells and attributes made from it
//! (`RowMaker`). `WindowedTable` is generic over its pages' keys, but only its thin shell is: the
//! table itself (its view, keys, focus, measures) works on `RowKey`, so its code is built once
//! rather than once for each kind of row (the explorer's records, the runs, the log's entries):
//! with those three, that keeps 12 KB gzip out of the pages' chunk.

use std::any::Any;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use leptos::prelude::*;

use super::RowAttribute;

/// A key of any type that is `Eq`, compared through a reference to another of any type.
trait AnyKey: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn same_as(&self, other: &dyn AnyKey) -> bool;
}

impl<Key: Eq + Send + Sync + 'static> AnyKey for Key {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same_as(&self, other: &dyn AnyKey) -> bool {
        other.as_any().downcast_ref::<Key>() == Some(self)
    }
}

/// A row's key as the table holds it: the page's key, and its hash (made once).
#[derive(Clone)]
pub(super) struct RowKey {
    hash: u64,
    key: Arc<dyn AnyKey>,
}

impl RowKey {
    pub(super) fn new<Key: Eq + Hash + Send + Sync + 'static>(key: Key) -> RowKey {
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        RowKey {
            hash: hasher.finish(),
            key: Arc::new(key),
        }
    }

    /// The page's key, if it is a `Key`.
    fn get<Key: 'static>(&self) -> Option<&Key> {
        self.key.as_any().downcast_ref()
    }
}

impl PartialEq for RowKey {
    fn eq(&self, other: &RowKey) -> bool {
        self.hash == other.hash && self.key.same_as(other.key.as_ref())
    }
}

impl Eq for RowKey {}

impl Hash for RowKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// The keys of the rows a table shows, in order.
#[derive(Clone)]
pub(super) enum RowKeys {
    /// Each row's key, made once: a list updated in place is compared with the old one key by key.
    Made(Arc<[RowKey]>),
    /// Places in a set of records, in the order shown (each row's key is its place, a `usize`):
    /// a key is made only as its row is drawn, so 900,000 rows cost their places and no more.
    Places(Arc<[usize]>),
}

impl RowKeys {
    pub(super) fn len(&self) -> usize {
        match self {
            RowKeys::Made(keys) => keys.len(),
            RowKeys::Places(places) => places.len(),
        }
    }

    /// The key of the row at `place` among them.
    pub(super) fn get(&self, place: usize) -> Option<RowKey> {
        match self {
            RowKeys::Made(keys) => keys.get(place).cloned(),
            RowKeys::Places(places) => places.get(place).copied().map(RowKey::new),
        }
    }
}

impl PartialEq for RowKeys {
    fn eq(&self, other: &RowKeys) -> bool {
        match (self, other) {
            (RowKeys::Made(a), RowKeys::Made(b)) => Arc::ptr_eq(a, b) || a == b,
            (RowKeys::Places(a), RowKeys::Places(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}

/// A row's cells from its place and key, as a view of any type.
type MakeCells = dyn Fn(usize, &RowKey) -> AnyView + Send + Sync;
/// A row's attributes from its key.
type MakeAttributes = dyn Fn(&RowKey) -> Vec<RowAttribute> + Send + Sync;
/// Whether a row's cells can be made yet, from its key.
type IsReady = dyn Fn(&RowKey) -> bool + Send + Sync;

/// How the page makes a row: its cells, the attributes its `<tr>` carries, and whether what
/// the cells show is there yet.
#[derive(Clone)]
pub(super) struct RowMaker {
    cells: Arc<MakeCells>,
    attributes: Option<Arc<MakeAttributes>>,
    ready: Option<Arc<IsReady>>,
}

impl RowMaker {
    /// The page's `row` and `row_attributes` for keys of type `Key`.
    pub(super) fn new<Key, Row, Cells>(
        row: Row,
        row_attributes: Option<fn(&Key) -> Vec<RowAttribute>>,
    ) -> RowMaker
    where
        Key: Send + Sync + 'static,
        Row: Fn(usize, &Key) -> Cells + Send + Sync + 'static,
        Cells: IntoView + 'static,
    {
        RowMaker {
            cells: Arc::new(move |place, key: &RowKey| match key.get::<Key>() {
                Some(key) => row(place, key).into_any(),
                None => ().into_any(),
            }),
            attributes: row_attributes.map(|of| {
                Arc::new(move |key: &RowKey| key.get::<Key>().map(of).unwrap_or_default())
                    as Arc<MakeAttributes>
            }),
            ready: None,
        }
    }

    /// The same, with rows whose cells wait for `ready` to say their content is there (it may
    /// track signals: the row is drawn once it says so).
    pub(super) fn with_ready<Key: Send + Sync + 'static>(
        self,
        ready: impl Fn(&Key) -> bool + Send + Sync + 'static,
    ) -> RowMaker {
        RowMaker {
            ready: Some(Arc::new(move |key: &RowKey| {
                key.get::<Key>().is_some_and(&ready)
            })),
            ..self
        }
    }

    /// Whether the row of `key` can be drawn (its content is there).
    pub(super) fn ready(&self, key: &RowKey) -> bool {
        self.ready.as_ref().is_none_or(|ready| ready(key))
    }

    pub(super) fn cells(&self, place: usize, key: &RowKey) -> AnyView {
        (self.cells)(place, key)
    }

    pub(super) fn attributes(&self, key: &RowKey) -> Vec<RowAttribute> {
        self.attributes
            .as_ref()
            .map(|of| of(key))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn keys_are_the_same_when_the_pages_keys_are() {
        assert!(RowKey::new(7_usize) == RowKey::new(7_usize));
        assert!(RowKey::new(7_usize) != RowKey::new(8_usize));
        assert!(RowKey::new("a".to_owned()) == RowKey::new("a".to_owned()));
        // Keys of two types are never the same, even with the same hash.
        assert!(RowKey::new(7_u64) != RowKey::new(7_usize));
        let keys: HashSet<RowKey> = [1_usize, 2, 1].into_iter().map(RowKey::new).collect();
        assert_eq!(keys.len(), 2);
        assert_eq!(RowKey::new(5_usize).get::<usize>(), Some(&5));
        assert_eq!(RowKey::new(5_usize).get::<u32>(), None);
    }

    #[test]
    fn places_make_the_keys_a_list_of_usize_keys_would() {
        let places = RowKeys::Places(Arc::from([4_usize, 2, 9]));
        let made = RowKeys::Made([4_usize, 2, 9].into_iter().map(RowKey::new).collect());
        assert_eq!(places.len(), 3);
        for place in 0..4 {
            assert!(places.get(place) == made.get(place), "{place}");
        }
        assert_eq!(places.get(1).unwrap().get::<usize>(), Some(&2));
        assert!(places != made, "two kinds of list are never the same list");
        assert!(places == RowKeys::Places(Arc::from([4_usize, 2, 9])));
    }
}
