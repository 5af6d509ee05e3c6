//! KubeFleet documents → staged update runs and RollingUpdate rollouts in the plan shape.

use super::intstr::{IntOrString, Rounding};
use super::options::{RollingChange, RolloutOptions, WhatIf};
use super::plan::{
    Group, Member, MemberReason, Placement, Rollout, Stage, State, Subject, System, TargetSource,
    Targets, TimelineEntry, Wait, WaitKind,
};
use super::staged::{self, ClusterView, ExecParams, ExecStage, KfEvent, KfSubject, Layer};
use super::{ts, Ctx};
use crate::input::diagnostics::out_of_range;
use crate::input::duration::GoDuration;
use crate::input::Document;
use crate::model::rollout::{
    BindingSpecView, PlacementRolloutSpec, StagedUpdateRunSpec, StagedUpdateStrategySpec,
};
use crate::placement::PlacementResult;
use crate::sorted_map::{SortedMap, SortedSet};
use std::borrow::Cow;
use std::rc::Rc;

/// Label on bindings naming their placement.
pub const PARENT_CRP_LABEL: &str = "kubernetes-fleet.io/parent-CRP";
/// Label on resource snapshots: their index.
const RESOURCE_INDEX_LABEL: &str = "kubernetes-fleet.io/resource-index";
/// Annotation on the master resource snapshot of an index.
const RESOURCE_HASH_ANNOTATION: &str = "kubernetes-fleet.io/resource-hash";
/// Annotation overriding a cluster's simulated duration.
pub const DURATION_ANNOTATION: &str = super::azure::DURATION_ANNOTATION;

/// The two fields of a ClusterResourceBinding the rollout reads, borrowed from the document
/// when they are plain strings.
struct Binding<'a> {
    placement: &'a str,
    /// `metadata.name` (named when an old-snapshot binding holds the run back).
    name: &'a str,
    cluster: Cow<'a, str>,
    /// `None`: `Scheduled` (the default).
    state: Option<Cow<'a, str>>,
    /// `spec.schedulingPolicySnapshotName` when given.
    policy_snapshot: Option<&'a str>,
}

/// A `ClusterResourceSnapshot`: what `resourceSnapshotIndex` is checked against.
struct ResourceSnapshot<'a> {
    /// `kubernetes-fleet.io/parent-CRP`.
    placement: &'a str,
    /// `kubernetes-fleet.io/resource-index`.
    index: Option<&'a str>,
    /// Has the `kubernetes-fleet.io/resource-hash` annotation (the group's master snapshot).
    master: bool,
}

/// KubeFleet documents, decoded (MemberClusters and bindings borrowed from the input).
pub(crate) struct KubeFleetInput<'a> {
    /// The MemberClusters' names and labels, worked out when a staged update run needs them
    /// (every other rollout leaves 10,000 clusters' labels unread on each evaluation).
    clusters: std::cell::OnceCell<Vec<ClusterView<'a>>>,
    members: Vec<&'a Document>,
    durations: SortedMap<String, String>,
    placements: SortedMap<String, (&'a Document, PlacementRolloutSpec)>,
    strategies: SortedMap<String, (StagedUpdateStrategySpec, bool)>,
    bindings: Vec<Binding<'a>>,
    resource_snapshots: Vec<ResourceSnapshot<'a>>,
    /// Per ClusterResourcePlacement: whether the placement engine's Scheduled condition is
    /// True (the latest policy snapshot's `Scheduled` condition).
    fully_scheduled: SortedMap<String, bool>,
    /// Approved `ClusterApprovalRequest`s: name and when the Approved condition turned True.
    approvals: Vec<(String, Option<i64>)>,
    /// The placement engine's decision per ClusterResourcePlacement name: selected clusters
    /// and clusters whose bindings it unschedules, each in byte order; absent when its
    /// scheduling cycle failed.
    decided: SortedMap<String, (Vec<String>, Vec<String>)>,
}

impl<'a> KubeFleetInput<'a> {
    /// Every MemberCluster's name and labels, in input order.
    fn clusters(&self) -> &[ClusterView<'a>] {
        self.clusters.get_or_init(|| {
            self.members
                .iter()
                .map(|doc| ClusterView {
                    name: doc.name.as_deref().unwrap_or_default(),
                    labels: staged::Labels::of(doc),
                })
                .collect()
        })
    }
}

