//! Rollout manifests: Azure update runs and strategies, KubeFleet staged update strategies/runs.
//! The manifests as plain Rust types, decoded from [`crate::input::Document`]s.
//!
//! Azure resources have no Kubernetes apiVersion/kind, so they are written under our own
//! group [`AZURE_API_VERSION`] with the ARM resource's `properties` as in the REST API / `az
//! fleet` JSON (rollout.md A.1). KubeFleet objects are the real CRDs (`placement.kubernetes-fleet.io`).

use crate::input::de::DeError;
use crate::input::from_node::{self, FromNode};
use crate::input::Node;
use crate::model::ObjectMeta;
use crate::rollout::intstr::IntOrString;
use crate::selectors::LabelSelector;
use crate::sorted_map::SortedMap;

/// apiVersion of the Azure-mirroring kinds (ours; ARM has none).
pub const AZURE_API_VERSION: &str = "azure.fleet-policy.dev/v1";

// ---------------------------------------------------------------------------------------------
// Azure Kubernetes Fleet Manager
// ---------------------------------------------------------------------------------------------

/// An ARM resource as YAML: `metadata.name` (or ARM's top-level `name`) and `properties`.
/// Fields are read under their camelCase names (`eTag`, `systemData`, `type` for
/// `resource_type`); unknown fields are errors. (`FromNode` is written by hand in
/// `input::from_node`: one non-generic decoder for the fields but `properties` instead of
/// the derive's copy per `P`.)
#[derive(Debug, Clone)]
pub struct ArmResource<P> {
    /// Our apiVersion.
    pub api_version: String,
    /// Our kind.
    pub kind: String,
    /// Kubernetes-style metadata (name, annotations).
    pub metadata: ObjectMeta,
    /// ARM `name`, used when `metadata.name` is absent.
    pub name: Option<String>,
    /// ARM `id` (ignored).
    pub id: Option<String>,
    /// ARM `type` (ignored).
    pub resource_type: Option<String>,
    /// ARM `eTag` (ignored).
    pub e_tag: Option<String>,
    /// ARM `systemData` (ignored).
    pub system_data: Option<crate::model::Opaque>,
    /// ARM `properties`.
    pub properties: P,
    /// Our extension: facts about the member's AKS cluster (FleetMember only).
    pub cluster: Option<ManagedClusterFacts>,
}

impl<P> ArmResource<P> {
    /// `metadata.name`, else ARM `name`.
    pub fn resource_name(&self) -> String {
        if self.metadata.name.is_empty() {
            self.name.clone().unwrap_or_default()
        } else {
            self.metadata.name.clone()
        }
    }
}

/// `fleets/updateRuns` properties.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateRunProperties {
    /// ARM id of a FleetUpdateStrategy (its last segment names the strategy document).
    #[serde(default)]
    pub update_strategy_id: Option<String>,
    /// Inline strategy.
    #[serde(default)]
    pub strategy: Option<UpdateRunStrategy>,
    /// What to upgrade.
    #[serde(default)]
    pub managed_cluster_update: Option<ManagedClusterUpdate>,
    /// ARM provisioning state (ignored).
    #[serde(default)]
    pub provisioning_state: Option<String>,
    /// Status (ignored: the engine simulates it).
    #[serde(default)]
    pub status: Option<crate::model::Opaque>,
    /// The auto-upgrade profile that created the run (ignored).
    #[serde(default)]
    pub auto_upgrade_profile_id: Option<String>,
}

/// `UpdateRunStrategy`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateRunStrategy {
    /// Stages in order.
    #[serde(default)]
    pub stages: Vec<UpdateStage>,
}

/// One stage of an update strategy.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateStage {
    /// Stage name.
    pub name: String,
    /// Groups, run in parallel.
    #[serde(default)]
    pub groups: Vec<UpdateGroup>,
    /// Pause after the stage, in seconds.
    #[serde(default)]
    pub after_stage_wait_in_seconds: Option<i64>,
    /// Preview approval gates (accepted, not modelled: a warning says so).
    #[serde(default)]
    pub before_gates: Option<crate::model::Opaque>,
    /// Preview approval gates (accepted, not modelled).
    #[serde(default)]
    pub after_gates: Option<crate::model::Opaque>,
}

/// One update group.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateGroup {
    /// Group name; equals members' `properties.group`.
    pub name: String,
    /// Preview: members updated in parallel inside the group (int or "N%"; default 1).
    #[serde(default)]
    pub max_concurrency: Option<IntOrString>,
    /// Preview approval gates (accepted, not modelled).
    #[serde(default)]
    pub before_gates: Option<crate::model::Opaque>,
    /// Preview approval gates (accepted, not modelled).
    #[serde(default)]
    pub after_gates: Option<crate::model::Opaque>,
}

