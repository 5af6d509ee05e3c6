//! The fleet's labels and property values as small integers, laid out contiguously and built
//! once per input, so that filters and scores over thousands of clusters compare numbers
//! instead of walking maps of strings (placement.md §10: 10k clusters in milliseconds).
//!
//! Exactness is kept: label ids are equal exactly when the strings are, and a property value
//! is its rank among the fleet's distinct values of that property under `Quantity.Cmp`, so an
//! exact comparison with a constant becomes a comparison of ranks.

use super::fleet::FleetCluster;
use super::properties::CapacityType;
use crate::input::quantity::Quantity;
use crate::model::placement::Taint;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::sync::Arc;

/// Rank of a published value that is not a quantity (reading it is an error).
pub const UNPARSABLE: u32 = u32::MAX;

/// "No value" in the dense columns (a label value id or a rank never reaches it).
const NONE: u32 = u32::MAX - 1;

/// A key or property gets a dense column when at least 1 / `DENSE_SHARE` of the clusters
/// have it: the column's size is then at most a few times the sparse lists'.
const DENSE_SHARE: usize = 4;

const ELIGIBLE: u8 = 1;
const TAINTED: u8 = 2;

/// Which map a property is read from: `status.properties` or a `status.resourceUsage` map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// `status.properties`.
    Properties,
    /// `status.resourceUsage.<capacity>`.
    Usage(CapacityType),
}

impl Space {
    fn code(self) -> u8 {
        match self {
            Space::Properties => 0,
            Space::Usage(CapacityType::Total) => 1,
            Space::Usage(CapacityType::Allocatable) => 2,
            Space::Usage(CapacityType::Available) => 3,
        }
    }
}

/// One published property value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Rank among the distinct values of the property in the fleet (equal quantities share
    /// a rank), or [`UNPARSABLE`].
    pub rank: u32,
    /// Which distinct text of the property it is written as.
    pub text: u32,
    /// Go's `AsApproximateFloat64` of the value.
    pub approx: f64,
}

/// Where a constant falls among a property's ranks: `below` ranks are smaller than it, and
/// rank `below` equals it when `equal`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Threshold {
    below: u32,
    equal: bool,
}

impl Threshold {
    /// `observed.Cmp(constant)` for a value of this rank.
    pub fn compare(self, rank: u32) -> Ordering {
        match rank.cmp(&self.below) {
            Ordering::Less => Ordering::Less,
            Ordering::Equal if self.equal => Ordering::Equal,
            _ => Ordering::Greater,
        }
    }
}

/// The integer view of a fleet (cluster `i` here is `Fleet::clusters[i]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FleetIndex {
    // Label keys and values by id. Fx hashing: the index is built again whenever a cluster
    // changes (a keystroke in a large fleet), and SipHash was 9% of such a keystroke natively.
    keys: FxHashMap<String, usize>,
    values: FxHashMap<String, usize>,
    /// Label values by id.
    value_names: Vec<String>,
    /// Cluster `i`'s labels are `label_pairs[label_start[i]..label_start[i + 1]]`, by key id.
    label_start: Vec<u32>,
    label_pairs: Vec<(u32, u32)>,
    /// Property ids per [`Space`].
    properties: [FxHashMap<String, usize>; 4],
    /// Cluster `i`'s values are `cells[cell_start[i]..cell_start[i + 1]]`, by property id.
    cell_start: Vec<u32>,
    cells: Vec<(u32, Cell)>,
    /// Per key id, for keys most clusters have: every cluster's value id ([`NONE`] without
    /// the key), so the filters read one slot instead of searching the cluster's labels.
    label_columns: Vec<Option<Vec<u32>>>,
    /// Per property id, for properties most clusters publish: every cluster's cell (rank
    /// [`NONE`] when not published).
    cell_columns: Vec<Option<Vec<Cell>>>,
    /// Per property id: some cluster publishes a value that is not a quantity.
    unparsable: Vec<bool>,
    /// Per property id: one value per rank, ascending.
    distinct: Vec<Vec<Quantity>>,
    /// Per property id: the distinct texts values are written as.
    texts: Vec<Vec<String>>,
    flags: Vec<u8>,
    /// Cluster `i`'s taints (in list order) are `taint_ids[taint_start[i]..taint_start[i + 1]]`.
    taint_start: Vec<u32>,
    taint_ids: Vec<u32>,
    /// Distinct taints by id (shared with the reasons that quote them).
    taints: Vec<Arc<Taint>>,
    /// The same taints' key, value and effect, shared with the explanations that quote them
    /// (a filtered cluster then copies no string).
    taint_parts: Vec<[Arc<str>; 3]>,
}