/// `spec.state` and `spec.targetCluster` of a binding when `spec` is a mapping whose fields
/// the rollout reads are plain strings, each given once (what [`BindingSpecView`] would decode
/// without an error); `None` sends the document through the full decoder (its errors).
fn binding_fields(doc: &Document) -> Option<(Option<&str>, &str)> {
    use crate::input::from_node::str_of;
    // `decode_at("spec")` decodes the deepest node of the path that exists.
    let spec = doc.spec().unwrap_or(&doc.root);
    let mut state = None;
    let mut cluster = None;
    let mut snapshot = false;
    for (k, v) in spec.as_map()? {
        let slot = match k.as_scalar()? {
            "state" => &mut state,
            "targetCluster" => &mut cluster,
            "resourceSnapshotName" => {
                // Only checked: a string or null, once.
                if std::mem::replace(&mut snapshot, true) || !(v.is_null() || str_of(v).is_ok()) {
                    return None;
                }
                continue;
            }
            _ => continue,
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(v);
    }
    let state = match state {
        None => None,
        Some(v) if v.is_null() => None,
        Some(v) => Some(str_of(v).ok()?),
    };
    let cluster = match cluster {
        None => "",
        Some(v) => str_of(v).ok()?,
    };
    Some((state, cluster))
}

/// Reads MemberCluster, ClusterResourcePlacement, ClusterResourceBinding and
/// ClusterStagedUpdateStrategy documents; validates strategies (CRD) and placements' rollout
/// strategy (webhook).
pub(crate) fn read<'a>(
    input: &super::Docs<'a>,
    scheduled: &[PlacementResult],
    opts: &RolloutOptions,
    ctx: &mut Ctx,
) -> KubeFleetInput<'a> {
    // Lists sized once: fleets have thousands of clusters and bindings.
    let members: Vec<&Document> = input.of_kind("MemberCluster").collect();
    let mut durations = Vec::new();
    for doc in &members {
        if let Some(d) = doc
            .annotations()
            .and_then(|a| a.get(DURATION_ANNOTATION))
            .and_then(|v| v.as_scalar())
        {
            if let Err(why) = GoDuration::parse_non_negative(d) {
                ctx.warnings.push(super::bad_duration_annotation(doc, &why));
            }
            durations.push((doc.name.clone().unwrap_or_default(), d.to_owned()));
        }
    }
    let mut placements = Vec::new();
    for doc in input.of_kind("ClusterResourcePlacement") {
        let (spec, errors) = doc.decode_at_lenient::<PlacementRolloutSpec>(&"spec".into());
        ctx.errors.extend(errors);
        let Some(spec) = spec else { continue };
        validate_rollout_strategy(doc, &spec, ctx);
        placements.push((doc.name.clone().unwrap_or_default(), (doc, spec)));
    }
    let mut strategies = Vec::new();
    for doc in input.of_kind("ClusterStagedUpdateStrategy") {
        let (spec, errors) = doc.decode_at_lenient::<StagedUpdateStrategySpec>(&"spec".into());
        ctx.errors.extend(errors);
        let Some(spec) = spec else { continue };
        let findings =
            staged::validate_strategy(&spec.stages, opts.kubefleet.reject_duplicate_stage_names);
        let ok = findings.is_empty();
        for f in findings {
            ctx.layered(doc, &f.path, f.layer, f.message);
        }
        strategies.push((doc.name.clone().unwrap_or_default(), (spec, ok)));
    }
    let docs = input.of_kind("ClusterResourceBinding");
    let mut bindings = Vec::with_capacity(docs.size_hint().0);
    for doc in docs {
        let (state, cluster) = match binding_fields(doc) {
            Some((state, cluster)) => (state.map(Cow::Borrowed), Cow::Borrowed(cluster)),
            None => match doc.decode_at::<BindingSpecView>(&"spec".into()) {
                Ok(s) => (s.state.map(Cow::Owned), Cow::Owned(s.target_cluster)),
                Err(d) => {
                    ctx.errors.push(d);
                    continue;
                }
            },
        };
        let placement = crate::placement::parent_crp(doc).unwrap_or_default();
        let policy_snapshot = crate::placement::policy_snapshot_of(doc);
        bindings.push(Binding {
            placement,
            name: doc.name.as_deref().unwrap_or_default(),
            cluster,
            state,
            policy_snapshot,
        });
    }
    let resource_snapshots = input
        .of_kind("ClusterResourceSnapshot")
        .map(|doc| {
            let label = |key: &str| doc.labels().find(|(k, _)| *k == key).map(|(_, v)| v);
            ResourceSnapshot {
                placement: label(PARENT_CRP_LABEL).unwrap_or_default(),
                index: label(RESOURCE_INDEX_LABEL),
                master: doc
                    .annotations()
                    .and_then(|a| a.get(RESOURCE_HASH_ANNOTATION))
                    .and_then(crate::input::Node::as_scalar)
                    .is_some_and(|h| !h.is_empty()),
            }
        })
        .collect();
    let fully_scheduled = scheduled
        .iter()
        .filter(|p| p.kind == "ClusterResourcePlacement")
        .map(|p| (p.name.clone(), p.condition.status == "True"))
        .collect();
    let decided = scheduled
        .iter()
        .filter(|p| p.kind == "ClusterResourcePlacement" && p.cycle_error.is_none())
        .map(|p| {
            let mut selected: Vec<String> = p
                .decisions
                .iter()
                .filter(|d| d.selected)
                .map(|d| d.cluster_name.to_string())
                .collect();
            selected.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            selected.dedup();
            let mut unscheduled = p.unscheduled.clone();
            unscheduled.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            unscheduled.dedup();
            (p.name.clone(), (selected, unscheduled))
        })
        .collect();
    let approvals = input
        .of_kind("ClusterApprovalRequest")
        .filter_map(|doc| {
            let approved = status_conditions(doc).iter().find(|c| {
                c.get("type").and_then(crate::input::Node::as_scalar) == Some("Approved")
                    && c.get("status").and_then(crate::input::Node::as_scalar) == Some("True")
            })?;
            let at = approved
                .get("lastTransitionTime")
                .and_then(crate::input::Node::as_scalar)
                .and_then(|t| crate::input::rfc3339::parse(t).ok())
                .map(|t| t.timestamp());
            Some((doc.name.clone()?, at))
        })
        .collect();
    KubeFleetInput {
        approvals,
        decided: SortedMap::from_entries(decided),
        clusters: std::cell::OnceCell::new(),
        members,
        // A repeated name: the last document wins.
        durations: SortedMap::from_entries(durations),
        placements: SortedMap::from_entries(placements),
        strategies: SortedMap::from_entries(strategies),
        bindings,
        resource_snapshots,
        fully_scheduled: SortedMap::from_entries(fully_scheduled),
    }
}