/// `managedClusterUpdate`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ManagedClusterUpdate {
    /// The upgrade.
    pub upgrade: UpgradeSpec,
    /// Node image selection (default Latest).
    #[serde(default)]
    pub node_image_selection: Option<NodeImageSelectionSpec>,
}

/// `managedClusterUpdate.upgrade`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpgradeSpec {
    /// `Full`, `ControlPlaneOnly` or `NodeImageOnly`.
    #[serde(rename = "type")]
    pub upgrade_type: String,
    /// Target version (Full / ControlPlaneOnly only).
    #[serde(default)]
    pub kubernetes_version: Option<String>,
}

/// `nodeImageSelection`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeImageSelectionSpec {
    /// `Latest`, `Consistent` or `Custom`.
    #[serde(rename = "type")]
    pub selection_type: String,
    /// For `Custom`.
    #[serde(default)]
    pub custom_node_image_versions: Vec<CustomNodeImageVersion>,
}

/// One `customNodeImageVersions` entry.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomNodeImageVersion {
    /// Full image version (`AKSUbuntu-2204gen2containerd-202405.03.0`).
    pub version: String,
}

/// `fleets/updateStrategies` properties.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FleetUpdateStrategyProperties {
    /// The strategy.
    pub strategy: UpdateRunStrategy,
    /// Ignored.
    #[serde(default)]
    pub provisioning_state: Option<String>,
}

/// `properties.group` of a member: one string. A list is accepted by the decoder only so that
/// a member written under two groups gets a clear error (R-AZ-4).
#[derive(Debug, Clone)]
pub enum GroupField {
    /// The normal form.
    One(String),
    /// Malformed unless it has exactly one entry.
    Many(Vec<String>),
}

impl FromNode for GroupField {
    /// As serde's untagged form: a string, else a list of strings.
    fn from_node(node: &Node) -> Result<Self, DeError> {
        if let Ok(s) = from_node::str_of(node) {
            return Ok(GroupField::One(s.to_owned()));
        }
        if let Some(items) = node.as_seq() {
            if let Some(v) = items
                .iter()
                .map(|n| from_node::str_of(n).ok().map(str::to_owned))
                .collect::<Option<Vec<String>>>()
            {
                return Ok(GroupField::Many(v));
            }
        }
        Err(from_node::no_variant_matches(node, "GroupField"))
    }
}

/// `fleets/members` properties.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FleetMemberProperties {
    /// The AKS cluster's ARM id.
    #[serde(default)]
    pub cluster_resource_id: Option<String>,
    /// Update group.
    #[serde(default)]
    pub group: Option<GroupField>,
    /// Ignored.
    #[serde(default)]
    pub provisioning_state: Option<String>,
    /// Ignored.
    #[serde(default)]
    pub status: Option<crate::model::Opaque>,
    /// Member labels (ignored).
    #[serde(default)]
    pub labels: Option<crate::model::Opaque>,
}

/// Our extension on FleetMember: the AKS cluster facts an update run depends on (ARM
/// `managedClusters` field names).
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ManagedClusterFacts {
    /// Control-plane version (`currentKubernetesVersion`).
    #[serde(default, alias = "currentKubernetesVersion")]
    pub kubernetes_version: Option<String>,
    /// Azure region.
    #[serde(default, alias = "region")]
    pub location: Option<String>,
    /// Node pools.
    #[serde(default, alias = "nodePools")]
    pub agent_pool_profiles: Vec<AgentPoolProfile>,
    /// Planned-maintenance configurations (`aksManagedAutoUpgradeSchedule`,
    /// `aksManagedNodeOSUpgradeSchedule`).
    #[serde(default)]
    pub maintenance_configurations: Vec<MaintenanceConfiguration>,
    /// Concrete window occurrences, used for every upgrade type when no configuration of the
    /// matching name is given.
    #[serde(default)]
    pub maintenance_windows: Vec<ConcreteWindow>,
}

/// A node pool.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentPoolProfile {
    /// Pool name.
    pub name: String,
    /// `nodeImageVersion`: `<imageType>-<version>` (`AKSUbuntu-2204gen2containerd-202405.03.0`)
    /// or just the version when `imageType` is given.
    #[serde(default)]
    pub node_image_version: Option<String>,
    /// Image type, when not part of `nodeImageVersion`.
    #[serde(default)]
    pub image_type: Option<String>,
    /// Pool Kubernetes version (`currentOrchestratorVersion`); default: the control plane's.
    #[serde(default, alias = "currentOrchestratorVersion")]
    pub orchestrator_version: Option<String>,
}

