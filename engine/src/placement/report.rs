//! Placement results: the one shape the CLI, the wasm API and the playground consume.
//! Explanations are data here; [`super::status`] turns them into KubeFleet's words.

use super::eligibility::Ineligible;
use super::per_cluster::{PerClusterPlacementStatus, PerClusterStatuses};
use super::properties::PropertyRef;
use super::status::ReasonText;
use crate::input::node::{FieldPath, Node, PathSeg};
use crate::input::Diagnostic;
use crate::selectors::{LabelMismatch, RequirementSource};
use serde::{Serialize, Serializer};
use std::sync::Arc;

/// Result of [`crate::place`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementReport {
    /// One entry per placement in the input.
    pub placements: Vec<PlacementResult>,
    /// Errors in the input (including policies the API server or webhook would reject).
    pub errors: Vec<Diagnostic>,
    /// Warnings about the input.
    pub warnings: Vec<Diagnostic>,
    /// Facts about the input as a whole (hand-written clusters, ignored kinds, stale
    /// heartbeats), each stated once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<crate::notice::Notice>,
}

/// The scheduling outcome of one placement.
// Serialised by hand (below): `perClusterPlacementStatuses` is written from `decisions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlacementResult {
    /// `metadata.name` of the placement.
    pub name: String,
    /// `metadata.namespace` (ResourcePlacement only).
    pub namespace: Option<String>,
    /// `ClusterResourcePlacement` or `ResourcePlacement`.
    pub kind: String,
    /// `PickAll`, `PickN` or `PickFixed` after defaulting.
    pub placement_type: String,
    /// `accepted`, or `rejected` when the CRD schema or the webhook would refuse the policy
    /// (the errors say why); the scheduling outcome is then what the scheduler would do if
    /// the object reached it anyway.
    pub validation: String,
    /// Clusters picked by this run, in pick order.
    pub picked: Vec<Picked>,
    /// Scored but not picked clusters of the last cycle, best first (PickN).
    pub not_picked: Vec<Picked>,
    /// Clusters rejected by a filter in the last cycle, by name.
    pub filtered: Vec<Filtered>,
    /// Clusters whose existing bindings for this policy stay selected.
    pub kept: Vec<String>,
    /// Clusters whose existing bindings this run marks Unscheduled.
    pub unscheduled: Vec<String>,
    /// The policy snapshot's `status.clusterDecisions` as the scheduler writes them.
    pub decisions: Vec<Decision>,
    /// The `Scheduled` condition.
    pub condition: Condition,
    /// Which decisions the CRP's `status.perClusterPlacementStatuses` show (only their
    /// `Scheduled` condition); read them with
    /// [`PlacementResult::per_cluster_placement_statuses`].
    pub per_cluster: PerClusterStatuses,
    /// Set when the scheduling cycle aborts with an error (no bindings change, no status is
    /// written; the scheduler retries).
    pub cycle_error: Option<CycleErrorReport>,
    /// Number of scheduling cycles run (topology spread constraints pick one per cycle).
    pub cycles: usize,
}

impl PlacementResult {
    /// The CRP's `status.perClusterPlacementStatuses`, as views of [`Self::decisions`].
    pub fn per_cluster_placement_statuses(
        &self,
    ) -> impl Iterator<Item = PerClusterPlacementStatus<'_>> + Clone {
        self.per_cluster.entries(&self.decisions)
    }

    /// The fields behind `cluster`'s outcome, as (the placement's, the MemberCluster's):
    /// a filter's reason and what it read of the cluster; else the terms and constraints that
    /// scored; else, for a pick nothing scored, the `spec.policy.clusterNames` entry that
    /// names it (`placement` is the placement's document root), or the required terms and
    /// the placement type that let it through. The cluster's name is always among them.
    pub fn decision_paths(
        &self,
        placement: Option<&Node>,
        cluster: &str,
    ) -> (Vec<FieldPath>, Vec<FieldPath>) {
        let mut fleet = vec![path(&["metadata", "name"])];
        if let Some(f) = self.filtered.iter().find(|c| &*c.cluster == cluster) {
            fleet.extend(f.explanation.cluster_paths());
            return (f.explanation.policy_paths(), fleet);
        }
        let Some(p) = self
            .picked
            .iter()
            .chain(&self.not_picked)
            .find(|c| &*c.cluster == cluster)
        else {
            return (Vec::new(), fleet);
        };
        let scored = p
            .score_breakdown
            .as_ref()
            .map(|b| b.policy_paths())
            .unwrap_or_default();
        if !scored.is_empty() {
            return (scored, fleet);
        }
        let names = path(&["spec", "policy", "clusterNames"]);
        let named = placement
            .and_then(|root| {
                root.get("spec")?
                    .get("policy")?
                    .get("clusterNames")?
                    .as_seq()
            })
            .and_then(|seq| seq.iter().position(|n| n.as_str() == Some(cluster)));
        let policy = match named {
            Some(i) => vec![names.index(i)],
            None => vec![required_terms(), path(&["spec", "policy", "placementType"])],
        };
        (policy, fleet)
    }
}

