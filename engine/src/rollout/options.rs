//! Options of a rollout evaluation: the instant, the simulation inputs (durations, what-ifs)
//! and the switches for rollout.md's [ASSUME] items, each with its stated default.

use crate::options_json::{
    entries_but, rest, unit_enum, variant_identifier, Error, Fields, FromJson, Json, Via,
};
use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Options of a rollout evaluation. Every field but `at` has a default, so the CLI's
/// `--set key=value` and the wasm options object can set any subset.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutOptions {
    /// The evaluation instant: maintenance-window buckets are computed here, and it is the
    /// default start of a simulated run.
    pub at: DateTime<Utc>,
    /// When the simulated run starts (default: `at`).
    #[serde(default)]
    pub start: Option<DateTime<Utc>>,
    /// The instant whose states the report shows (default: when the simulation settles).
    #[serde(default)]
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
    /// Other keys: dotted switches (`azure.tieBreak`, as the CLI's `--set` writes them) are
    /// merged into `azure` / `kubefleet` by [`RolloutOptions::resolved`]; the rest belong to
    /// other engines.
    #[serde(flatten, default, skip_serializing)]
    pub extra: SortedMap<String, Json>,
}

fn string_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => s
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect(),
        OneOrMany::Many(v) => v,
    })
}

/// [`string_or_list`] over a JSON value (the untagged enum's error when neither).
fn one_or_many(v: &Json) -> Result<Vec<String>, Error> {
    match v {
        Json::Str(s) => Ok(s
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()),
        Json::Array(a) if a.iter().all(|x| matches!(x, Json::Str(_))) => {
            a.iter().map(String::from_json).collect()
        }
        _ => Err(<Error as serde::de::Error>::custom(
            "data did not match any variant of untagged enum OneOrMany",
        )),
    }
}

/// RolloutOptions' fields (camelCase), in declaration order.
const ROLLOUT_FIELDS: &[&[&str]] = &[
    &["at"],
    &["start"],
    &["observe"],
    &["defaultDuration"],
    &["durations"],
    &["events"],
    &["fail"],
    &["pending"],
    &["skip"],
    &["approveAll"],
    &["horizonDays"],
    &["azure"],
    &["kubefleet"],
];

impl FromJson for RolloutOptions {
    fn from_json(v: &Json) -> Result<Self, Error> {
        // `extra` is flattened: serde reads the struct as a map only (no array form).
        let mut f = Fields::read(v, "struct RolloutOptions", ROLLOUT_FIELDS, None)?;
        let out = RolloutOptions {
            at: f.req(0, "at"),
            start: f.or(1, None),
            observe: f.or(2, None),
            default_duration: f.or(3, None),
            durations: f.or(4, SortedMap::new()),
            events: f.or(5, Vec::new()),
            fail: f.with(6, one_or_many).unwrap_or_default(),
            pending: f.with(7, one_or_many).unwrap_or_default(),
            skip: f.with(8, one_or_many).unwrap_or_default(),
            approve_all: f.or(9, false),
            horizon_days: f
                .with(10, u32::from_json)
                .unwrap_or_else(default_horizon_days),
            azure: f.or(11, AzureOptions::default()),
            kubefleet: f.or(12, KubeFleetOptions::default()),
            extra: rest(v, ROLLOUT_FIELDS),
        };
        f.finish()?;
        Ok(out)
    }
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
            extra: SortedMap::new(),
        }
    }

    /// Merges dotted keys (`azure.fourHourBoundaryInclusive: false`) into the nested switches.
    pub fn resolved(&self) -> Result<RolloutOptions, String> {
        // The dotted keys of each group, as an object of the switches they set (`extra` is
        // sorted, so each object is too): read over the current switches, this is reading
        // the whole merged object, as the switches already hold valid values.
        let mut azure = Vec::new();
        let mut kf = Vec::new();
        for (k, v) in &self.extra {
            let (target, fields, key) = if let Some(k) = k.strip_prefix("azure.") {
                (&mut azure, AZURE_FIELDS, k)
            } else if let Some(k) = k.strip_prefix("kubefleet.") {
                (&mut kf, KUBEFLEET_FIELDS, k)
            } else {
                continue;
            };
            if !fields.iter().any(|f| f.contains(&key)) {
                return Err(format!("unknown rollout option \"{k}\""));
            }
            // `--set` passes bare words as strings; booleans and numbers arrive typed.
            target.push((key.to_string(), v.clone()));
        }
        let mut out = self.clone();
        // Read as the options object reads them (options_from_json).
        let azure = Json::Object(SortedMap::from_entries(azure));
        out.azure = AzureOptions::read(&azure, self.azure.clone())
            .map_err(|e| format!("invalid rollout option: {e}"))?;
        let kf = Json::Object(SortedMap::from_entries(kf));
        out.kubefleet = KubeFleetOptions::read(&kf, self.kubefleet.clone())
            .map_err(|e| format!("invalid rollout option: {e}"))?;
        out.extra = SortedMap::new();
        Ok(out)
    }
}

