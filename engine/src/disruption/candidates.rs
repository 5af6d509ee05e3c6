//! Which nodes each disruption method would consider, which it would not and why, and the
//! order it would take them in (spec §5). Consolidation needs Karpenter's scheduling and
//! pricing simulation; the engine gives the documented approximation and says so.

use super::budget::{PerReason, Reason};
use super::timing::{self, PodDoNotDisrupt};
use super::version::KarpenterVersion;
use crate::input::duration::GoDuration;
use crate::model::disruption::{
    condition, condition_true, K8sNode, NodeClaim, Pod, PodDisruptionBudget,
};
use crate::selectors::Selector;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::sync::Arc;

/// Node label naming the NodePool.
pub const NODEPOOL_LABEL: &str = "karpenter.sh/nodepool";
/// Node label set once Karpenter initialized the node.
pub const INITIALIZED_LABEL: &str = "karpenter.sh/initialized";
/// The do-not-disrupt annotation (node and pod).
pub const DO_NOT_DISRUPT: &str = "karpenter.sh/do-not-disrupt";
/// Our own input: the node's hourly offering price (Karpenter reads it from the provider).
pub const PRICE_ANNOTATION: &str = "fleet-policy.dev/price";
/// Our own input: until when the provisioner nominated the node for pending pods (RFC 3339).
/// Karpenter keeps nominations in memory only (`StateNode.nominatedUntil`), so a dump cannot
/// show them.
pub const NOMINATED_ANNOTATION: &str = "fleet-policy.dev/nominated-until";
/// The taint the disruption queue puts on the nodes of a command it starts
/// (`v1.DisruptedNoScheduleTaint`); the controller removes it from nodes no command holds.
pub const DISRUPTED_TAINT: &str = "karpenter.sh/disrupted";

/// A node's name, shared by its facts and every method's lists: one NodePool lists each node
/// up to five times. The names of a prepared input live in one shared table, so a clone is a
/// reference-count bump on that table (hot in cache) instead of a copy or a visit to a
/// scattered allocation. Serialises as the plain string.
#[derive(Clone, Serialize)]
#[serde(into = "String")]
pub struct NodeName {
    table: Arc<[Box<str>]>,
    index: usize,
}

impl NodeName {
    /// The name.
    pub fn as_str(&self) -> &str {
        self.table.get(self.index).map_or("", |s| s)
    }

    /// One table for many names (`names[i]` becomes the `i`-th name returned).
    pub fn table(names: Vec<Box<str>>) -> Vec<NodeName> {
        let table: Arc<[Box<str>]> = names.into();
        (0..table.len())
            .map(|index| NodeName {
                table: table.clone(),
                index,
            })
            .collect()
    }
}

impl Default for NodeName {
    fn default() -> Self {
        NodeName::from("")
    }
}

impl From<String> for NodeName {
    fn from(s: String) -> Self {
        NodeName {
            table: Arc::from(vec![s.into_boxed_str()]),
            index: 0,
        }
    }
}

impl From<&str> for NodeName {
    fn from(s: &str) -> Self {
        NodeName::from(s.to_string())
    }
}

impl PartialEq for NodeName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for NodeName {}

impl PartialOrd for NodeName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for NodeName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for NodeName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::ops::Deref for NodeName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for NodeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for NodeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for NodeName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for NodeName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<NodeName> for String {
    fn from(n: NodeName) -> String {
        n.as_str().to_string()
    }
}

/// A pod as the candidate checks need it, with everything that does not depend on the
/// evaluation instant computed once.
#[derive(Debug, Clone, PartialEq)]
pub struct PodInfo {
    /// `namespace/name`.
    pub key: String,
    /// `karpenter.sh/do-not-disrupt` value.
    pub do_not_disrupt: Option<String>,
    /// `status.startTime`.
    pub started: Option<DateTime<Utc>>,
    /// Succeeded or Failed.
    pub terminal: bool,
    /// Has a deletionTimestamp.
    pub terminating: bool,
    /// Karpenter would evict it (so PDBs apply): not terminal, terminating, mirror, or
    /// tolerating `karpenter.sh/disrupted:NoSchedule`.
    pub evictable: bool,
    /// A Ready condition False: the unhealthy pod a PDB with `AlwaysAllow` lets go. Karpenter
    /// tests exactly that (`pkg/utils/pdb` `isEvictable`); a pod without the condition, or
    /// with it Unknown, is protected as a healthy one.
    pub unready: bool,
    /// Indexes of the PDBs selecting it.
    pub pdbs: Vec<usize>,
    /// Eviction cost.
    pub cost: f64,
    /// Reschedulable (counts for emptiness and the v1.14 sort).
    pub reschedulable: bool,
}

impl PodInfo {
    /// Reads a pod; `pdbs` are the input's PDBs.
    pub fn new(p: &Pod, pdbs: &Pdbs<'_>) -> Self {
        PodInfo {
            key: key(p.metadata.namespace.as_deref(), &p.metadata.name),
            do_not_disrupt: p.metadata.annotations.get(DO_NOT_DISRUPT).cloned(),
            started: time(p.status.start_time.as_deref()),
            terminal: pods::terminal(p),
            terminating: pods::terminating(p),
            evictable: !(pods::terminal(p)
                || pods::terminating(p)
                || pods::mirror(p)
                || pods::tolerates_disrupted(p)),
            unready: (p.status.conditions.iter())
                .any(|c| c.type_ == "Ready" && c.status == "False"),
            pdbs: pdbs.for_pod(p),
            cost: pods::eviction_cost(p),
            reschedulable: pods::reschedulable(p),
        }
    }
}

/// A PDB as the candidate checks need it.
#[derive(Debug, Clone, PartialEq)]
pub struct PdbInfo {
    /// `namespace/name`.
    pub key: String,
    /// `status.disruptionsAllowed`.
    pub disruptions_allowed: i64,
    /// `unhealthyPodEvictionPolicy: AlwaysAllow`.
    pub always_allow: bool,
}

