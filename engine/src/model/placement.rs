//! KubeFleet manifests the placement engine reads: `MemberCluster`, `ClusterResourcePlacement`,
//! the namespaced `ResourcePlacement`, and `PlacementBinding` (our own kind for bindings that
//! already exist before the scheduling run; see `placement/README.md`).
//!
//! v1 and v1beta1 share one model: the scheduling fields are identical in both versions.
//! Enumerated values (operators, sort orders, placement types) are kept as written so that a
//! policy the webhook would reject can still be run through the scheduler the way it would
//! behave if the object reached it (placement.md §10), with the rejection reported.

use super::meta::ObjectMeta;
use crate::input::de::DeError;
use crate::input::from_node::{self, FromNode};
use crate::input::node::{Node, Resolved};
use crate::input::quantity::Quantity;
use crate::selectors::LabelSelector;
use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use std::borrow::Cow;

/// `MemberCluster` (`cluster.kubernetes-fleet.io/v1`, `v1beta1`); another top-level key is an
/// unknown field (the API server refuses it).
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// `apiVersion` and `kind`: the document's, read when it was found.
#[from_node(ignore = "apiVersion kind")]
pub struct MemberCluster {
    /// Metadata; `labels` are what label selectors see, `deletionTimestamp` means "left".
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Spec (taints).
    #[serde(default)]
    pub spec: MemberClusterSpec,
    /// Status as the hub agent reports it; absent on a hand-written fleet.
    #[serde(default)]
    pub status: Option<MemberClusterStatus>,
}

/// `MemberCluster.spec`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// `identity` (a subject) and `deleteOptions` (v1beta1): not read by the scheduler.
#[from_node(ignore = "identity deleteOptions")]
pub struct MemberClusterSpec {
    /// `heartbeatPeriodSeconds` (not read by the scheduler).
    #[serde(default)]
    pub heartbeat_period_seconds: Option<i32>,
    /// `taints`: the scheduler only places on clusters whose taints are all tolerated.
    #[serde(default)]
    pub taints: Vec<Taint>,
}

/// A `MemberCluster` taint.
#[derive(Debug, Clone, Default, PartialEq, Eq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Taint {
    /// Key (required).
    pub key: String,
    /// Value (optional).
    #[serde(default)]
    pub value: String,
    /// Effect; `NoSchedule` is the only one.
    pub effect: String,
}

/// `MemberCluster.status`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemberClusterStatus {
    /// Top-level conditions (not read by the scheduler's eligibility check).
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Non-resource properties: name → value.
    #[serde(default)]
    pub properties: SortedMap<String, PropertyValue>,
    /// Resource usage (`resources.kubernetes-fleet.io/*` properties).
    #[serde(default)]
    pub resource_usage: ResourceUsage,
    /// Per-agent status; the scheduler reads the `MemberAgent` entry. `None` (the field is
    /// absent) marks a hand-written fleet, treated as joined and healthy; a list without a
    /// `MemberAgent` entry (even `[]`) is honoured: the agent is not online.
    #[serde(default)]
    pub agent_status: Option<Vec<AgentStatus>>,
    /// `namespaces`: the namespaces on the member cluster (name → the Work that created it),
    /// read by the NamespaceAffinity filter of a `ResourcePlacement` when the
    /// `NamespaceCollectionSucceeded` condition is present.
    #[serde(default)]
    pub namespaces: Option<SortedMap<String, String>>,
}

/// A property value as published by a property provider (a string; parsed when used).
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PropertyValue {
    /// The value, normally a quantity (`"4"`, `"0.060"`); version strings are not.
    pub value: String,
    /// When it was observed.
    #[serde(default)]
    pub observation_time: Option<String>,
}

/// `status.resourceUsage`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceUsage {
    /// Σ node capacity (`total-<resource>`).
    #[serde(default)]
    pub capacity: SortedMap<String, QuantityValue>,
    /// Σ node allocatable (`allocatable-<resource>`).
    #[serde(default)]
    pub allocatable: SortedMap<String, QuantityValue>,
    /// Allocatable minus requests (`available-<resource>`).
    #[serde(default)]
    pub available: SortedMap<String, QuantityValue>,
    /// When it was observed.
    #[serde(default)]
    pub observation_time: Option<String>,
}

