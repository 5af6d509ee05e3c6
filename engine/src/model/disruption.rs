//! Karpenter manifests: NodePool (`karpenter.sh/v1`), NodeClaim, Node, Pod,
//! PodDisruptionBudget, and our own `NodeCounts` (node counts given directly, without nodes).
//!
//! The NodePool's disruption fields are read straight from the YAML tree rather than through
//! serde, so that each bad field becomes its own diagnostic at its line:column while the
//! rest of the NodePool is still evaluated (the point is to show what Karpenter would do with
//! it). The other kinds decode leniently: `kubectl get -o yaml` output carries many fields the
//! engine does not need.

use crate::input::{Diagnostic, Document, FieldPath, Node};
use crate::selectors::LabelSelector;
use fleet_policy_derive::FromNode;

/// A value read from the YAML with the path it was found at.
#[derive(Debug, Clone, PartialEq)]
pub struct Field<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub path: FieldPath,
}

/// One item of `spec.disruption.budgets`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Budget {
    /// Path of the item.
    pub path: FieldPath,
    /// `nodes` as written (absent: the CRD default "10%").
    pub nodes: Option<Field<String>>,
    /// `schedule`.
    pub schedule: Option<Field<String>>,
    /// `duration`.
    pub duration: Option<Field<String>>,
    /// `reasons`; `Some(empty)` is an explicit empty list.
    pub reasons: Option<Vec<Field<String>>>,
}

/// `spec.disruption` of a NodePool.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Disruption {
    /// Whether the `disruption` block is written at all.
    pub present: bool,
    /// `consolidationPolicy`.
    pub consolidation_policy: Option<Field<String>>,
    /// `consolidateAfter`.
    pub consolidate_after: Option<Field<String>>,
    /// `budgets`; `None` when the key is absent (CRD default applies).
    pub budgets: Option<Vec<Budget>>,
    /// Path of `budgets` (for list-level rules).
    pub budgets_path: FieldPath,
}

/// A `karpenter.sh/v1` NodePool, the parts the disruption engine reads.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodePool {
    /// `metadata.name`.
    pub name: String,
    /// `spec.disruption`.
    pub disruption: Disruption,
    /// `spec.template.spec.expireAfter`.
    pub expire_after: Option<Field<String>>,
    /// `spec.template.spec.terminationGracePeriod`.
    pub termination_grace_period: Option<Field<String>>,
    /// `spec.replicas` (static NodePools, v1.8+).
    pub replicas: Option<i64>,
    /// `spec.limits.nodes` (StaticDrift reserves replacements against it).
    pub node_limit: Option<i64>,
    /// v1beta1 input: `expireAfter` read from `spec.disruption`.
    pub v1beta1: bool,
}

const DISRUPTION_FIELDS: &[&str] = &["consolidationPolicy", "consolidateAfter", "budgets"];
/// The fields of a NodePool and of its `spec` (karpenter.sh/v1 `NodePool`, `NodePoolSpec`): a
/// misspelt `disruptoin` would otherwise leave Karpenter's default budget in place unsaid.
const NODEPOOL_FIELDS: &[&str] = &["apiVersion", "kind", "metadata", "spec", "status"];
const SPEC_FIELDS: &[&str] = &["template", "disruption", "limits", "weight", "replicas"];
const BUDGET_FIELDS: &[&str] = &["nodes", "schedule", "duration", "reasons"];

/// Reads a string field. A non-string scalar is an error (the API server rejects it), but its
/// text is still returned so the evaluation can go on.
fn string_at(
    doc: &Document,
    node: &Node,
    path: &FieldPath,
    diags: &mut Vec<Diagnostic>,
) -> Option<Field<String>> {
    if node.is_null() {
        return None;
    }
    let text = match (node.as_str(), node.as_scalar()) {
        (Some(s), _) => s.to_string(),
        (None, Some(s)) => {
            diags.push(doc.error(
                path,
                format!("must be a string (write \"{s}\" in quotes); the API server rejects an unquoted {s}"),
            ));
            s.to_string()
        }
        (None, None) => {
            diags.push(doc.error(path, "must be a string"));
            return None;
        }
    };
    Some(Field {
        value: text,
        path: path.clone(),
    })
}