/// A node as Karpenter's cluster state sees it (a NodeClaim and/or a Node, with its pods),
/// reduced to the facts the engine uses.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StateNode {
    /// Node name (NodeClaim name when there is no Node).
    pub name: NodeName,
    /// NodeClaim name, when managed.
    pub claim: Option<String>,
    /// Has a Node object.
    pub has_node: bool,
    /// The NodePool label (Node's when registered, else the NodeClaim's).
    pub pool: Option<String>,
    /// Managed and labelled `karpenter.sh/initialized=true`.
    pub initialized: bool,
    /// NodeClaim `InstanceTerminating=True`.
    pub instance_terminating: bool,
    /// Deleting or marked for deletion.
    pub deleting: bool,
    /// In a queued disruption command (tainted `karpenter.sh/disrupted:NoSchedule`, not yet
    /// deleting): marked for deletion, so it counts as disrupting.
    pub queued: bool,
    /// End of a provisioner nomination ([`NOMINATED_ANNOTATION`]).
    pub nominated_until: Option<DateTime<Utc>>,
    /// Node `Ready=True`.
    pub ready: bool,
    /// Node annotation `karpenter.sh/do-not-disrupt: "true"`.
    pub do_not_disrupt: bool,
    /// NodeClaim `spec.terminationGracePeriod` set.
    pub termination_grace_period: bool,
    /// NodeClaim `spec.expireAfter`: `None` = not set, `Some(None)` = Never.
    pub expire_after: Option<Option<GoDuration>>,
    /// NodeClaim creation time.
    pub created: Option<DateTime<Utc>>,
    /// Initialized condition time.
    pub initialized_at: Option<DateTime<Utc>>,
    /// `status.lastPodEventTime`.
    pub last_pod_event: Option<DateTime<Utc>>,
    /// `Consolidatable=True` as written.
    pub consolidatable_condition: bool,
    /// `Drifted=True`, and since when.
    pub drifted: bool,
    /// When Drifted last transitioned.
    pub drifted_at: Option<DateTime<Utc>>,
    /// Missing instance-type / capacity-type / zone label, if any.
    pub missing_label: Option<&'static str>,
    /// `fleet-policy.dev/price`.
    pub price: f64,
    /// Pods bound to it.
    pub pods: Vec<PodInfo>,
    /// Σ eviction cost over all pods (v1.0–v1.13 sort key before the lifetime factor).
    pub pod_cost: f64,
    /// Σ positive eviction cost over reschedulable pods (v1.14 emptiness and sort key).
    pub resched_cost: f64,
    /// Number of reschedulable pods (v1.0–v1.13 emptiness).
    pub resched_count: usize,
    /// Indexes of pods carrying the do-not-disrupt annotation (checked at the instant).
    pub dnd_pods: Vec<usize>,
    /// The first PDB blocker (PDB status does not depend on the instant).
    pub pdb_blocker: Option<Blocked>,
}

/// Parses an RFC 3339 time as Go's `time.Parse` does (invalid or absent: `None`).
pub fn time(s: Option<&str>) -> Option<DateTime<Utc>> {
    s.and_then(|t| crate::input::rfc3339::parse(t).ok())
        .map(|d| d.with_timezone(&Utc))
}

const INSTANCE_LABELS: [&str; 3] = [
    "node.kubernetes.io/instance-type",
    "karpenter.sh/capacity-type",
    "topology.kubernetes.io/zone",
];

impl StateNode {
    /// Joins a NodeClaim, its Node and their pods.
    pub fn new(claim: Option<&NodeClaim>, node: Option<&K8sNode>, pods: Vec<PodInfo>) -> Self {
        let labels = node
            .map(|n| &n.metadata.labels)
            .or(claim.map(|c| &c.metadata.labels));
        let annotations = node
            .map(|n| &n.metadata.annotations)
            .or(claim.map(|c| &c.metadata.annotations));
        let cond = |t: &str| claim.is_some_and(|c| condition_true(&c.status.conditions, t));
        let instance_terminating = cond("InstanceTerminating");
        let drifted_cond = claim.and_then(|c| condition(&c.status.conditions, "Drifted"));
        let deleting = match (claim, node) {
            (Some(c), _) => c.metadata.deletion_timestamp.is_some() || instance_terminating,
            (None, Some(n)) => n.metadata.deletion_timestamp.is_some(),
            (None, None) => false,
        };
        StateNode {
            name: node
                .map_or_else(
                    || claim.map(|c| c.metadata.name.clone()).unwrap_or_default(),
                    |n| n.metadata.name.clone(),
                )
                .into(),
            claim: claim.map(|c| c.metadata.name.clone()),
            has_node: node.is_some(),
            pool: labels.and_then(|l| l.get(NODEPOOL_LABEL)).cloned(),
            initialized: claim.is_some()
                && node.is_some_and(|n| {
                    n.metadata
                        .labels
                        .get(INITIALIZED_LABEL)
                        .is_some_and(|v| v == "true")
                }),
            instance_terminating,
            deleting,
            // `Taint.MatchTaint` compares key and effect.
            queued: !deleting
                && node.is_some_and(|n| {
                    n.spec.taints.iter().any(|t| {
                        t.key == DISRUPTED_TAINT && t.effect.as_deref() == Some("NoSchedule")
                    })
                }),
            nominated_until: node
                .and_then(|n| n.metadata.annotations.get(NOMINATED_ANNOTATION))
                .and_then(|t| time(Some(t))),
            ready: node.is_some_and(|n| condition_true(&n.status.conditions, "Ready")),
            do_not_disrupt: annotations
                .and_then(|a| a.get(DO_NOT_DISRUPT))
                .is_some_and(|v| v == "true"),
            termination_grace_period: claim
                .is_some_and(|c| c.spec.termination_grace_period.is_some()),
            expire_after: claim
                .and_then(|c| c.spec.expire_after.as_deref())
                .map(|s| match s {
                    "Never" => None,
                    s => GoDuration::parse(s).ok(),
                }),
            created: claim.and_then(|c| time(c.metadata.creation_timestamp.as_deref())),
            initialized_at: claim
                .and_then(|c| condition(&c.status.conditions, "Initialized"))
                .filter(|c| c.status == "True")
                .and_then(|c| time(c.last_transition_time.as_deref())),
            last_pod_event: claim.and_then(|c| time(c.status.last_pod_event_time.as_deref())),
            consolidatable_condition: cond("Consolidatable"),
            drifted: drifted_cond.is_some_and(|c| c.status == "True"),
            drifted_at: drifted_cond.and_then(|c| time(c.last_transition_time.as_deref())),
            missing_label: INSTANCE_LABELS
                .into_iter()
                .find(|l| !labels.is_some_and(|m| m.contains_key(l))),
            price: annotations
                .and_then(|a| a.get(PRICE_ANNOTATION))
                .and_then(|p| p.parse::<f64>().ok())
                .unwrap_or(0.0),
            // From 0 as Go's `cost := 0.0` (Rust's float `sum` starts at −0).
            pod_cost: pods.iter().fold(0.0, |c, p| c + p.cost),
            resched_cost: pods
                .iter()
                .filter(|p| p.reschedulable)
                .map(|p| p.cost.max(0.0))
                .sum(),
            resched_count: pods.iter().filter(|p| p.reschedulable).count(),
            dnd_pods: pods
                .iter()
                .enumerate()
                .filter(|(_, p)| p.do_not_disrupt.is_some())
                .map(|(i, _)| i)
                .collect(),
            pdb_blocker: None,
            pods,
        }
    }