fn intern(map: &mut FxHashMap<String, usize>, s: &str) -> u32 {
    if let Some(&id) = map.get(s) {
        return id as u32;
    }
    let id = map.len();
    map.insert(s.to_string(), id);
    id as u32
}

/// Distinct values of one property while building: text → slot, and the value per slot.
#[derive(Default)]
struct Distinct<'a> {
    // Owned keys (one copy per distinct text), as in the interning maps.
    slot_of: FxHashMap<String, usize>,
    values: Vec<&'a Quantity>,
}

impl FleetIndex {
    /// Indexes clusters (in fleet order).
    pub fn new(clusters: &[FleetCluster]) -> Self {
        let mut ix = FleetIndex {
            label_start: Vec::with_capacity(clusters.len() + 1),
            cell_start: Vec::with_capacity(clusters.len() + 1),
            flags: Vec::with_capacity(clusters.len()),
            ..FleetIndex::default()
        };
        ix.label_start.push(0);
        ix.cell_start.push(0);
        ix.taint_start.push(0);
        // Taint ids by (key, value, effect).
        let mut taint_id: FxHashMap<[&str; 3], usize> = FxHashMap::default();
        let mut distinct: Vec<Distinct> = Vec::new();
        // Cells are written at their final place, with their text slot for a rank until the
        // ranks are known (a second list of them was a third of the index's memory).
        let cells: usize = clusters
            .iter()
            .map(|c| {
                c.properties.len() + c.capacity.len() + c.allocatable.len() + c.available.len()
            })
            .sum();
        ix.cells = Vec::with_capacity(cells);
        for c in clusters {
            let pairs = ix.label_ids(c);
            ix.label_pairs.extend(pairs);
            ix.label_start.push(ix.label_pairs.len() as u32);

            let start = ix.cells.len();
            for (name, e) in &c.properties {
                let q = e.parsed.as_ref().ok();
                ix.add_cell(&mut distinct, Space::Properties, name, q);
            }
            for (space, map) in [
                (CapacityType::Total, &c.capacity),
                (CapacityType::Allocatable, &c.allocatable),
                (CapacityType::Available, &c.available),
            ] {
                for (name, q) in map {
                    ix.add_cell(&mut distinct, Space::Usage(space), name, Some(&q.0));
                }
            }
            if let Some(s) = ix.cells.get_mut(start..) {
                s.sort_unstable_by_key(|c| c.0);
            }
            ix.cell_start.push(ix.cells.len() as u32);

            for t in &c.taints {
                let key = [t.key.as_str(), t.value.as_str(), t.effect.as_str()];
                let id = *taint_id.entry(key).or_insert_with(|| {
                    ix.taints.push(Arc::new(t.clone()));
                    ix.taint_parts.push(key.map(Arc::from));
                    ix.taints.len() - 1
                });
                ix.taint_ids.push(id as u32);
            }
            ix.taint_start.push(ix.taint_ids.len() as u32);

            ix.flags.push(flags_of(c));
        }

        // Rank the distinct values of every property exactly.
        let mut rank_of: Vec<Vec<u32>> = Vec::with_capacity(distinct.len());
        for d in &distinct {
            let mut order: Vec<usize> = (0..d.values.len()).collect();
            order.sort_by(|&a, &b| match (d.values.get(a), d.values.get(b)) {
                (Some(x), Some(y)) => x.cmp_exact(y),
                _ => Ordering::Equal,
            });
            let mut ranks = vec![0u32; d.values.len()];
            let mut reps: Vec<Quantity> = Vec::new();
            for &slot in &order {
                let Some(&q) = d.values.get(slot) else {
                    continue;
                };
                if reps
                    .last()
                    .is_none_or(|last| last.cmp_exact(q) != Ordering::Equal)
                {
                    reps.push(q.clone());
                }
                if let Some(r) = ranks.get_mut(slot) {
                    *r = reps.len() as u32 - 1;
                }
            }
            rank_of.push(ranks);
            ix.distinct.push(reps);
            ix.texts
                .push(d.values.iter().map(|q| q.as_str().to_string()).collect());
        }
        for (id, cell) in &mut ix.cells {
            cell.rank = rank_of
                .get(*id as usize)
                .and_then(|r| r.get(cell.text as usize).copied())
                .unwrap_or(UNPARSABLE);
        }
        ix.build_columns(clusters.len());
        ix
    }

