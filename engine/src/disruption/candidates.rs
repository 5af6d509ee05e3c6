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
use std::collections::BTreeMap;

/// Node label naming the NodePool.
pub const NODEPOOL_LABEL: &str = "karpenter.sh/nodepool";
/// Node label set once Karpenter initialized the node.
pub const INITIALIZED_LABEL: &str = "karpenter.sh/initialized";
/// The do-not-disrupt annotation (node and pod).
pub const DO_NOT_DISRUPT: &str = "karpenter.sh/do-not-disrupt";
/// Our own input: the node's hourly offering price (Karpenter reads it from the provider).
pub const PRICE_ANNOTATION: &str = "fleet-policy.dev/price";

/// A node as Karpenter's cluster state sees it: a NodeClaim and/or a Node, with its pods.
#[derive(Debug, Clone)]
pub struct StateNode<'a> {
    /// Node name (NodeClaim name when there is no Node).
    pub name: String,
    /// The NodeClaim, when managed.
    pub claim: Option<&'a NodeClaim>,
    /// The Node, when registered.
    pub node: Option<&'a K8sNode>,
    /// Pods bound to the node.
    pub pods: Vec<&'a Pod>,
}

/// Parses an RFC 3339 time (invalid or absent: `None`).
pub fn time(s: Option<&str>) -> Option<DateTime<Utc>> {
    s.and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|d| d.with_timezone(&Utc))
}

impl StateNode<'_> {
    /// Labels: the Node's when registered, otherwise the NodeClaim's.
    pub fn labels(&self) -> Option<&BTreeMap<String, String>> {
        self.node
            .map(|n| &n.metadata.labels)
            .or(self.claim.map(|c| &c.metadata.labels))
    }

    /// Annotations, likewise.
    pub fn annotations(&self) -> Option<&BTreeMap<String, String>> {
        self.node
            .map(|n| &n.metadata.annotations)
            .or(self.claim.map(|c| &c.metadata.annotations))
    }

    /// The NodePool label.
    pub fn pool(&self) -> Option<&str> {
        self.labels()
            .and_then(|l| l.get(NODEPOOL_LABEL))
            .map(String::as_str)
    }

    /// Managed, Node present and labelled initialized.
    pub fn initialized(&self) -> bool {
        self.claim.is_some()
            && self.node.is_some_and(|n| {
                n.metadata
                    .labels
                    .get(INITIALIZED_LABEL)
                    .is_some_and(|v| v == "true")
            })
    }

    /// NodeClaim `InstanceTerminating=True`.
    pub fn instance_terminating(&self) -> bool {
        self.claim
            .is_some_and(|c| condition_true(&c.status.conditions, "InstanceTerminating"))
    }

    /// Deleting or marked for deletion (`StateNode.Deleted`).
    pub fn deleting(&self) -> bool {
        match (self.claim, self.node) {
            (Some(c), _) => c.metadata.deletion_timestamp.is_some() || self.instance_terminating(),
            (None, Some(n)) => n.metadata.deletion_timestamp.is_some(),
            (None, None) => false,
        }
    }

    /// Node `Ready=True`.
    pub fn ready(&self) -> bool {
        self.node
            .is_some_and(|n| condition_true(&n.status.conditions, "Ready"))
    }
}

/// Why a node is not a candidate. Karpenter's own wording comes from [`Blocked::message`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Blocked {
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
}