    /// Records the first PDB that blocks evicting one of its pods (spec §5.3).
    pub fn with_pdbs(mut self, pdbs: &[PdbInfo]) -> Self {
        self.pdb_blocker = pdb_blocker(&self.pods, pdbs);
        self
    }

    /// The NodePool label.
    pub fn pool(&self) -> Option<&str> {
        self.pool.as_deref()
    }
}

/// Why a node is not a candidate. Karpenter's own wording comes from [`Blocked::message`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Blocked {
    /// In a queued disruption command already.
    Queued,
    /// Nominated by the provisioner for pending pods.
    Nominated {
        /// End of the nomination.
        until: DateTime<Utc>,
    },
    /// No NodeClaim.
    NotManaged,
    /// NodeClaim without Node.
    NoNode,
    /// Not initialized.
    NotInitialized,
    /// Deleting or marked for deletion.
    Deleting,
    /// Node annotation `karpenter.sh/do-not-disrupt: "true"`.
    NodeDoNotDisrupt,
    /// No `karpenter.sh/nodepool` label.
    NoNodePoolLabel,
    /// The NodePool is not in the input.
    NodePoolNotFound {
        /// The label's value.
        node_pool: String,
    },
    /// A pod's do-not-disrupt annotation is active.
    PodDoNotDisrupt {
        /// `namespace/name`.
        pod: String,
        /// End of a duration-based protection.
        #[serde(skip_serializing_if = "Option::is_none")]
        until: Option<DateTime<Utc>>,
    },
    /// A PDB with no disruptions allowed covers a pod that would be evicted.
    PdbBlocks {
        /// `namespace/name` of the pod.
        pod: String,
        /// `namespace/name` of the PDB.
        pdb: String,
    },
    /// A pod is covered by several PDBs.
    MultiplePdbs {
        /// `namespace/name` of the pod.
        pod: String,
        /// The PDBs.
        pdbs: Vec<String>,
    },
    /// Static NodePool (`spec.replicas`): only StaticDrift applies.
    StaticNodePool,
    /// StaticDrift only considers static NodePools.
    NotStatic,
    /// `consolidateAfter: Never`.
    ConsolidateAfterNever,
    /// Not yet consolidatable (`consolidateAfter` not elapsed).
    NotConsolidatable {
        /// When it will be (unknown when the node has no reference time).
        #[serde(skip_serializing_if = "Option::is_none")]
        at: Option<DateTime<Utc>>,
    },
    /// Not empty (Emptiness needs an empty node).
    NotEmpty,
    /// Empty (v1.14+: consolidation leaves empty nodes to Emptiness).
    Empty,
    /// `consolidationPolicy` excludes consolidation.
    PolicyExcludes {
        /// The policy.
        policy: String,
    },
    /// Missing instance-type, capacity-type or zone label.
    MissingLabel {
        /// The label.
        label: String,
    },
    /// NodeClaim not `Drifted=True`.
    NotDrifted,
    /// Drifted but empty: left to Emptiness (v1.5–v1.6).
    EmptyLeftToEmptiness,
    /// The pool's budget for the method's reason is used up.
    BudgetExhausted {
        /// The reason.
        reason: Reason,
    },
    /// Multi-node consolidation's batch reaches 101 candidates within budget at most.
    BeyondBatch,
    /// Multi-node consolidation acts on two candidates within budget or more
    /// (`firstNConsolidationOption`); one alone is single-node consolidation's.
    BatchOfOne,
    /// `Balanced`: even deleting the node scores below the threshold (`CanPassThreshold`).
    BalancedThreshold {
        /// savings fraction ÷ disruption fraction of deleting it.
        score: f64,
    },
    /// Multi-node: a larger batch was refused by a Balanced pool's scoring.
    BalancedBatch {
        /// The refusing NodePool.
        node_pool: String,
        /// Its score for that batch.
        score: f64,
        /// The batch size refused.
        size: usize,
    },
    /// StaticDrift: the NodePool has more nodes than `replicas` (scale-down first).
    StaticOverscaled,
    /// StaticDrift: no room under `limits.nodes` for another replacement.
    NodeLimit,
}