/// `validateRolloutStrategy` (R-KF-13 … R-KF-15), webhook messages.
fn validate_rollout_strategy(doc: &Document, spec: &PlacementRolloutSpec, ctx: &mut Ctx) {
    if let Some(message) = spec
        .revision_history_limit
        .and_then(|limit| out_of_range("spec.revisionHistoryLimit", limit, 1, 1000))
    {
        ctx.layered(doc, "spec.revisionHistoryLimit", Layer::Crd, message);
    }
    let Some(s) = &spec.strategy else { return };
    let ty = s.strategy_type.as_deref().unwrap_or("RollingUpdate");
    let rolling = ty == "RollingUpdate";
    let base = "spec.strategy";
    if let Some(ru) = &s.rolling_update {
        if let Some(p) = ru.unavailable_period_seconds.filter(|p| rolling && *p < 0) {
            ctx.layered(
                doc,
                &format!("{base}.rollingUpdate.unavailablePeriodSeconds"),
                Layer::Webhook,
                format!("unavailablePeriodSeconds must be greater than or equal to 0, got {p}"),
            );
        }
        for (field, v) in [
            ("maxUnavailable", &ru.max_unavailable),
            ("maxSurge", &ru.max_surge),
        ] {
            let Some(v) = v else { continue };
            let path = format!("{base}.rollingUpdate.{field}");
            // The CRD's pattern for a string, whatever the type; the webhook sees only what
            // passes it.
            if let IntOrString::String(text) = v {
                if !int_or_percent(text) {
                    ctx.layered(doc, &path, Layer::Crd, format!(
                        "Invalid value: {text:?}: {path} in body should match '^((100|[0-9]{{1,2}})%|[0-9]+)$'"
                    ));
                    continue;
                }
            }
            if !rolling {
                continue;
            }
            match v.scaled(10, Rounding::Up) {
                Err(e) => ctx.layered(
                    doc,
                    &path,
                    Layer::Webhook,
                    format!("{field} `{v}` is invalid: {e}"),
                ),
                Ok(n) if n < 0 => ctx.layered(
                    doc,
                    &path,
                    Layer::Webhook,
                    format!("{field} must be greater than or equal to 0, got `{v}`"),
                ),
                Ok(_) => {}
            }
        }
    }
    match ty {
        "RollingUpdate" => {}
        "External" => {
            if s.rolling_update.is_some() {
                ctx.layered(doc, &format!("{base}.rollingUpdate"), Layer::Webhook,
                    "rollingUpdateConifg is not valid for ExternalRollout strategy type".to_string());
            }
        }
        other => ctx.layered(doc, &format!("{base}.type"), Layer::Crd, format!(
            "{base}.type: Unsupported value: \"{other}\": supported values: \"RollingUpdate\", \"External\""
        )),
    }
}

/// Whether `text` matches `^((100|[0-9]{1,2})%|[0-9]+)$`.
fn int_or_percent(text: &str) -> bool {
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    match text.strip_suffix('%') {
        Some(p) => p == "100" || (digits(p) && p.len() <= 2),
        None => digits(text),
    }
}

fn duration_secs(name: &str, kf: &KubeFleetInput<'_>, opts: &RolloutOptions) -> i64 {
    let pick = opts
        .durations
        .get(name)
        .map(String::as_str)
        .or_else(|| kf.durations.get(name).map(String::as_str))
        .or(opts.default_duration.as_deref());
    match pick.map(GoDuration::parse_non_negative) {
        Some(Ok(d)) => d.seconds(),
        _ => 120,
    }
}

/// Sorts names in byte order and drops repeats (a set as a sorted slice).
fn sorted_set(mut v: Vec<&str>) -> Vec<&str> {
    v.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    v.dedup();
    v
}

/// The clusters a placement's rollout reaches and the clusters it removes from, each in byte
/// order without repeats, with where they came from. Bindings given in the input are the
/// truth (and are compared with the scheduler's decision); without them, the placement
/// engine's decision is used: a rollout never selects clusters of its own.
fn targets<'k>(name: &str, kf: &'k KubeFleetInput<'_>) -> (Vec<&'k str>, Vec<&'k str>, Targets) {
    let decided = kf.decided.get(name);
    let mut scheduled = Vec::new();
    let mut unscheduled = Vec::new();
    for b in kf.bindings.iter().filter(|b| b.placement == name) {
        if b.state.as_deref() == Some("Unscheduled") {
            unscheduled.push(b.cluster.as_ref());
        } else {
            scheduled.push(b.cluster.as_ref());
        }
    }
    if scheduled.is_empty() && unscheduled.is_empty() {
        let Some((selected, delete)) = decided else {
            let t = Targets {
                source: TargetSource::None,
                clusters: Vec::new(),
                only_in_bindings: Vec::new(),
                only_in_placement: Vec::new(),
            };
            return (Vec::new(), Vec::new(), t);
        };
        let t = Targets {
            source: TargetSource::Placement,
            clusters: selected.clone(),
            only_in_bindings: Vec::new(),
            only_in_placement: Vec::new(),
        };
        let sel = selected.iter().map(String::as_str).collect();
        let del = delete.iter().map(String::as_str).collect();
        return (sel, del, t);
    }
    let selected = sorted_set(scheduled);
    let delete: Vec<&str> = sorted_set(unscheduled)
        .into_iter()
        .filter(|c| {
            selected
                .binary_search_by(|s| s.as_bytes().cmp(c.as_bytes()))
                .is_err()
        })
        .collect();
    let (only_in_bindings, only_in_placement) = match decided {
        Some((picked, _)) => {
            let has = |set: &[String], c: &str| {
                set.binary_search_by(|s| s.as_bytes().cmp(c.as_bytes()))
                    .is_ok()
            };
            (
                selected
                    .iter()
                    .filter(|c| !has(picked, c))
                    .map(|c| c.to_string())
                    .collect(),
                picked
                    .iter()
                    .filter(|c| {
                        selected
                            .binary_search_by(|s| s.as_bytes().cmp(c.as_bytes()))
                            .is_err()
                    })
                    .cloned()
                    .collect(),
            )
        }
        None => (Vec::new(), Vec::new()),
    };
    let t = Targets {
        source: TargetSource::Bindings,
        clusters: selected.iter().map(|c| c.to_string()).collect(),
        only_in_bindings,
        only_in_placement,
    };
    (selected, delete, t)
}

fn init_failed(name: &str, kind: &str, message: String, opts: &RolloutOptions) -> Rollout {
    not_initialised(name, kind, message, true, opts)
}

