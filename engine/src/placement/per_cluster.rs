//! The CRP's `status.perClusterPlacementStatuses` (spec §8.4): how the placement controller
//! shows the scheduler's decisions per cluster. Only the `Scheduled` condition is modelled;
//! the rollout/apply conditions that follow it come from member agents, not the scheduler.

use super::report::{Decision, PlacementResult};
use super::schedule::PlacementType;
use super::status::ReasonText;
use serde::Serialize;
use std::sync::Arc;

/// One `perClusterPlacementStatuses[]` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerClusterPlacementStatus {
    /// The selected cluster; absent on the entries that stand for clusters the policy wanted
    /// but could not get (`ScheduleFailed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_name: Option<Arc<str>>,
    /// The `Scheduled` condition (an array in the API; one entry here, held inline so a
    /// PickAll over thousands of clusters does not allocate a list per cluster).
    pub conditions: [ScheduledCondition; 1],
}

/// The `Scheduled` condition of an entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduledCondition {
    /// Always `Scheduled`.
    #[serde(rename = "type")]
    pub type_: &'static str,
    /// `True` for a selected cluster, `False` for a shortfall entry.
    pub status: &'static str,
    /// `Scheduled` or `ScheduleFailed`.
    pub reason: &'static str,
    /// The decision's reason text (written when read or serialised, like the decision's).
    pub message: ReasonText,
}

/// The entries for a scheduled placement: every selected decision (`Scheduled=True`), then,
/// for PickN and PickFixed, one `ScheduleFailed` entry per missing cluster (`wanted` minus
/// the selected count), taken from the first unselected decisions and capped at their number.
/// PickAll adds none. `wanted` is `numberOfClusters` (PickN) or the `clusterNames` count
/// (PickFixed).
pub fn statuses(
    placement_type: PlacementType,
    wanted: usize,
    decisions: &[Decision],
) -> Vec<PerClusterPlacementStatus> {
    let count = decisions.iter().filter(|d| d.selected).count();
    let failed = match placement_type {
        PlacementType::PickAll => 0,
        PlacementType::PickN | PlacementType::PickFixed => wanted.saturating_sub(count),
    };
    // Sized once: a PickAll over thousands of clusters would otherwise regrow (and copy) it.
    let mut out = Vec::with_capacity(count + failed.min(decisions.len().saturating_sub(count)));
    out.extend(
        decisions
            .iter()
            .filter(|d| d.selected)
            .map(|d| PerClusterPlacementStatus {
                cluster_name: Some(d.cluster_name.clone()),
                conditions: [ScheduledCondition {
                    type_: "Scheduled",
                    status: "True",
                    reason: "Scheduled",
                    message: d.reason.clone(),
                }],
            }),
    );
    out.extend(
        decisions
            .iter()
            .filter(|d| !d.selected)
            .take(failed)
            .map(|d| PerClusterPlacementStatus {
                cluster_name: None,
                conditions: [ScheduledCondition {
                    type_: "Scheduled",
                    status: "False",
                    reason: "ScheduleFailed",
                    message: d.reason.clone(),
                }],
            }),
    );
    out
}

/// Fills [`PlacementResult::per_cluster_placement_statuses`] unless the cycle aborted (then
/// nothing is written, as the scheduler writes no status).
pub fn fill(result: &mut PlacementResult, placement_type: PlacementType, wanted: usize) {
    if result.cycle_error.is_none() {
        result.per_cluster_placement_statuses = statuses(placement_type, wanted, &result.decisions);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(name: &str, selected: bool) -> Decision {
        Decision {
            cluster_name: name.into(),
            selected,
            cluster_score: None,
            reason: format!("reason of {name}").into(),
        }
    }

    #[test]
    fn pick_n_short_of_clusters_adds_schedule_failed_entries_without_names() {
        let d = [
            decision("a", true),
            decision("b", false),
            decision("c", false),
            decision("d", false),
        ];
        let s = statuses(PlacementType::PickN, 3, &d);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].cluster_name.as_deref(), Some("a"));
        assert_eq!(s[0].conditions[0].reason, "Scheduled");
        assert_eq!(&*s[0].conditions[0].message, "reason of a");
        assert_eq!(s[1].cluster_name, None);
        assert_eq!(s[1].conditions[0].status, "False");
        assert_eq!(s[1].conditions[0].reason, "ScheduleFailed");
        assert_eq!(&*s[1].conditions[0].message, "reason of b");
        assert_eq!(&*s[2].conditions[0].message, "reason of c");
    }

    #[test]
    fn shortfall_is_capped_by_the_unselected_decisions_and_pick_all_adds_none() {
        let d = [decision("a", true), decision("b", false)];
        assert_eq!(statuses(PlacementType::PickFixed, 5, &d).len(), 2);
        assert_eq!(statuses(PlacementType::PickAll, 5, &d).len(), 1);
        assert_eq!(statuses(PlacementType::PickN, 1, &d).len(), 1);
    }

    #[test]
    fn a_pick_n_placement_short_of_clusters_shows_the_shortfall_from_the_filtered_decision() {
        let yaml = "
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: a}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: b}
spec:
  taints: [{key: gpu, value: \"true\", effect: NoSchedule}]
---
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: app}
spec:
  resourceSelectors: [{group: \"\", version: v1, kind: Namespace, name: app}]
  policy: {placementType: PickN, numberOfClusters: 3}
";
        let at = chrono::DateTime::UNIX_EPOCH;
        let r = crate::place(
            &[crate::Source::new("t.yaml", yaml)],
            &crate::placement::PlaceOptions::at(at),
        );
        let p = &r.placements[0];
        let s = &p.per_cluster_placement_statuses;
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(s[0].cluster_name.as_deref(), Some("a"));
        assert_eq!(
            &*s[0].conditions[0].message,
            "Successfully scheduled resources for placement in \"a\" (affinity score: 0, topology spread score: 0): picked by scheduling policy"
        );
        assert_eq!(s[1].cluster_name, None);
        assert_eq!(s[1].conditions[0].reason, "ScheduleFailed");
        assert!(
            s[1].conditions[0]
                .message
                .starts_with("ClusterUnschedulable, "),
            "{}",
            s[1].conditions[0].message
        );
    }
}
