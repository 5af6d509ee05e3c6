//! Disruption results: the one shape the CLI, the wasm API and the playground consume.

use super::budget::{BudgetError, NodeCounts, PerReason, Reason};
use super::candidates::{MethodCandidates, NodeFacts};
use super::timeline::{ActiveSpan, TimelinePoint};
use super::validation::FieldCheck;
use crate::input::Diagnostic;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Result of [`crate::budgets`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    /// The Karpenter rules used (option `karpenterVersion`; default the newest).
    pub karpenter_version: String,
    /// The evaluation instant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    /// End of the timeline horizon.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub horizon_end: Option<DateTime<Utc>>,
    /// One entry per NodePool.
    pub node_pools: Vec<NodePoolResult>,
    /// One controller pass over all NodePools: each method's cross-pool order, per-pool
    /// budget use and commands, and which method acts.
    pub pass: super::pass::DisruptionPass,
    /// Errors in the input.
    pub errors: Vec<Diagnostic>,
    /// Warnings about the input.
    pub warnings: Vec<Diagnostic>,
    /// Facts about the input as a whole (hand-written clusters, ignored kinds, stale
    /// heartbeats), each stated once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<crate::notice::Notice>,
}

/// The answer for one NodePool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodePoolResult {
    /// `metadata.name`.
    pub name: String,
    /// Where the NodePool was read from.
    pub source: String,
    /// 1-based document index in its source.
    pub document: usize,
    /// Node counts by state, and where they came from.
    pub nodes: NodesSummary,
    /// Per reason, what a method may start disrupting now (2147483647 = unbounded).
    pub allowed_disruptions: PerReason,
    /// Per reason, before subtracting disrupting nodes (Karpenter's metric at HEAD).
    pub raw_allowed_disruptions: PerReason,
    /// True when a budget error makes Karpenter allow 0 for every reason.
    pub fail_closed: bool,
    /// Budgets active now, with the reasons each one binds.
    pub active_budgets: Vec<ActiveBudget>,
    /// Every budget (the CRD default included when `budgets` is absent).
    pub budgets: Vec<BudgetState>,
    /// Whether the budgets are the CRD default (`budgets` absent).
    pub default_budgets: bool,
    /// Next instant at which the allowed disruptions change (within the horizon).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_change: Option<DateTime<Utc>>,
    /// Changes of the allowed disruptions over the horizon.
    pub timeline: Vec<TimelinePoint>,
    /// Per method in the controller's order: candidates, exclusions, selection.
    pub candidates: Vec<MethodCandidates>,
    /// Per node: filters, emptiness, drift, consolidatable, expiration, sort keys.
    pub node_facts: Vec<NodeFacts>,
    /// Admission and runtime verdicts of every disruption field.
    pub validation: Vec<FieldCheck>,
    /// Decisions and approximations that shape this result.
    pub notes: Vec<String>,
}

/// Node counts used by the budget arithmetic.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodesSummary {
    /// Counts by state.
    pub counts: NodeCounts,
    /// Counted total (percentages are taken of it).
    pub total: i64,
    /// Deleting or not Ready (subtracted from every reason).
    pub disrupting: i64,
    /// "NodeCounts", "nodes" or both.
    pub from: Vec<String>,
}

/// An active budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveBudget {
    /// Index in `spec.disruption.budgets`.
    pub index: usize,
    /// `nodes` as written.
    pub nodes: String,
    /// Its value now.
    pub value: i64,
    /// The reasons it applies to (`None` = all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<String>>,
    /// The reasons whose minimum it sets.
    pub binding: Vec<Reason>,
    /// When its (merged) window closes; absent for unscheduled budgets or when it never
    /// closes (see `neverCloses`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_until: Option<DateTime<Utc>>,
    /// A scheduled budget whose windows never break.
    pub never_closes: bool,
}

/// One budget's state at the instant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetState {
    /// Index in the list.
    pub index: usize,
    /// Field path of the budget.
    pub path: String,
    /// `nodes` (default applied).
    pub nodes: String,
    /// `schedule`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// `duration`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// `reasons` (`None` = all reasons).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<String>>,
    /// Active now.
    pub active: bool,
    /// Value now (2147483647 when inactive, 0 on error).
    pub value: i64,
    /// Runtime error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<BudgetError>,
    /// If active and scheduled: end of the merged window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_until: Option<DateTime<Utc>>,
    /// If inactive: next window start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_open: Option<DateTime<Utc>>,
    /// If inactive: end of that window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_close: Option<DateTime<Utc>>,
    /// Scheduled and the windows never break (or it never fires: always active).
    pub never_closes: bool,
    /// Active spans within the horizon.
    pub windows: Vec<ActiveSpan>,
}