/// A run without stages: `Initialized=False` (`failed`), or no condition yet while the
/// controller retries.
fn not_initialised(
    name: &str,
    kind: &str,
    message: String,
    failed: bool,
    opts: &RolloutOptions,
) -> Rollout {
    Rollout {
        name: name.to_string(),
        kind: kind.to_string(),
        system: System::Kubefleet,
        state: if failed {
            State::InitFailed
        } else {
            State::NotStarted
        },
        reason: failed.then(|| "UpdateRunInitializedFailed".into()),
        message: Some(message),
        start: None,
        end: None,
        upgrade: None,
        stages: Vec::new(),
        excluded: Vec::new(),
        timeline: Vec::new(),
        assumptions: super::assumptions::staged(opts),
        targets: None,
    }
}

/// `recordOverrideSnapshots` / `getResourceSnapshotObjs`: a given `resourceSnapshotIndex`
/// must be an integer ≥ 0 naming resource snapshots of the placement, one of them the master.
/// When the input holds no ClusterResourceSnapshot of the placement, the index is taken to
/// exist (the snapshots are rarely part of what is evaluated); without an index the
/// controller takes a new snapshot, which always succeeds.
fn check_resource_snapshot(
    placement: &str,
    spec: &StagedUpdateRunSpec,
    kf: &KubeFleetInput<'_>,
) -> Result<(), InitError> {
    let Some(idx) = spec
        .resource_snapshot_index
        .as_deref()
        .filter(|s| !s.is_empty())
    else {
        return Ok(());
    };
    let n = match super::intstr::go_atoi(idx) {
        Some(n) if n >= 0 => n,
        _ => {
            return Err(user_error(format!(
                "invalid resource snapshot index `{idx}` provided, expected an integer >= 0"
            )))
        }
    };
    let mut of_placement = kf
        .resource_snapshots
        .iter()
        .filter(|r| r.placement == placement)
        .peekable();
    if of_placement.peek().is_none() {
        return Ok(());
    }
    // The list selects on the label's text: index "01" does not find label "1".
    let with_index: Vec<&ResourceSnapshot<'_>> =
        of_placement.filter(|r| r.index == Some(idx)).collect();
    if with_index.is_empty() {
        return Err(user_error(format!(
            "no resourceSnapshots with index `{n}` found for placement `/{placement}`"
        )));
    }
    if !with_index.iter().any(|r| r.master) {
        return Err(unexpected(format!(
            "no master resourceSnapshot found for placement /{placement}"
        )));
    }
    Ok(())
}

/// Plans and simulates every ClusterStagedUpdateRun and RollingUpdate placement.
pub(crate) fn rollouts(
    input: &super::Docs<'_>,
    kf: &KubeFleetInput<'_>,
    opts: &RolloutOptions,
    ctx: &mut Ctx,
) -> Vec<Rollout> {
    let mut out = Vec::new();
    for doc in input.of_kind("ClusterStagedUpdateRun") {
        let (spec, errors) = doc.decode_at_lenient::<StagedUpdateRunSpec>(&"spec".into());
        ctx.errors.extend(errors);
        let Some(spec) = spec else { continue };
        let name = doc.name.clone().unwrap_or_default();
        if name.len() >= 64 {
            ctx.layered(doc, "metadata.name", Layer::Crd, format!("metadata.name: Too long: the run name must be shorter than 64 characters, got {}", name.len()));
            continue;
        }
        // The controller's record of a run that started or ended is not read either.
        if status_conditions(doc).iter().any(|c| {
            matches!(
                c.get("type").and_then(crate::input::Node::as_scalar),
                Some("Progressing" | "Succeeded")
            )
        }) {
            ctx.recorded_status_not_read(doc, "status");
        }
        let state = match staged::validate_state_transition(None, spec.state.as_deref()) {
            Ok(s) => s,
            Err(f) => {
                ctx.layered(doc, &f.path, f.layer, f.message);
                continue;
            }
        };
        match init_run(&name, &spec, kf) {
            Err(InitError::Failed(msg)) => {
                ctx.layered(
                    doc,
                    "spec",
                    Layer::ControllerInit,
                    format!("run \"{name}\" fails to initialize: {msg}"),
                );
                let mut r = init_failed(&name, "ClusterStagedUpdateRun", msg, opts);
                r.targets = Some(targets(&spec.placement_name, kf).2);
                out.push(r);
            }
            Err(InitError::Retry(msg)) => {
                ctx.warn(
                    doc,
                    "spec",
                    &format!(
                        "run \"{name}\" does not initialize yet (the controller retries): {msg}"
                    ),
                );
                let mut r = not_initialised(&name, "ClusterStagedUpdateRun", msg, false, opts);
                r.targets = Some(targets(&spec.placement_name, kf).2);
                out.push(r);
            }
            Ok(stages) => {
                if state != "Run" {
                    ctx.warn(doc, "spec.state", &format!(
                        "spec.state is {state}: stages are computed but nothing rolls out until it is Run (every member stays NotStarted; with state Run the timeline shows the rollout)"
                    ));
                }
                let mut r = run_staged(&name, stages, kf, opts, state == "Run");
                r.targets = Some(targets(&spec.placement_name, kf).2);
                out.push(r);
            }
        }
    }
    for (name, (doc, spec)) in &kf.placements {
        let ty = spec
            .strategy
            .as_ref()
            .and_then(|s| s.strategy_type.as_deref())
            .unwrap_or("RollingUpdate");
        if ty != "RollingUpdate" {
            continue;
        }
        if let Some(r) = rolling(name, doc, spec, kf, opts, ctx) {
            out.push(r);
        }
    }
    out
}

/// Why a staged run does not initialise (`initialization.go`).
enum InitError {
    /// `Initialized=False` with this condition message; not retried.
    Failed(String),
    /// A transient state: the controller returns the error and retries; no condition.
    Retry(String),
}

/// `errValidationFailed` wrapping `msg`: the `Initialized=False` condition's message.
fn failed(msg: impl std::fmt::Display) -> InitError {
    InitError::Failed(format!(
        "cannot continue the updateRun: failed to validate the updateRun: {msg}"
    ))
}

