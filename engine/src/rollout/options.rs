//! Options of a rollout evaluation: the instant, the simulation inputs (durations, what-ifs)
//! and the switches for rollout.md's [ASSUME] items, each with its stated default.

use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Options of a rollout evaluation. Every field but `at` has a default, so the CLI's
/// `--set key=value` and the wasm options object can set any subset.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RolloutOptions {
    /// The evaluation instant: maintenance-window buckets are computed here, and it is the
    /// default start of a simulated run.
    #[serde(deserialize_with = "crate::input::rfc3339::utc")]
    pub at: DateTime<Utc>,
    /// When the simulated run starts (default: `at`).
    #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
    pub start: Option<DateTime<Utc>>,
    /// The instant whose states the report shows (default: when the simulation settles).
    #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
    pub observe: Option<DateTime<Utc>>,
    /// Per-member update duration, Go syntax (default: 1h for Azure members, 2m for KubeFleet
    /// clusters). Overridable per member here or with the annotation
    /// `fleet-policy.dev/update-duration` on the member.
    #[serde(default)]
    pub default_duration: Option<String>,
    /// Per-member durations (`{"aks-1": "45m"}`).
    #[serde(default)]
    pub durations: SortedMap<String, String>,
    /// What-if events injected into the simulation.
    #[serde(default)]
    pub events: Vec<WhatIf>,
    /// Shorthand what-if: these members' operations fail (a list, or a comma-separated string).
    #[serde(default, deserialize_with = "string_or_list")]
    pub fail: Vec<String>,
    /// Shorthand what-if: these members stay Pending (their window never opens).
    #[serde(default, deserialize_with = "string_or_list")]
    pub pending: Vec<String>,
    /// Shorthand what-if: the user skips these members before the run starts.
    #[serde(default, deserialize_with = "string_or_list")]
    pub skip: Vec<String>,
    /// KubeFleet: approve every approval request as soon as it is created.
    #[serde(default)]
    pub approve_all: bool,
    /// How far ahead maintenance windows are expanded and the clock may run, in days (366).
    #[serde(default = "default_horizon_days")]
    pub horizon_days: u32,
    /// Azure assumption switches.
    #[serde(default)]
    pub azure: AzureOptions,
    /// KubeFleet assumption switches.
    #[serde(default)]
    pub kubefleet: KubeFleetOptions,
}

/// A list of names, or one string of names separated by commas.
fn string_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct Names;
    impl<'de> serde::de::Visitor<'de> for Names {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of names or a comma-separated string")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Ok(s.split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect())
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut names = Vec::new();
            while let Some(name) = seq.next_element::<String>()? {
                names.push(name);
            }
            Ok(names)
        }
    }
    d.deserialize_any(Names)
}

fn default_horizon_days() -> u32 {
    366
}

impl RolloutOptions {
    /// Options with every default, evaluated at `at`.
    pub fn at(at: DateTime<Utc>) -> Self {
        RolloutOptions {
            at,
            start: None,
            observe: None,
            default_duration: None,
            durations: SortedMap::new(),
            events: Vec::new(),
            fail: Vec::new(),
            pending: Vec::new(),
            skip: Vec::new(),
            approve_all: false,
            horizon_days: default_horizon_days(),
            azure: AzureOptions::default(),
            kubefleet: KubeFleetOptions::default(),
        }
    }
}

/// A what-if event. `at` defaults to the run start.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(
    tag = "action",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum WhatIf {
    /// Stop the run (Azure `stop`, KubeFleet `state: Stop`).
    Stop {
        /// When.
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
    },
    /// Start / resume the run.
    Start {
        /// When.
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
    },
    /// Approve a KubeFleet approval request (`<run>-before-<stage>` / `<run>-after-<stage>`).
    Approve {
        /// When.
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
        /// Request name.
        request: String,
    },
    /// Azure `skip` action on a Member, Group, Stage or AfterStageWait.
    Skip {
        /// When.
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
        /// `Member`, `Group`, `Stage` or `AfterStageWait`.
        #[serde(rename = "type")]
        target_type: SkipTarget,
        /// Target name (the stage name for AfterStageWait).
        name: String,
    },
    /// The member's update operation fails (Azure) / its binding is preempted (KubeFleet).
    Fail {
        /// When (default: when its operation would have ended).
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
        /// Member or cluster.
        #[serde(alias = "cluster")]
        member: String,
    },
    /// The member stays Pending: its window never opens (Azure).
    Pending {
        /// Ignored (always from the start).
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
        /// Member.
        #[serde(alias = "cluster")]
        member: String,
    },
    /// KubeFleet: a binding condition changes (`Applied=False` makes the cluster retry forever;
    /// `True` lets it finish).
    BindingCondition {
        /// When.
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
        /// Cluster.
        cluster: String,
        /// The condition.
        condition: ConditionChange,
    },
    /// KubeFleet: the binding is changed under the run (preemption): the cluster fails.
    BindingSpecChange {
        /// When.
        #[serde(default, deserialize_with = "crate::input::rfc3339::utc_opt")]
        at: Option<DateTime<Utc>>,
        /// Cluster.
        cluster: String,
        /// The new binding state (informational).
        #[serde(default)]
        state: Option<String>,
    },
}

