//! Placement results: the one shape the CLI, the wasm API and the playground consume.
//! Explanations are data here; [`super::status`] turns them into KubeFleet's words.

use super::eligibility::Ineligible;
use super::status::ReasonText;
use crate::input::Diagnostic;
use crate::selectors::LabelMismatch;
use serde::Serialize;
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
}

/// The scheduling outcome of one placement.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementResult {
    /// `metadata.name` of the placement.
    pub name: String,
    /// `metadata.namespace` (ResourcePlacement only).
    #[serde(skip_serializing_if = "Option::is_none")]
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
    /// The CRP's `status.perClusterPlacementStatuses` (only their `Scheduled` condition).
    pub per_cluster_placement_statuses: Vec<super::per_cluster::PerClusterPlacementStatus>,
    /// Set when the scheduling cycle aborts with an error (no bindings change, no status is
    /// written; the scheduler retries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_error: Option<CycleErrorReport>,
    /// Number of scheduling cycles run (topology spread constraints pick one per cycle).
    pub cycles: usize,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_breakdown: Option<ScoreBreakdown>,
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
#[serde(rename_all = "camelCase", tag = "type")]
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
#[serde(rename_all = "camelCase", tag = "type")]
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
    /// The same mismatch attributed to term `i`.
    pub fn with_term(mut self, i: usize) -> Self {
        match &mut self {
            TermMismatch::Label { term, .. }
            | TermMismatch::PropertyMissing { term, .. }
            | TermMismatch::Property { term, .. } => *term = i,
        }
        self
    }
}

/// Why a filter rejected a cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
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
        /// Taint key.
        key: String,
        /// Taint value.
        value: String,
        /// Taint effect.
        effect: String,
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
