//! A write-once lookup from borrowed names to small `Copy` values (stage, group and cluster
//! positions): a [`SortedMap`] searched by binary search (these indexes are built once and
//! only read).

use crate::sorted_map::SortedMap;

/// Names → values, sorted by name; for a repeated name the first value wins (as
/// `BTreeMap::entry(..).or_insert(..)`).
#[derive(Debug, Clone, Default)]
pub struct NameIndex<'a, T>(SortedMap<&'a str, T>);

impl<'a, T: Copy> NameIndex<'a, T> {
    /// Builds the index from `(name, value)` pairs in input order.
    pub fn first_wins(items: impl IntoIterator<Item = (&'a str, T)>) -> Self {
        NameIndex(SortedMap::first_wins(items.into_iter().collect()))
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<T> {
        self.0.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::NameIndex;

    #[test]
    fn first_value_of_a_repeated_name_wins() {
        let ix = NameIndex::first_wins([("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]);
        assert_eq!(ix.get("a"), Some(2));
        assert_eq!(ix.get("b"), Some(1));
        assert_eq!(ix.get("c"), Some(4));
        assert_eq!(ix.get("d"), None);
        assert_eq!(NameIndex::<usize>::first_wins([]).get("a"), None);
    }
}
