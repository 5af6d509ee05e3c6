//! A write-once lookup from borrowed names to small `Copy` values (stage, group and cluster
//! positions): a Vec sorted by name, searched by binary search. Each `BTreeMap` key/value type
//! costs its own copy of the tree code in the wasm; these indexes are built once and only read.

/// Names → values, sorted by name; for a repeated name the first value wins (as
/// `BTreeMap::entry(..).or_insert(..)`).
#[derive(Debug, Clone, Default)]
pub struct NameIndex<'a, T> {
    entries: Vec<(&'a str, T)>,
}

impl<'a, T: Copy> NameIndex<'a, T> {
    /// Builds the index from `(name, value)` pairs in input order.
    pub fn first_wins(items: impl IntoIterator<Item = (&'a str, T)>) -> Self {
        let mut entries: Vec<(&'a str, T)> = items.into_iter().collect();
        // Stable: equal names keep their input order, so `dedup_by` keeps the first.
        entries.sort_by(|a, b| a.0.cmp(b.0));
        entries.dedup_by(|later, earlier| later.0 == earlier.0);
        NameIndex { entries }
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<T> {
        let i = self
            .entries
            .binary_search_by(|(k, _)| (*k).cmp(name))
            .ok()?;
        self.entries.get(i).map(|(_, v)| *v)
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