impl Serialize for PlacementResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json::PlacementResult::from(self).serialize(serializer)
    }
}

/// The serialised shape of a [`PlacementResult`]. It has the same name on purpose: the npm
/// package's TypeScript declarations are generated from the struct that derives `Serialize`.
mod json {
    use super::{Condition, CycleErrorReport, Decision, Filtered, Picked};
    use crate::placement::per_cluster::PerClusterPlacementStatus;
    use serde::Serialize;

    /// The scheduling outcome of one placement.
    // As written: `perClusterPlacementStatuses` are made from the decisions while writing.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct PlacementResult<'a> {
        /// `metadata.name` of the placement.
        name: &'a str,
        /// `metadata.namespace` (ResourcePlacement only).
        #[serde(skip_serializing_if = "Option::is_none")]
        namespace: Option<&'a str>,
        /// `ClusterResourcePlacement` or `ResourcePlacement`.
        kind: &'a str,
        /// `PickAll`, `PickN` or `PickFixed` after defaulting.
        placement_type: &'a str,
        /// `accepted`, or `rejected` when the CRD schema or the webhook would refuse the policy
        /// (the errors say why); the scheduling outcome is then what the scheduler would do if
        /// the object reached it anyway.
        validation: &'a str,
        /// Clusters picked by this run, in pick order.
        picked: &'a [Picked],
        /// Scored but not picked clusters of the last cycle, best first (PickN).
        not_picked: &'a [Picked],
        /// Clusters rejected by a filter in the last cycle, by name.
        filtered: &'a [Filtered],
        /// Clusters whose existing bindings for this policy stay selected.
        kept: &'a [String],
        /// Clusters whose existing bindings this run marks Unscheduled.
        unscheduled: &'a [String],
        /// The policy snapshot's `status.clusterDecisions` as the scheduler writes them.
        decisions: &'a [Decision],
        /// The `Scheduled` condition.
        condition: &'a Condition,
        /// The CRP's `status.perClusterPlacementStatuses` (only their `Scheduled` condition).
        per_cluster_placement_statuses: Vec<PerClusterPlacementStatus<'a>>,
        /// Set when the scheduling cycle aborts with an error (no bindings change, no status is
        /// written; the scheduler retries).
        #[serde(skip_serializing_if = "Option::is_none")]
        cycle_error: Option<&'a CycleErrorReport>,
        /// Number of scheduling cycles run (topology spread constraints pick one per cycle).
        cycles: usize,
    }

    impl<'a> From<&'a super::PlacementResult> for PlacementResult<'a> {
        fn from(r: &'a super::PlacementResult) -> Self {
            PlacementResult {
                name: &r.name,
                namespace: r.namespace.as_deref(),
                kind: &r.kind,
                placement_type: &r.placement_type,
                validation: &r.validation,
                picked: &r.picked,
                not_picked: &r.not_picked,
                filtered: &r.filtered,
                kept: &r.kept,
                unscheduled: &r.unscheduled,
                decisions: &r.decisions,
                condition: &r.condition,
                per_cluster_placement_statuses: r.per_cluster_placement_statuses().collect(),
                cycle_error: r.cycle_error.as_ref(),
                cycles: r.cycles,
            }
        }
    }
}

/// A picked (or scored, not picked) cluster.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Picked {
    /// Cluster name.
    // The fleet's shared copy: a result quotes thousands of clusters, each several times.
    pub cluster: Arc<str>,
    /// Sum of preferred-affinity term scores (0 for PickAll and PickFixed).
    pub affinity_score: i32,
    /// Topology spread score (0 for PickAll and PickFixed).
    pub topology_spread_score: i32,
    /// How the scores came about (PickN only).
    // Boxed: PickAll lists thousands of picks without one, and a picked entry stays 32 bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_breakdown: Option<Box<ScoreBreakdown>>,
}

impl Picked {
    /// A pick without scores (PickAll, PickFixed).
    pub fn unscored(cluster: Arc<str>) -> Self {
        // Field by field: `..Picked::default()` would make and drop a default name, two
        // atomic operations on one shared static per pick.
        Picked {
            cluster,
            affinity_score: 0,
            topology_spread_score: 0,
            score_breakdown: None,
        }
    }
}

