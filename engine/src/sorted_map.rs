//! [`SortedMap`]: a map kept as a Vec of entries sorted by key, searched by binary search;
//! [`SortedSet`], the set made of one.
//!
//! The engine's maps are built once from the input and then only looked up or iterated in
//! key order (results list them in that order): a sorted Vec does both with one allocation
//! and contiguous reads.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// Key → value, iterated in key order; read like a `BTreeMap` (same [`Serialize`] output: an
/// object sorted by key; same `Deserialize`: a repeated key's last value wins).
#[derive(Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    /// Sorted by key, keys unique.
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
}

/// A string key (`String`, `&str`), looked up by `&str`.
pub trait Key: Ord {
    /// The key as a `str`, ordered as the key.
    fn as_key(&self) -> &str;
}

impl Key for String {
    fn as_key(&self) -> &str {
        self
    }
}

impl Key for &str {
    fn as_key(&self) -> &str {
        self
    }
}

impl Key for std::rc::Rc<str> {
    fn as_key(&self) -> &str {
        self
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The map of `entries` (in any order); for a repeated key the last value wins, as when
    /// inserting them one by one into a `BTreeMap`.
    pub fn from_entries(entries: Vec<(K, V)>) -> Self {
        Self::build(entries, true)
    }

    /// The map of `entries` (in any order); for a repeated key the first value wins, as with
    /// `BTreeMap`'s `entry(key).or_insert(value)` for each in turn.
    pub fn first_wins(entries: Vec<(K, V)>) -> Self {
        Self::build(entries, false)
    }

    /// The value of `key`, for maps whose keys are not strings (string-keyed maps use
    /// [`Self::get`], the one search shared by every type).
    pub fn find(&self, key: &K) -> Option<&V> {
        let i = self.entries.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
        self.entries.get(i).map(|(_, v)| v)
    }

    fn build(mut entries: Vec<(K, V)>, last_wins: bool) -> Self {
        // Stable: of equal keys, the later entry is the later insert. Input often comes
        // sorted (kubectl prints maps by key and lists by name): one pass finds it so, where
        // the wasm builds' size-optimised sort would merge-sort it anyway.
        if !entries.is_sorted_by(|a, b| a.0 <= b.0) {
            entries.sort_by(|a, b| a.0.cmp(&b.0));
        }
        let mut out: Vec<(K, V)> = Vec::with_capacity(entries.len());
        for e in entries {
            match out.last_mut() {
                Some(last) if last.0 == e.0 => {
                    if last_wins {
                        *last = e;
                    }
                }
                _ => out.push(e),
            }
        }
        SortedMap { entries: out }
    }
}

impl<K: Key, V> SortedMap<K, V> {
    /// The value of `key`, inserted by `make` when missing (as `BTreeMap`'s
    /// `entry(key).or_insert_with(make)`; linear in the map's size, as [`Self::insert`]).
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.search(key.as_key()) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, make()));
                i
            }
        };
        // `i` is the entry's position: found, or just inserted there.
        &mut self.entries[i].1
    }

    /// The position of `key`, or where it would be inserted.
    fn search(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_key().cmp(key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        let i = self.search(key).ok()?;
        self.entries.get(i).map(|(_, v)| v)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.search(key).is_ok()
    }

    /// Sets the value of `key`, returning whether it was missing (linear in the map's size:
    /// for maps built a few entries at a time; build large ones with [`Self::from_entries`]).
    pub fn insert(&mut self, key: K, value: V) -> bool {
        match self.search(key.as_key()) {
            Ok(i) => {
                self.entries[i].1 = value;
                false
            }
            Err(i) => {
                self.entries.insert(i, (key, value));
                true
            }
        }
    }
}

impl<K: Ord, V> SortedMap<K, Vec<V>> {
    /// Each key's values in the order of `pairs`, keys sorted: the map that
    /// `entry(k).or_default().push(v)` for each pair in turn would make.
    pub fn grouped(mut pairs: Vec<(K, V)>) -> Self {
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut entries: Vec<(K, Vec<V>)> = Vec::new();
        for (k, v) in pairs {
            match entries.last_mut() {
                Some((last, values)) if *last == k => values.push(v),
                _ => entries.push((k, vec![v])),
            }
        }
        SortedMap { entries }
    }
}

impl<K, V> SortedMap<K, V> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The map of the same keys to `f` of each value (no sort: the keys keep their order).
    pub fn map_values<W>(self, f: impl FnMut(V) -> W) -> SortedMap<K, W> {
        let mut f = f;
        SortedMap {
            entries: self.entries.into_iter().map(|(k, v)| (k, f(v))).collect(),
        }
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    /// As [`SortedMap::from_entries`]: a repeated key's last value wins.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self::from_entries(iter.into_iter().collect())
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    /// The entries in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

    /// The entries in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    /// As a `BTreeMap`'s: `{k: v, …}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
    /// An object in key order, as a `BTreeMap`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for SortedMap<K, V> {
    /// As a `BTreeMap`: any map, a repeated key's last value winning.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Entries<K, V> {
            type Value = Vec<(K, V)>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // serde's text for a BTreeMap, so error messages stay the same.
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(out)
            }
        }
        deserializer
            .deserialize_map(Entries(PhantomData))
            .map(SortedMap::from_entries)
    }
}

/// Values in order, each once; read like a `BTreeSet` (same [`Serialize`] output: an array
/// in order). A [`SortedMap`] to `()`, for the same reason.
#[derive(Clone, PartialEq, Eq)]
pub struct SortedSet<K>(SortedMap<K, ()>);