fn unknown_fields(
    doc: &Document,
    node: &Node,
    path: &FieldPath,
    known: &[&str],
    diags: &mut Vec<Diagnostic>,
) {
    for (k, _) in node.as_map().unwrap_or(&[]) {
        let Some(key) = k.as_scalar() else { continue };
        if known.contains(&key) {
            continue;
        }
        let p = path.key(key);
        let msg = if key == "expireAfter" && path.to_string() == "spec.disruption" {
            "unknown field: in karpenter.sh/v1 expireAfter lives in spec.template.spec.expireAfter \
             (spec.disruption.expireAfter is the v1beta1 location); the API server rejects or \
             drops it and it has no effect here"
                .to_string()
        } else {
            format!(
                "unknown field \"{key}\"; known fields: {}",
                known.join(", ")
            )
        };
        diags.push(doc.warning(&p, msg));
    }
}

impl NodePool {
    /// Reads a NodePool document. Problems become diagnostics; reading never fails.
    pub fn read(doc: &Document, diags: &mut Vec<Diagnostic>) -> NodePool {
        let v1beta1 = doc.api_version == "karpenter.sh/v1beta1";
        let mut pool = NodePool {
            name: doc.name.clone().unwrap_or_default(),
            v1beta1,
            ..NodePool::default()
        };
        if pool.name.is_empty() {
            diags.push(doc.error(&"metadata.name".into(), "missing required field \"name\""));
        }
        unknown_fields(doc, &doc.root, &FieldPath::root(), NODEPOOL_FIELDS, diags);
        let spec_path = FieldPath::root().key("spec");
        let Some(spec) = doc.root.get("spec") else {
            diags.push(doc.error(&FieldPath::root(), "missing required field \"spec\""));
            return pool;
        };
        unknown_fields(doc, spec, &spec_path, SPEC_FIELDS, diags);
        if let Some(r) = spec.get("replicas") {
            match r.as_scalar().and_then(|s| s.parse::<i64>().ok()) {
                Some(n) => pool.replicas = Some(n),
                None if r.is_null() => {}
                None => diags.push(doc.error(&spec_path.key("replicas"), "must be an integer")),
            }
        }
        if let Some(n) = spec.get("limits").and_then(|l| l.get("nodes")) {
            // A node count: a plain integer quantity ("5"); other quantity forms are rare here.
            match n.as_scalar().and_then(|s| s.parse::<i64>().ok()) {
                Some(v) => pool.node_limit = Some(v),
                None if n.is_null() => {}
                None => diags.push(doc.warning(
                    &spec_path.key("limits").key("nodes"),
                    "not read: only a plain integer node count is understood here (the limit is taken as absent)",
                )),
            }
        }
        let tpl_path = spec_path.key("template").key("spec");
        if let Some(tpl) = spec.get("template").and_then(|t| t.get("spec")) {
            if let Some(n) = tpl.get("expireAfter") {
                pool.expire_after = string_at(doc, n, &tpl_path.key("expireAfter"), diags);
            }
            if let Some(n) = tpl.get("terminationGracePeriod") {
                pool.termination_grace_period =
                    string_at(doc, n, &tpl_path.key("terminationGracePeriod"), diags);
            }
        }
        let dpath = spec_path.key("disruption");
        pool.disruption.budgets_path = dpath.key("budgets");
        let Some(d) = spec.get("disruption").filter(|d| !d.is_null()) else {
            return pool;
        };
        pool.disruption.present = true;
        if d.as_map().is_none() {
            diags.push(doc.error(&dpath, "must be an object"));
            return pool;
        }
        let mut known: Vec<&str> = DISRUPTION_FIELDS.to_vec();
        if v1beta1 {
            known.push("expireAfter");
            if let Some(n) = d.get("expireAfter") {
                pool.expire_after = string_at(doc, n, &dpath.key("expireAfter"), diags);
            }
        }
        unknown_fields(doc, d, &dpath, &known, diags);
        if let Some(n) = d.get("consolidationPolicy") {
            pool.disruption.consolidation_policy =
                string_at(doc, n, &dpath.key("consolidationPolicy"), diags);
        }
        if let Some(n) = d.get("consolidateAfter") {
            pool.disruption.consolidate_after =
                string_at(doc, n, &dpath.key("consolidateAfter"), diags);
        }
        if let Some(b) = d.get("budgets") {
            let bpath = dpath.key("budgets");
            match (b.as_seq(), b.is_null()) {
                (_, true) => {}
                (Some(items), _) => {
                    let mut budgets = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        budgets.push(read_budget(doc, item, &bpath.index(i), diags));
                    }
                    pool.disruption.budgets = Some(budgets);
                }
                (None, _) => diags.push(doc.error(&bpath, "must be a list of budgets")),
            }
        }
        pool
    }
}

