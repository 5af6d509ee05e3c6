//! The one normalised plan shape (rollout.md Part C) that Azure update runs, KubeFleet staged
//! update runs and KubeFleet RollingUpdate all map onto:
//! `Plan = [Stage { name, preGates, groups: [Group { name, members, concurrency }], waits }]`.
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::rc::Rc;

/// Which system a rollout belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum System {
    /// Azure Kubernetes Fleet Manager update runs and auto-upgrade.
    AzureFleet,
    /// KubeFleet (CNCF) staged update runs and RollingUpdate.
    Kubefleet,
}

/// A neutral state of a run, stage, group, member or wait. Azure uses its REST names;
/// KubeFleet conditions map onto them as in rollout.md B.4.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
pub enum State {
    /// Not reached yet.
    #[default]
    NotStarted,
    /// In progress.
    Running,
    /// Azure: tried while its maintenance window is closed.
    Pending,
    /// KubeFleet: waiting for a before/after-stage task.
    Waiting,
    /// KubeFleet: an in-flight cluster has run longer than the stuck threshold.
    Stuck,
    /// KubeFleet RollingUpdate: `maxUnavailable` resolves to 0, in-place updates never start.
    Blocked,
    /// Stop requested; in-flight operations finish.
    Stopping,
    /// Stopped; resumable.
    Stopped,
    /// Skipped (at target, user skip, no common image, empty stage).
    Skipped,
    /// Failed.
    Failed,
    /// Done.
    Completed,
    /// KubeFleet: the run failed to initialise (`Initialized=False`).
    InitFailed,
    /// The input is invalid; nothing was planned.
    Invalid,
}

impl State {
    /// The name as results spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            State::NotStarted => "NotStarted",
            State::Running => "Running",
            State::Pending => "Pending",
            State::Waiting => "Waiting",
            State::Stuck => "Stuck",
            State::Blocked => "Blocked",
            State::Stopping => "Stopping",
            State::Stopped => "Stopped",
            State::Skipped => "Skipped",
            State::Failed => "Failed",
            State::Completed => "Completed",
            State::InitFailed => "InitFailed",
            State::Invalid => "Invalid",
        }
    }

    /// Terminal states (Completed, Skipped, Failed, Stopped, InitFailed, Invalid).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            State::Completed
                | State::Skipped
                | State::Failed
                | State::Stopped
                | State::InitFailed
                | State::Invalid
        )
    }
}

/// What a timeline entry is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Subject {
    /// A member cluster.
    Member,
    /// An update group (Azure) or the implicit group of a stage.
    Group,
    /// A stage.
    Stage,
    /// A wait or gate of a stage (`name` is the wait's name).
    Wait,
    /// The run.
    Run,
}

/// One state change on the virtual clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    /// When.
    pub at: DateTime<Utc>,
    /// What kind of object.
    pub subject: Subject,
    // Names are shared with the plan (`Rc<str>`): a run has a few entries per member, and
    // copying names was most of building a report. Not `Arc`: the atomic counts of those
    // copies were a visible part of a run's time, and a report stays on the thread that
    // made it. The serialised text is the same.
    /// Its name (member, group, stage or wait name; the run's name for the run).
    pub name: Rc<str>,
    /// The stage it belongs to (for members, groups and waits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Rc<str>>,
    /// The new state.
    pub state: State,
    /// KubeFleet condition reason or Azure skip reason, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Why a member was skipped, excluded, or failed (data; words come from [`super::report`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all_fields = "camelCase")]