impl Blocked {
    /// The explanation in words (Karpenter's text where Karpenter has one).
    pub fn message(&self) -> String {
        match self {
            Blocked::Queued => "candidate is already being disrupted".into(),
            Blocked::Nominated { .. } => "node is nominated for a pending pod".into(),
            Blocked::NotManaged => "node isn't managed by karpenter".into(),
            Blocked::NoNode => "nodeclaim does not have an associated node".into(),
            Blocked::NotInitialized => "node isn't initialized".into(),
            Blocked::Deleting => "node is deleting or marked for deletion".into(),
            Blocked::NodeDoNotDisrupt => {
                format!("disruption is blocked through the {DO_NOT_DISRUPT:?} annotation")
            }
            Blocked::NoNodePoolLabel => {
                format!("node doesn't have required label ({NODEPOOL_LABEL})")
            }
            Blocked::NodePoolNotFound { node_pool } => {
                format!("nodepool not found (NodePool={node_pool})")
            }
            Blocked::PodDoNotDisrupt { pod, until } => match until {
                Some(u) => format!(
                    "pod has {DO_NOT_DISRUPT:?} annotation (Pod={pod}, until {})",
                    u.to_rfc3339()
                ),
                None => format!("pod has {DO_NOT_DISRUPT:?} annotation (Pod={pod})"),
            },
            Blocked::PdbBlocks { pod, pdb } => {
                format!("pdb prevents pod evictions (PodDisruptionBudget={pdb}, Pod={pod})")
            }
            Blocked::MultiplePdbs { pod, pdbs } => format!(
                "eviction does not support multiple PDBs (PodDisruptionBudget(s)=[{}], Pod={pod})",
                pdbs.join(" ")
            ),
            Blocked::StaticNodePool => "static NodePool: only StaticDrift applies".into(),
            Blocked::NotStatic => "not a static NodePool".into(),
            Blocked::ConsolidateAfterNever => "consolidateAfter is Never".into(),
            Blocked::NotConsolidatable { at } => match at {
                Some(a) => format!(
                    "consolidateAfter not elapsed (consolidatable at {})",
                    a.to_rfc3339()
                ),
                None => "not consolidatable".into(),
            },
            Blocked::NotEmpty => "node is not empty".into(),
            Blocked::Empty => "node is empty (left to Emptiness)".into(),
            Blocked::PolicyExcludes { policy } => {
                format!("consolidationPolicy {policy} excludes consolidation")
            }
            Blocked::MissingLabel { label } => format!("node has no {label} label"),
            Blocked::NotDrifted => "nodeclaim is not drifted".into(),
            Blocked::EmptyLeftToEmptiness => "drifted but empty: left to Emptiness".into(),
            Blocked::BudgetExhausted { reason } => {
                format!("disruption budget for {} is exhausted", reason.as_str())
            }
            Blocked::BeyondBatch => {
                "beyond the 101 candidates within budget a multi-node batch can reach".into()
            }
            Blocked::BatchOfOne => {
                "the only candidate within budget: multi-node consolidation takes two or more, \
                 single-node consolidation considers it alone"
                    .into()
            }
            Blocked::BalancedThreshold { score } => format!(
                "Balanced: deleting it would score {score:.3}, below the threshold 0.5 (1/k, k = 2)"
            ),
            Blocked::BalancedBatch {
                node_pool,
                score,
                size,
            } => format!(
                "Balanced NodePool {node_pool} scores a batch of {size} at {score:.3}, below the threshold 0.5: the batch stops before this node"
            ),
            Blocked::StaticOverscaled => {
                "static NodePool has more nodes than replicas: waits for scale-down".into()
            }
            Blocked::NodeLimit => {
                "no room under the NodePool's limits.nodes for a replacement".into()
            }
        }
    }
}

/// Graceful (Emptiness, consolidation) or eventual (Drift) disruption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Class {
    /// Never bypasses pod blockers.
    Graceful,
    /// Bypasses pod blockers when the NodeClaim has a terminationGracePeriod.
    Eventual,
}

/// A budgeted disruption method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Method {
    /// Empty nodes.
    Emptiness,
    /// Static NodePools' drift (v1.8+).
    StaticDrift,
    /// Drifted nodes.
    Drift,
    /// Several nodes replaced by at most one.
    MultiNodeConsolidation,
    /// One node deleted or replaced by a cheaper one.
    SingleNodeConsolidation,
}

impl Method {
    /// The name as results spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Emptiness => "Emptiness",
            Method::StaticDrift => "StaticDrift",
            Method::Drift => "Drift",
            Method::MultiNodeConsolidation => "MultiNodeConsolidation",
            Method::SingleNodeConsolidation => "SingleNodeConsolidation",
        }
    }

    /// The budget reason.
    pub fn reason(self) -> Reason {
        match self {
            Method::Emptiness => Reason::Empty,
            Method::StaticDrift | Method::Drift => Reason::Drifted,
            _ => Reason::Underutilized,
        }
    }

    /// The class.
    pub fn class(self) -> Class {
        match self {
            Method::StaticDrift | Method::Drift => Class::Eventual,
            _ => Class::Graceful,
        }
    }

    /// The methods in the order the disruption controller runs them (spec §5.1).
    pub fn order(v: KarpenterVersion) -> Vec<Method> {
        use Method::*;
        if v.at_least(8) {
            vec![
                Emptiness,
                StaticDrift,
                Drift,
                MultiNodeConsolidation,
                SingleNodeConsolidation,
            ]
        } else if v.at_least(5) {
            vec![
                Emptiness,
                Drift,
                MultiNodeConsolidation,
                SingleNodeConsolidation,
            ]
        } else {
            vec![
                Drift,
                Emptiness,
                MultiNodeConsolidation,
                SingleNodeConsolidation,
            ]
        }
    }
}

/// The PDBs of the input, compiled once.
pub struct Pdbs<'a> {
    items: Vec<(&'a PodDisruptionBudget, Option<Selector>)>,
}

impl<'a> Pdbs<'a> {
    /// Compiles the selectors (an invalid selector matches nothing).
    pub fn new(pdbs: &[&'a PodDisruptionBudget]) -> Self {
        Pdbs {
            items: pdbs
                .iter()
                .map(|p| (*p, p.spec.selector.as_ref().and_then(|s| s.compile().ok())))
                .collect(),
        }
    }

    /// The PDBs as the checks need them, in input order (indexes match [`Pdbs::for_pod`]).
    pub fn infos(&self) -> Vec<PdbInfo> {
        self.items
            .iter()
            .map(|(p, _)| PdbInfo {
                key: key(p.metadata.namespace.as_deref(), &p.metadata.name),
                disruptions_allowed: p.status.disruptions_allowed,
                always_allow: p.spec.unhealthy_pod_eviction_policy.as_deref()
                    == Some("AlwaysAllow"),
            })
            .collect()
    }

    fn for_pod(&self, pod: &Pod) -> Vec<usize> {
        self.items
            .iter()
            .enumerate()
            .filter(|(_, (p, sel))| {
                p.metadata.namespace.as_deref().unwrap_or("default")
                    == pod.metadata.namespace.as_deref().unwrap_or("default")
                    && sel
                        .as_ref()
                        .is_some_and(|s| s.matches(&pod.metadata.labels))
            })
            .map(|(i, _)| i)
            .collect()
    }
}

fn key(ns: Option<&str>, name: &str) -> String {
    format!("{}/{}", ns.unwrap_or("default"), name)
}

/// Pod predicates Karpenter uses.
pub mod pods {
    use super::*;

    /// Succeeded or Failed.
    pub fn terminal(p: &Pod) -> bool {
        matches!(p.status.phase.as_deref(), Some("Succeeded" | "Failed"))
    }

    /// Has a deletionTimestamp.
    pub fn terminating(p: &Pod) -> bool {
        p.metadata.deletion_timestamp.is_some()
    }