impl<K> Default for SortedSet<K> {
    fn default() -> Self {
        SortedSet(SortedMap::default())
    }
}

impl<K: Key> SortedSet<K> {
    /// An empty set.
    pub fn new() -> Self {
        SortedSet(SortedMap::new())
    }

    /// Whether `key` is in the set.
    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// Adds `key`; whether it was not in the set yet (linear, as [`SortedMap::insert`]).
    pub fn insert(&mut self, key: K) -> bool {
        self.0.insert(key, ())
    }
}

impl<K> SortedSet<K> {
    /// The values in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.0.keys()
    }
}

impl<K: Ord> FromIterator<K> for SortedSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        SortedSet(iter.into_iter().map(|k| (k, ())).collect())
    }
}

impl<K> IntoIterator for SortedSet<K> {
    type Item = K;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(K, ())>, fn((K, ())) -> K>;

    /// The values in order.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter().map(|(k, ())| k)
    }
}

impl<K: fmt::Debug> fmt::Debug for SortedSet<K> {
    /// As a `BTreeSet`'s: `{a, b, …}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<K: Serialize> Serialize for SortedSet<K> {
    /// An array in order, as a `BTreeSet`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::{SortedMap, SortedSet};
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn set_reads_as_a_btreeset() {
        let keys = ["b", "a", "b", "c"];
        let s: SortedSet<&str> = keys.into_iter().collect();
        let b: BTreeSet<&str> = keys.into_iter().collect();
        assert!(s.iter().eq(b.iter()));
        assert!(s.contains("a") && !s.contains("d"));
        assert_eq!(format!("{s:?}"), format!("{b:?}"));
        assert_eq!(
            serde_json::to_string(&s).ok(),
            serde_json::to_string(&b).ok()
        );
        let mut s2 = SortedSet::new();
        assert!(keys
            .into_iter()
            .map(|k| s2.insert(k))
            .eq([true, true, false, true]));
        assert_eq!(s2, s);
    }

    #[test]
    fn reads_as_a_btreemap_built_by_inserts() {
        let pairs = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5), ("d", 6)];
        let m: SortedMap<&str, i32> = pairs.into_iter().collect();
        let b: BTreeMap<&str, i32> = pairs.into_iter().collect();
        assert!(m.iter().eq(b.iter()));
        assert_eq!(m.get("a"), Some(&5));
        assert_eq!(m.get("e"), None);
        assert_eq!(format!("{m:?}"), format!("{b:?}"));
        assert_eq!(
            serde_json::to_string(&m).ok(),
            serde_json::to_string(&b).ok()
        );
        let mut m2 = SortedMap::new();
        for (k, v) in pairs {
            m2.insert(k, v);
        }
        assert_eq!(m2, m);
        assert!(SortedMap::<&str, i32>::from_entries(vec![]).is_empty());
        let first: SortedMap<&str, i32> = SortedMap::first_wins(pairs.to_vec());
        assert!(first.iter().eq([("a", &2), ("b", &1), ("c", &4), ("d", &6)]
            .iter()
            .map(|(k, v)| (k, *v))));
    }

    #[test]
    fn grouped_and_get_or_insert_with_build_as_entry_does() {
        let pairs = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)];
        let mut b: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        let mut m: SortedMap<&str, Vec<i32>> = SortedMap::new();
        for (k, v) in pairs {
            b.entry(k).or_default().push(v);
            m.get_or_insert_with(k, Vec::new).push(v);
        }
        assert!(m.iter().eq(b.iter()));
        assert_eq!(SortedMap::grouped(pairs.to_vec()), m);
    }

    proptest::proptest! {
        #[test]
        fn builds_as_a_btreemap(keys in proptest::collection::vec(0u8..12, 0..40)) {
            let pairs: Vec<(u8, usize)> = keys.into_iter().enumerate().map(|(i, k)| (k, i)).collect();
            let last: BTreeMap<u8, usize> = pairs.iter().copied().collect();
            let mut first: BTreeMap<u8, usize> = BTreeMap::new();
            let mut grouped: BTreeMap<u8, Vec<usize>> = BTreeMap::new();
            for &(k, v) in &pairs {
                first.entry(k).or_insert(v);
                grouped.entry(k).or_default().push(v);
            }
            proptest::prop_assert!(SortedMap::from_entries(pairs.clone()).iter().eq(last.iter()));
            proptest::prop_assert!(SortedMap::first_wins(pairs.clone()).iter().eq(first.iter()));
            proptest::prop_assert!(SortedMap::grouped(pairs).iter().eq(grouped.iter()));
        }
    }

    #[test]
    fn deserializes_as_a_btreemap() {
        let text = r#"{"b": 1, "a": 2, "b": 3}"#;
        let m: Result<SortedMap<String, i32>, _> = serde_json::from_str(text);
        let b: Result<BTreeMap<String, i32>, _> = serde_json::from_str(text);
        assert_eq!(
            serde_json::to_string(&m.ok()).ok(),
            serde_json::to_string(&b.ok()).ok()
        );
        let e1 = serde_json::from_str::<SortedMap<String, i32>>("[1]").err();
        let e2 = serde_json::from_str::<BTreeMap<String, i32>>("[1]").err();
        assert_eq!(e1.map(|e| e.to_string()), e2.map(|e| e.to_string()));
    }
}