pub enum MemberReason {
    /// Already at the target Kubernetes version (R-AZ-37).
    AlreadyAtTarget {
        /// The target.
        target: String,
    },
    /// Newer than the target; never downgraded (R-AZ-64).
    NewerThanTarget {
        /// Current version.
        current: String,
        /// The target.
        target: String,
    },
    /// More than one minor behind an auto-upgrade target (R-AZ-63).
    MinorVersionSkewTooLarge {
        /// Current version.
        current: String,
        /// The target.
        target: String,
    },
    /// Every node pool is on the selected image or has none to move to (R-AZ-37, R-AZ-51).
    NodeImagesAtSelection,
    /// Skipped by the user (`skip` action).
    UserSkipped,
    /// AKS rejects an upgrade that skips a minor version (R-AZ-38).
    MinorVersionSkipRejected {
        /// Current version.
        current: String,
        /// The target.
        target: String,
    },
    /// AKS rejects downgrades (R-AZ-38).
    DowngradeRejected {
        /// Current version.
        current: String,
        /// The target.
        target: String,
    },
    /// What-if: the operation fails.
    InjectedFailure,
    /// What-if: the member's window never opens.
    InjectedPending,
    /// KubeFleet: the binding was changed under the run (preempted).
    BindingPreempted,
    /// KubeFleet: the binding failed to apply; the run retries it.
    ApplyFailed,
    /// Not in any group named by the strategy (R-AZ-9).
    GroupNotInStrategy {
        /// The member's group, if any.
        group: Option<String>,
    },
    /// Its maintenance window never opens within the simulated horizon.
    NoWindowWithinHorizon,
    /// Azure: a member of another fleet than the run's (their ARM ids say so): a run updates
    /// its own fleet's members only.
    OtherFleet {
        /// The member's fleet.
        fleet: String,
        /// The run's fleet.
        run_fleet: String,
    },
}

/// One member (Azure fleet member or KubeFleet cluster) in a group.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// Member or cluster name.
    pub cluster: Rc<str>,
    /// When its update started.
    pub start: Option<DateTime<Utc>>,
    /// When its update ended.
    pub end: Option<DateTime<Utc>>,
    /// Its state at the observed instant.
    pub state: State,
    /// Azure: maintenance-window bucket (1–4) at the evaluation instant `at`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket: Option<u8>,
    /// Azure: next window opening after `at` (bucket 2 and 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_window_start: Option<DateTime<Utc>>,
    /// Why it was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<MemberReason>,
    /// The reason in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A group of members updated under one concurrency limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// Group name (Azure update group; the stage name for KubeFleet's implicit group).
    pub name: Rc<str>,
    /// Its state at the observed instant.
    pub state: State,
    /// How many members may be in flight at once.
    pub concurrency: u64,
    /// Azure: the order in which the group tries its members when evaluated at `at`
    /// (bucket, window start for bucket 2, name); KubeFleet: the static order.
    pub attempt_order: Vec<Rc<str>>,
    /// Members, in the order they were started (never-started ones last, in attempt order).
    pub members: Vec<Member>,
}

/// What a wait or gate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum WaitKind {
    /// Azure `afterStageWaitInSeconds`.
    AfterStageWait,
    /// KubeFleet after-stage `TimedWait`.
    TimedWait,
    /// KubeFleet approval (before or after the stage); an explicit gate.
    Approval,
}

impl WaitKind {
    /// The name as results spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            WaitKind::AfterStageWait => "AfterStageWait",
            WaitKind::TimedWait => "TimedWait",
            WaitKind::Approval => "Approval",
        }
    }
}

/// Before or after the stage's members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Placement {
    /// A gate before any member starts.
    Before,
    /// After every member finished.
    After,
}

/// A wait or approval gate of a stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Wait {
    /// Kind.
    pub kind: WaitKind,
    /// Before or after the stage.
    pub placement: Placement,
    /// Name: the stage name for Azure waits, the approval request name for approvals.
    pub name: String,
    /// Planned length in seconds (timed waits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<i64>,
    /// When it started.
    pub start: Option<DateTime<Utc>>,
    /// When it ended (approval given, time elapsed, or skipped).
    pub end: Option<DateTime<Utc>>,
    /// Its state at the observed instant.
    pub state: State,
}