    /// Owned by a kind.
    pub fn owned_by(p: &Pod, kind: &str) -> bool {
        p.metadata.owner_references.iter().any(|o| o.kind == kind)
    }

    /// Mirror (static) pod: owned by the Node.
    pub fn mirror(p: &Pod) -> bool {
        owned_by(p, "Node")
    }

    /// Tolerates `karpenter.sh/disrupted:NoSchedule`.
    pub fn tolerates_disrupted(p: &Pod) -> bool {
        p.spec.tolerations.iter().any(|t| {
            let key_ok = t
                .key
                .as_deref()
                .is_none_or(|k| k.is_empty() || k == "karpenter.sh/disrupted");
            let effect_ok = t
                .effect
                .as_deref()
                .is_none_or(|e| e.is_empty() || e == "NoSchedule");
            let op_exists = t.operator.as_deref() == Some("Exists");
            key_ok
                && effect_ok
                && (op_exists || t.key.as_deref() == Some("karpenter.sh/disrupted"))
                && (op_exists || t.value.as_deref().unwrap_or("").is_empty())
        })
    }

    /// Reschedulable: active (or a terminating StatefulSet pod), not a DaemonSet pod, not a
    /// mirror pod.
    pub fn reschedulable(p: &Pod) -> bool {
        let active = !terminal(p) && !terminating(p);
        (active || (terminating(p) && owned_by(p, "StatefulSet")))
            && !owned_by(p, "DaemonSet")
            && !mirror(p)
    }

    /// The pod's eviction cost.
    pub fn eviction_cost(p: &Pod) -> f64 {
        timing::eviction_cost(
            p.metadata
                .annotations
                .get("controller.kubernetes.io/pod-deletion-cost")
                .map(String::as_str),
            p.spec.priority,
        )
    }
}

/// Context shared by all candidate checks of one NodePool.
pub struct PoolContext<'a> {
    /// Evaluation instant.
    pub at: DateTime<Utc>,
    /// Rules version.
    pub version: KarpenterVersion,
    /// Whether the NodePool exists in the input (by name).
    pub pool_exists: &'a dyn Fn(&str) -> bool,
    /// PDBs (indexes as in [`PodInfo::pdbs`]).
    pub pdbs: &'a [PdbInfo],
    /// `consolidateAfter` (`None` = Never).
    pub consolidate_after: Option<GoDuration>,
    /// `consolidationPolicy`.
    pub policy: String,
    /// Static NodePool.
    pub is_static: bool,
    /// `expireAfter` of the template (fallback for NodeClaims without their own).
    pub expire_after: Option<GoDuration>,
    /// StaticDrift: how many replacements the pool may start now (`ReserveNodeCount`), or
    /// why none.
    pub static_room: Result<i64, Blocked>,
    /// `Balanced` (v1.14+): the pool's total price and total disruption cost
    /// (`computeNodePoolTotals`).
    pub balanced: Option<(f64, f64)>,
    /// Warnings collected while evaluating pods (Karpenter emits them as events).
    pub warnings: std::cell::RefCell<Vec<String>>,
}

/// The common candidate filter (spec §5.2) for one class; `Ok` or the first blocker.
pub fn common_filter(n: &StateNode, class: Class, ctx: &PoolContext<'_>) -> Result<(), Blocked> {
    // `NewCandidate` asks the queue first, then `ValidateNodeDisruptable`.
    if n.queued {
        return Err(Blocked::Queued);
    }
    if n.claim.is_none() {
        return Err(Blocked::NotManaged);
    }
    if !n.has_node {
        return Err(Blocked::NoNode);
    }
    if !n.initialized {
        return Err(Blocked::NotInitialized);
    }
    if n.deleting {
        return Err(Blocked::Deleting);
    }
    // `nominatedUntil.After(now)`: the end itself is no longer nominated.
    if let Some(until) = n.nominated_until.filter(|u| *u > ctx.at) {
        return Err(Blocked::Nominated { until });
    }
    if n.do_not_disrupt {
        return Err(Blocked::NodeDoNotDisrupt);
    }
    let Some(pool) = n.pool() else {
        return Err(Blocked::NoNodePoolLabel);
    };
    if !(ctx.pool_exists)(pool) {
        return Err(Blocked::NodePoolNotFound {
            node_pool: pool.to_string(),
        });
    }
    let bypass = class == Class::Eventual && n.termination_grace_period;
    match pod_blocker(n, ctx) {
        Some(b) if !bypass => Err(b),
        _ => Ok(()),
    }
}

/// The pod-level blocker (`ValidatePodsDisruptable`): do-not-disrupt pods first, then PDBs.
/// While any do-not-disrupt pod blocks, the node is blocked, so the pod reported is the one
/// whose protection lasts longest (one without an end first, else the latest end).
fn pod_blocker(n: &StateNode, ctx: &PoolContext<'_>) -> Option<Blocked> {
    let mut longest: Option<(String, Option<DateTime<Utc>>)> = None;
    for p in n.dnd_pods.iter().filter_map(|i| n.pods.get(*i)) {
        let v = timing::pod_do_not_disrupt(
            p.do_not_disrupt.as_deref(),
            p.started,
            p.terminal,
            p.terminating,
            ctx.at,
            ctx.version,
        );
        match v {
            PodDoNotDisrupt::Blocks { until } => {
                let longer = match (&longest, until) {
                    (None, _) => true,
                    (Some((_, None)), _) => false,
                    (Some((_, Some(_))), None) => true,
                    (Some((_, Some(t))), Some(u)) => u > *t,
                };
                if longer {
                    longest = Some((p.key.clone(), until));
                }
            }
            PodDoNotDisrupt::Ignored { warning } => {
                ctx.warnings
                    .borrow_mut()
                    .push(format!("pod {}: {warning}", p.key));
            }
            PodDoNotDisrupt::DoesNotBlock => {}
        }
    }
    if let Some((pod, until)) = longest {
        return Some(Blocked::PodDoNotDisrupt { pod, until });
    }
    n.pdb_blocker.clone()
}