/// A what-if event. `at` defaults to the run start.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(
    tag = "action",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum WhatIf {
    /// Stop the run (Azure `stop`, KubeFleet `state: Stop`).
    Stop {
        /// When.
        at: Option<DateTime<Utc>>,
    },
    /// Start / resume the run.
    Start {
        /// When.
        at: Option<DateTime<Utc>>,
    },
    /// Approve a KubeFleet approval request (`<run>-before-<stage>` / `<run>-after-<stage>`).
    Approve {
        /// When.
        at: Option<DateTime<Utc>>,
        /// Request name.
        request: String,
    },
    /// Azure `skip` action on a Member, Group, Stage or AfterStageWait.
    Skip {
        /// When.
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
        at: Option<DateTime<Utc>>,
        /// Member or cluster.
        #[serde(alias = "cluster")]
        member: String,
    },
    /// The member stays Pending: its window never opens (Azure).
    Pending {
        /// Ignored (always from the start).
        at: Option<DateTime<Utc>>,
        /// Member.
        #[serde(alias = "cluster")]
        member: String,
    },
    /// KubeFleet: a binding condition changes (`Applied=False` makes the cluster retry forever;
    /// `True` lets it finish).
    BindingCondition {
        /// When.
        at: Option<DateTime<Utc>>,
        /// Cluster.
        cluster: String,
        /// The condition.
        condition: ConditionChange,
    },
    /// KubeFleet: the binding is changed under the run (preemption): the cluster fails.
    BindingSpecChange {
        /// When.
        at: Option<DateTime<Utc>>,
        /// Cluster.
        cluster: String,
        /// The new binding state (informational).
        #[serde(default)]
        state: Option<String>,
    },
}

/// WhatIf's tags (`action`), in declaration order.
const WHAT_IF_ACTIONS: &[&str] = &[
    "stop",
    "start",
    "approve",
    "skip",
    "fail",
    "pending",
    "binding-condition",
    "binding-spec-change",
];

impl FromJson for WhatIf {
    /// serde's internally tagged enum: the tag first (an object's `action`, or an array's
    /// first element), then the variant's fields from the rest, through serde's `Content`.
    fn from_json(v: &Json) -> Result<Self, Error> {
        let missing = || <Error as serde::de::Error>::missing_field("action");
        let (tag, body) = match v {
            Json::Object(m) => match m.get("action") {
                Some(t) => (t, Body::Entries(entries_but(m, "action"))),
                None => return Err(missing()),
            },
            Json::Array(a) => match a.split_first() {
                Some((t, rest)) => (t, Body::Elements(rest)),
                None => return Err(missing()),
            },
            _ => {
                return Err(crate::options_json::invalid_type(
                    v,
                    "internally tagged enum WhatIf",
                ))
            }
        };
        let action = variant_identifier(tag, WHAT_IF_ACTIONS)?;
        let (name, fields): (&str, &[&[&str]]) = match action {
            0 => ("struct variant WhatIf::Stop", &[&["at"]]),
            1 => ("struct variant WhatIf::Start", &[&["at"]]),
            2 => ("struct variant WhatIf::Approve", &[&["at"], &["request"]]),
            3 => (
                "struct variant WhatIf::Skip",
                &[&["at"], &["type"], &["name"]],
            ),
            4 => (
                "struct variant WhatIf::Fail",
                &[&["at"], &["member", "cluster"]],
            ),
            5 => (
                "struct variant WhatIf::Pending",
                &[&["at"], &["member", "cluster"]],
            ),
            6 => (
                "struct variant WhatIf::BindingCondition",
                &[&["at"], &["cluster"], &["condition"]],
            ),
            _ => (
                "struct variant WhatIf::BindingSpecChange",
                &[&["at"], &["cluster"], &["state"]],
            ),
        };
        let mut f = match body {
            Body::Entries(e) => Fields::entries(e, fields),
            Body::Elements(a) => Fields::elements(a, name, fields.len(), true),
        };
        let at = f.opt(0);
        let out = match action {
            0 => WhatIf::Stop { at },
            1 => WhatIf::Start { at },
            2 => WhatIf::Approve {
                at,
                request: f.req(1, "request"),
            },
            3 => WhatIf::Skip {
                at,
                target_type: f.req(1, "type"),
                name: f.req(2, "name"),
            },
            4 => WhatIf::Fail {
                at,
                member: f.req(1, "member"),
            },
            5 => WhatIf::Pending {
                at,
                member: f.req(1, "member"),
            },
            6 => WhatIf::BindingCondition {
                at,
                cluster: f.req(1, "cluster"),
                condition: f.req_with(2, "condition", ConditionChange::from_content),
            },
            _ => WhatIf::BindingSpecChange {
                at,
                cluster: f.req(1, "cluster"),
                state: f.or(2, None),
            },
        };
        f.finish()?;
        Ok(out)
    }
}