/// A condition as set by a what-if.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConditionChange {
    /// Condition type (`Applied`, `Available`).
    #[serde(rename = "type")]
    pub condition_type: String,
    /// `"True"` or `"False"`.
    pub status: String,
}

/// Target type of an Azure `skip` action.
// `Default` is only the options reader's placeholder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum SkipTarget {
    /// One member.
    #[default]
    Member,
    /// A group and its members.
    Group,
    /// A stage, its groups, members and wait.
    Stage,
    /// A stage's after-stage wait.
    AfterStageWait,
}

/// How groups with unstarted members look after a failure elsewhere (R-AZ-41).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum SiblingGroupsOnFailure {
    /// `Stopped` (default).
    Stopped,
    /// `Failed`.
    Failed,
}

/// What to do with members whose group the strategy does not name (R-AZ-9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum UngroupedMembers {
    /// List them as excluded (default).
    Exclude,
    /// Report an error.
    Error,
}

/// Severity of a strategy group that matches no member (R-AZ-8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EmptyGroups {
    /// An error: the run is not planned (default, as Azure is believed to reject it).
    Error,
    /// A warning; the group is Skipped.
    Warning,
}

/// Run state when every stage was skipped (R-AZ-44).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum AllSkippedRunState {
    /// `Skipped` (default).
    Skipped,
    /// `Completed`.
    Completed,
}

/// Order inside one bucket (R-AZ-33).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum TieBreak {
    /// `bucket,windowStart,name` (default): bucket-2 members by next window start, then name.
    #[serde(rename = "bucket,windowStart,name")]
    BucketWindowStartName,
    /// `bucket,name`.
    #[serde(rename = "bucket,name")]
    BucketName,
}

/// Azure assumption switches (rollout.md Part C), defaults as stated there.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AzureOptions {
    /// R-AZ-31: a window opening exactly at t+4h is bucket 2 (true).
    pub four_hour_boundary_inclusive: bool,
    /// R-AZ-33 (`bucket,windowStart,name`).
    pub tie_break: TieBreak,
    /// R-AZ-34: buckets are recomputed at every pick (true); false freezes the order when the
    /// group starts.
    pub reevaluate_buckets_each_pick: bool,
    /// R-AZ-43: a stage whose groups were all skipped still runs its wait (false).
    pub skipped_stage_runs_wait: bool,
    /// R-AZ-41 (`Stopped`).
    pub sibling_groups_on_failure: SiblingGroupsOnFailure,
    /// R-AZ-9 (`exclude`).
    pub ungrouped_members: UngroupedMembers,
    /// R-AZ-44 (`Skipped`).
    pub all_stages_skipped_run_state: AllSkippedRunState,
    /// R-AZ-8 (`error`).
    pub empty_groups: EmptyGroups,
    /// R-AZ-7: warn when `afterStageWaitInSeconds` exceeds this (86400).
    pub after_stage_wait_warn_seconds: i64,
}

impl Default for AzureOptions {
    fn default() -> Self {
        AzureOptions {
            four_hour_boundary_inclusive: true,
            tie_break: TieBreak::BucketWindowStartName,
            reevaluate_buckets_each_pick: true,
            skipped_stage_runs_wait: false,
            sibling_groups_on_failure: SiblingGroupsOnFailure::Stopped,
            ungrouped_members: UngroupedMembers::Exclude,
            all_stages_skipped_run_state: AllSkippedRunState::Skipped,
            empty_groups: EmptyGroups::Error,
            after_stage_wait_warn_seconds: 86_400,
        }
    }
}

/// What a RollingUpdate simulation models (R-KF-44 / R-KF-45).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RollingChange {
    /// A resource change on clusters that already hold the resources: waves (default).
    InPlace,
    /// The first placement: every cluster at once.
    FirstPlacement,
}

/// KubeFleet switches.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct KubeFleetOptions {
    /// R-KF-7: reject duplicate stage names, stricter than KubeFleet (true).
    pub reject_duplicate_stage_names: bool,
    /// R-KF-36: `updateRunStuckThreshold` (5m).
    pub stuck_threshold: String,
    /// R-KF-44/45: in-place change or first placement (`inPlace`).
    pub rolling_change: RollingChange,
    /// R-KF-42: resources are not trackable, so a cluster counts as ready only
    /// `unavailablePeriodSeconds` after it became available (false).
    pub untrackable_resources: bool,
}

impl Default for KubeFleetOptions {
    fn default() -> Self {
        KubeFleetOptions {
            reject_duplicate_stage_names: true,
            stuck_threshold: "5m".to_string(),
            rolling_change: RollingChange::InPlace,
            untrackable_resources: false,
        }
    }
}