/// `controller.NewUserError` inside `errValidationFailed`.
fn user_error(msg: impl std::fmt::Display) -> InitError {
    failed(format!(
        "failed to process the request due to a client error: {msg}"
    ))
}

/// `controller.NewUnexpectedBehaviorError` inside `errValidationFailed`.
fn unexpected(msg: impl std::fmt::Display) -> InitError {
    failed(format!(
        "unexpected behavior which cannot be handled by the controller: {msg}"
    ))
}

/// A manifest's `status.conditions` as written (none when absent or not a list).
fn status_conditions(doc: &Document) -> &[crate::input::Node] {
    doc.root
        .get("status")
        .and_then(|s| s.get("conditions"))
        .and_then(crate::input::Node::as_seq)
        .unwrap_or_default()
}

/// `initialize` (kubefleet `pkg/controllers/updaterun/initialization.go`), check by check in
/// its order: the placement (`validatePlacement`), the latest policy snapshot
/// (`determinePolicySnapshot`), the bindings (`collectScheduledClusters`), the stages
/// (`generateStagesByStrategy`), then the resource snapshot (`recordOverrideSnapshots`).
fn init_run(
    name: &str,
    spec: &StagedUpdateRunSpec,
    kf: &KubeFleetInput<'_>,
) -> Result<Vec<ExecStage>, InitError> {
    let _ = name;
    let placement = spec.placement_name.as_str();
    let Some((_, crp)) = kf.placements.get(placement) else {
        return Err(user_error("parent placement not found"));
    };
    // The strategy type after `SetPlacementDefaults` (RollingUpdate when unset).
    let strategy_type = crp
        .strategy
        .as_ref()
        .and_then(|s| s.strategy_type.as_deref())
        .filter(|t| !t.is_empty())
        .unwrap_or("RollingUpdate");
    if strategy_type != "External" {
        return Err(user_error(format!(
            "parent placement does not have an external rollout strategy, current strategy: {strategy_type}"
        )));
    }
    // The latest policy snapshot: its Scheduled condition is the placement engine's. Unknown
    // (no binding names one), it is named as a placement's first snapshot.
    let latest = kf
        .bindings
        .iter()
        .filter(|b| b.placement == placement)
        .filter_map(|b| b.policy_snapshot)
        .fold(None, |l, n| {
            crate::placement::newer_policy_snapshot(placement, l, n)
        });
    let snapshot = latest.map_or_else(|| format!("{placement}-0"), str::to_string);
    if kf.fully_scheduled.get(placement) == Some(&false) {
        return Err(failed(format!(
            "policy snapshot `{snapshot}` not fully scheduled yet"
        )));
    }
    // collectScheduledClusters: a binding made for an older policy snapshot must be
    // Unscheduled by now; otherwise the state is transient and the controller retries.
    if let Some(b) = kf.bindings.iter().find(|b| {
        b.placement == placement
            && latest.is_some_and(|l| b.policy_snapshot.is_some_and(|n| n != l))
            && b.state.as_deref() != Some("Unscheduled")
    }) {
        return Err(InitError::Retry(format!(
            "binding `/{}` with old policy snapshot `/{}` has state {}, we might observe a transient state, need retry",
            b.name,
            b.policy_snapshot.unwrap_or_default(),
            b.state.as_deref().unwrap_or("")
        )));
    }
    let (selected, delete, _) = targets(placement, kf);
    // Nothing to update and nothing to delete is a validation failure (not retried).
    if selected.is_empty() && delete.is_empty() {
        return Err(failed(format!(
            "no scheduled or to-be-deleted bindings found for the latest policy snapshot /{snapshot}"
        )));
    }
    // `PolicyObservedClusterCount`: the snapshot's number-of-clusters annotation (PickN, the
    // policy's numberOfClusters) or its clusterNames (PickFixed); PickAll takes any count.
    if let Some(p) = &crp.policy {
        let want = match p.placement_type.as_deref() {
            Some("PickN") => p.number_of_clusters,
            Some("PickFixed") => Some(p.cluster_names.len() as i64),
            _ => None,
        };
        if let Some(w) = want {
            if w != selected.len() as i64 {
                return Err(unexpected(format!(
                    "the number of selected bindings {} is not equal to the observed cluster count {w}",
                    selected.len()
                )));
            }
        }
    }
    let strategy_name = spec.staged_rollout_strategy_name.as_str();
    let Some((strategy, valid)) = kf.strategies.get(strategy_name) else {
        return Err(user_error(format!(
            "referenced updateStrategy not found: `/{strategy_name}`"
        )));
    };
    if !valid {
        return Err(failed(format!(
            "ClusterStagedUpdateStrategy `{strategy_name}` is invalid (it would be rejected at admission)"
        )));
    }
    // Stage by stage, a stage's after-stage tasks are checked before its clusters: the
    // stages before the first invalid one are computed first (their errors win), then that
    // stage's task error is reported.
    let bad_tasks = strategy.stages.iter().enumerate().find_map(|(i, s)| {
        staged::validate_after_stage_tasks(&s.after_stage_tasks)
            .err()
            .map(|e| (i, s.name.as_str(), e))
    });
    // Every stage error is a user error (the missing-cluster one wraps only its first part,
    // which reads the same).
    let stage_error = user_error;
    if let Some((i, stage, e)) = bad_tasks {
        let before = strategy.stages.get(..i).unwrap_or_default();
        if let Err(e) = staged::compute_stages(before, kf.clusters(), &selected, &delete) {
            if !e.starts_with(staged::NOT_PLACED) {
                return Err(stage_error(e));
            }
        }
        return Err(user_error(format!(
            "the after stage tasks are invalid, updateStrategy: `/{strategy_name}`, stage: {stage}, err: {e}"
        )));
    }
    let (computed, deletion) =
        staged::compute_stages(&strategy.stages, kf.clusters(), &selected, &delete)
            .map_err(stage_error)?;
    check_resource_snapshot(placement, spec, kf)?;
    let mut out = Vec::new();
    for (cfg, st) in strategy.stages.iter().zip(computed) {
        let concurrency = staged::max_concurrency(cfg.max_concurrency.as_ref(), st.clusters.len())
            .map_err(InitError::Failed)?;
        let after_wait = cfg
            .after_stage_tasks
            .iter()
            .find(|t| t.task_type == "TimedWait")
            .and_then(|t| t.wait_time.as_deref())
            .and_then(|w| GoDuration::parse(w).ok())
            .map(|d| d.seconds());
        out.push(ExecStage {
            name: st.name.into(),
            clusters: st.clusters,
            concurrency: concurrency.max(1) as usize,
            before_approval: cfg
                .before_stage_tasks
                .iter()
                .any(|t| t.task_type == "Approval"),
            after_wait,
            after_approval: cfg
                .after_stage_tasks
                .iter()
                .any(|t| t.task_type == "Approval"),
            deletion: false,
        });
    }
    out.push(ExecStage {
        name: staged::DELETE_STAGE.into(),
        clusters: deletion,
        concurrency: usize::MAX,
        before_approval: false,
        after_wait: None,
        after_approval: false,
        deletion: true,
    });
    Ok(out)
}