/// Per preferred term and per spread constraint contributions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBreakdown {
    /// One entry per preferred term.
    pub affinity: Vec<TermScore>,
    /// One entry per topology spread constraint.
    pub topology_spread: Vec<ConstraintScore>,
    /// The cluster had a binding from an earlier policy (a +1 tie-breaker, never shown in
    /// the scores).
    pub obsolete_placement: bool,
}

/// One preferred term's contribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermScore {
    /// Index in `preferredDuringSchedulingIgnoredDuringExecution`.
    pub term: usize,
    /// The term's weight.
    pub weight: i32,
    /// The rounded score it added.
    pub score: i32,
    /// Why.
    pub outcome: TermOutcome,
}

/// How a preferred term scored a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    tag = "type",
    rename_all_fields = "camelCase"
)]
pub enum TermOutcome {
    /// Weight 0: skipped.
    ZeroWeight,
    /// The label selector did not match: 0.
    LabelMismatch,
    /// No sorter: the full weight.
    FullWeight,
    /// The sorter property is missing on the cluster: 0.
    PropertyMissing,
    /// Only one distinct value in the fleet (min == max): 0.
    SingleValue {
        /// Observed value.
        observed: f64,
    },
    /// Interpolated between the fleet's min and max.
    Interpolated {
        /// Observed value (as a float).
        observed: f64,
        /// Fleet minimum.
        min: f64,
        /// Fleet maximum.
        max: f64,
        /// Score before rounding.
        unrounded: f64,
    },
    /// Scoring this term failed (the cycle aborted).
    Error,
}

/// One topology spread constraint's contribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConstraintScore {
    /// Index in `topologySpreadConstraints`.
    pub constraint: usize,
    /// The label key.
    pub topology_key: String,
    /// After defaulting.
    pub when_unsatisfiable: String,
    /// After defaulting.
    pub max_skew: i32,
    /// The cluster's domain (its label value), if it has the key.
    pub domain: Option<String>,
    /// Current placements in that domain.
    pub domain_count: Option<u32>,
    /// Smallest domain count.
    pub smallest: u32,
    /// Largest domain count.
    pub largest: u32,
    /// Skew change one more placement here causes (−1, 0, +1).
    pub skew_change: i32,
    /// Whether the resulting skew exceeds maxSkew.
    pub violated: bool,
    /// The contribution (+1, 0, −1, or −1000 for a ScheduleAnyway violation).
    pub score: i32,
}

/// A cluster a filter rejected.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Filtered {
    /// Cluster name.
    // Shared, as in `Picked`.
    pub cluster: Arc<str>,
    /// The filter plugin that rejected it (the first failing one).
    pub plugin: &'static str,
    /// The decision reason as KubeFleet writes it.
    pub reason: ReasonText,
    /// The same, as data.
    pub explanation: FilterReason,
}

/// Why one required term failed for a cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    tag = "type",
    rename_all_fields = "camelCase"
)]
pub enum TermMismatch {
    /// The label selector failed.
    Label {
        /// Index of the term in `clusterSelectorTerms`.
        term: usize,
        /// The failed requirement and the observed value.
        mismatch: LabelMismatch,
    },
    /// The cluster does not publish the property.
    PropertyMissing {
        /// Index of the term.
        term: usize,
        /// Index of the expression.
        expression: usize,
        /// Property name.
        name: String,
    },
    /// The property value fails the comparison.
    Property {
        /// Index of the term.
        term: usize,
        /// Index of the expression.
        expression: usize,
        /// Property name.
        name: String,
        /// Operator.
        operator: String,
        /// Required value.
        required: String,
        /// Observed value.
        observed: String,
    },
}

impl TermMismatch {
    /// The placement's field that failed: the requirement of the required term.
    pub fn policy_path(&self) -> FieldPath {
        match self {
            TermMismatch::Label { term, mismatch } => {
                let selector = required_term(*term).key("labelSelector");
                match mismatch.requirement.source {
                    RequirementSource::MatchExpressions(i) => {
                        selector.key("matchExpressions").index(i)
                    }
                    RequirementSource::MatchLabels => {
                        selector.key("matchLabels").key(&mismatch.requirement.key)
                    }
                }
            }
            TermMismatch::PropertyMissing {
                term, expression, ..
            }
            | TermMismatch::Property {
                term, expression, ..
            } => required_term(*term)
                .key("propertySelector")
                .key("matchExpressions")
                .index(*expression),
        }
    }

