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

/// A row's cells from its place and key, as a view of any type.
type MakeCells = dyn Fn(usize, &RowKey) -> AnyView + Send + Sync;
/// A row's attributes from its key.
type MakeAttributes = dyn Fn(&RowKey) -> Vec<RowAttribute> + Send + Sync;

/// How the page makes a row: its cells, and the attributes its `<tr>` carries.
#[derive(Clone)]
pub(super) struct RowMaker {
    cells: Arc<MakeCells>,
    attributes: Option<Arc<MakeAttributes>>,
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
        }
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
}