    /// Cluster `i` is now `new` instead of `old`: updated in place when only its labels
    /// and eligibility changed (a keystroke in one item of a large fleet), without indexing
    /// the fleet again. False, with nothing changed, for any other change (taints, property
    /// values: their ids and ranks are the fleet's); the caller then builds the index anew.
    ///
    /// Answers stay those of a new index: label ids are interned as then (an id no cluster
    /// has any more matches no cluster, as a key or value absent from the fleet does), and
    /// a key's dense column, kept or not, reads as its rows do.
    pub fn replace(&mut self, i: usize, old: &FleetCluster, new: &FleetCluster) -> bool {
        let same_values = old.taints == new.taints
            && old.properties == new.properties
            && old.capacity == new.capacity
            && old.allocatable == new.allocatable
            && old.available == new.available;
        let (Some(&from), Some(&to)) = (self.label_start.get(i), self.label_start.get(i + 1))
        else {
            return false;
        };
        let (from, to) = (from as usize, to as usize);
        let Some(flags) = self.flags.get_mut(i) else {
            return false;
        };
        if !same_values || from > to || to > self.label_pairs.len() {
            return false;
        }
        *flags = flags_of(new);
        for &(k, _) in &self.label_pairs[from..to] {
            if let Some(slot) = dense_slot(&mut self.label_columns, k, i) {
                *slot = NONE;
            }
        }
        let pairs = self.label_ids(new);
        // Keys new to the fleet: no dense column (one cluster has them).
        self.label_columns.resize(self.keys.len(), None);
        for &(k, v) in &pairs {
            if let Some(slot) = dense_slot(&mut self.label_columns, k, i) {
                *slot = v;
            }
        }
        let (added, removed) = (pairs.len(), to - from);
        self.label_pairs.splice(from..to, pairs);
        if added != removed {
            for start in self.label_start.iter_mut().skip(i + 1) {
                *start = (*start as usize + added - removed) as u32;
            }
        }
        true
    }

    /// Cluster `c`'s labels as (key id, value id), sorted; ids new to the index are added.
    fn label_ids(&mut self, c: &FleetCluster) -> Vec<(u32, u32)> {
        let mut pairs: Vec<(u32, u32)> = c
            .labels
            .iter()
            .map(|(key, value)| {
                let k = intern(&mut self.keys, key);
                let before = self.values.len();
                let v = intern(&mut self.values, value);
                if self.values.len() > before {
                    self.value_names.push(value.clone());
                }
                (k, v)
            })
            .collect();
        pairs.sort_unstable();
        pairs
    }

    /// The dense columns of the keys and properties most clusters have.
    fn build_columns(&mut self, n: usize) {
        let dense = |count: usize| n > 0 && count.saturating_mul(DENSE_SHARE) >= n;
        let mut key_count = vec![0usize; self.keys.len()];
        for &(k, _) in &self.label_pairs {
            if let Some(c) = key_count.get_mut(k as usize) {
                *c += 1;
            }
        }
        self.label_columns = key_count
            .iter()
            .map(|&c| dense(c).then(|| vec![NONE; n]))
            .collect();
        let mut cell_count = vec![0usize; self.distinct.len()];
        self.unparsable = vec![false; self.distinct.len()];
        for &(id, cell) in &self.cells {
            if let Some(c) = cell_count.get_mut(id as usize) {
                *c += 1;
            }
            if cell.rank == UNPARSABLE {
                if let Some(u) = self.unparsable.get_mut(id as usize) {
                    *u = true;
                }
            }
        }
        let missing = Cell {
            rank: NONE,
            text: u32::MAX,
            approx: 0.0,
        };
        self.cell_columns = cell_count
            .iter()
            .map(|&c| dense(c).then(|| vec![missing; n]))
            .collect();
        for i in 0..n {
            let (Some(&from), Some(&to)) = (self.label_start.get(i), self.label_start.get(i + 1))
            else {
                continue;
            };
            for &(k, v) in self
                .label_pairs
                .get(from as usize..to as usize)
                .unwrap_or(&[])
            {
                if let Some(slot) = self
                    .label_columns
                    .get_mut(k as usize)
                    .and_then(Option::as_mut)
                    .and_then(|col| col.get_mut(i))
                {
                    *slot = v;
                }
            }
            let (Some(&from), Some(&to)) = (self.cell_start.get(i), self.cell_start.get(i + 1))
            else {
                continue;
            };
            for &(id, cell) in self.cells.get(from as usize..to as usize).unwrap_or(&[]) {
                if let Some(slot) = self
                    .cell_columns
                    .get_mut(id as usize)
                    .and_then(Option::as_mut)
                    .and_then(|col| col.get_mut(i))
                {
                    *slot = cell;
                }
            }
        }
    }

