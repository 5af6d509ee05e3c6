//! `metadata` as every manifest has it. Fields the engine does not use (uid, managedFields…)
//! are accepted and ignored, as `kubectl get -o yaml` output is full of them.

use crate::sorted_map::SortedMap;
use fleet_policy_derive::FromNode;

/// The parts of `metadata` the engine reads. Its other fields are accepted and ignored; any
/// other key is an unknown field, as the API server's strict field validation (kubectl's
/// default) refuses it: a misspelt `lables` would otherwise lose the labels without a word.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// The rest of `ObjectMeta` (Kubernetes 1.25 and later), not read.
#[from_node(
    ignore = "generateName selfLink uid resourceVersion generation deletionGracePeriodSeconds finalizers managedFields"
)]
pub struct ObjectMeta {
    /// `metadata.name`.
    #[serde(default)]
    pub name: String,
    /// `metadata.namespace`.
    #[serde(default)]
    pub namespace: Option<String>,
    /// `metadata.labels`.
    #[serde(default)]
    pub labels: SortedMap<String, String>,
    /// `metadata.annotations`.
    #[serde(default)]
    pub annotations: SortedMap<String, String>,
    /// `metadata.creationTimestamp` (RFC 3339).
    #[serde(default)]
    pub creation_timestamp: Option<String>,
    /// `metadata.deletionTimestamp` (RFC 3339); set when the object is being deleted.
    #[serde(default)]
    pub deletion_timestamp: Option<String>,
    /// `metadata.ownerReferences` (a pod's controller: DaemonSet, ReplicaSet, Node…).
    #[serde(default)]
    pub owner_references: Vec<OwnerReference>,
}

/// One owner reference.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// Owner kind (`DaemonSet`, `Node` for mirror pods, `ReplicaSet`, `StatefulSet`…).
    #[serde(default)]
    pub kind: String,
    /// Owner name.
    #[serde(default)]
    pub name: String,
}