fn kf_events(opts: &RolloutOptions, run_name: &str, start: i64) -> Vec<KfEvent> {
    let t = |a: &Option<chrono::DateTime<chrono::Utc>>| a.map_or(start, |x| x.timestamp());
    let mut ev = Vec::new();
    for e in &opts.events {
        match e {
            WhatIf::Approve { at, request } => {
                ev.push(KfEvent::Approve(t(at), request.replace("<run>", run_name)))
            }
            WhatIf::Stop { at } => ev.push(KfEvent::Stop(t(at))),
            WhatIf::Start { at } => ev.push(KfEvent::Start(t(at))),
            WhatIf::BindingCondition {
                at,
                cluster,
                condition,
            } => ev.push(KfEvent::Condition(
                t(at),
                cluster.clone(),
                condition.status == "True",
            )),
            WhatIf::BindingSpecChange { at, cluster, .. }
            | WhatIf::Fail {
                at,
                member: cluster,
            } => ev.push(KfEvent::Preempt(t(at), cluster.clone())),
            _ => {}
        }
    }
    for m in &opts.fail {
        ev.push(KfEvent::Preempt(start, m.clone()));
    }
    ev
}

fn run_staged(
    name: &str,
    stages: Vec<ExecStage>,
    kf: &KubeFleetInput<'_>,
    opts: &RolloutOptions,
    execute: bool,
) -> Rollout {
    let clock = super::Clock::default();
    let ts = |t: i64| clock.at(t);
    let start = opts.start.unwrap_or(opts.at).timestamp();
    let horizon_end = start + i64::from(opts.horizon_days) * 86_400;
    let mut events = kf_events(opts, name, start);
    // Approvals already given in the input (`kubectl get clusterapprovalrequests`): each
    // takes effect when it was given, or when the run asks for it if that is later.
    events.extend(
        kf.approvals
            .iter()
            .map(|(request, at)| KfEvent::Approve(at.unwrap_or(start), request.clone())),
    );
    let dur = |c: &str| duration_secs(c, kf, opts);
    let stuck =
        GoDuration::parse(&opts.kubefleet.stuck_threshold).map_or(300, |d| d.seconds().max(1));
    let res = if execute {
        staged::execute(
            &stages,
            &ExecParams {
                run_name: name,
                start,
                duration: &dur,
                events: &events,
                approve_all: opts.approve_all,
                stuck_threshold: stuck,
                horizon_end,
            },
        )
    } else {
        staged::KfResult {
            clusters: stages
                .iter()
                .map(|s| vec![(State::NotStarted, None, None); s.clusters.len()])
                .collect(),
            stages: stages
                .iter()
                .map(|_| (State::NotStarted, None, None, None))
                .collect(),
            waits: stages
                .iter()
                .map(|_| [(State::NotStarted, None, None); 3])
                .collect(),
            run: (
                State::NotStarted,
                Some("UpdateRunInitializeSucceeded"),
                None,
                None,
            ),
            timeline: Vec::new(),
        }
    };
    // One collect for both sets (a fn pointer, not a closure type each).
    let clusters = |pick: fn(&KfEvent) -> Option<&String>| -> SortedSet<String> {
        events.iter().filter_map(pick).cloned().collect()
    };
    let failed_clusters = clusters(|e| match e {
        KfEvent::Preempt(_, c) => Some(c),
        _ => None,
    });
    let stalled = clusters(|e| match e {
        KfEvent::Condition(_, c, false) => Some(c),
        _ => None,
    });
    let run_name: Rc<str> = Rc::from(name);
    let timeline = res
        .timeline
        .iter()
        .map(|c| {
            let (subject, name, stage) = match c.subject {
                KfSubject::Cluster(s, i) => (
                    Subject::Member,
                    stages[s].clusters[i].clone(),
                    Some(stages[s].name.clone()),
                ),
                KfSubject::Stage(s) => (Subject::Stage, stages[s].name.clone(), None),
                KfSubject::Wait(s, w) => {
                    let n = match w {
                        0 => format!("{name}-before-{}", stages[s].name),
                        1 => format!("{name}-timedwait-{}", stages[s].name),
                        _ => format!("{name}-after-{}", stages[s].name),
                    };
                    (Subject::Wait, n.into(), Some(stages[s].name.clone()))
                }
                KfSubject::Run => (Subject::Run, run_name.clone(), None),
            };
            TimelineEntry {
                at: ts(c.at),
                subject,
                name,
                stage,
                state: c.state,
                reason: c.reason.map(str::to_string),
            }
        })
        .collect();
    // The stages are consumed: their cluster lists become the attempt orders.
    let mut out_stages = Vec::new();
    for (si, st) in stages.into_iter().enumerate() {
        let members = st
            .clusters
            .iter()
            .enumerate()
            .map(|(ci, c)| {
                let (state, s, e) = res.clusters[si][ci];
                let reason = match state {
                    State::Failed if failed_clusters.contains(c) => {
                        Some(MemberReason::BindingPreempted)
                    }
                    State::Running if stalled.contains(c) => Some(MemberReason::ApplyFailed),
                    _ => None,
                };
                Member {
                    cluster: c.clone(),
                    start: s.map(ts),
                    end: e.map(ts),
                    state,
                    bucket: None,
                    next_window_start: None,
                    message: reason.as_ref().map(super::report::member_reason_text),
                    reason,
                }
            })
            .collect();
        let (ss, reason, sstart, send) = res.stages[si];
        let w = res.waits[si];
        let mut waits = Vec::new();
        if st.before_approval {
            waits.push(Wait {
                kind: WaitKind::Approval,
                placement: Placement::Before,
                name: format!("{name}-before-{}", st.name),
                seconds: None,
                start: w[0].1.map(ts),
                end: w[0].2.map(ts),
                state: w[0].0,
            });
        }
        if let Some(secs) = st.after_wait {
            waits.push(Wait {
                kind: WaitKind::TimedWait,
                placement: Placement::After,
                name: format!("{name}-timedwait-{}", st.name),
                seconds: Some(secs),
                start: w[1].1.map(ts),
                end: w[1].2.map(ts),
                state: w[1].0,
            });
        }
        if st.after_approval {
            waits.push(Wait {
                kind: WaitKind::Approval,
                placement: Placement::After,
                name: format!("{name}-after-{}", st.name),
                seconds: None,
                start: w[2].1.map(ts),
                end: w[2].2.map(ts),
                state: w[2].0,
            });
        }
        let group_state = match ss {
            State::Waiting => State::Running,
            s => s,
        };
        out_stages.push(Stage {
            name: st.name.clone(),
            state: ss,
            reason: reason.map(str::to_string),
            start: sstart.map(ts),
            end: send.map(ts),
            groups: vec![Group {
                name: st.name,
                state: group_state,
                concurrency: if st.deletion {
                    st.clusters.len() as u64
                } else {
                    st.concurrency as u64
                },
                attempt_order: st.clusters,
                members,
            }],
            waits,
            deletion: st.deletion,
        });
    }
    Rollout {
        name: name.to_string(),
        kind: "ClusterStagedUpdateRun".into(),
        system: System::Kubefleet,
        state: res.run.0,
        reason: res.run.1.map(str::to_string),
        message: None,
        start: res.run.2.map(ts),
        end: res.run.3.map(ts),
        upgrade: None,
        stages: out_stages,
        excluded: Vec::new(),
        timeline,
        assumptions: super::assumptions::staged(opts),
        targets: None,
    }
}

