//! The [ASSUME] items of rollout.md applied to a rollout, with the option values in force.

use super::options::{
    AllSkippedRunState, EmptyGroups, RollingChange, RolloutOptions, SiblingGroupsOnFailure,
    TieBreak, UngroupedMembers,
};
use super::plan::Assumption;

fn a(option: &str, value: String, rule: &str, text: &str) -> Assumption {
    Assumption {
        option: option.to_string(),
        value,
        rule: rule.to_string(),
        text: text.to_string(),
    }
}

/// Assumptions behind an Azure run's plan and simulation.
pub fn azure(o: &RolloutOptions) -> Vec<Assumption> {
    let z = &o.azure;
    vec![
        a("azure.fourHourBoundaryInclusive", z.four_hour_boundary_inclusive.to_string(), "R-AZ-31",
          "a window opening exactly 4 hours after the pick is bucket 2"),
        a("azure.tieBreak", match z.tie_break {
            TieBreak::BucketWindowStartName => "bucket,windowStart,name",
            TieBreak::BucketName => "bucket,name",
        }.to_string(), "R-AZ-33", "order inside a bucket: next window start (bucket 2 only), then member name"),
        a("azure.reevaluateBucketsEachPick", z.reevaluate_buckets_each_pick.to_string(), "R-AZ-34",
          "buckets are recomputed whenever a group picks its next member"),
        a("azure.pendingWaitsForWindow", "true".to_string(), "R-AZ-35",
          "when every remaining member is Pending the group sleeps until the earliest window opens; no pre-emption of a running member"),
        a("azure.startOnlyInWindow", "true".to_string(), "R-AZ-36",
          "an update starts only while the member's window is open; it need not finish inside it"),
        a("azure.skippedStageRunsWait", z.skipped_stage_runs_wait.to_string(), "R-AZ-43",
          "a stage whose groups were all skipped does not run its after-stage wait"),
        a("azure.siblingGroupsOnFailure", match z.sibling_groups_on_failure {
            SiblingGroupsOnFailure::Stopped => "Stopped",
            SiblingGroupsOnFailure::Failed => "Failed",
        }.to_string(), "R-AZ-41", "after a failure, groups with unstarted members show this state; running members finish"),
        a("azure.ungroupedMembers", match z.ungrouped_members {
            UngroupedMembers::Exclude => "exclude",
            UngroupedMembers::Error => "error",
        }.to_string(), "R-AZ-9", "members whose group the strategy does not name are not part of the run"),
        a("azure.allStagesSkippedRunState", match z.all_stages_skipped_run_state {
            AllSkippedRunState::Skipped => "Skipped",
            AllSkippedRunState::Completed => "Completed",
        }.to_string(), "R-AZ-44", "run state when every stage was skipped"),
        a("azure.emptyGroups", match z.empty_groups {
            EmptyGroups::Error => "error",
            EmptyGroups::Warning => "warning",
        }.to_string(), "R-AZ-8", "a strategy group that matches no member"),
        a("defaultDuration", o.default_duration.clone().unwrap_or_else(|| "1h".to_string()), "simulation",
          "update time of a member without its own duration; zero controller latency"),
    ]
}

/// Assumptions behind a KubeFleet staged run's simulation.
pub fn staged(o: &RolloutOptions) -> Vec<Assumption> {
    vec![
        a("kubefleet.rejectDuplicateStageNames", o.kubefleet.reject_duplicate_stage_names.to_string(), "R-KF-7",
          "duplicate stage names are rejected, stricter than KubeFleet"),
        a("kubefleet.stuckThreshold", o.kubefleet.stuck_threshold.clone(), "R-KF-36",
          "an in-flight cluster older than this marks the run UpdateRunStuck; failures are retried, never fail the run"),
        a("approvalBeforeRequest", "effective when the request is created".to_string(), "R-KF-32/37",
          "an approval given before its request exists takes effect when the request is created"),
        a("defaultDuration", o.default_duration.clone().unwrap_or_else(|| "2m".to_string()), "simulation",
          "time for a cluster to become Available after it starts; zero controller latency"),
    ]
}

/// Assumptions behind a RollingUpdate simulation.
pub fn rolling(o: &RolloutOptions) -> Vec<Assumption> {
    vec![
        a("kubefleet.rollingChange", match o.kubefleet.rolling_change {
            RollingChange::InPlace => "inPlace",
            RollingChange::FirstPlacement => "firstPlacement",
        }.to_string(), "R-KF-44/45",
          "in-place change of clusters that hold the resources (waves); firstPlacement binds all at once"),
        a("kubefleet.untrackableResources", o.kubefleet.untrackable_resources.to_string(), "R-KF-42",
          "untrackable resources count as ready only unavailablePeriodSeconds after they became available"),
        a("bindingOrder", "cluster name".to_string(), "R-KF-43",
          "bindings are listed by name, <placement>-<cluster>-<suffix>, so effectively by cluster name"),
        a("defaultDuration", o.default_duration.clone().unwrap_or_else(|| "2m".to_string()), "simulation",
          "time for a cluster to become Available after it starts"),
    ]
}
