//! The fleet as the scheduler sees it: every MemberCluster, sorted by name, with eligibility
//! and property values worked out once so that each scheduling cycle only looks them up.

use super::eligibility::{self, Ineligible};
use super::index::FleetIndex;
use crate::input::quantity::{Quantity, QuantityError};
use crate::model::placement::{MemberCluster, QuantityValue, Taint};
use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// A non-resource property value: kept as written, parsed once (the scheduler only fails on
/// an unparsable value when it reads it).
#[derive(Debug, Clone, PartialEq)]
pub struct PropertyEntry {
    /// The value as written.
    pub raw: String,
    /// The parsed quantity, or why it is not one.
    pub parsed: Result<Quantity, QuantityError>,
}

/// One MemberCluster, ready for scheduling.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetCluster {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.labels`.
    pub labels: SortedMap<String, String>,
    /// `spec.taints`.
    pub taints: Vec<Taint>,
    /// `metadata.deletionTimestamp` is set.
    pub leaving: bool,
    /// Eligibility at the evaluation instant.
    pub eligibility: Result<(), Ineligible>,
    /// `status.properties`.
    pub properties: SortedMap<String, PropertyEntry>,
    /// `status.resourceUsage.capacity` (parsed when decoded, as all three).
    pub capacity: SortedMap<String, QuantityValue>,
    /// `status.resourceUsage.allocatable`.
    pub allocatable: SortedMap<String, QuantityValue>,
    /// `status.resourceUsage.available`.
    pub available: SortedMap<String, QuantityValue>,
    /// No `status` was given: written by hand (assumed joined and healthy).
    pub assumed_healthy: bool,
    /// What the NamespaceAffinity filter reads (`status.namespaces` and its condition).
    pub namespaces: eligibility::Namespaces,
}

impl FleetCluster {
    /// Builds the scheduler's view of a MemberCluster at `at`.
    pub fn new(mc: MemberCluster, at: DateTime<Utc>, timeouts: eligibility::Timeouts) -> Self {
        let leaving = mc
            .metadata
            .deletion_timestamp
            .as_deref()
            .is_some_and(|t| !t.is_empty());
        let eligibility = eligibility::check(&mc, leaving, at, timeouts);
        let assumed_healthy = mc.status.is_none();
        let namespaces = eligibility::Namespaces::of(&mc);
        let status = mc.status.unwrap_or_default();
        let properties = status.properties.map_values(|v| PropertyEntry {
            parsed: Quantity::parse(&v.value),
            raw: v.value,
        });
        FleetCluster {
            name: mc.metadata.name,
            labels: mc.metadata.labels,
            taints: mc.spec.taints,
            leaving,
            eligibility,
            properties,
            capacity: status.resource_usage.capacity,
            allocatable: status.resource_usage.allocatable,
            available: status.resource_usage.available,
            assumed_healthy,
            namespaces,
        }
    }
}

/// All clusters, sorted by name (the scheduler's list order; makes results independent of
/// the order of the input documents).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fleet {
    /// The clusters.
    pub clusters: Vec<FleetCluster>,
    /// Names shared by the many reasons that quote them.
    names: Vec<Arc<str>>,
    /// Position of each cluster's name in name order (equal names share one), so that name
    /// tie-breaks compare integers.
    name_rank: Vec<u32>,
    /// Labels and property values as integers.
    pub index: FleetIndex,
}

impl Fleet {
    /// A fleet from clusters with unique names.
    pub fn new(mut clusters: Vec<FleetCluster>) -> Self {
        // Already in name order when read from a dump: checked in one pass (the wasm builds'
        // size-optimised sort would merge-sort 10,000 clusters on every keystroke).
        if !clusters.is_sorted_by(|a, b| a.name <= b.name) {
            clusters.sort_by(|a, b| a.name.cmp(&b.name));
        }
        let names = clusters
            .iter()
            .map(|c| Arc::from(c.name.as_str()))
            .collect();
        let mut name_rank = Vec::with_capacity(clusters.len());
        let mut rank = 0u32;
        for (i, c) in clusters.iter().enumerate() {
            if i > 0 && clusters.get(i - 1).is_some_and(|p| p.name != c.name) {
                rank += 1;
            }
            name_rank.push(rank);
        }
        let index = FleetIndex::new(&clusters);
        Fleet {
            clusters,
            names,
            name_rank,
            index,
        }
    }

    /// Replaces cluster `i` by `cluster`, which has the same name (the fleet's order and
    /// names stay); the index is updated in place when it can be, else built again. False,
    /// with nothing changed, when there is no cluster `i` of that name.
    pub fn replace(&mut self, i: usize, cluster: FleetCluster) -> bool {
        let Some(old) = self.clusters.get(i).filter(|c| c.name == cluster.name) else {
            return false;
        };
        let in_place = self.index.replace(i, old, &cluster);
        if let Some(slot) = self.clusters.get_mut(i) {
            *slot = cluster;
        }
        if !in_place {
            self.index = FleetIndex::new(&self.clusters);
        }
        true
    }

    /// Name of cluster `i` (shared).
    pub fn name_of(&self, i: usize) -> Arc<str> {
        self.names.get(i).cloned().unwrap_or_else(|| Arc::from(""))
    }

    /// Name of cluster `i`, borrowed.
    pub fn name_str(&self, i: usize) -> &str {
        self.names.get(i).map_or("", |n| &**n)
    }

    /// Rank of cluster `i`'s name in name order.
    pub fn name_rank(&self, i: usize) -> u32 {
        self.name_rank.get(i).copied().unwrap_or(0)
    }

    /// Index of the cluster named `name` (of equal names, the last): a binary search of the
    /// names, which are in order, rather than a map of its own.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        let end = self.names.partition_point(|n| &**n <= name);
        end.checked_sub(1).filter(|&i| self.name_str(i) == name)
    }

    /// Number of clusters.
    pub fn len(&self) -> usize {
        self.clusters.len()
    }

    /// Whether the fleet is empty.
    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }
}