/// Why a RollingUpdate's in-place window is what it is: the reason (when `blocked`) and the
/// message, when `ceil(maxUnavailable × target)` = `max_unavailable` is narrowed by the `short`
/// clusters that the `selected` ones fall short of `target` by, or is 0.
fn rolling_limit(
    blocked: bool,
    short: i64,
    target: i64,
    selected: i64,
    max_unavailable: i64,
) -> (Option<String>, Option<String>) {
    const NEVER: &str = "in-place updates never start; only failed-to-apply clusters are updated";
    if short > 0 && max_unavailable > 0 && selected > 0 {
        let available = target - max_unavailable;
        let then = if blocked {
            NEVER
        } else {
            "fewer clusters are updated at a time"
        };
        (
            blocked.then(|| "TooFewClustersSelected".into()),
            Some(format!("{selected} of the {target} clusters the policy targets are selected, and maxUnavailable keeps {available} of them available: {then}")),
        )
    } else if blocked {
        (
            Some("MaxUnavailableIsZero".into()),
            Some("maxUnavailable resolves to 0: in-place updates never start; only failed-to-apply clusters are updated".into()),
        )
    } else {
        (None, None)
    }
}

fn rolling(
    name: &str,
    doc: &Document,
    spec: &PlacementRolloutSpec,
    kf: &KubeFleetInput<'_>,
    opts: &RolloutOptions,
    ctx: &mut Ctx,
) -> Option<Rollout> {
    let ru = spec
        .strategy
        .as_ref()
        .and_then(|s| s.rolling_update.clone())
        .unwrap_or_default();
    let max_unavailable = ru
        .max_unavailable
        .clone()
        .unwrap_or(IntOrString::String("25%".into()));
    let max_surge = ru
        .max_surge
        .clone()
        .unwrap_or(IntOrString::String("25%".into()));
    let period = ru.unavailable_period_seconds.unwrap_or(60).max(0);
    let policy = spec.policy.as_ref();
    let ptype = policy
        .and_then(|p| p.placement_type.as_deref())
        .unwrap_or("PickAll");
    let (selected, _, targets) = targets(name, kf);
    if targets.source == TargetSource::None {
        ctx.warn(doc, "spec.policy", "the placement's scheduling cycle fails (see the placement's cycle error), so the rollout reaches no cluster");
    }
    let clusters: Vec<Rc<str>> = selected.into_iter().map(Rc::from).collect();
    let stage_name: Rc<str> = Rc::from("RollingUpdate");
    let run_name: Rc<str> = Rc::from(name);
    let target = match ptype {
        "PickN" => policy.and_then(|p| p.number_of_clusters).unwrap_or(0),
        "PickFixed" => policy.map_or(0, |p| p.cluster_names.len() as i64),
        _ => clusters.len() as i64,
    };
    let budget = super::rolling::budget(target, &max_unavailable, &max_surge).ok()?;
    let start = opts.start.unwrap_or(opts.at).timestamp();
    // In place, with every selected cluster ready, each reconcile may take
    // `calculateMaxToRemove` of them: the window, narrowed by the clusters a PickN or PickFixed
    // target is short of.
    let selected_n = clusters.len() as i64;
    let (short, window) = match opts.kubefleet.rolling_change {
        RollingChange::FirstPlacement => (0, clusters.len().max(1)),
        RollingChange::InPlace => (
            (target - selected_n).max(0),
            super::rolling::max_to_remove(target, budget.max_unavailable_number, selected_n)
                .clamp(0, budget.max_unavailable_number.max(0)) as usize,
        ),
    };
    let extra = if opts.kubefleet.untrackable_resources {
        period
    } else {
        0
    };
    let mut members = Vec::new();
    let mut timeline = Vec::new();
    let mut ends: Vec<i64> = Vec::new();
    let mut last_end = start;
    for c in &clusters {
        if window == 0 {
            members.push(Member {
                cluster: c.clone(),
                start: None,
                end: None,
                state: State::NotStarted,
                bucket: None,
                next_window_start: None,
                reason: None,
                message: None,
            });
            continue;
        }
        // Sliding window: the k-th cluster starts when the (k - window)-th became ready.
        let k = members.len();
        let s = if k < window {
            start
        } else {
            ends.get(k - window).copied().unwrap_or(start)
        };
        let e = s + duration_secs(c, kf, opts) + extra;
        ends.push(e);
        // Keep `ends` sorted so the earliest-free slot is used next.
        ends.sort_unstable();
        last_end = last_end.max(e);
        timeline.push(TimelineEntry {
            at: ts(s),
            subject: Subject::Member,
            name: c.clone(),
            stage: Some(stage_name.clone()),
            state: State::Running,
            reason: None,
        });
        timeline.push(TimelineEntry {
            at: ts(e),
            subject: Subject::Member,
            name: c.clone(),
            stage: Some(stage_name.clone()),
            state: State::Completed,
            reason: None,
        });
        members.push(Member {
            cluster: c.clone(),
            start: Some(ts(s)),
            end: Some(ts(e)),
            state: State::Completed,
            bucket: None,
            next_window_start: None,
            reason: None,
            message: None,
        });
    }
    timeline.sort_by_key(|e| e.at);
    let blocked = window == 0 && !clusters.is_empty();
    let (reason, message) = rolling_limit(
        blocked,
        short,
        target,
        selected_n,
        budget.max_unavailable_number,
    );
    let state = if blocked {
        State::Blocked
    } else {
        State::Completed
    };
    let end = (!blocked).then(|| ts(last_end));
    timeline.insert(
        0,
        TimelineEntry {
            at: ts(start),
            subject: Subject::Run,
            name: run_name.clone(),
            stage: None,
            state: if blocked {
                State::Blocked
            } else {
                State::Running
            },
            reason: reason.clone(),
        },
    );
    if !blocked {
        timeline.push(TimelineEntry {
            at: ts(last_end),
            subject: Subject::Run,
            name: run_name.clone(),
            stage: None,
            state: State::Completed,
            reason: None,
        });
    }
    Some(Rollout {
        name: name.to_string(),
        kind: "ClusterResourcePlacement".into(),
        system: System::Kubefleet,
        state,
        reason,
        message,
        start: Some(ts(start)),
        end,
        upgrade: None,
        stages: vec![Stage {
            name: stage_name.clone(),
            state,
            reason: None,
            start: Some(ts(start)),
            end,
            groups: vec![Group {
                name: stage_name,
                state,
                concurrency: window as u64,
                attempt_order: clusters.clone(),
                members,
            }],
            waits: if period > 0 && opts.kubefleet.untrackable_resources {
                vec![Wait {
                    kind: WaitKind::TimedWait,
                    placement: Placement::After,
                    name: "unavailablePeriodSeconds".into(),
                    seconds: Some(period),
                    start: None,
                    end: None,
                    state: State::Completed,
                }]
            } else {
                Vec::new()
            },
            deletion: false,
        }],
        excluded: Vec::new(),
        timeline,
        assumptions: super::assumptions::rolling(opts),
        targets: Some(targets),
    })
}