    /// The MemberCluster's field it read (absent from the cluster when the label or property
    /// is missing).
    pub fn cluster_path(&self) -> FieldPath {
        match self {
            TermMismatch::Label { mismatch, .. } => {
                path(&["metadata", "labels"]).key(&mismatch.requirement.key)
            }
            TermMismatch::PropertyMissing { name, .. } | TermMismatch::Property { name, .. } => {
                PropertyRef::parse(name).cluster_path()
            }
        }
    }
}

/// `spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution
/// .clusterSelectorTerms`.
fn required_terms() -> FieldPath {
    path(&[
        "spec",
        "policy",
        "affinity",
        "clusterAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "clusterSelectorTerms",
    ])
}

/// [`required_terms`]`[term]`.
fn required_term(term: usize) -> FieldPath {
    required_terms().index(term)
}

fn path(keys: &[&str]) -> FieldPath {
    FieldPath(keys.iter().map(|k| PathSeg::Key(k.to_string())).collect())
}

impl FilterReason {
    /// The placement's fields that decided: the failed requirement of each required term,
    /// the tolerations, or the topology spread constraint.
    pub fn policy_paths(&self) -> Vec<FieldPath> {
        match self {
            FilterReason::ClusterAffinityMismatch { terms } => {
                terms.iter().map(TermMismatch::policy_path).collect()
            }
            FilterReason::Ineligible { .. } => Vec::new(),
            FilterReason::TaintNotTolerated { .. } => {
                vec![path(&["spec", "policy", "tolerations"])]
            }
            FilterReason::TopologySpreadViolated { constraint, .. } => {
                vec![path(&["spec", "policy", "topologySpreadConstraints"]).index(*constraint)]
            }
        }
    }

    /// The MemberCluster's fields it read: the labels and properties of the failed
    /// requirements, the taint, the topology label, or the status the eligibility checker read.
    pub fn cluster_paths(&self) -> Vec<FieldPath> {
        match self {
            FilterReason::ClusterAffinityMismatch { terms } => {
                terms.iter().map(TermMismatch::cluster_path).collect()
            }
            FilterReason::Ineligible { reason } => vec![match reason {
                Ineligible::Left => path(&["metadata", "deletionTimestamp"]),
                Ineligible::NoNamespaceInformation | Ineligible::NamespaceNotFound { .. } => {
                    path(&["status", "namespaces"])
                }
                _ => path(&["status", "agentStatus"]),
            }],
            FilterReason::TaintNotTolerated { index, .. } => {
                vec![path(&["spec", "taints"]).index(*index)]
            }
            FilterReason::TopologySpreadViolated { topology_key, .. } => {
                vec![path(&["metadata", "labels"]).key(topology_key)]
            }
        }
    }
}

impl ScoreBreakdown {
    /// The placement's fields that scored: preferred terms and topology spread constraints
    /// that added a non-zero score.
    pub fn policy_paths(&self) -> Vec<FieldPath> {
        let preferred = path(&[
            "spec",
            "policy",
            "affinity",
            "clusterAffinity",
            "preferredDuringSchedulingIgnoredDuringExecution",
        ]);
        let constraints = path(&["spec", "policy", "topologySpreadConstraints"]);
        let terms = self.affinity.iter().filter(|t| t.score != 0);
        let spread = self.topology_spread.iter().filter(|c| c.score != 0);
        terms
            .map(|t| preferred.index(t.term))
            .chain(spread.map(|c| constraints.index(c.constraint)))
            .collect()
    }
}

/// Why a filter rejected a cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    tag = "type",
    rename_all_fields = "camelCase"
)]
pub enum FilterReason {
    /// No required term matched.
    ClusterAffinityMismatch {
        /// Per term, the first thing that failed.
        // Shared: the clusters of a fleet that fail alike (a handful of distinct lists among
        // thousands of filtered clusters) hold one list.
        terms: Arc<[TermMismatch]>,
    },
    /// The cluster is not eligible.
    Ineligible {
        /// Why.
        reason: Ineligible,
    },
    /// A taint is not tolerated.
    TaintNotTolerated {
        /// Its index in the cluster's `spec.taints` (where the playground points).
        #[serde(skip)]
        index: usize,
        // Shared: the fleet's one copy of each distinct taint's strings.
        /// Taint key.
        key: Arc<str>,
        /// Taint value.
        value: Arc<str>,
        /// Taint effect.
        effect: Arc<str>,
    },
    /// Placing here would exceed a DoNotSchedule constraint's maxSkew.
    TopologySpreadViolated {
        /// Index in `topologySpreadConstraints`.
        constraint: usize,
        /// Label key.
        topology_key: String,
        /// maxSkew.
        max_skew: i32,
        /// The cluster's domain.
        domain: Option<String>,
        /// Placements in that domain.
        domain_count: Option<u32>,
        /// Smallest domain count.
        smallest: u32,
        /// Largest domain count.
        largest: u32,
    },
}