fn pdb_blocker(pods: &[PodInfo], pdbs: &[PdbInfo]) -> Option<Blocked> {
    for p in pods.iter().filter(|p| p.evictable) {
        if p.pdbs.len() > 1 {
            return Some(Blocked::MultiplePdbs {
                pod: p.key.clone(),
                pdbs: p
                    .pdbs
                    .iter()
                    .filter_map(|i| pdbs.get(*i))
                    .map(|b| b.key.clone())
                    .collect(),
            });
        }
        if let Some(b) = p.pdbs.first().and_then(|i| pdbs.get(*i)) {
            let unhealthy_ok = b.always_allow && p.unready;
            if b.disruptions_allowed <= 0 && !unhealthy_ok {
                return Some(Blocked::PdbBlocks {
                    pod: p.key.clone(),
                    pdb: b.key.clone(),
                });
            }
        }
    }
    None
}

/// Whether the node is "empty" for Emptiness (version-dependent, spec §5.4).
pub fn is_empty(n: &StateNode, v: KarpenterVersion) -> bool {
    if v.at_least(14) {
        1.0 + n.resched_cost <= 1.0
    } else {
        n.resched_count == 0
    }
}

/// Per-node facts shown with the candidates.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeFacts {
    /// Node name.
    pub node: NodeName,
    /// NodeClaim name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_claim: Option<String>,
    /// Common filter for graceful methods: `None` = passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graceful_blocked: Option<Blocked>,
    /// Common filter for eventual methods (Drift): `None` = passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eventual_blocked: Option<Blocked>,
    /// Empty in the version's sense.
    pub empty: bool,
    /// NodeClaim `Drifted=True`.
    pub drifted: bool,
    /// Consolidatable at the instant.
    pub consolidatable: bool,
    /// When it becomes consolidatable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consolidatable_at: Option<DateTime<Utc>>,
    /// Expiration instant (`None` with Never or unknown creation time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<DateTime<Utc>>,
    /// Expired at the instant (deleted without budget or node-level do-not-disrupt check).
    pub expired: bool,
    /// v1.0–v1.13 sort key: Σ eviction cost × lifetime remaining (ascending).
    pub disruption_cost: f64,
    /// v1.14+ sort key: price / (1 + Σ positive eviction cost of reschedulable pods)
    /// (descending; price from the `fleet-policy.dev/price` annotation, else 0).
    pub savings_ratio: f64,
}

/// One method's view of a NodePool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodCandidates {
    /// The method.
    pub method: Method,
    /// Its budget reason.
    pub reason: Reason,
    /// Its class.
    pub class: Class,
    /// Allowed disruptions for the reason at the instant.
    pub allowed: i64,
    /// Candidates in the order the method takes them.
    pub candidates: Vec<Candidate>,
    /// Nodes that are not candidates, with the first reason.
    pub excluded: Vec<Excluded>,
    /// What this result approximates, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approximation: Option<String>,
}

/// A candidate of a method.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Node name.
    pub node: NodeName,
    /// 1-based position in the method's order.
    pub order: usize,
    /// Whether the method would disrupt it in this pass (within budget).
    pub selected: bool,
    /// Why not, when within the order but not selected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_selected: Option<Blocked>,
}

/// A node a method does not consider.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Excluded {
    /// Node name.
    pub node: NodeName,
    /// The reason (words: [`Blocked::message`]).
    pub blocked: Blocked,
}