/// An AKS maintenance configuration.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MaintenanceConfiguration {
    /// `aksManagedAutoUpgradeSchedule` or `aksManagedNodeOSUpgradeSchedule`.
    pub name: String,
    /// Properties.
    pub properties: MaintenanceConfigurationProperties,
}

/// `properties` of a maintenance configuration.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MaintenanceConfigurationProperties {
    /// The window schedule.
    pub maintenance_window: MaintenanceWindow,
}

/// `maintenanceWindow` (AKS planned maintenance).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MaintenanceWindow {
    /// Recurrence.
    pub schedule: Schedule,
    /// Length in hours (AKS: 4–24).
    pub duration_hours: i64,
    /// `+HH:MM` / `-HH:MM` (default `+00:00`).
    #[serde(default)]
    pub utc_offset: Option<String>,
    /// First date (`YYYY-MM-DD`); also the anchor of intervals.
    #[serde(default)]
    pub start_date: Option<String>,
    /// Last date.
    #[serde(default)]
    pub end_date: Option<String>,
    /// `HH:MM` local start.
    pub start_time: String,
    /// Dates (inclusive ranges) without maintenance.
    #[serde(default)]
    pub not_allowed_dates: Vec<DateSpan>,
}

/// A `{start, end}` date range.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DateSpan {
    /// First date.
    pub start: String,
    /// Last date.
    pub end: String,
}

/// `schedule`: exactly one recurrence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Schedule {
    /// Every N days.
    #[serde(default)]
    pub daily: Option<DailySchedule>,
    /// Every N weeks on a weekday.
    #[serde(default)]
    pub weekly: Option<WeeklySchedule>,
    /// Every N months on a day of the month.
    #[serde(default)]
    pub absolute_monthly: Option<AbsoluteMonthlySchedule>,
    /// Every N months on the First…Fourth/Last weekday.
    #[serde(default)]
    pub relative_monthly: Option<RelativeMonthlySchedule>,
}

/// `daily`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DailySchedule {
    /// Interval in days.
    pub interval_days: i64,
}

/// `weekly`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WeeklySchedule {
    /// Interval in weeks.
    pub interval_weeks: i64,
    /// `Monday` … `Sunday`.
    pub day_of_week: String,
}

/// `absoluteMonthly`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AbsoluteMonthlySchedule {
    /// Interval in months.
    pub interval_months: i64,
    /// 1–31.
    pub day_of_month: i64,
}

/// `relativeMonthly`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelativeMonthlySchedule {
    /// Interval in months.
    pub interval_months: i64,
    /// `First`, `Second`, `Third`, `Fourth`, `Last`.
    pub week_index: String,
    /// `Monday` … `Sunday`.
    pub day_of_week: String,
}

/// One concrete window occurrence (RFC 3339).
#[derive(Debug, Clone, Default, PartialEq, Eq, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConcreteWindow {
    /// Opens.
    pub start: String,
    /// Closes.
    pub end: String,
    /// Only for this schedule kind (`aksManagedAutoUpgradeSchedule` /
    /// `aksManagedNodeOSUpgradeSchedule`); default: every upgrade type.
    #[serde(default)]
    pub schedule: Option<String>,
}

/// `fleets/autoUpgradeProfiles` properties.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// Not read.
#[from_node(ignore = "autoUpgradeProfileStatus")]
pub struct AutoUpgradeProfileProperties {
    /// `Stable`, `Rapid` or `NodeImage`.
    pub channel: String,
    /// Strategy for the generated runs.
    #[serde(default)]
    pub update_strategy_id: Option<String>,
    /// Node image selection of the generated runs.
    #[serde(default)]
    pub node_image_selection: Option<NodeImageSelectionSpec>,
    /// Disabled profiles generate nothing.
    #[serde(default)]
    pub disabled: bool,
    /// Ignored.
    #[serde(default)]
    pub provisioning_state: Option<String>,
    /// Pinned target version (ignored).
    #[serde(default)]
    pub target_kubernetes_version: Option<String>,
    /// Long-term-support channel switch (ignored).
    #[serde(default)]
    pub long_term_support: Option<bool>,
}