fn read_budget(
    doc: &Document,
    item: &Node,
    path: &FieldPath,
    diags: &mut Vec<Diagnostic>,
) -> Budget {
    let mut b = Budget {
        path: path.clone(),
        ..Budget::default()
    };
    if item.as_map().is_none() {
        diags.push(doc.error(
            path,
            "a budget must be an object with nodes, schedule, duration, reasons",
        ));
        return b;
    }
    unknown_fields(doc, item, path, BUDGET_FIELDS, diags);
    if let Some(n) = item.get("nodes") {
        b.nodes = string_at(doc, n, &path.key("nodes"), diags);
    }
    if let Some(n) = item.get("schedule") {
        b.schedule = string_at(doc, n, &path.key("schedule"), diags);
    }
    if let Some(n) = item.get("duration") {
        b.duration = string_at(doc, n, &path.key("duration"), diags);
    }
    if let Some(n) = item.get("reasons") {
        let rpath = path.key("reasons");
        match (n.as_seq(), n.is_null()) {
            (_, true) => {}
            (Some(items), _) => {
                b.reasons = Some(
                    items
                        .iter()
                        .enumerate()
                        .filter_map(|(i, r)| string_at(doc, r, &rpath.index(i), diags))
                        .collect(),
                );
            }
            (None, _) => diags.push(doc.error(&rpath, "must be a list of reasons")),
        }
    }
    b
}

/// Our own kind for exploring budget arithmetic without nodes:
///
/// ```yaml
/// apiVersion: fleet-policy.dev/v1alpha1
/// kind: NodeCounts
/// metadata: {name: default}      # the NodePool these nodes belong to
/// spec: {ready: 17, deleting: 1, notReady: 1}
/// ```
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeCountsSpec {
    /// Initialized, Ready, not deleting.
    #[serde(default)]
    pub ready: u32,
    /// Initialized, Ready, deleting or marked for deletion.
    #[serde(default)]
    pub deleting: u32,
    /// Initialized, not Ready, not deleting.
    #[serde(default)]
    pub not_ready: u32,
    /// Initialized, not Ready, deleting.
    #[serde(default)]
    pub deleting_not_ready: u32,
    /// Not initialized (ignored by budgets).
    #[serde(default)]
    pub uninitialized: u32,
    /// Without a NodeClaim (ignored by budgets).
    #[serde(default)]
    pub unmanaged: u32,
    /// NodeClaim InstanceTerminating=True (ignored from v1.1).
    #[serde(default)]
    pub instance_terminating: u32,
}

/// `metadata` as the disruption engine reads it (the shared [`ObjectMeta`]).
pub use super::meta::{ObjectMeta as Meta, OwnerReference};

/// A status condition.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// Condition type.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// "True", "False" or "Unknown".
    #[serde(default)]
    pub status: String,
    /// When it last changed.
    #[serde(default)]
    pub last_transition_time: Option<String>,
}

/// A `karpenter.sh/v1` NodeClaim.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaim {
    /// Metadata.
    #[serde(default)]
    pub metadata: Meta,
    /// Spec.
    #[serde(default)]
    pub spec: NodeClaimSpec,
    /// Status.
    #[serde(default)]
    pub status: NodeClaimStatus,
}