/// Computes node facts and each method's candidates for one NodePool.
pub fn evaluate(
    nodes: &[&StateNode],
    ctx: &PoolContext<'_>,
    allowed: PerReason,
) -> (Vec<NodeFacts>, Vec<MethodCandidates>) {
    let v = ctx.version;
    let facts: Vec<NodeFacts> = nodes.iter().map(|n| facts(n, ctx)).collect();
    // What the method loops and sorts read from the nodes, gathered once: the state nodes are
    // large and scattered, so reading them again per method and per comparison is slow.
    let missing_label: Vec<Option<&'static str>> = nodes.iter().map(|n| n.missing_label).collect();
    let drifted_at: Vec<Option<DateTime<Utc>>> = nodes.iter().map(|n| n.drifted_at).collect();
    let rank = name_ranks(&facts);
    let mut methods = Vec::new();
    for m in Method::order(v) {
        let reason = m.reason();
        if m == Method::StaticDrift && !ctx.is_static {
            // Listing every node as "not static" would only repeat the pool's own setting.
            methods.push(MethodCandidates {
                method: m,
                reason,
                class: m.class(),
                allowed: allowed.get(reason),
                candidates: Vec::new(),
                excluded: Vec::new(),
                approximation: Some("applies to static NodePools (spec.replicas) only".to_string()),
            });
            continue;
        }
        let mut cands: Vec<(usize, &NodeFacts)> = Vec::with_capacity(facts.len());
        let mut excluded = Vec::with_capacity(facts.len());
        for (i, (f, missing)) in facts.iter().zip(&missing_label).enumerate() {
            let common = match m.class() {
                Class::Graceful => f.graceful_blocked.clone(),
                Class::Eventual => f.eventual_blocked.clone(),
            };
            let block = common.or_else(|| method_block(m, f, *missing, ctx));
            match block {
                Some(b) => excluded.push(Excluded {
                    node: f.node.clone(),
                    blocked: b,
                }),
                None => cands.push((i, f)),
            }
        }
        // Ties by node name: `rank` orders as the names do (equal names share a rank, and the
        // stable sort keeps them in input order, as comparing the names would).
        let by_name = |ia: &usize, ib: &usize| {
            rank.get(*ia)
                .copied()
                .unwrap_or(usize::MAX)
                .cmp(&rank.get(*ib).copied().unwrap_or(usize::MAX))
        };
        // Order: the consolidation sort, or drift time; ties by node name.
        match m {
            // StaticDrift walks its candidates in cluster-state (map) order: here, by name.
            Method::Drift | Method::StaticDrift => {
                // Drift's "empty" is no reschedulable pod in every version (`drift.go`).
                let no_pods = |i: &usize| nodes.get(*i).is_some_and(|n| n.resched_count == 0);
                let by_time = m == Method::Drift;
                cands.sort_by(|(ia, _), (ib, _)| {
                    let ta = drifted_at.get(*ia).copied().flatten().filter(|_| by_time);
                    let tb = drifted_at.get(*ib).copied().flatten().filter(|_| by_time);
                    let empty_first = if by_time && v.at_least(7) {
                        no_pods(ib).cmp(&no_pods(ia))
                    } else {
                        std::cmp::Ordering::Equal
                    };
                    empty_first.then(ta.cmp(&tb)).then_with(|| by_name(ia, ib))
                });
            }
            _ => {
                cands.sort_by(|(ia, a), (ib, b)| {
                    let key = if v.at_least(14) {
                        b.savings_ratio.total_cmp(&a.savings_ratio)
                    } else {
                        a.disruption_cost.total_cmp(&b.disruption_cost)
                    };
                    key.then_with(|| by_name(ia, ib))
                });
            }
        }
        let budget = allowed.get(reason);
        let mut left = budget;
        if m == Method::StaticDrift {
            // min(budget, candidates), then what the node limit leaves (`ReserveNodeCount`).
            left = left.min(ctx.static_room.clone().unwrap_or(0));
        }
        let mut candidates = Vec::with_capacity(cands.len());
        let mut any_selected = false;
        let mut kept = 0usize;
        for (pos, (i, f)) in cands.iter().enumerate() {
            let mut c = Candidate {
                node: f.node.clone(),
                order: pos + 1,
                selected: false,
                not_selected: None,
            };
            let takes = match m {
                Method::Emptiness => true,
                Method::Drift => !any_selected || (!v.at_least(5) && f.empty),
                // `firstNConsolidationOption` reaches prefixes of up to 101 candidates.
                Method::MultiNodeConsolidation => kept < 101,
                Method::SingleNodeConsolidation => !any_selected,
                Method::StaticDrift => true,
            };
            let below_threshold = match (m, ctx.balanced, nodes.get(*i)) {
                (Method::SingleNodeConsolidation, Some(totals), Some(n)) => {
                    balanced_delete_score(n.price, n.resched_cost, totals).filter(|s| *s < 0.5)
                }
                _ => None,
            };
            // v1.0–v1.13 consolidation lists empty nodes but passes over them once their pool
            // has budget, without using it ("users who set a budget for `empty` can find
            // their nodes disrupted here").
            let empty_skipped = matches!(
                m,
                Method::MultiNodeConsolidation | Method::SingleNodeConsolidation
            ) && !v.at_least(14)
                && nodes.get(*i).is_some_and(|n| n.resched_count == 0);
            if takes {
                if left > 0 {
                    if empty_skipped {
                        c.not_selected = Some(Blocked::Empty);
                    } else if let Some(score) = below_threshold {
                        c.not_selected = Some(Blocked::BalancedThreshold { score });
                    } else {
                        c.selected = true;
                        any_selected = true;
                        kept += 1;
                        left -= 1;
                    }
                } else if m == Method::StaticDrift {
                    // Karpenter checks the budget, then the replicas, then the node limit.
                    c.not_selected = Some(match &ctx.static_room {
                        _ if budget <= 0 => Blocked::BudgetExhausted { reason },
                        Err(b) => b.clone(),
                        Ok(room) if *room < budget => Blocked::NodeLimit,
                        Ok(_) => Blocked::BudgetExhausted { reason },
                    });
                } else {
                    c.not_selected = Some(Blocked::BudgetExhausted { reason });
                }
            } else if m == Method::MultiNodeConsolidation {
                c.not_selected = Some(Blocked::BeyondBatch);
            }
            candidates.push(c);
        }
        // `firstNConsolidationOption` returns no command for fewer than two candidates.
        if m == Method::MultiNodeConsolidation && kept == 1 {
            if let Some(c) = candidates.iter_mut().find(|c| c.selected) {
                c.selected = false;
                c.not_selected = Some(Blocked::BatchOfOne);
            }
        }
        let approximation = match m {
            Method::MultiNodeConsolidation => Some(
                "approximation: Karpenter binary-searches the largest prefix (at least 2) of these \
                 budget-filtered candidates whose pods fit elsewhere with at most one cheaper \
                 replacement; selected = within budget and among the first 101 it can reach, not a \
                 scheduling result"
                    .to_string(),
            ),
            Method::SingleNodeConsolidation => Some(
                "approximation: the first candidate within budget whose pods fit elsewhere (or on \
                 one cheaper node) is taken; the scheduling and price simulation is not run, so \
                 selected = the first candidate within budget. Across NodePools Karpenter \
                 interleaves round-robin in map order; this result is per NodePool (the report's pass \
                 interleaves them)"
                    .to_string(),
            ),
            Method::Drift => Some(
                "approximation: the replacement's scheduling simulation is assumed to succeed"
                    .to_string(),
            ),
            Method::StaticDrift => Some(
                "one command per node, no scheduling simulation; Karpenter walks the candidates \
                 in map order (here: by name) and does not count nodes pending disruption"
                    .to_string(),
            ),
            Method::Emptiness => None,
        };
        methods.push(MethodCandidates {
            method: m,
            reason,
            class: m.class(),
            allowed: budget,
            candidates,
            excluded,
            approximation,
        });
    }
    (facts, methods)
}

/// `ScoreMove` then `ScoreResult.Score`: savings fraction (savings ÷ the pool's price) over
/// disruption fraction (disruption ÷ the pool's disruption cost); 0 without totals to
/// normalise against or without savings, +∞ for a move that disrupts nothing.
pub fn score_move(savings: f64, disruption: f64, totals: (f64, f64)) -> f64 {
    let (total_cost, total_disruption) = totals;
    if total_cost <= 0.0 || total_disruption <= 0.0 {
        return 0.0;
    }
    let savings = savings / total_cost;
    let disruption = disruption / total_disruption;
    if savings <= 0.0 {
        0.0
    } else if disruption == 0.0 {
        f64::INFINITY
    } else {
        savings / disruption
    }
}

/// `CanPassThreshold` of a `Balanced` pool: the score of deleting the node (its price saved,
/// 1 + Σ positive eviction costs disrupted); `None` when the pool has no price to normalise
/// against (then every candidate passes).
pub fn balanced_delete_score(price: f64, resched_cost: f64, totals: (f64, f64)) -> Option<f64> {
    (totals.0 > 0.0).then(|| score_move(price, 1.0 + resched_cost, totals))
}

/// Each node's position in name order, equal names sharing one (state nodes usually come
/// sorted by name already, which the stable sort finds in one pass).
fn name_ranks(facts: &[NodeFacts]) -> Vec<usize> {
    let name = |i: usize| facts.get(i).map(|f| f.node.as_str());
    let mut order: Vec<usize> = (0..facts.len()).collect();
    order.sort_by(|a, b| name(*a).cmp(&name(*b)));
    let mut rank = vec![0; facts.len()];
    let mut prev: Option<(Option<&str>, usize)> = None;
    for (pos, &i) in order.iter().enumerate() {
        let n = name(i);
        let r = match prev {
            Some((pn, r)) if pn == n => r,
            _ => pos,
        };
        if let Some(slot) = rank.get_mut(i) {
            *slot = r;
        }
        prev = Some((n, r));
    }
    rank
}