/// Our kind `AvailableVersions`: what `az aks get-versions` / the node image catalogue say is
/// available, for channel targets and node image selection.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AvailableVersionsProperties {
    /// GA Kubernetes versions.
    #[serde(default)]
    pub kubernetes_versions: Vec<String>,
    /// Preview versions (never auto-upgrade targets).
    #[serde(default)]
    pub preview_kubernetes_versions: Vec<String>,
    /// `region → imageType → versions`.
    #[serde(default)]
    pub node_images: SortedMap<String, SortedMap<String, Vec<String>>>,
}

// ---------------------------------------------------------------------------------------------
// KubeFleet
// ---------------------------------------------------------------------------------------------

/// `ClusterStagedUpdateStrategy.spec`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StagedUpdateStrategySpec {
    /// Stages in order.
    #[serde(default)]
    pub stages: Vec<StageConfig>,
}

/// One stage of a staged strategy.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StageConfig {
    /// Stage name (`^[a-z0-9]+$`, ≤ 63).
    pub name: String,
    /// Member clusters of the stage; nil selects none, `{}` all.
    #[serde(default)]
    pub label_selector: Option<LabelSelector>,
    /// Integer label ordering the stage.
    #[serde(default)]
    pub sorting_label_key: Option<String>,
    /// Parallel clusters (int ≥ 1 or "1%".."100%"; default 1).
    #[serde(default)]
    pub max_concurrency: Option<IntOrString>,
    /// At most one Approval.
    #[serde(default)]
    pub before_stage_tasks: Vec<StageTask>,
    /// At most two: TimedWait and/or Approval.
    #[serde(default)]
    pub after_stage_tasks: Vec<StageTask>,
}

/// A before/after-stage task.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StageTask {
    /// `Approval` or `TimedWait`.
    #[serde(rename = "type")]
    pub task_type: String,
    /// TimedWait duration (h/m/s).
    #[serde(default)]
    pub wait_time: Option<String>,
}

/// `ClusterStagedUpdateRun.spec`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StagedUpdateRunSpec {
    /// The ClusterResourcePlacement.
    #[serde(default)]
    pub placement_name: String,
    /// Snapshot index to roll out (empty: latest).
    #[serde(default)]
    pub resource_snapshot_index: Option<String>,
    /// The ClusterStagedUpdateStrategy.
    #[serde(default)]
    pub staged_rollout_strategy_name: String,
    /// `Initialize`, `Run` or `Stop` (default Initialize).
    #[serde(default)]
    pub state: Option<String>,
}

/// The rollout-related parts of `ClusterResourcePlacement.spec` (other fields belong to the
/// placement engine and are not read here).
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PlacementRolloutSpec {
    /// Scheduling policy (nil: PickAll).
    #[serde(default)]
    pub policy: Option<PlacementPolicyView>,
    /// Rollout strategy.
    #[serde(default)]
    pub strategy: Option<RolloutStrategy>,
    /// History limit (default 10).
    #[serde(default)]
    pub revision_history_limit: Option<i64>,
}

/// The policy parts the rollout needs.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase")]
pub struct PlacementPolicyView {
    /// PickAll / PickN / PickFixed.
    #[serde(default)]
    pub placement_type: Option<String>,
    /// PickN.
    #[serde(default)]
    pub number_of_clusters: Option<i64>,
    /// PickFixed.
    #[serde(default)]
    pub cluster_names: Vec<String>,
}

/// `spec.strategy`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// Apply, delete and report-back strategies (v1beta1): not used by rollouts.
#[from_node(ignore = "applyStrategy deleteStrategy reportBackStrategy")]
pub struct RolloutStrategy {
    /// `RollingUpdate` (default) or `External`.
    #[serde(default, rename = "type")]
    pub strategy_type: Option<String>,
    /// RollingUpdate parameters.
    #[serde(default)]
    pub rolling_update: Option<RollingUpdateSpec>,
}

/// `spec.strategy.rollingUpdate`.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RollingUpdateSpec {
    /// Default 25%.
    #[serde(default)]
    pub max_unavailable: Option<IntOrString>,
    /// Default 25%.
    #[serde(default)]
    pub max_surge: Option<IntOrString>,
    /// Default 60.
    #[serde(default)]
    pub unavailable_period_seconds: Option<i64>,
}

/// The parts of a `ClusterResourceBinding` the rollout reads.
#[derive(Debug, Clone, Default, fleet_policy_derive::FromNode)]
#[serde(rename_all = "camelCase")]
pub struct BindingSpecView {
    /// `Scheduled`, `Bound` or `Unscheduled`.
    #[serde(default)]
    pub state: Option<String>,
    /// Target cluster.
    #[serde(default)]
    pub target_cluster: String,
    /// Snapshot bound.
    #[serde(default)]
    pub resource_snapshot_name: Option<String>,
}
