//! Rollout results, and the one place where reasons become words.

use super::plan::{MemberReason, Rollout};
use super::staged::Layer;
use crate::input::Diagnostic;
use serde::Serialize;

/// A validation result with the layer that would refuse the object (rollout.md B.2).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayeredFinding {
    /// CRD, webhook, controller at run initialisation, or this engine.
    pub layer: Layer,
    /// Where and what (also listed in `errors` or `warnings`).
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
}

/// Result of [`crate::rollout`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutReport {
    /// One entry per rollout.
    pub rollouts: Vec<Rollout>,
    /// Validation findings with their layer.
    pub findings: Vec<LayeredFinding>,
    /// Errors in the input.
    pub errors: Vec<Diagnostic>,
    /// Warnings about the input.
    pub warnings: Vec<Diagnostic>,
    /// Facts about the input as a whole (hand-written clusters, ignored kinds, stale
    /// heartbeats), each stated once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<crate::notice::Notice>,
}

/// A member reason in words.
pub fn member_reason_text(r: &MemberReason) -> String {
    match r {
        MemberReason::AlreadyAtTarget { target } => {
            format!("already at the target Kubernetes version {target}")
        }
        MemberReason::NewerThanTarget { current, target } => {
            format!("on {current}, newer than the target {target}; members are never downgraded")
        }
        MemberReason::MinorVersionSkewTooLarge { current, target } => format!(
            "on {current}, more than one minor below the target {target}; auto-upgrade does not move it (bring it in line with a manual update run first)"
        ),
        MemberReason::NodeImagesAtSelection => {
            "every node pool is on the selected node image or has no image to move to".to_string()
        }
        MemberReason::UserSkipped => "skipped by the user".to_string(),
        MemberReason::MinorVersionSkipRejected { current, target } => format!(
            "AKS rejects an upgrade from {current} to {target}: it skips a minor version"
        ),
        MemberReason::DowngradeRejected { current, target } => {
            format!("AKS rejects a downgrade from {current} to {target}")
        }
        MemberReason::InjectedFailure => "what-if: the update operation fails".to_string(),
        MemberReason::InjectedPending => {
            "what-if: its maintenance window never opens".to_string()
        }
        MemberReason::BindingPreempted => {
            "its binding was changed under the run (preempted); the run fails".to_string()
        }
        MemberReason::ApplyFailed => {
            "its binding failed to apply; the run retries it and is marked stuck".to_string()
        }
        MemberReason::GroupNotInStrategy { group: Some(g) } => {
            format!("its group \"{g}\" is not named in the strategy, so it is not part of the run")
        }
        MemberReason::GroupNotInStrategy { group: None } => {
            "it has no group, so it is not part of the run".to_string()
        }
        MemberReason::NoWindowWithinHorizon => {
            "its maintenance window does not open within the simulated horizon".to_string()
        }
        MemberReason::OtherFleet { fleet, run_fleet } => {
            format!("it is a member of fleet \"{fleet}\", not of the run's fleet \"{run_fleet}\"")
        }
    }
}