/// Method-specific candidacy beyond the common filter (spec §5.4).
fn method_block(
    m: Method,
    f: &NodeFacts,
    missing_label: Option<&'static str>,
    ctx: &PoolContext<'_>,
) -> Option<Blocked> {
    let v = ctx.version;
    if m != Method::StaticDrift && ctx.is_static {
        return Some(Blocked::StaticNodePool);
    }
    match m {
        Method::Emptiness => {
            if ctx.consolidate_after.is_none() {
                Some(Blocked::ConsolidateAfterNever)
            } else if !f.empty {
                Some(Blocked::NotEmpty)
            } else if !f.consolidatable {
                Some(Blocked::NotConsolidatable {
                    at: f.consolidatable_at,
                })
            } else {
                None
            }
        }
        Method::StaticDrift => {
            if !ctx.is_static {
                Some(Blocked::NotStatic)
            } else if !f.drifted {
                Some(Blocked::NotDrifted)
            } else {
                None
            }
        }
        Method::Drift => {
            if !f.drifted {
                Some(Blocked::NotDrifted)
            } else if (5..=6).contains(&v.minor) && f.empty {
                Some(Blocked::EmptyLeftToEmptiness)
            } else {
                None
            }
        }
        Method::MultiNodeConsolidation | Method::SingleNodeConsolidation => {
            let excluded_policy = if v.at_least(14) {
                ctx.policy == "WhenEmpty"
            } else {
                ctx.policy != "WhenEmptyOrUnderutilized"
            };
            // Karpenter's order (`consolidation.go` ShouldDisrupt): the price labels, then
            // consolidateAfter, then (v1.14) an empty node left to Emptiness before the policy.
            if let Some(label) = missing_label {
                Some(Blocked::MissingLabel {
                    label: label.to_string(),
                })
            } else if ctx.consolidate_after.is_none() {
                Some(Blocked::ConsolidateAfterNever)
            } else if v.at_least(14) && f.empty {
                Some(Blocked::Empty)
            } else if excluded_policy {
                Some(Blocked::PolicyExcludes {
                    policy: ctx.policy.clone(),
                })
            } else if !f.consolidatable {
                Some(Blocked::NotConsolidatable {
                    at: f.consolidatable_at,
                })
            } else {
                None
            }
        }
    }
}

fn facts(n: &StateNode, ctx: &PoolContext<'_>) -> NodeFacts {
    let v = ctx.version;
    let expire_after = n.expire_after.unwrap_or(ctx.expire_after);
    let expires_at = n.created.and_then(|c| timing::expires_at(expire_after, c));
    let (consolidatable, consolidatable_at) = if !n.initialized || ctx.consolidate_after.is_none() {
        (false, None)
    } else if n.initialized_at.is_some() || n.last_pod_event.is_some() {
        let init = n.initialized_at.or(n.last_pod_event);
        timing::consolidatable(ctx.consolidate_after, init, n.last_pod_event, ctx.at)
    } else {
        // No reference time in the input: use the Consolidatable condition as written.
        (n.consolidatable_condition, None)
    };
    let age = n.created.map(|c| ctx.at - c).unwrap_or_default();
    let lifetime = timing::lifetime_remaining(expire_after, age);
    let all_cost = n.pod_cost;
    let resched_cost = n.resched_cost;
    let graceful = common_filter(n, Class::Graceful, ctx).err();
    NodeFacts {
        node: n.name.clone(),
        node_claim: n.claim.clone(),
        // The classes only differ when a terminationGracePeriod lets Drift bypass pods.
        eventual_blocked: if n.termination_grace_period {
            common_filter(n, Class::Eventual, ctx).err()
        } else {
            graceful.clone()
        },
        graceful_blocked: graceful,
        empty: is_empty(n, v),
        drifted: n.drifted,
        consolidatable,
        consolidatable_at,
        expires_at,
        expired: n
            .created
            .is_some_and(|c| timing::expired(expire_after, c, ctx.at)),
        // `+ 0.0` makes a product of −0 zero: Go's `<` takes −0 and 0 as equal, and the sort
        // here (`total_cmp`) does not.
        disruption_cost: all_cost * lifetime + 0.0,
        savings_ratio: n.price / (1.0 + resched_cost),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_are_the_serialised_names() {
        use Method::*;
        for m in [
            Emptiness,
            StaticDrift,
            Drift,
            MultiNodeConsolidation,
            SingleNodeConsolidation,
        ] {
            assert_eq!(serde_json::json!(m), m.as_str());
        }
    }

    #[test]
    fn unbounded_is_max_int32_less_disrupting_nodes() {
        use super::super::budget::{is_unbounded, UNBOUNDED};
        assert!(is_unbounded(UNBOUNDED));
        assert!(is_unbounded(UNBOUNDED - 3));
        assert!(!is_unbounded(1_000));
    }

    #[test]
    fn node_names_share_a_table_and_serialise_as_strings() {
        let names = NodeName::table(vec!["b".into(), "a".into()]);
        assert_eq!(names.len(), 2);
        assert_eq!(names[0], "b");
        assert!(names[1] < names[0]);
        assert_eq!(names[1], NodeName::from("a"));
        assert_eq!(
            serde_json::to_string(&names).ok(),
            Some(r#"["b","a"]"#.into())
        );
        assert_eq!(format!("{:?}", names[0]), r#""b""#);
    }

    #[test]
    fn name_ranks_follow_name_order_with_ties_shared() {
        let facts: Vec<NodeFacts> = ["n2", "n1", "n2", "n0"]
            .iter()
            .map(|n| NodeFacts {
                node: NodeName::from(*n),
                node_claim: None,
                graceful_blocked: None,
                eventual_blocked: None,
                empty: false,
                drifted: false,
                consolidatable: false,
                consolidatable_at: None,
                expires_at: None,
                expired: false,
                disruption_cost: 0.0,
                savings_ratio: 0.0,
            })
            .collect();
        assert_eq!(name_ranks(&facts), vec![2, 1, 2, 0]);
    }
}