/// A `resource.Quantity` field: a string or a number, parsed when decoded (as the API server
/// does, so an unparsable one is an error at its line:column).
#[derive(Debug, Clone, PartialEq)]
pub struct QuantityValue(pub Quantity);

impl FromNode for QuantityValue {
    /// As the serde impl: a string or a number (its text as Rust formats it), parsed.
    fn from_node(node: &Node) -> Result<Self, DeError> {
        let text = match node.resolve() {
            Some(Resolved::Str(t)) => Cow::Borrowed(t),
            Some(Resolved::Int(i)) => Cow::Owned(i.to_string()),
            Some(Resolved::Float(f)) => Cow::Owned(f.to_string()),
            _ => return Err(from_node::invalid_type(node, "a quantity")),
        };
        Quantity::parse(&text)
            .map(QuantityValue)
            .map_err(|e| from_node::custom_at(node, format!("\"{text}\" is not a quantity: {e}")))
    }
}

/// One agent's status (`status.agentStatus[]`).
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentStatus {
    /// `MemberAgent`, `MultiClusterServiceAgent`, `ServiceExportImportAgent`.
    #[serde(rename = "type")]
    pub agent_type: String,
    /// `Joined`, `Healthy`, …
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Last heartbeat (RFC 3339).
    #[serde(default)]
    pub last_received_heartbeat: Option<DateTime<Utc>>,
}

/// A `metav1.Condition`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Condition {
    /// Type.
    #[serde(rename = "type")]
    pub condition_type: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// When the status last changed (RFC 3339).
    #[serde(default)]
    pub last_transition_time: Option<DateTime<Utc>>,
    /// Reason.
    #[serde(default)]
    pub reason: Option<String>,
    /// Message.
    #[serde(default)]
    pub message: Option<String>,
    /// Observed generation.
    #[serde(default)]
    pub observed_generation: Option<i64>,
}

/// `ClusterResourcePlacement` (`placement.kubernetes-fleet.io/v1`, `v1beta1`) and the
/// namespaced `ResourcePlacement` (same spec).
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// `apiVersion` and `kind`: the document's, read when it was found.
#[from_node(ignore = "apiVersion kind")]
pub struct ClusterResourcePlacement {
    /// Metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Spec.
    #[serde(default)]
    pub spec: PlacementSpec,
    /// Status (the controllers'), not read.
    #[serde(default)]
    pub status: Option<crate::model::Opaque>,
}

/// `ResourcePlacement`: the namespaced placement; the scheduling part is identical.
pub type ResourcePlacement = ClusterResourcePlacement;

/// The parts of `spec` the scheduler reads; the others KubeFleet's `PlacementSpec` has are
/// accepted and ignored here, and any other key is an unknown field (a misspelt `polcy`
/// would otherwise schedule as PickAll without a word).
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// Read by the rollout engine, or not modelled.
#[from_node(ignore = "resourceSelectors strategy revisionHistoryLimit statusReportingScope")]
pub struct PlacementSpec {
    /// `spec.policy`; absent means PickAll with no affinity.
    #[serde(default)]
    pub policy: Option<PlacementPolicy>,
}

/// `spec.policy`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlacementPolicy {
    /// `PickAll` (default), `PickN` or `PickFixed`.
    #[serde(default)]
    pub placement_type: Option<String>,
    /// PickFixed targets.
    #[serde(default)]
    pub cluster_names: Vec<String>,
    /// PickN count.
    #[serde(default)]
    pub number_of_clusters: Option<i32>,
    /// Cluster affinity.
    #[serde(default)]
    pub affinity: Option<Affinity>,
    /// Topology spread constraints (PickN).
    #[serde(default)]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    /// Tolerations (PickAll, PickN).
    #[serde(default)]
    pub tolerations: Vec<Toleration>,
}

/// `spec.policy.affinity`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Affinity {
    /// `clusterAffinity`.
    #[serde(default)]
    pub cluster_affinity: Option<ClusterAffinity>,
}