/// NodeClaim spec (the parts read).
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaimSpec {
    /// Copied from the NodePool template at launch.
    #[serde(default)]
    pub expire_after: Option<String>,
    /// Copied from the NodePool template at launch.
    #[serde(default)]
    pub termination_grace_period: Option<String>,
}

/// NodeClaim status (the parts read).
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaimStatus {
    /// Name of the Node.
    #[serde(default)]
    pub node_name: Option<String>,
    /// Provider ID.
    #[serde(rename = "providerID", default)]
    pub provider_id: Option<String>,
    /// Conditions (Initialized, Drifted, Consolidatable, InstanceTerminating…).
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Last pod event on the node (consolidateAfter reference).
    #[serde(default)]
    pub last_pod_event_time: Option<String>,
}

/// A core/v1 Node.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct K8sNode {
    /// Metadata.
    #[serde(default)]
    pub metadata: Meta,
    /// Spec.
    #[serde(default)]
    pub spec: NodeSpec,
    /// Status.
    #[serde(default)]
    pub status: NodeStatus,
}

/// Node spec.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct NodeSpec {
    /// Provider ID.
    #[serde(rename = "providerID", default)]
    pub provider_id: Option<String>,
    /// Taints (`karpenter.sh/disrupted:NoSchedule` = in a queued disruption command).
    #[serde(default)]
    pub taints: Vec<Taint>,
}

/// A node taint.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    /// Key.
    #[serde(default)]
    pub key: String,
    /// Effect.
    #[serde(default)]
    pub effect: Option<String>,
}

/// Node status.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct NodeStatus {
    /// Conditions (Ready).
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// A core/v1 Pod.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    /// Metadata.
    #[serde(default)]
    pub metadata: Meta,
    /// Spec.
    #[serde(default)]
    pub spec: PodSpec,
    /// Status.
    #[serde(default)]
    pub status: PodStatus,
}

/// Pod spec (the parts read).
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    /// The node it is bound to.
    #[serde(default)]
    pub node_name: Option<String>,
    /// Priority.
    #[serde(default)]
    pub priority: Option<i64>,
    /// Tolerations (a pod tolerating `karpenter.sh/disrupted:NoSchedule` is not evicted).
    #[serde(default)]
    pub tolerations: Vec<Toleration>,
}

/// A toleration.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    /// Key.
    #[serde(default)]
    pub key: Option<String>,
    /// Operator.
    #[serde(default)]
    pub operator: Option<String>,
    /// Value.
    #[serde(default)]
    pub value: Option<String>,
    /// Effect.
    #[serde(default)]
    pub effect: Option<String>,
}

/// Pod status (the parts read).
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    /// Phase.
    #[serde(default)]
    pub phase: Option<String>,
    /// Start time.
    #[serde(default)]
    pub start_time: Option<String>,
    /// Conditions (Ready).
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// A policy/v1 PodDisruptionBudget.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PodDisruptionBudget {
    /// Metadata.
    #[serde(default)]
    pub metadata: Meta,
    /// Spec.
    #[serde(default)]
    pub spec: PdbSpec,
    /// Status.
    #[serde(default)]
    pub status: PdbStatus,
}

/// PDB spec.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PdbSpec {
    /// Pod selector.
    #[serde(default)]
    pub selector: Option<LabelSelector>,
    /// `IfHealthyBudget` (default) or `AlwaysAllow`.
    #[serde(default)]
    pub unhealthy_pod_eviction_policy: Option<String>,
}

/// PDB status.
#[derive(Debug, Clone, Default, PartialEq, FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PdbStatus {
    /// Evictions the PDB currently allows.
    #[serde(default)]
    pub disruptions_allowed: i64,
}

/// Whether a condition list has `type` with status "True".
pub fn condition_true(conditions: &[Condition], type_: &str) -> bool {
    conditions
        .iter()
        .any(|c| c.type_ == type_ && c.status == "True")
}

/// The condition of a type, if present.
pub fn condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}
