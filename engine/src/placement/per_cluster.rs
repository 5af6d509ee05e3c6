//! The CRP's `status.perClusterPlacementStatuses` (spec §8.4): how the placement controller
//! shows the scheduler's decisions per cluster. Only the `Scheduled` condition is modelled;
//! the rollout/apply conditions that follow it come from member agents, not the scheduler.

use super::report::{Decision, PlacementResult};
use super::schedule::PlacementType;
use super::status::ReasonText;
use serde::Serialize;

/// One `perClusterPlacementStatuses[]` entry, a view of a decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerClusterPlacementStatus<'a> {
    /// The selected cluster; absent on the entries that stand for clusters the policy wanted
    /// but could not get (`ScheduleFailed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_name: Option<&'a str>,
    /// The `Scheduled` condition (an array in the API; one entry here).
    pub conditions: [ScheduledCondition<'a>; 1],
}

/// The `Scheduled` condition of an entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduledCondition<'a> {
    /// Always `Scheduled`.
    #[serde(rename = "type")]
    pub type_: &'static str,
    /// `True` for a selected cluster, `False` for a shortfall entry.
    pub status: &'static str,
    /// `Scheduled` or `ScheduleFailed`.
    pub reason: &'static str,
    /// The decision's reason text.
    pub message: &'a ReasonText,
}

/// Which of a result's decisions its `perClusterPlacementStatuses` show: every selected
/// decision (`Scheduled=True`), then, for PickN and PickFixed, one `ScheduleFailed` entry per
/// missing cluster, taken from the first unselected decisions. Every entry is a decision's
/// name and reason under a fixed condition, so the entries are not stored but read from the
/// decisions ([`PlacementResult::per_cluster_placement_statuses`]) and written when the
/// result is serialised: a PickAll over thousands of clusters holds one list, not two.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerClusterStatuses {
    /// Whether the scheduler wrote a status (not when the cycle aborted).
    written: bool,
    /// `ScheduleFailed` entries: `wanted` minus the selected count, capped at the number of
    /// unselected decisions.
    failed: usize,
}

impl PerClusterStatuses {
    /// The statuses for a scheduled placement's decisions. PickAll adds no `ScheduleFailed`
    /// entry; `wanted` is `numberOfClusters` (PickN) or the `clusterNames` count (PickFixed).
    pub fn new(placement_type: PlacementType, wanted: usize, decisions: &[Decision]) -> Self {
        let count = decisions.iter().filter(|d| d.selected).count();
        let failed = match placement_type {
            PlacementType::PickAll => 0,
            PlacementType::PickN | PlacementType::PickFixed => wanted.saturating_sub(count),
        };
        PerClusterStatuses {
            written: true,
            failed: failed.min(decisions.len().saturating_sub(count)),
        }
    }

    /// The entries, as views of `decisions` (the ones [`Self::new`] was given).
    pub fn entries(
        self,
        decisions: &[Decision],
    ) -> impl Iterator<Item = PerClusterPlacementStatus<'_>> + Clone {
        let decisions = if self.written { decisions } else { &[] };
        let selected = decisions
            .iter()
            .filter(|d| d.selected)
            .map(|d| entry(Some(&d.cluster_name), "True", "Scheduled", &d.reason));
        let failed = decisions
            .iter()
            .filter(|d| !d.selected)
            .take(self.failed)
            .map(|d| entry(None, "False", "ScheduleFailed", &d.reason));
        selected.chain(failed)
    }
}

fn entry<'a>(
    cluster_name: Option<&'a str>,
    status: &'static str,
    reason: &'static str,
    message: &'a ReasonText,
) -> PerClusterPlacementStatus<'a> {
    PerClusterPlacementStatus {
        cluster_name,
        conditions: [ScheduledCondition {
            type_: "Scheduled",
            status,
            reason,
            message,
        }],
    }
}

/// Sets [`PlacementResult::per_cluster`] unless the cycle aborted (then nothing is written,
/// as the scheduler writes no status).
pub fn fill(result: &mut PlacementResult, placement_type: PlacementType, wanted: usize) {
    if result.cycle_error.is_none() {
        result.per_cluster = PerClusterStatuses::new(placement_type, wanted, &result.decisions);
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

    fn statuses(
        placement_type: PlacementType,
        wanted: usize,
        decisions: &[Decision],
    ) -> impl Iterator<Item = PerClusterPlacementStatus<'_>> {
        PerClusterStatuses::new(placement_type, wanted, decisions).entries(decisions)
    }

    #[test]
    fn pick_n_short_of_clusters_adds_schedule_failed_entries_without_names() {
        let d = [
            decision("a", true),
            decision("b", false),
            decision("c", false),
            decision("d", false),
        ];
        let s: Vec<_> = statuses(PlacementType::PickN, 3, &d).collect();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].cluster_name, Some("a"));
        assert_eq!(s[0].conditions[0].reason, "Scheduled");
        assert_eq!(&**s[0].conditions[0].message, "reason of a");
        assert_eq!(s[1].cluster_name, None);
        assert_eq!(s[1].conditions[0].status, "False");
        assert_eq!(s[1].conditions[0].reason, "ScheduleFailed");
        assert_eq!(&**s[1].conditions[0].message, "reason of b");
        assert_eq!(&**s[2].conditions[0].message, "reason of c");
    }

    #[test]
    fn shortfall_is_capped_by_the_unselected_decisions_and_pick_all_adds_none() {
        let d = [decision("a", true), decision("b", false)];
        assert_eq!(statuses(PlacementType::PickFixed, 5, &d).count(), 2);
        assert_eq!(statuses(PlacementType::PickAll, 5, &d).count(), 1);
        assert_eq!(statuses(PlacementType::PickN, 1, &d).count(), 1);
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
        let s: Vec<_> = p.per_cluster_placement_statuses().collect();
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(s[0].cluster_name, Some("a"));
        assert_eq!(
            &**s[0].conditions[0].message,
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
