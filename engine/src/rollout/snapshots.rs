//! KubeFleet resource snapshot history (rollout.md B.6, R-KF-50/51).
use serde::Serialize;
use std::collections::BTreeMap;

/// What creating a new snapshot group does to the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSnapshot {
    /// Group indices deleted first (oldest first).
    pub deleted: Vec<i64>,
    /// Old indices kept.
    pub kept: Vec<i64>,
    /// Index of the new group (`previous + 1`, 0 for the first).
    pub new_index: i64,
    /// `<placement>-<index>-snapshot`.
    pub new_master_name: String,
    /// Groups that exist afterwards.
    pub groups_after: usize,
    /// `kubernetes-fleet.io/is-latest-snapshot` per remaining index.
    pub latest_label: BTreeMap<i64, bool>,
}

/// `deleteRedundantResourceSnapshots` then creation: at most `limit - 1` old groups remain,
/// so `limit` groups exist after the new one (`revisionHistoryLimit` counts groups, default 10).
pub fn new_snapshot(placement: &str, revision_history_limit: i64, existing: &[i64]) -> NewSnapshot {
    let mut groups: Vec<i64> = existing.to_vec();
    groups.sort_unstable();
    groups.dedup();
    let limit = revision_history_limit.max(1) as usize;
    let keep = limit - 1;
    let cut = groups.len().saturating_sub(keep);
    let (deleted, kept) = groups.split_at(cut);
    let (deleted, kept) = (deleted.to_vec(), kept.to_vec());
    let new_index = groups.last().map_or(0, |l| l + 1);
    let mut latest_label: BTreeMap<i64, bool> = kept.iter().map(|i| (*i, false)).collect();
    latest_label.insert(new_index, true);
    NewSnapshot {
        groups_after: kept.len() + 1,
        deleted,
        kept,
        new_index,
        new_master_name: format!("{placement}-{new_index}-snapshot"),
        latest_label,
    }
}