/// A stage of a plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stage {
    /// Stage name.
    pub name: Rc<str>,
    /// Its state at the observed instant.
    pub state: State,
    /// KubeFleet condition reason for the state (`StageUpdatingSkippedNoClusters` …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it started.
    pub start: Option<DateTime<Utc>>,
    /// When it ended.
    pub end: Option<DateTime<Utc>>,
    /// Groups, run in parallel.
    pub groups: Vec<Group>,
    /// Waits and gates (before-stage approvals first).
    pub waits: Vec<Wait>,
    /// KubeFleet deletion stage (`kubernetes-fleet.io/deleteStage`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deletion: bool,
}

/// A member left out of the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Excluded {
    /// Member name.
    pub cluster: String,
    /// Why.
    pub reason: MemberReason,
    /// Why, in words.
    pub message: String,
}

/// An assumption (rollout.md [ASSUME] item) applied to a rollout, with its option value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Assumption {
    /// Option name (`azure.fourHourBoundaryInclusive`).
    pub option: String,
    /// The value used.
    pub value: String,
    /// Rule id in rollout.md.
    pub rule: String,
    /// What it means.
    pub text: String,
}

/// The upgrade an Azure run performs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpgradeSummary {
    /// `Full`, `ControlPlaneOnly` or `NodeImageOnly`.
    #[serde(rename = "type")]
    pub upgrade_type: String,
    /// Target Kubernetes version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kubernetes_version: Option<String>,
    /// `Latest` or `Consistent`.
    pub node_image_selection: String,
    /// Consistent: image picked per image type when the run starts (None = no common image).
    #[serde(skip_serializing_if = "crate::sorted_map::SortedMap::is_empty")]
    pub selected_node_image_versions: crate::sorted_map::SortedMap<String, Option<String>>,
}

/// One planned and simulated rollout.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rollout {
    /// The run's (or placement's, or profile's) name.
    pub name: String,
    /// Input kind: `UpdateRun`, `AutoUpgradeProfile`, `ClusterStagedUpdateRun`,
    /// `ClusterResourcePlacement` (RollingUpdate).
    pub kind: String,
    /// Which system.
    pub system: System,
    /// Run state at the observed instant.
    pub state: State,
    /// KubeFleet condition reason of the run state, or an Azure failure reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why the run could not start (init failures), in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When the run started.
    pub start: Option<DateTime<Utc>>,
    /// When it reached a terminal state.
    pub end: Option<DateTime<Utc>>,
    /// Azure: the upgrade.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<UpgradeSummary>,
    /// Stages, in order.
    pub stages: Vec<Stage>,
    /// Members not part of the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<Excluded>,
    /// Every state change, in time order.
    pub timeline: Vec<TimelineEntry>,
    /// Assumptions applied, with the option values used.
    pub assumptions: Vec<Assumption>,
    /// KubeFleet: where the target clusters came from, and where bindings given in the input
    /// differ from the scheduler's decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<Targets>,
}

/// Where a KubeFleet rollout's clusters came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Targets {
    /// The placement decision, or the bindings in the input.
    pub source: TargetSource,
    /// The clusters the rollout reaches (selected), in name order.
    pub clusters: Vec<String>,
    /// Given bindings that the scheduler would not keep or pick now (bindings only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_in_bindings: Vec<String>,
    /// Clusters the scheduler picks now that have no binding in the input (bindings only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_in_placement: Vec<String>,
}

/// Source of a KubeFleet rollout's target clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TargetSource {
    /// The placement engine's decision for the placement (no bindings in the input).
    Placement,
    /// The `ClusterResourceBinding`s in the input (the truth when given).
    Bindings,
    /// Neither: the placement was not scheduled (its cycle failed), so nothing is targeted.
    None,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serialised_names() {
        use State::*;
        for s in [
            NotStarted, Running, Pending, Waiting, Stuck, Blocked, Stopping, Stopped, Skipped,
            Failed, Completed, InitFailed, Invalid,
        ] {
            assert_eq!(serde_json::json!(s), s.as_str());
        }
        for w in [
            WaitKind::AfterStageWait,
            WaitKind::TimedWait,
            WaitKind::Approval,
        ] {
            assert_eq!(serde_json::json!(w), w.as_str());
        }
    }
}