impl Blocked {
    /// The explanation in words (Karpenter's text where Karpenter has one).
    pub fn message(&self) -> String {
        match self {
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
            Blocked::StaticNodePool => {
                "static NodePool: only StaticDrift applies (not modelled)".into()
            }
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

    fn for_pod(&self, pod: &Pod) -> Vec<&'a PodDisruptionBudget> {
        self.items
            .iter()
            .filter(|(p, sel)| {
                p.metadata.namespace.as_deref().unwrap_or("default")
                    == pod.metadata.namespace.as_deref().unwrap_or("default")
                    && sel
                        .as_ref()
                        .is_some_and(|s| s.matches(&pod.metadata.labels))
            })
            .map(|(p, _)| *p)
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
    /// PDBs.
    pub pdbs: &'a Pdbs<'a>,
    /// `consolidateAfter` (`None` = Never).
    pub consolidate_after: Option<GoDuration>,
    /// `consolidationPolicy`.
    pub policy: String,
    /// Static NodePool.
    pub is_static: bool,
    /// `expireAfter` of the template (fallback for NodeClaims without their own).
    pub expire_after: Option<GoDuration>,
    /// Warnings collected while evaluating pods (Karpenter emits them as events).
    pub warnings: std::cell::RefCell<Vec<String>>,
}

/// The common candidate filter (spec §5.2) for one class; `Ok` or the first blocker.
pub fn common_filter(
    n: &StateNode<'_>,
    class: Class,
    ctx: &PoolContext<'_>,
) -> Result<(), Blocked> {
    let Some(claim) = n.claim else {
        return Err(Blocked::NotManaged);
    };
    if n.node.is_none() {
        return Err(Blocked::NoNode);
    }
    if !n.initialized() {
        return Err(Blocked::NotInitialized);
    }
    if n.deleting() {
        return Err(Blocked::Deleting);
    }
    if n.annotations()
        .and_then(|a| a.get(DO_NOT_DISRUPT))
        .is_some_and(|v| v == "true")
    {
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
    let bypass = class == Class::Eventual && claim.spec.termination_grace_period.is_some();
    match pod_blocker(n, ctx) {
        Some(b) if !bypass => Err(b),
        _ => Ok(()),
    }
}

/// The first pod-level blocker (`ValidatePodsDisruptable`).
fn pod_blocker(n: &StateNode<'_>, ctx: &PoolContext<'_>) -> Option<Blocked> {
    for p in &n.pods {
        let v = timing::pod_do_not_disrupt(
            p.metadata
                .annotations
                .get(DO_NOT_DISRUPT)
                .map(String::as_str),
            time(p.status.start_time.as_deref()),
            pods::terminal(p),
            pods::terminating(p),
            ctx.at,
            ctx.version,
        );
        match v {
            PodDoNotDisrupt::Blocks { until } => {
                return Some(Blocked::PodDoNotDisrupt {
                    pod: key(p.metadata.namespace.as_deref(), &p.metadata.name),
                    until,
                })
            }
            PodDoNotDisrupt::Ignored { warning } => {
                ctx.warnings.borrow_mut().push(format!(
                    "pod {}: {warning}",
                    key(p.metadata.namespace.as_deref(), &p.metadata.name)
                ));
            }
            PodDoNotDisrupt::DoesNotBlock => {}
        }
    }
    for p in &n.pods {
        // Pods Karpenter would not evict are not checked against PDBs.
        if pods::terminal(p)
            || pods::terminating(p)
            || pods::mirror(p)
            || pods::tolerates_disrupted(p)
        {
            continue;
        }
        let pdbs = ctx.pdbs.for_pod(p);
        let pod = key(p.metadata.namespace.as_deref(), &p.metadata.name);
        if pdbs.len() > 1 {
            return Some(Blocked::MultiplePdbs {
                pod,
                pdbs: pdbs
                    .iter()
                    .map(|b| key(b.metadata.namespace.as_deref(), &b.metadata.name))
                    .collect(),
            });
        }
        if let Some(b) = pdbs.first() {
            let unhealthy_ok = b.spec.unhealthy_pod_eviction_policy.as_deref()
                == Some("AlwaysAllow")
                && !condition_true(&p.status.conditions, "Ready");
            if b.status.disruptions_allowed <= 0 && !unhealthy_ok {
                return Some(Blocked::PdbBlocks {
                    pod,
                    pdb: key(b.metadata.namespace.as_deref(), &b.metadata.name),
                });
            }
        }
    }
    None
}

/// Whether the node is "empty" for Emptiness (version-dependent, spec §5.4).
pub fn is_empty(n: &StateNode<'_>, v: KarpenterVersion) -> bool {
    let resched = n.pods.iter().filter(|p| pods::reschedulable(p));
    if v.at_least(14) {
        1.0 + resched
            .map(|p| pods::eviction_cost(p).max(0.0))
            .sum::<f64>()
            <= 1.0
    } else {
        resched.count() == 0
    }
}

/// Per-node facts shown with the candidates.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeFacts {
    /// Node name.
    pub node: String,
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
    pub node: String,
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
    pub node: String,
    /// The reason.
    pub blocked: Blocked,
    /// The reason in words.
    pub message: String,
}

/// Computes node facts and each method's candidates for one NodePool.
pub fn evaluate(
    nodes: &[StateNode<'_>],
    ctx: &PoolContext<'_>,
    allowed: PerReason,
) -> (Vec<NodeFacts>, Vec<MethodCandidates>) {
    let v = ctx.version;
    let facts: Vec<NodeFacts> = nodes.iter().map(|n| facts(n, ctx)).collect();
    let mut methods = Vec::new();
    for m in Method::order(v) {
        let reason = m.reason();
        let mut cands: Vec<(usize, &NodeFacts)> = Vec::new();
        let mut excluded = Vec::new();
        for (i, f) in facts.iter().enumerate() {
            let common = match m.class() {
                Class::Graceful => f.graceful_blocked.clone(),
                Class::Eventual => f.eventual_blocked.clone(),
            };
            let block = common.or_else(|| method_block(m, f, ctx));
            match block {
                Some(b) => excluded.push(Excluded {
                    node: nodes.get(i).map(|n| n.name.clone()).unwrap_or_default(),
                    message: b.message(),
                    blocked: b,
                }),
                None => cands.push((i, f)),
            }
        }
        // Order: the consolidation sort, or drift time; ties by node name.
        match m {
            Method::Drift | Method::StaticDrift => {
                cands.sort_by(|(ia, a), (ib, b)| {
                    let ta = drift_time(nodes.get(*ia));
                    let tb = drift_time(nodes.get(*ib));
                    let empty_first = if v.at_least(7) {
                        b.empty.cmp(&a.empty)
                    } else {
                        std::cmp::Ordering::Equal
                    };
                    empty_first.then(ta.cmp(&tb)).then(a.node.cmp(&b.node))
                });
            }
            _ => {
                cands.sort_by(|(_, a), (_, b)| {
                    let key = if v.at_least(14) {
                        b.savings_ratio.total_cmp(&a.savings_ratio)
                    } else {
                        a.disruption_cost.total_cmp(&b.disruption_cost)
                    };
                    key.then(a.node.cmp(&b.node))
                });
            }
        }
        let budget = allowed.get(reason);
        let mut left = budget;
        let mut candidates = Vec::new();
        for (pos, (_, f)) in cands.iter().enumerate() {
            let mut c = Candidate {
                node: f.node.clone(),
                order: pos + 1,
                selected: false,
                not_selected: None,
            };
            let takes = match m {
                Method::Emptiness => true,
                Method::Drift => {
                    candidates.iter().all(|c: &Candidate| !c.selected)
                        || (!v.at_least(5) && f.empty)
                }
                Method::MultiNodeConsolidation => pos < 100,
                Method::SingleNodeConsolidation => {
                    candidates.iter().all(|c: &Candidate| !c.selected)
                }
                Method::StaticDrift => true,
            };
            if takes {
                if left > 0 {
                    c.selected = true;
                    left -= 1;
                } else {
                    c.not_selected = Some(Blocked::BudgetExhausted { reason });
                }
            }
            candidates.push(c);
        }
        let approximation = match m {
            Method::MultiNodeConsolidation => Some(
                "approximation: Karpenter binary-searches the largest prefix (at least 2) of these \
                 budget-filtered candidates whose pods fit elsewhere with at most one cheaper \
                 replacement; selected = within budget and the first 100, not a scheduling result"
                    .to_string(),
            ),
            Method::SingleNodeConsolidation => Some(
                "approximation: the first candidate within budget whose pods fit elsewhere (or on \
                 one cheaper node) is taken; the scheduling and price simulation is not run, so \
                 selected = the first candidate within budget. Across NodePools Karpenter \
                 interleaves round-robin in map order; this result is per NodePool"
                    .to_string(),
            ),
            Method::Drift => Some(
                "approximation: the replacement's scheduling simulation is assumed to succeed"
                    .to_string(),
            ),
            Method::StaticDrift => Some("static NodePools are not modelled; no candidates".to_string()),
            Method::Emptiness => None,
        };
        if m == Method::StaticDrift {
            candidates.clear();
        }
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

fn drift_time(n: Option<&StateNode<'_>>) -> Option<DateTime<Utc>> {
    n.and_then(|n| n.claim)
        .and_then(|c| condition(&c.status.conditions, "Drifted"))
        .and_then(|c| time(c.last_transition_time.as_deref()))
}

/// Method-specific candidacy beyond the common filter (spec §5.4).
fn method_block(m: Method, f: &NodeFacts, ctx: &PoolContext<'_>) -> Option<Blocked> {
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
        Method::StaticDrift => Some(if ctx.is_static {
            Blocked::StaticNodePool
        } else {
            Blocked::NotStatic
        }),
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
            if ctx.consolidate_after.is_none() {
                Some(Blocked::ConsolidateAfterNever)
            } else if excluded_policy {
                Some(Blocked::PolicyExcludes {
                    policy: ctx.policy.clone(),
                })
            } else if v.at_least(14) && f.empty {
                Some(Blocked::Empty)
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

fn facts(n: &StateNode<'_>, ctx: &PoolContext<'_>) -> NodeFacts {
    let v = ctx.version;
    let claim = n.claim;
    let created = claim.and_then(|c| time(c.metadata.creation_timestamp.as_deref()));
    let expire_after = match claim.and_then(|c| c.spec.expire_after.as_deref()) {
        Some("Never") => None,
        Some(s) => GoDuration::parse(s).ok(),
        None => ctx.expire_after,
    };
    let expires_at = created.and_then(|c| timing::expires_at(expire_after, c));
    let initialized_at = claim
        .and_then(|c| condition(&c.status.conditions, "Initialized"))
        .filter(|c| c.status == "True")
        .and_then(|c| time(c.last_transition_time.as_deref()));
    let last_pod_event = claim.and_then(|c| time(c.status.last_pod_event_time.as_deref()));
    let (consolidatable, consolidatable_at) = if !n.initialized() || ctx.consolidate_after.is_none()
    {
        (false, None)
    } else if initialized_at.is_some() || last_pod_event.is_some() {
        let init = initialized_at.or(last_pod_event);
        timing::consolidatable(ctx.consolidate_after, init, last_pod_event, ctx.at)
    } else {
        // No reference time in the input: use the Consolidatable condition as written.
        (
            claim.is_some_and(|c| condition_true(&c.status.conditions, "Consolidatable")),
            None,
        )
    };
    let age = created.map(|c| ctx.at - c).unwrap_or_default();
    let lifetime = timing::lifetime_remaining(expire_after, age);
    let all_cost: f64 = n.pods.iter().map(|p| pods::eviction_cost(p)).sum();
    let resched_cost: f64 = n
        .pods
        .iter()
        .filter(|p| pods::reschedulable(p))
        .map(|p| pods::eviction_cost(p).max(0.0))
        .sum();
    let price = n
        .annotations()
        .and_then(|a| a.get(PRICE_ANNOTATION))
        .and_then(|p| p.parse::<f64>().ok())
        .unwrap_or(0.0);
    NodeFacts {
        node: n.name.clone(),
        node_claim: claim.map(|c| c.metadata.name.clone()),
        graceful_blocked: common_filter(n, Class::Graceful, ctx).err(),
        eventual_blocked: common_filter(n, Class::Eventual, ctx).err(),
        empty: is_empty(n, v),
        drifted: claim.is_some_and(|c| condition_true(&c.status.conditions, "Drifted")),
        consolidatable,
        consolidatable_at,
        expires_at,
        expired: created.is_some_and(|c| timing::expired(expire_after, c, ctx.at)),
        disruption_cost: all_cost * lifetime,
        savings_ratio: price / (1.0 + resched_cost),
    }
}
