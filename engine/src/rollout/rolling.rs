//! KubeFleet `ClusterResourcePlacement.spec.strategy` RollingUpdate: budgets, one reconcile of
//! the rollout controller (`pickBindingsToRoll`) and the in-place waves they produce
//! (rollout.md B.5, R-KF-40 … R-KF-46).

use super::intstr::{IntOrString, Rounding};
use serde::{Deserialize, Serialize};

/// `placementType` of the CRP policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum PlacementType {
    /// All matching clusters.
    PickAll,
    /// `numberOfClusters` clusters.
    PickN,
    /// The listed `clusterNames`.
    PickFixed,
}

/// `strategy.rollingUpdate` with the KubeFleet defaults applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RollingUpdateConfig {
    /// Default `25%`.
    pub max_unavailable: IntOrString,
    /// Default `25%`.
    pub max_surge: IntOrString,
    /// Default 60.
    pub unavailable_period_seconds: i64,
}

impl Default for RollingUpdateConfig {
    fn default() -> Self {
        RollingUpdateConfig {
            max_unavailable: IntOrString::String("25%".into()),
            max_surge: IntOrString::String("25%".into()),
            unavailable_period_seconds: 60,
        }
    }
}

/// The budget numbers for a target count and the in-place waves they give (R-KF-41, R-KF-44).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// `ceil(maxUnavailable × target)`, integers as is.
    pub max_unavailable_number: i64,
    /// `ceil(maxSurge × target)`, integers as is.
    pub max_surge_number: i64,
    /// Wave sizes of an in-place change of `target` ready clusters; `None` when blocked
    /// (`maxUnavailable` resolves to 0).
    pub in_place_waves: Option<Vec<i64>>,
}

/// Computes the budget of a RollingUpdate for `target` clusters. Errors are the
/// apimachinery scaling errors.
pub fn budget(
    target: i64,
    max_unavailable: &IntOrString,
    max_surge: &IntOrString,
) -> Result<Budget, String> {
    let u = max_unavailable.scaled(target, Rounding::Up)?;
    let s = max_surge.scaled(target, Rounding::Up)?;
    Ok(Budget {
        max_unavailable_number: u,
        max_surge_number: s,
        in_place_waves: in_place_waves(target, u),
    })
}

/// `calculateMaxToRemove`: how many bindings one reconcile may take down, with
/// `lower_bound_available` (ready, less those being deleted) and `max_unavailable_number`
/// (`ceil(maxUnavailable × target)`): the excess over `target - max_unavailable_number`.
pub fn max_to_remove(target: i64, max_unavailable_number: i64, lower_bound_available: i64) -> i64 {
    lower_bound_available - (target - max_unavailable_number)
}

/// Wave sizes for `n` clusters moving `u` at a time; `None` if `u <= 0` (blocked).
pub fn in_place_waves(n: i64, u: i64) -> Option<Vec<i64>> {
    if u <= 0 {
        return if n <= 0 { Some(Vec::new()) } else { None };
    }
    let mut waves = Vec::new();
    let mut left = n;
    while left > 0 {
        let w = left.min(u);
        waves.push(w);
        left -= w;
    }
    Some(waves)
}

/// `spec.state` of a `ClusterResourceBinding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum BindingState {
    /// Picked by the scheduler, not yet bound.
    Scheduled,
    /// Bound: resources are (being) applied.
    Bound,
    /// No longer picked; resources are to be removed.
    Unscheduled,
}

/// What a binding's conditions say about its health (rolling-pick cases' vocabulary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum BindingHealth {
    /// Applied and Available (trackable) for the current generation.
    Ready,
    /// Applied, not yet Available.
    CanBeReady,
    /// `Applied=False`.
    FailedToApply,
    /// Available for the current generation with a not-trackable reason
    /// (`WorkNotAvailabilityTrackable` / `WorkNotAllManifestsTrackable`): ready only once it
    /// has been available for longer than `unavailablePeriodSeconds`
    /// (`availableForSeconds` says for how long).
    NotTrackable,
    /// No conditions yet.
    NoStatus,
}

/// One binding as the rollout controller sees it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingView {
    /// Target cluster.
    pub cluster: String,
    /// `spec.state`.
    pub state: BindingState,
    /// `spec.resourceSnapshotName`.
    pub snapshot: String,
    /// Health from the conditions.
    pub health: BindingHealth,
    /// `metadata.deletionTimestamp` set.
    #[serde(default)]
    pub deleting: bool,
    /// For [`BindingHealth::NotTrackable`]: seconds since its Available condition turned
    /// True (the evaluation instant minus `lastTransitionTime`).
    #[serde(default)]
    pub available_for_seconds: Option<i64>,
}

/// `isBindingReady` (kubefleet `pkg/controllers/rollout/controller.go`): whether the binding
/// counts as ready, and if not, how long until it would (`None`: unknown, it waits for a
/// status change instead).
fn is_binding_ready(b: &BindingView, period: i64) -> Result<(bool, Option<i64>), String> {
    match b.health {
        BindingHealth::Ready => Ok((true, None)),
        BindingHealth::NotTrackable => {
            let since = b.available_for_seconds.ok_or_else(|| {
                format!(
                    "binding on {}: a not-trackable binding needs availableForSeconds",
                    b.cluster
                )
            })?;
            // waitTime = lastTransitionTime - (now - period); ready only when negative, so
            // exactly `period` seconds of availability is not yet ready, with a wait of 0.
            let wait = period - since;
            Ok(if wait < 0 {
                (true, None)
            } else {
                (false, Some(wait))
            })
        }
        BindingHealth::CanBeReady | BindingHealth::FailedToApply | BindingHealth::NoStatus => {
            Ok((false, None))
        }
    }
}