#[cfg(test)]
mod binding_fields_tests {
    use super::*;
    use crate::input::Input;

    /// Whenever a binding's fields are read in place, the decoder accepts the document and
    /// reads the same state and target cluster.
    #[test]
    fn binding_fields_agree_with_the_decoder() {
        let specs = [
            "spec: {state: Bound, targetCluster: c1}",
            "spec: {targetCluster: \"c1\", state: ~, resourceSnapshotName: s}",
            "spec: {targetCluster: c1, state: Unscheduled, extra: [1, 2]}",
            "spec: {targetCluster: 12}",
            "spec: {targetCluster: null}",
            "spec: {targetCluster: c1, targetCluster: c2}",
            "spec: {state: Bound, state: Bound, targetCluster: c1}",
            "spec: {targetCluster: c1, resourceSnapshotName: [x]}",
            "spec: {targetCluster: c1, resourceSnapshotName: ~}",
            "spec: {targetCluster: true}",
            "spec: {state: 'null', targetCluster: c1}",
            "spec: {state: null, targetCluster: c1}",
            "spec: [a]",
            "spec: ~",
            "spec: {}",
            "",
        ];
        let mut hits = 0;
        for spec in specs {
            let text = format!("apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourceBinding\nmetadata: {{name: b}}\n{spec}\n");
            let input = Input::parse_str(&text);
            let Some(doc) = input.documents.first() else {
                panic!("{text}");
            };
            let full = doc.decode_at::<BindingSpecView>(&"spec".into());
            if let Some((state, cluster)) = binding_fields(doc) {
                hits += 1;
                let Ok(d) = full else {
                    panic!("read in place, but the decoder refuses:\n{text}");
                };
                assert_eq!(
                    (state.map(str::to_string), cluster.to_string()),
                    (d.state, d.target_cluster),
                    "{text}"
                );
            }
        }
        assert!(hits >= 7, "{hits}");
    }
}