/// `spec.policy.affinity.clusterAffinity`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterAffinity {
    /// Required terms (ORed).
    #[serde(default)]
    pub required_during_scheduling_ignored_during_execution: Option<ClusterSelector>,
    /// Preferred terms (weights summed).
    #[serde(default)]
    pub preferred_during_scheduling_ignored_during_execution: Vec<PreferredClusterSelector>,
}

/// A list of terms, ORed.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterSelector {
    /// The terms.
    #[serde(default)]
    pub cluster_selector_terms: Vec<ClusterSelectorTerm>,
}

/// A preferred term with its weight.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreferredClusterSelector {
    /// −100..100.
    pub weight: i32,
    /// The term.
    pub preference: ClusterSelectorTerm,
}

/// `ClusterSelectorTerm`: used by required and preferred affinity.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterSelectorTerm {
    /// Label selector on the MemberCluster's labels.
    #[serde(default)]
    pub label_selector: Option<LabelSelector>,
    /// Property selector (required terms only).
    #[serde(default)]
    pub property_selector: Option<PropertySelector>,
    /// Property sorter (preferred terms only).
    #[serde(default)]
    pub property_sorter: Option<PropertySorter>,
    /// `metricSorter`, the misspelling in the property-based scheduling how-to. Not an API
    /// field: validation rejects it and the scheduler never sees it (as if pruned), so the
    /// term then gives its full weight (placement.md §1.2, §10.1).
    #[serde(default)]
    pub metric_sorter: Option<crate::model::Opaque>,
}

/// `propertySelector`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PropertySelector {
    /// Expressions, ANDed.
    #[serde(default)]
    pub match_expressions: Vec<PropertySelectorRequirement>,
}

/// One property expression.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PropertySelectorRequirement {
    /// Property name.
    pub name: String,
    /// `Gt`, `Ge`, `Lt`, `Le`, `Eq`, `Ne`.
    pub operator: String,
    /// Exactly one quantity.
    #[serde(default)]
    pub values: Vec<String>,
}

/// `propertySorter`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PropertySorter {
    /// Property name.
    pub name: String,
    /// `Ascending` or `Descending`.
    pub sort_order: String,
}

/// A topology spread constraint.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopologySpreadConstraint {
    /// Default 1, minimum 1.
    #[serde(default)]
    pub max_skew: Option<i32>,
    /// A cluster label key.
    #[serde(default)]
    pub topology_key: String,
    /// `DoNotSchedule` (default) or `ScheduleAnyway`.
    #[serde(default)]
    pub when_unsatisfiable: Option<String>,
}

/// A toleration.
#[derive(Debug, Clone, Default, PartialEq, Eq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Toleration {
    /// Key; empty with `Exists` tolerates every key.
    #[serde(default)]
    pub key: String,
    /// `Equal` (default) or `Exists`.
    #[serde(default)]
    pub operator: Option<String>,
    /// Value (must be empty for `Exists`).
    #[serde(default)]
    pub value: String,
    /// `NoSchedule` or empty (any effect).
    #[serde(default)]
    pub effect: String,
}

/// `PlacementBinding` (`fleet-policy.dev/v1alpha1`): a binding that exists before the run.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PlacementBinding {
    /// Metadata (`deletionTimestamp` marks a binding being deleted; `namespace` selects a
    /// namespaced ResourcePlacement).
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Spec.
    pub spec: PlacementBindingSpec,
}

/// `PlacementBinding.spec`.
#[derive(Debug, Clone, Default, PartialEq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlacementBindingSpec {
    /// Name of the placement it belongs to; may be omitted when the input has one placement.
    #[serde(default)]
    pub placement: Option<String>,
    /// Target cluster.
    pub cluster: String,
    /// `Scheduled`, `Bound` or `Unscheduled`.
    pub state: String,
    /// `Current` (made for this policy; default) or `Obsolete` (an earlier policy).
    #[serde(default)]
    pub policy_snapshot: Option<String>,
    /// Scores recorded when the cluster was picked.
    #[serde(default)]
    pub cluster_score: Option<RecordedScore>,
}

/// A binding's recorded `clusterDecision.clusterScore`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordedScore {
    /// Affinity score.
    #[serde(default)]
    pub affinity_score: i32,
    /// Topology spread score.
    #[serde(default)]
    pub topology_spread_score: i32,
}
