//! KubeFleet manifests: MemberCluster and ClusterResourcePlacement (v1 and v1beta1 share
//! one model: the scheduling fields are identical in both versions).

use super::meta::ObjectMeta;
use crate::selectors::LabelSelector;
use serde::Deserialize;

/// `MemberCluster` (`cluster.kubernetes-fleet.io/v1`, `v1beta1`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberCluster {
    /// Metadata; `labels` are what label selectors see.
    #[serde(default)]
    pub metadata: ObjectMeta,
}

/// `ClusterResourcePlacement` (`placement.kubernetes-fleet.io/v1`, `v1beta1`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterResourcePlacement {
    /// Metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: PlacementSpec,
}

/// The parts of `spec` the scheduler reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementSpec {
    /// `spec.policy`; absent means PickAll with no affinity.
    #[serde(default)]
    pub policy: Option<PlacementPolicy>,
}

/// `spec.policy`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlacementPolicy {
    /// `PickAll` (default), `PickN` or `PickFixed`.
    #[serde(default)]
    pub placement_type: Option<String>,
    /// Cluster affinity.
    #[serde(default)]
    pub affinity: Option<Affinity>,
}

/// `spec.policy.affinity`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Affinity {
    /// `clusterAffinity`.
    #[serde(default)]
    pub cluster_affinity: Option<ClusterAffinity>,
}

/// `spec.policy.affinity.clusterAffinity`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterAffinity {
    /// Required terms.
    #[serde(default)]
    pub required_during_scheduling_ignored_during_execution: Option<ClusterSelector>,
}

/// A list of terms, ORed.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterSelector {
    /// The terms.
    #[serde(default)]
    pub cluster_selector_terms: Vec<ClusterSelectorTerm>,
}

/// One term.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterSelectorTerm {
    /// Label selector on the MemberCluster's labels.
    #[serde(default)]
    pub label_selector: Option<LabelSelector>,
}
