//! Placement results: the one shape the CLI, the wasm API and the playground consume.

use crate::input::Diagnostic;
use crate::selectors::LabelMismatch;
use serde::Serialize;

/// Result of [`crate::place`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementReport {
    /// One entry per placement in the input.
    pub placements: Vec<PlacementResult>,
    /// Errors in the input.
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
    /// Picked clusters in pick order.
    pub picked: Vec<Picked>,
    /// Scored but not picked clusters, best first.
    pub not_picked: Vec<Picked>,
    /// Clusters rejected by a filter, by name.
    pub filtered: Vec<Filtered>,
    /// The `Scheduled` condition.
    pub condition: Condition,
}

/// A picked (or scored, not picked) cluster.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Picked {
    /// Cluster name.
    pub cluster: String,
    /// Sum of preferred-affinity term scores.
    pub affinity_score: i32,
    /// Topology spread score.
    pub topology_spread_score: i32,
}

/// A cluster a filter rejected.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Filtered {
    /// Cluster name.
    pub cluster: String,
    /// The filter plugin that rejected it.
    pub plugin: String,
    /// The decision reason as KubeFleet writes it.
    pub reason: String,
    /// The same, as data.
    pub explanation: FilterReason,
}

/// One required term a cluster failed, and the first requirement of it that failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermMismatch {
    /// Index of the term in `clusterSelectorTerms`.
    pub term: usize,
    /// The failed requirement and the observed value.
    pub mismatch: LabelMismatch,
}

/// Why a filter rejected a cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum FilterReason {
    /// No required term matched.
    ClusterAffinityMismatch {
        /// Per term, what failed.
        terms: Vec<TermMismatch>,
    },
}

impl FilterReason {
    /// The plugin name.
    pub fn plugin(&self) -> &'static str {
        match self {
            FilterReason::ClusterAffinityMismatch { .. } => "ClusterAffinity",
        }
    }

    /// The reason string KubeFleet records.
    pub fn status_reason(&self) -> String {
        match self {
            FilterReason::ClusterAffinityMismatch { .. } => {
                "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms".to_string()
            }
        }
    }
}

/// The `Scheduled` condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// "True" or "False".
    pub status: String,
    /// Reason.
    pub reason: String,
    /// Message.
    pub message: String,
}

impl Condition {
    /// The condition after a cycle that selected `count` clusters.
    pub fn scheduled(count: usize, fulfilled: bool) -> Self {
        if fulfilled {
            Condition {
                status: "True".into(),
                reason: "SchedulingPolicyFulfilled".into(),
                message: format!("found all cluster needed as specified by the scheduling policy, found {count} cluster(s)"),
            }
        } else {
            Condition {
                status: "False".into(),
                reason: "SchedulingPolicyUnfulfilled".into(),
                message: format!("could not find all clusters needed as specified by the scheduling policy, found {count} cluster(s) instead"),
            }
        }
    }
}