/// The placement policy parts the target number needs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyView {
    /// Placement type.
    #[serde(rename = "type", alias = "placementType")]
    pub placement_type: PlacementType,
    /// For PickN.
    #[serde(default)]
    pub number_of_clusters: Option<i64>,
    /// For PickFixed.
    #[serde(default)]
    pub cluster_names: Vec<String>,
}

/// The result of one `pickBindingsToRoll` (indices into the input bindings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pick {
    /// Bindings moved this round, in the controller's order.
    pub to_be_updated: Vec<usize>,
    /// Update and bounding candidates not picked (`RolloutStarted=False`).
    pub stale_unselected: Vec<usize>,
    /// Bound bindings already on the latest snapshot.
    pub up_to_date: Vec<usize>,
    /// Whether there was anything to roll.
    pub need_roll: bool,
    /// Requeue delay in seconds: 0 when every Bound and Unscheduled binding is ready, else
    /// the smallest known not-ready wait, at most `unavailablePeriodSeconds`.
    pub requeue_after_seconds: i64,
    /// The target number used.
    pub target: i64,
}

/// `calculateRealTarget` (R-KF-40).
pub fn real_target(policy: &PolicyView, bindings: &[BindingView]) -> i64 {
    match policy.placement_type {
        PlacementType::PickN => policy.number_of_clusters.unwrap_or(0),
        PlacementType::PickFixed => policy.cluster_names.len() as i64,
        PlacementType::PickAll => bindings
            .iter()
            .filter(|b| matches!(b.state, BindingState::Scheduled | BindingState::Bound))
            .count() as i64,
    }
}

/// One reconcile of the rollout controller (`pickBindingsToRoll` + `determineBindingsToUpdate`,
/// R-KF-42/43). `target` overrides the policy's number when given.
pub fn pick_bindings_to_roll(
    policy: &PolicyView,
    config: &RollingUpdateConfig,
    latest_snapshot: &str,
    bindings: &[BindingView],
) -> Result<Pick, String> {
    let mut ready = 0i64;
    let mut can_be_ready = 0i64;
    let mut can_be_unavailable = 0i64;
    let mut bounding = Vec::new();
    let mut remove = Vec::new();
    let mut update = Vec::new();
    let mut apply_failed = Vec::new();
    let mut up_to_date = Vec::new();
    // pickBindingsToRoll: wait for the first not-ready binding; with every binding ready the
    // controller requeues at once (TestPickBindingsToRoll pins wantWaitTime: 0). Scheduled
    // bindings are never checked for readiness.
    let mut min_wait = config.unavailable_period_seconds;
    let mut all_ready = true;
    for (i, b) in bindings.iter().enumerate() {
        let failed = b.health == BindingHealth::FailedToApply;
        let is_ready = if b.state == BindingState::Scheduled {
            false
        } else {
            let (ready, wait) = is_binding_ready(b, config.unavailable_period_seconds)?;
            if !ready {
                all_ready = false;
                if let Some(w) = wait.filter(|w| *w < min_wait) {
                    min_wait = w;
                }
            }
            ready
        };
        match b.state {
            BindingState::Unscheduled => {
                if !failed {
                    can_be_ready += 1;
                }
                if is_ready {
                    ready += 1;
                }
                if !b.deleting {
                    remove.push(i);
                } else if is_ready {
                    can_be_unavailable += 1;
                }
            }
            BindingState::Scheduled => bounding.push(i),
            BindingState::Bound => {
                if is_ready {
                    ready += 1;
                }
                if !failed {
                    can_be_ready += 1;
                }
                if !b.deleting {
                    if b.snapshot != latest_snapshot {
                        if failed {
                            apply_failed.push(i);
                        } else {
                            update.push(i);
                        }
                    } else {
                        up_to_date.push(i);
                    }
                } else if is_ready {
                    can_be_unavailable += 1;
                }
            }
        }
    }
    if all_ready {
        min_wait = 0;
    }
    let target = real_target(policy, bindings);
    let need_roll =
        !(remove.is_empty() && update.is_empty() && bounding.is_empty() && apply_failed.is_empty());
    let mut pick = Pick {
        to_be_updated: Vec::new(),
        stale_unselected: Vec::new(),
        up_to_date,
        need_roll,
        requeue_after_seconds: min_wait,
        target,
    };
    if !need_roll {
        return Ok(pick);
    }
    let max_unavailable = config.max_unavailable.scaled(target, Rounding::Up)?;
    let max_to_remove = max_to_remove(target, max_unavailable, ready - can_be_unavailable);
    pick.to_be_updated.extend(apply_failed.iter().copied());
    let mut update_unselected = 0usize;
    if max_to_remove > 0 {
        let budget = max_to_remove as usize;
        let from_remove = budget.min(remove.len());
        pick.to_be_updated
            .extend(remove.iter().take(from_remove).copied());
        let from_update = (budget - from_remove).min(update.len());
        pick.to_be_updated
            .extend(update.iter().take(from_update).copied());
        update_unselected = from_update;
    }
    let max_surge = config.max_surge.scaled(target, Rounding::Up)?;
    let max_to_add = target + max_surge - can_be_ready;
    let mut bounding_unselected = 0usize;
    if max_to_add > 0 {
        let n = (max_to_add as usize).min(bounding.len());
        pick.to_be_updated.extend(bounding.iter().take(n).copied());
        bounding_unselected = n;
    }
    pick.stale_unselected
        .extend(update.iter().skip(update_unselected).copied());
    pick.stale_unselected
        .extend(bounding.iter().skip(bounding_unselected).copied());
    Ok(pick)
}