/// A policy-snapshot `ClusterDecision`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Cluster name.
    // Shared, as in `Picked`.
    pub cluster_name: Arc<str>,
    /// Whether it is selected.
    pub selected: bool,
    /// Scores (picked and scored clusters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_score: Option<ClusterScore>,
    /// Reason text.
    pub reason: ReasonText,
}

/// `clusterScore`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterScore {
    /// Affinity score.
    pub affinity_score: i32,
    /// Topology spread score.
    pub topology_spread_score: i32,
}

/// The `Scheduled` condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// "True", "False", or "Unknown" when the cycle aborted.
    pub status: String,
    /// Reason.
    pub reason: String,
    /// Message.
    pub message: String,
}

/// An aborted cycle.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CycleErrorReport {
    /// In words.
    pub message: String,
    /// As data.
    pub error: super::CycleError,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape `#[derive(Serialize)]` gives a result whose statuses are a stored list: the
    /// hand-written `Serialize` must write exactly this.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Derived<'a> {
        name: &'a String,
        #[serde(skip_serializing_if = "none")]
        namespace: &'a Option<String>,
        kind: &'a String,
        placement_type: &'a String,
        validation: &'a String,
        picked: &'a Vec<Picked>,
        not_picked: &'a Vec<Picked>,
        filtered: &'a Vec<Filtered>,
        kept: &'a Vec<String>,
        unscheduled: &'a Vec<String>,
        decisions: &'a Vec<Decision>,
        condition: &'a Condition,
        per_cluster_placement_statuses: Vec<PerClusterPlacementStatus<'a>>,
        #[serde(skip_serializing_if = "none")]
        cycle_error: &'a Option<CycleErrorReport>,
        cycles: usize,
    }

    fn none<T>(x: &&Option<T>) -> bool {
        x.is_none()
    }

    fn derived(r: &PlacementResult) -> Derived<'_> {
        Derived {
            name: &r.name,
            namespace: &r.namespace,
            kind: &r.kind,
            placement_type: &r.placement_type,
            validation: &r.validation,
            picked: &r.picked,
            not_picked: &r.not_picked,
            filtered: &r.filtered,
            kept: &r.kept,
            unscheduled: &r.unscheduled,
            decisions: &r.decisions,
            condition: &r.condition,
            per_cluster_placement_statuses: r.per_cluster_placement_statuses().collect(),
            cycle_error: &r.cycle_error,
            cycles: r.cycles,
        }
    }

    #[test]
    fn per_cluster_entries_stay_small() {
        // A PickAll over 10k clusters writes one of each per pick: their size is its time.
        assert!(std::mem::size_of::<Picked>() <= 32);
        assert!(std::mem::size_of::<Decision>() <= 80);
    }

    #[test]
    fn results_serialise_as_the_derived_shape_with_statuses_from_the_decisions() {
        let yaml = "
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a, labels: {env: prod}}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: b}
spec:
  taints: [{key: gpu, value: \"true\", effect: NoSchedule}]
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ResourcePlacement
metadata: {name: short, namespace: team}
spec:
  policy: {placementType: PickN, numberOfClusters: 3}
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: aborted}
spec:
  policy: {placementType: PickN}
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: all}
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: fixed}
spec:
  policy: {placementType: PickFixed, clusterNames: [a, b, zz]}
";
        let r = crate::place(
            &[crate::Source::new("t.yaml", yaml)],
            &crate::placement::PlaceOptions::at(chrono::DateTime::UNIX_EPOCH),
        );
        assert_eq!(r.placements.len(), 4);
        assert!(r.placements.iter().any(|p| p.namespace.is_some()));
        assert!(r.placements.iter().any(|p| p.cycle_error.is_some()));
        assert!(r.placements.iter().any(|p| p
            .per_cluster_placement_statuses()
            .any(|s| s.cluster_name.is_none())));
        for p in &r.placements {
            let hand = serde_json::to_string(p).unwrap_or_default();
            let derived = serde_json::to_string(&derived(p)).unwrap_or_default();
            assert!(!hand.is_empty());
            assert_eq!(hand, derived);
        }
    }
}