    fn add_cell<'a>(
        &mut self,
        distinct: &mut Vec<Distinct<'a>>,
        space: Space,
        name: &str,
        q: Option<&'a Quantity>,
    ) {
        let next = distinct.len() as u32;
        let Some(ids) = self.properties.get_mut(usize::from(space.code())) else {
            return;
        };
        let id = match ids.get(name) {
            Some(&id) => id as u32,
            None => {
                ids.insert(name.to_string(), next as usize);
                distinct.push(Distinct::default());
                next
            }
        };
        let slot = match (q, distinct.get_mut(id as usize)) {
            (Some(q), Some(d)) => Some(match d.slot_of.get(q.as_str()) {
                Some(&s) => s,
                None => {
                    // Equal texts are equal quantities (parsing is a function of the text).
                    d.values.push(q);
                    d.slot_of.insert(q.as_str().to_string(), d.values.len() - 1);
                    d.values.len() - 1
                }
            }),
            _ => None,
        };
        let cell = Cell {
            rank: UNPARSABLE,
            text: slot.map_or(u32::MAX, |s| s as u32),
            approx: q.map_or(0.0, Quantity::as_approximate_f64),
        };
        self.cells.push((id, cell));
    }

    /// Id of a label key, if some cluster has it.
    pub fn key_id(&self, key: &str) -> Option<u32> {
        self.keys.get(key).map(|&id| id as u32)
    }

    /// Id of a label value, if some cluster has it.
    pub fn value_id(&self, value: &str) -> Option<u32> {
        self.values.get(value).map(|&id| id as u32)
    }

    /// The label value with id `id`.
    pub fn value_name(&self, id: u32) -> Option<&str> {
        self.value_names.get(id as usize).map(String::as_str)
    }

    /// The text a property value is written as.
    pub fn text(&self, id: u32, cell: Cell) -> Option<&str> {
        self.text_at(id, cell.text)
    }

    /// Text number `text` (a [`Cell::text`]) of property `id`.
    pub fn text_at(&self, id: u32, text: u32) -> Option<&str> {
        self.texts
            .get(id as usize)?
            .get(text as usize)
            .map(String::as_str)
    }

    /// Number of distinct label values (ids are below it).
    pub fn value_count(&self) -> usize {
        self.values.len()
    }

    /// Label `key`'s value ids in cluster order (`None`: no such label), when the key has a
    /// dense column (`None` otherwise: read [`FleetIndex::label`] per cluster).
    pub fn label_column(
        &self,
        key: u32,
    ) -> Option<impl ExactSizeIterator<Item = Option<u32>> + '_> {
        let col = self.label_columns.get(key as usize)?.as_ref()?;
        Some(col.iter().map(|&v| (v != NONE).then_some(v)))
    }

    /// Property `id`'s ranks in cluster order (`None`: not published), when the property has
    /// a dense column (`None` otherwise: read [`FleetIndex::cell`] per cluster).
    pub fn rank_column(&self, id: u32) -> Option<impl ExactSizeIterator<Item = Option<u32>> + '_> {
        let col = self.cell_columns.get(id as usize)?.as_ref()?;
        Some(col.iter().map(|c| (c.rank != NONE).then_some(c.rank)))
    }

    /// The value id of label `key` on cluster `i`.
    #[inline]
    pub fn label(&self, i: usize, key: u32) -> Option<u32> {
        if let Some(Some(col)) = self.label_columns.get(key as usize) {
            return col.get(i).copied().filter(|&v| v != NONE);
        }
        row_lookup(&self.label_start, &self.label_pairs, i, key)
    }

    /// Id of a property, if some cluster publishes it.
    pub fn property_id(&self, space: Space, name: &str) -> Option<u32> {
        self.properties
            .get(usize::from(space.code()))?
            .get(name)
            .map(|&id| id as u32)
    }

    /// Whether some cluster publishes property `id` with a value that is not a quantity.
    pub fn has_unparsable(&self, id: u32) -> bool {
        self.unparsable.get(id as usize).copied().unwrap_or(false)
    }

    /// Property `id` on cluster `i`.
    #[inline]
    pub fn cell(&self, i: usize, id: u32) -> Option<Cell> {
        if let Some(Some(col)) = self.cell_columns.get(id as usize) {
            return col.get(i).copied().filter(|c| c.rank != NONE);
        }
        row_lookup(&self.cell_start, &self.cells, i, id)
    }

    /// Where `q` falls among the values of property `id`.
    pub fn threshold(&self, id: u32, q: &Quantity) -> Threshold {
        let values = self
            .distinct
            .get(id as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let below = values.partition_point(|v| v.cmp_exact(q) == Ordering::Less);
        Threshold {
            below: below as u32,
            equal: values
                .get(below)
                .is_some_and(|v| v.cmp_exact(q) == Ordering::Equal),
        }
    }

    /// Cluster `i` is eligible.
    pub fn eligible(&self, i: usize) -> bool {
        self.flags.get(i).is_some_and(|f| f & ELIGIBLE != 0)
    }

    /// The fleet's distinct taints (ids are positions).
    pub fn distinct_taints(&self) -> &[Arc<Taint>] {
        &self.taints
    }

    /// Key, value and effect of the distinct taint `id`.
    pub fn taint_parts(&self, id: u32) -> Option<&[Arc<str>; 3]> {
        self.taint_parts.get(id as usize)
    }

    /// Cluster `i`'s taint ids, in list order.
    pub fn taints_of(&self, i: usize) -> &[u32] {
        let from = self.taint_start.get(i).map_or(0, |&x| x as usize);
        let to = self.taint_start.get(i + 1).map_or(0, |&x| x as usize);
        self.taint_ids.get(from..to).unwrap_or(&[])
    }

    /// Cluster `i` has taints.
    pub fn tainted(&self, i: usize) -> bool {
        self.flags.get(i).is_some_and(|f| f & TAINTED != 0)
    }
}