/// A tagged variant's fields: an object's other entries or an array's other elements.
enum Body<'a> {
    Entries(Vec<(&'a str, &'a Json)>),
    Elements(&'a [Json]),
}

impl ConditionChange {
    /// As serde reads it inside a tagged variant (through `Content`).
    fn from_content(v: &Json) -> Result<Self, Error> {
        let fields: &[&[&str]] = &[&["type"], &["status"]];
        let mut f = Fields::read(v, "struct ConditionChange", fields, Some(Via::Content))?;
        let out = ConditionChange {
            condition_type: f.req(0, "type"),
            status: f.req(1, "status"),
        };
        f.finish()?;
        Ok(out)
    }
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
#[serde(rename_all = "camelCase", default)]
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
#[serde(rename_all = "camelCase", default)]
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

unit_enum!(SkipTarget {
    Member = "Member",
    Group = "Group",
    Stage = "Stage",
    AfterStageWait = "AfterStageWait",
});
unit_enum!(SiblingGroupsOnFailure {
    Stopped = "Stopped",
    Failed = "Failed",
});
unit_enum!(UngroupedMembers {
    Exclude = "exclude",
    Error = "error",
});
unit_enum!(EmptyGroups {
    Error = "error",
    Warning = "warning",
});
unit_enum!(AllSkippedRunState {
    Skipped = "Skipped",
    Completed = "Completed",
});
unit_enum!(TieBreak {
    BucketWindowStartName = "bucket,windowStart,name",
    BucketName = "bucket,name",
});
unit_enum!(RollingChange {
    InPlace = "inPlace",
    FirstPlacement = "firstPlacement",
});

/// AzureOptions' fields (camelCase), in declaration order.
const AZURE_FIELDS: &[&[&str]] = &[
    &["fourHourBoundaryInclusive"],
    &["tieBreak"],
    &["reevaluateBucketsEachPick"],
    &["skippedStageRunsWait"],
    &["siblingGroupsOnFailure"],
    &["ungroupedMembers"],
    &["allStagesSkippedRunState"],
    &["emptyGroups"],
    &["afterStageWaitWarnSeconds"],
];

/// KubeFleetOptions' fields (camelCase), in declaration order.
const KUBEFLEET_FIELDS: &[&[&str]] = &[
    &["rejectDuplicateStageNames"],
    &["stuckThreshold"],
    &["rollingChange"],
    &["untrackableResources"],
];

impl AzureOptions {
    /// Reads `v` as `from_json` does, absent fields taken from `d`.
    fn read(v: &Json, d: AzureOptions) -> Result<Self, Error> {
        let mut f = Fields::read(v, "struct AzureOptions", AZURE_FIELDS, Some(Via::Value))?;
        let out = AzureOptions {
            four_hour_boundary_inclusive: f.or(0, d.four_hour_boundary_inclusive),
            tie_break: f.or(1, d.tie_break),
            reevaluate_buckets_each_pick: f.or(2, d.reevaluate_buckets_each_pick),
            skipped_stage_runs_wait: f.or(3, d.skipped_stage_runs_wait),
            sibling_groups_on_failure: f.or(4, d.sibling_groups_on_failure),
            ungrouped_members: f.or(5, d.ungrouped_members),
            all_stages_skipped_run_state: f.or(6, d.all_stages_skipped_run_state),
            empty_groups: f.or(7, d.empty_groups),
            after_stage_wait_warn_seconds: f.or(8, d.after_stage_wait_warn_seconds),
        };
        f.finish()?;
        Ok(out)
    }
}

impl FromJson for AzureOptions {
    /// `#[serde(default)]` on the struct: every absent field takes the default's value.
    fn from_json(v: &Json) -> Result<Self, Error> {
        Self::read(v, AzureOptions::default())
    }
}

impl KubeFleetOptions {
    /// Reads `v` as `from_json` does, absent fields taken from `d`.
    fn read(v: &Json, d: KubeFleetOptions) -> Result<Self, Error> {
        let mut f = Fields::read(
            v,
            "struct KubeFleetOptions",
            KUBEFLEET_FIELDS,
            Some(Via::Value),
        )?;
        let out = KubeFleetOptions {
            reject_duplicate_stage_names: f.or(0, d.reject_duplicate_stage_names),
            stuck_threshold: f.or(1, d.stuck_threshold),
            rolling_change: f.or(2, d.rolling_change),
            untrackable_resources: f.or(3, d.untrackable_resources),
        };
        f.finish()?;
        Ok(out)
    }
}

impl FromJson for KubeFleetOptions {
    /// `#[serde(default)]` on the struct: every absent field takes the default's value.
    fn from_json(v: &Json) -> Result<Self, Error> {
        Self::read(v, KubeFleetOptions::default())
    }
}