/// A cluster's [`ELIGIBLE`] and [`TAINTED`] flags.
fn flags_of(c: &FleetCluster) -> u8 {
    (if c.eligibility.is_ok() { ELIGIBLE } else { 0 })
        | if c.taints.is_empty() { 0 } else { TAINTED }
}

/// Cluster `i`'s slot in key `k`'s dense column, if the key has one.
fn dense_slot(columns: &mut [Option<Vec<u32>>], k: u32, i: usize) -> Option<&mut u32> {
    columns.get_mut(k as usize)?.as_mut()?.get_mut(i)
}

/// The value for `id` in cluster `i`'s row of a sparse (row start, pairs) table.
#[inline]
fn row_lookup<T: Copy>(start: &[u32], pairs: &[(u32, T)], i: usize, id: u32) -> Option<T> {
    let from = *start.get(i)? as usize;
    let to = *start.get(i + 1)? as usize;
    pairs.get(from..to)?.iter().find(|p| p.0 == id).map(|p| p.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::fleet::PropertyEntry;
    use crate::sorted_map::SortedMap;

    fn cluster(name: &str, value: &str) -> FleetCluster {
        let mut properties = SortedMap::new();
        properties.insert(
            "p".to_string(),
            PropertyEntry {
                raw: value.to_string(),
                parsed: Quantity::parse(value),
            },
        );
        let mut labels = SortedMap::new();
        labels.insert("k".to_string(), value.to_string());
        FleetCluster {
            name: name.to_string(),
            labels,
            taints: Vec::new(),
            leaving: false,
            eligibility: Ok(()),
            properties,
            capacity: SortedMap::new(),
            allocatable: SortedMap::new(),
            available: SortedMap::new(),
            assumed_healthy: false,
            namespaces: Default::default(),
        }
    }

    #[test]
    fn ranks_compare_like_quantities() {
        // Equal values written differently, suffixes, signs, nano rounding, not a quantity.
        let values = [
            "0.3",
            "300m",
            "1Ki",
            "1024",
            "1k",
            "1000",
            "-1",
            "-1000m",
            "0",
            "0.0",
            "1e3",
            "1n",
            "0.0000000001",
            "2Gi",
            "3G",
            "abc",
            "9Ei",
            "12.5",
        ];
        let clusters: Vec<FleetCluster> = values
            .iter()
            .enumerate()
            .map(|(i, v)| cluster(&format!("c{i:02}"), v))
            .collect();
        let ix = FleetIndex::new(&clusters);
        let Some(p) = ix.property_id(Space::Properties, "p") else {
            panic!("property not indexed");
        };
        for (i, v) in values.iter().enumerate() {
            let cell = ix.cell(i, p);
            let Ok(observed) = Quantity::parse(v) else {
                assert_eq!(cell.map(|c| c.rank), Some(UNPARSABLE), "{v}");
                continue;
            };
            let Some(cell) = cell else {
                panic!("{v} not indexed");
            };
            assert_eq!(cell.approx, observed.as_approximate_f64(), "{v}");
            for w in values.iter().chain(&["0.25", "5", "-7", "1.5Ki", "100Ei"]) {
                let Ok(expected) = Quantity::parse(w) else {
                    continue;
                };
                assert_eq!(
                    ix.threshold(p, &expected).compare(cell.rank),
                    observed.cmp_exact(&expected),
                    "{v} vs {w}"
                );
            }
        }
        // Label ids: equal exactly when the strings are.
        let Some(k) = ix.key_id("k") else {
            panic!("key not indexed");
        };
        for (i, v) in values.iter().enumerate() {
            assert_eq!(ix.label(i, k), ix.value_id(v));
        }
        assert_eq!(ix.label(0, k), ix.label(0, k));
        assert_ne!(ix.label(0, k), ix.label(1, k));
        assert!(ix.value_id("missing").is_none());
    }

    #[test]
    fn dense_and_sparse_lookups_agree_with_the_clusters() {
        // "k" and "p" are on every cluster (dense columns), "rare" and "q" on one in ten
        // (looked up in the cluster's own list).
        let clusters: Vec<FleetCluster> = (0..40)
            .map(|i| {
                let mut c = cluster(&format!("c{i:02}"), &format!("{}", i % 7));
                if i % 10 == 3 {
                    c.labels.insert("rare".to_string(), format!("r{i}"));
                    c.properties.insert(
                        "q".to_string(),
                        PropertyEntry {
                            raw: format!("{i}m"),
                            parsed: Quantity::parse(&format!("{i}m")),
                        },
                    );
                }
                c
            })
            .collect();
        let ix = FleetIndex::new(&clusters);
        for key in ["k", "rare"] {
            let Some(k) = ix.key_id(key) else {
                panic!("{key} not indexed");
            };
            for (i, c) in clusters.iter().enumerate() {
                let expected = c.labels.get(key).and_then(|v| ix.value_id(v));
                assert_eq!(ix.label(i, k), expected, "{key} on {i}");
            }
        }
        for prop in ["p", "q"] {
            let Some(id) = ix.property_id(Space::Properties, prop) else {
                panic!("{prop} not indexed");
            };
            for (i, c) in clusters.iter().enumerate() {
                let cell = ix.cell(i, id);
                match c.properties.get(prop).map(|e| e.parsed.as_ref()) {
                    None => assert!(cell.is_none(), "{prop} on {i}"),
                    Some(Ok(q)) => {
                        let Some(cell) = cell else {
                            panic!("{prop} on {i} missing");
                        };
                        assert_eq!(cell.approx, q.as_approximate_f64());
                        assert_eq!(ix.text(id, cell), Some(q.as_str()));
                    }
                    Some(Err(_)) => unreachable!(),
                }
            }
        }
    }

    /// What the index answers about every cluster's labels, by key and value strings (ids
    /// differ between an index updated in place and a new one), with eligibility and taints.
    fn label_answers(ix: &FleetIndex, clusters: &[FleetCluster], keys: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for key in keys {
            let k = ix.key_id(key);
            let column: Option<Vec<Option<u32>>> =
                k.and_then(|k| ix.label_column(k)).map(Iterator::collect);
            for i in 0..clusters.len() {
                let v = k.and_then(|k| ix.label(i, k));
                if let Some(column) = &column {
                    assert_eq!(
                        column.get(i).copied().flatten(),
                        v,
                        "column of {key} at {i}"
                    );
                }
                out.push(format!("{i} {key}={:?}", v.and_then(|v| ix.value_name(v))));
            }
        }
        for i in 0..clusters.len() {
            out.push(format!(
                "{i} eligible={} tainted={} {:?}",
                ix.eligible(i),
                ix.tainted(i),
                ix.taints_of(i)
            ));
        }
        out
    }

    fn without(labels: &SortedMap<String, String>, key: &str) -> SortedMap<String, String> {
        SortedMap::from_entries(
            labels
                .iter()
                .filter(|(k, _)| *k != key)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn a_cluster_replaced_in_place_reads_as_in_a_new_index() {
        // "k" on every cluster (a dense column), "rare" on two.
        let mut clusters: Vec<FleetCluster> = (0..20)
            .map(|i| {
                let mut c = cluster(&format!("c{i:02}"), &format!("{}", i % 3));
                if i == 4 || i == 9 {
                    c.labels.insert("rare".to_string(), format!("r{i}"));
                }
                c
            })
            .collect();
        let keys = ["k", "rare", "new", "gone"];
        let mut ix = FleetIndex::new(&clusters);
        type Edit = (usize, Box<dyn Fn(&mut FleetCluster)>);
        let edits: Vec<Edit> = vec![
            // A value new to the fleet, then back.
            (
                2,
                Box::new(|c| {
                    c.labels.insert("k".into(), "fresh".into());
                }),
            ),
            (
                2,
                Box::new(|c| {
                    c.labels.insert("k".into(), "2".into());
                }),
            ),
            // A key new to the fleet; the only cluster with it loses it again.
            (
                7,
                Box::new(|c| {
                    c.labels.insert("new".into(), "x".into());
                }),
            ),
            (
                7,
                Box::new(|c| {
                    c.labels = without(&c.labels, "new");
                }),
            ),
            // Every label gone (a mistyped `labels:` key), then back; one of two "rare".
            (
                4,
                Box::new(|c| {
                    c.labels = SortedMap::new();
                }),
            ),
            (
                9,
                Box::new(|c| {
                    c.labels = without(&c.labels, "rare");
                    c.labels.insert("gone".into(), "g".into());
                }),
            ),
            (
                4,
                Box::new(|c| {
                    c.labels.insert("k".into(), "1".into());
                    c.labels.insert("rare".into(), "r4".into());
                }),
            ),
            // Not eligible any more.
            (
                11,
                Box::new(|c| {
                    c.eligibility = Err(super::super::eligibility::Ineligible::AgentNotOnline);
                }),
            ),
        ];
        for (n, (i, edit)) in edits.iter().enumerate() {
            let mut next = clusters[*i].clone();
            edit(&mut next);
            assert!(
                ix.replace(*i, &clusters[*i], &next),
                "edit {n} not in place"
            );
            clusters[*i] = next;
            let fresh = FleetIndex::new(&clusters);
            assert_eq!(
                label_answers(&ix, &clusters, &keys),
                label_answers(&fresh, &clusters, &keys),
                "edit {n}"
            );
        }
        // A property value or a taint changed: not in place, the index unchanged.
        let before = ix.clone();
        let mut next = clusters[3].clone();
        next.properties.insert(
            "p".into(),
            PropertyEntry {
                raw: "99".into(),
                parsed: Quantity::parse("99"),
            },
        );
        assert!(!ix.replace(3, &clusters[3], &next));
        let mut next = clusters[3].clone();
        next.taints.push(Taint {
            key: "t".into(),
            ..Taint::default()
        });
        assert!(!ix.replace(3, &clusters[3], &next));
        assert_eq!(ix, before);
    }
}
