//! KubeFleet ClusterResourcePlacement scheduling (placement.md): the decisions the hub
//! scheduler makes for a placement, with every decision explained as data.
//!
//! [`prepare`] decodes the input once (fleet, placements, bindings); [`evaluate`] runs the
//! scheduler on the prepared input; [`place`] does both.

pub mod affinity;
pub mod eligibility;
pub mod error;
pub mod fleet;
pub mod index;
pub mod per_cluster;
pub mod properties;
pub mod report;
pub mod schedule;
pub mod spread;
pub mod status;
pub mod table;
pub mod taints;
pub mod validate;

use crate::input::kinds::KindInfo;
use crate::input::{Diagnostic, Document, FieldPath, Input, Node};
use crate::model::placement::{
    ClusterResourcePlacement, MemberCluster, PlacementBinding, Toleration,
};
use crate::notice::Notice;
use chrono::{DateTime, Utc};
use eligibility::Ineligible;
use rustc_hash::FxHashSet;
use schedule::{BindingState, ExistingBinding, PlacementType, Policy};
use serde::Deserialize;

pub use error::CycleError;
pub use fleet::{Fleet, FleetCluster};
pub use report::{
    ClusterScore, Condition, Decision, FilterReason, Filtered, Picked, PlacementReport,
    PlacementResult,
};
pub use status::ReasonText;

/// apiVersion of our own `PlacementBinding` kind.
pub const BINDING_API_VERSION: &str = "fleet-policy.dev/v1alpha1";

/// Kinds the placement engine reads.
pub const KINDS: &[KindInfo] = &[
    KindInfo {
        kind: "MemberCluster",
        api_versions: &[
            "cluster.kubernetes-fleet.io/v1",
            "cluster.kubernetes-fleet.io/v1beta1",
        ],
    },
    KindInfo {
        kind: "ClusterResourcePlacement",
        api_versions: &[
            "placement.kubernetes-fleet.io/v1",
            "placement.kubernetes-fleet.io/v1beta1",
        ],
    },
    KindInfo {
        kind: "ResourcePlacement",
        api_versions: &[
            "placement.kubernetes-fleet.io/v1",
            "placement.kubernetes-fleet.io/v1beta1",
        ],
    },
    KindInfo {
        kind: "PlacementBinding",
        api_versions: &[BINDING_API_VERSION],
    },
];

/// Options of a placement evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaceOptions {
    /// The evaluation instant ("now" for heartbeats and health).
    #[serde(deserialize_with = "crate::input::rfc3339::utc")]
    pub at: DateTime<Utc>,
    /// The eligibility checker's heartbeat timeout (`5m`): a cluster whose member agent's
    /// last heartbeat is older is not eligible.
    #[serde(default, deserialize_with = "heartbeat_timeout")]
    pub cluster_heartbeat_check_timeout: eligibility::CheckTimeout,
    /// The eligibility checker's health timeout (`5m`): a cluster whose Healthy condition
    /// has not been True for longer is not eligible.
    #[serde(default, deserialize_with = "health_timeout")]
    pub cluster_health_check_timeout: eligibility::CheckTimeout,
}

/// A timeout option, its key named in the error (serde's own message would not say which).
fn timeout<'de, D: serde::Deserializer<'de>>(
    d: D,
    key: &str,
) -> Result<eligibility::CheckTimeout, D::Error> {
    let text = String::deserialize(d)?;
    eligibility::CheckTimeout::try_from(text)
        .map_err(|e| serde::de::Error::custom(format!("{key}: {e}")))
}

fn heartbeat_timeout<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<eligibility::CheckTimeout, D::Error> {
    timeout(d, "clusterHeartbeatCheckTimeout")
}

fn health_timeout<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<eligibility::CheckTimeout, D::Error> {
    timeout(d, "clusterHealthCheckTimeout")
}

impl PlaceOptions {
    /// Options for an evaluation at `at`, with the checker's default timeouts.
    pub fn at(at: DateTime<Utc>) -> Self {
        PlaceOptions {
            at,
            cluster_heartbeat_check_timeout: eligibility::CheckTimeout::default(),
            cluster_health_check_timeout: eligibility::CheckTimeout::default(),
        }
    }

    /// The eligibility checker's thresholds.
    pub fn timeouts(&self) -> eligibility::Timeouts {
        eligibility::Timeouts {
            heartbeat: self.cluster_heartbeat_check_timeout,
            health: self.cluster_health_check_timeout,
        }
    }
}

/// Whether the input holds anything this engine evaluates.
pub fn applies(input: &Input) -> bool {
    input.of_kind("ClusterResourcePlacement").next().is_some()
        || input.of_kind("ResourcePlacement").next().is_some()
}

/// A decoded placement, validated.
#[derive(Debug, Clone)]
pub struct PreparedPlacement {
    /// The manifest.
    pub placement: ClusterResourcePlacement,
    /// `ClusterResourcePlacement` or `ResourcePlacement`.
    pub kind: String,
    /// Whether the CRD schema or webhook would reject it.
    pub rejected: bool,
}

/// A decoded binding and the placement it belongs to.
#[derive(Debug, Clone)]
pub struct PreparedBinding {
    /// `spec.placement`.
    pub placement: Option<String>,
    /// `metadata.namespace`.
    pub namespace: Option<String>,
    /// The binding.
    pub binding: ExistingBinding,
}

/// The input decoded once: what [`evaluate`] schedules.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    /// All MemberClusters.
    pub fleet: Fleet,
    /// Placements in input order.
    pub placements: Vec<PreparedPlacement>,
    /// Existing bindings.
    pub bindings: Vec<PreparedBinding>,
    /// Findings so far.
    pub diagnostics: Vec<Diagnostic>,
    /// Notices about the fleet.
    pub notices: Vec<Notice>,
}

/// One MemberCluster as the fleet at `options.at` holds it (`None` when it does not decode),
/// and what decoding it found.
pub fn decode_member(
    doc: &Document,
    options: &PlaceOptions,
) -> (Option<FleetCluster>, Vec<Diagnostic>) {
    let (cluster, mut errors) = doc.decode_lenient::<MemberCluster>();
    if let Some(c) = &cluster {
        errors.extend(
            validate::validate_member(c)
                .into_iter()
                .map(|f| doc.error(&f.path, f.message)),
        );
    }
    let cluster = cluster.map(|c| FleetCluster::new(c, options.at, options.timeouts()));
    (cluster, errors)
}

/// The fleet of `input`'s MemberClusters, each decoded by `decode` (given its number among
/// them; [`decode_member`] or what it gave before), with the diagnostics and notices: a
/// cluster without a name, or with a name taken before, is left out. Also says, per
/// MemberCluster, whether its cluster is in the fleet.
pub fn prepare_fleet(
    input: &Input,
    at: DateTime<Utc>,
    mut decode: impl FnMut(usize, &Document) -> (Option<FleetCluster>, Vec<Diagnostic>),
) -> (Prepared, Vec<bool>) {
    let mut diags: Vec<Diagnostic> = Vec::new();
    // At its size: 50,000 clusters are 11 MB here, which doubling would make 15 (and 22 while
    // the last doubling copies them).
    let mut clusters: Vec<FleetCluster> =
        Vec::with_capacity(input.of_kind("MemberCluster").count());
    // Fx hashing: a keystroke in a large fleet prepares it again (10,000 names).
    let mut names: FxHashSet<String> = FxHashSet::default();
    names.reserve(input.documents.len());
    let mut admitted = Vec::new();
    for (i, doc) in input.of_kind("MemberCluster").enumerate() {
        let (cluster, errors) = decode(i, doc);
        diags.extend(errors);
        admitted.push(false);
        let Some(c) = cluster else { continue };
        if c.name.is_empty() {
            diags.push(doc.error(
                &FieldPath::parse("metadata.name"),
                "Required value: name is required",
            ));
            continue;
        }
        if !names.insert(c.name.clone()) {
            diags.push(crate::input::documents::repeated_object(doc, &c.name));
            continue;
        }
        clusters.push(c);
        if let Some(a) = admitted.last_mut() {
            *a = true;
        }
    }
    let fleet = Fleet::new(clusters);
    let notices = fleet_notices(input, &fleet, at);
    let prepared = Prepared {
        fleet,
        diagnostics: diags,
        notices,
        ..Prepared::default()
    };
    (prepared, admitted)
}

/// Decodes the fleet, the placements (with validation) and the bindings.
pub fn prepare(input: &Input, options: &PlaceOptions) -> Prepared {
    let (
        Prepared {
            fleet,
            diagnostics: mut diags,
            notices,
            ..
        },
        _,
    ) = {
        // Decoded on every core, a batch at a time: after reading, decoding is most of a
        // large fleet's time, and a batch is held twice (decoded, then in the fleet), not the
        // whole fleet.
        const BATCH: usize = 1024;
        let members: Vec<&Document> = input.of_kind("MemberCluster").collect();
        let (mut start, mut batch) = (0, Vec::new());
        prepare_fleet(input, options.at, |i, doc| {
            if !(start..start + batch.len()).contains(&i) {
                let run = members.get(i..(i + BATCH).min(members.len()));
                batch =
                    crate::parallel::map(run.unwrap_or_default(), |d| decode_member(d, options));
                start = i;
            }
            match batch.get_mut(i - start) {
                Some(decoded) => std::mem::take(decoded),
                None => decode_member(doc, options),
            }
        })
    };
    let rest = prepare_placements(input);
    diags.extend(rest.diagnostics);
    Prepared {
        fleet,
        notices,
        diagnostics: diags,
        ..rest
    }
}

/// Decodes the placements (with validation) and the bindings of `input`: a [`Prepared`]
/// without the fleet.
pub fn prepare_placements(input: &Input) -> Prepared {
    let mut diags = Vec::new();
    let mut placements = Vec::new();
    for doc in input
        .documents
        .iter()
        .filter(|d| d.kind == "ClusterResourcePlacement" || d.kind == "ResourcePlacement")
    {
        // A field the API server would refuse is an error on that field; the placement is
        // still scheduled without it, marked rejected.
        let (crp, errors) = doc.decode_lenient::<ClusterResourcePlacement>();
        let schema_rejected = !errors.is_empty();
        diags.extend(errors);
        let Some(crp) = crp else { continue };
        let mut findings = validate::validate_name(&crp.metadata.name);
        findings.extend(validate::validate(
            crp.spec.policy.as_ref(),
            &FieldPath::parse("spec.policy"),
        ));
        let rejected = schema_rejected || findings.iter().any(|f| !f.warning);
        for f in findings {
            diags.push(if f.warning {
                doc.warning(&f.path, f.message)
            } else {
                doc.error(&f.path, f.message)
            });
        }
        if doc.kind == "ResourcePlacement" && crp.metadata.namespace.is_none() {
            diags.push(doc.warning(
                &FieldPath::parse("metadata"),
                "a ResourcePlacement without metadata.namespace is evaluated in \"default\" (where kubectl creates it without --namespace)",
            ));
        }
        placements.push(PreparedPlacement {
            placement: crp,
            kind: doc.kind.clone(),
            rejected,
        });
    }

    let mut bindings = Vec::new();
    for doc in input.of_kind("PlacementBinding") {
        match decode_binding(doc) {
            Ok(b) => bindings.push(b),
            Err(d) => diags.push(d),
        }
    }
    // What `kubectl get clusterresourcebindings` prints: the scheduler's existing bindings.
    // Their errors are the rollout engine's to report (it reads the same documents).
    // `classifyBindings`: a binding made for an older policy snapshot than the latest is
    // obsolete.
    let mut latest = Vec::new();
    for p in &placements {
        let name = p.placement.metadata.name.as_str();
        if let Some(l) = input
            .of_kind("ClusterResourceBinding")
            .filter(|d| parent_crp(d) == Some(name))
            .filter_map(policy_snapshot_of)
            .fold(None, |l, n| newer_policy_snapshot(name, l, n))
        {
            latest.push((name, l));
        }
    }
    bindings.extend(
        input
            .of_kind("ClusterResourceBinding")
            .filter_map(|d| cluster_resource_binding(d, &latest)),
    );
    Prepared {
        placements,
        bindings,
        diagnostics: diags,
        ..Prepared::default()
    }
}

/// The fleet's notices: clusters written by hand (no `status`), and heartbeats that are
/// stale for most clusters at `at` (a dump evaluated long after it was taken).
pub(crate) fn fleet_notices(input: &Input, fleet: &Fleet, at: DateTime<Utc>) -> Vec<Notice> {
    let mut out = Vec::new();
    let hand_written: Vec<String> = fleet
        .clusters
        .iter()
        .filter(|c| c.assumed_healthy && !c.leaving)
        .map(|c| c.name.clone())
        .collect();
    if !hand_written.is_empty() {
        out.push(Notice::hand_written(hand_written));
    }
    // Clusters whose member agent has reported at least once (a heartbeat to be stale).
    let reporting = fleet
        .clusters
        .iter()
        .filter(|c| !c.assumed_healthy && c.eligibility != Err(Ineligible::AgentNotOnline))
        .count();
    let stale: Vec<String> = fleet
        .clusters
        .iter()
        .filter(|c| matches!(c.eligibility, Err(Ineligible::NoRecentHeartbeat { .. })))
        .map(|c| c.name.clone())
        .collect();
    if !stale.is_empty() && stale.len() * 2 > reporting {
        out.push(Notice::stale_heartbeats(
            stale,
            reporting,
            at,
            input.snapshot(),
        ));
    }
    out
}

/// The index of a policy snapshot named `<placement>-<index>` (`PolicySnapshotNameFmt`).
fn policy_index(placement: &str, snapshot: &str) -> Option<u64> {
    let digits = snapshot.strip_prefix(placement)?.strip_prefix('-')?;
    // `parse` takes digits and a leading `+`, which the name format never writes.
    digits.parse().ok().filter(|_| !digits.starts_with('+'))
}

/// The later of policy snapshots `latest` and `name` of `placement`: the one with the highest
/// `<placement>-<index>`. Folded over the names a placement's bindings give, the latest snapshot
/// (a dump rarely holds the snapshots themselves); bindings naming another were made for an
/// older policy.
pub(crate) fn newer_policy_snapshot<'a>(
    placement: &str,
    latest: Option<&'a str>,
    name: &'a str,
) -> Option<&'a str> {
    let Some(i) = policy_index(placement, name) else {
        return latest;
    };
    match latest.and_then(|l| Some((policy_index(placement, l)?, l))) {
        Some(l) if l >= (i, name) => latest,
        _ => Some(name),
    }
}

/// The `kubernetes-fleet.io/parent-CRP` label of a binding.
pub(crate) fn parent_crp(doc: &Document) -> Option<&str> {
    doc.labels()
        .find(|(k, _)| *k == crate::rollout::kubefleet::PARENT_CRP_LABEL)
        .map(|(_, v)| v)
}

/// A binding's `spec.schedulingPolicySnapshotName`, when given.
pub(crate) fn policy_snapshot_of(doc: &Document) -> Option<&str> {
    doc.spec()
        .and_then(|s| s.get("schedulingPolicySnapshotName"))
        .and_then(Node::as_scalar)
        .filter(|s| !s.is_empty())
}

/// A `ClusterResourceBinding` as an existing binding of the placement named by its
/// `kubernetes-fleet.io/parent-CRP` label (obsolete when its policy snapshot is not the
/// placement's `latest`); `None` when it does not decode.
fn cluster_resource_binding(doc: &Document, latest: &[(&str, &str)]) -> Option<PreparedBinding> {
    let spec = doc
        .decode_at::<crate::model::rollout::BindingSpecView>(&FieldPath::parse("spec"))
        .ok()?;
    let state = match spec.state.as_deref() {
        None | Some("Scheduled") => BindingState::Scheduled,
        Some("Bound") => BindingState::Bound,
        Some("Unscheduled") => BindingState::Unscheduled,
        Some(_) => return None,
    };
    let placement = parent_crp(doc).unwrap_or_default();
    let snapshot = policy_snapshot_of(doc);
    let current = snapshot.is_none()
        || latest
            .iter()
            .all(|(p, l)| *p != placement || snapshot == Some(*l));
    let score = doc
        .spec()
        .and_then(|s| s.get("clusterDecision"))
        .and_then(|d| d.get("clusterScore"))
        .map(|s| {
            let int = |k: &str| {
                s.get(k)
                    .and_then(|v| crate::input::from_node::FromNode::from_node(v).ok())
                    .unwrap_or(0)
            };
            ClusterScore {
                affinity_score: int("affinityScore"),
                topology_spread_score: int("topologySpreadScore"),
            }
        });
    let deleting = doc
        .metadata()
        .and_then(|m| m.get("deletionTimestamp"))
        .and_then(Node::as_scalar)
        .is_some_and(|t| !t.is_empty());
    Some(PreparedBinding {
        placement: Some(placement.to_string()),
        namespace: None,
        binding: ExistingBinding {
            cluster: spec.target_cluster,
            state,
            current,
            score,
            deleting,
        },
    })
}

fn decode_binding(doc: &Document) -> Result<PreparedBinding, Diagnostic> {
    let b = doc.decode::<PlacementBinding>()?;
    let state = match b.spec.state.as_str() {
        "Scheduled" => BindingState::Scheduled,
        "Bound" => BindingState::Bound,
        "Unscheduled" => BindingState::Unscheduled,
        other => {
            return Err(doc.error(
                &FieldPath::parse("spec.state"),
                format!("Unsupported value: \"{other}\": supported values: \"Scheduled\", \"Bound\", \"Unscheduled\""),
            ))
        }
    };
    let current = match b.spec.policy_snapshot.as_deref() {
        None | Some("Current") | Some("current") => true,
        Some("Obsolete") | Some("obsolete") => false,
        Some(other) => {
            return Err(doc.error(
                &FieldPath::parse("spec.policySnapshot"),
                format!(
                    "Unsupported value: \"{other}\": supported values: \"Current\", \"Obsolete\""
                ),
            ))
        }
    };
    Ok(PreparedBinding {
        placement: b.spec.placement.clone(),
        namespace: b.metadata.namespace.clone(),
        binding: ExistingBinding {
            cluster: b.spec.cluster,
            state,
            current,
            score: b.spec.cluster_score.map(|s| ClusterScore {
                affinity_score: s.affinity_score,
                topology_spread_score: s.topology_spread_score,
            }),
            deleting: b
                .metadata
                .deletion_timestamp
                .as_deref()
                .is_some_and(|t| !t.is_empty()),
        },
    })
}

/// Applies the API defaults and compiles a placement's policy against the fleet.
pub fn compile(placement: &ClusterResourcePlacement, fleet: &Fleet) -> Result<Policy, CycleError> {
    // Borrowed: compiling reads the policy; only the small lists kept are copied.
    let default = crate::model::placement::PlacementPolicy::default();
    let p = placement.spec.policy.as_ref().unwrap_or(&default);
    let placement_type = match p.placement_type.as_deref().unwrap_or("") {
        "" | "PickAll" => PlacementType::PickAll,
        "PickN" => PlacementType::PickN,
        "PickFixed" => PlacementType::PickFixed,
        other => {
            return Err(CycleError::UnknownPlacementType {
                placement_type: other.to_string(),
            })
        }
    };
    let affinity = p
        .affinity
        .as_ref()
        .and_then(|a| a.cluster_affinity.as_ref());
    let required = affinity
        .and_then(|a| {
            a.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .map_or(&[][..], |r| r.cluster_selector_terms.as_slice());
    let preferred = affinity.map_or(&[][..], |a| {
        a.preferred_during_scheduling_ignored_during_execution
            .as_slice()
    });
    let tolerations = p
        .tolerations
        .iter()
        .map(|t| Toleration {
            operator: Some(match t.operator.as_deref() {
                None | Some("") => "Equal".to_string(),
                Some(o) => o.to_string(),
            }),
            ..t.clone()
        })
        .collect();
    Ok(Policy {
        placement_type,
        cluster_names: p.cluster_names.clone(),
        number_of_clusters: p.number_of_clusters,
        required: affinity::RequiredAffinity::new(required, fleet),
        // PickAll never scores (no Score stage), so its preferred terms are not compiled.
        preferred: if placement_type == PlacementType::PickN {
            affinity::PreferredAffinity::new(preferred, fleet)
        } else {
            affinity::PreferredAffinity::default()
        },
        spread: if placement_type == PlacementType::PickN {
            spread::Spread::new(&p.topology_spread_constraints, fleet)
        } else {
            spread::Spread::default()
        },
        tolerations,
        namespace: None,
    })
}

/// A ResourcePlacement's namespace: as written, else `default` (kubectl's without
/// `--namespace`; a warning says so).
fn placement_namespace(meta: &crate::model::meta::ObjectMeta) -> String {
    meta.namespace
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_string())
}

/// Schedules one prepared placement.
pub fn schedule_one(prepared: &Prepared, p: &PreparedPlacement) -> PlacementResult {
    let meta = &p.placement.metadata;
    let single = prepared.placements.len() == 1;
    let bindings: Vec<ExistingBinding> = prepared
        .bindings
        .iter()
        .filter(|b| match &b.placement {
            Some(name) => name == &meta.name,
            None => single,
        })
        .filter(|b| p.kind != "ResourcePlacement" || b.namespace == meta.namespace)
        .map(|b| b.binding.clone())
        .collect();
    let mut result = match compile(&p.placement, &prepared.fleet) {
        Ok(mut policy) => {
            if p.kind == "ResourcePlacement" {
                policy.namespace = Some(placement_namespace(meta));
            }
            let mut r = schedule::run(&prepared.fleet, &policy, &bindings);
            let wanted = match policy.placement_type {
                PlacementType::PickAll => 0,
                PlacementType::PickN => policy
                    .number_of_clusters
                    .map_or(0, |n| usize::try_from(n).unwrap_or(0)),
                PlacementType::PickFixed => policy.cluster_names.len(),
            };
            per_cluster::fill(&mut r, policy.placement_type, wanted);
            r
        }
        Err(e) => PlacementResult {
            condition: status::pending(),
            cycle_error: Some(report::CycleErrorReport {
                message: e.to_string(),
                error: e,
            }),
            ..PlacementResult::default()
        },
    };
    result.name = meta.name.clone();
    result.namespace = if p.kind == "ResourcePlacement" {
        Some(placement_namespace(meta))
    } else {
        None
    };
    result.kind = p.kind.clone();
    if result.placement_type.is_empty() {
        result.placement_type = p
            .placement
            .spec
            .policy
            .as_ref()
            .and_then(|x| x.placement_type.clone())
            .unwrap_or_else(|| "PickAll".to_string());
    }
    result.validation = if p.rejected { "rejected" } else { "accepted" }.to_string();
    result
}

/// Schedules every prepared placement.
pub fn evaluate(prepared: &Prepared) -> PlacementReport {
    let placements = prepared
        .placements
        .iter()
        .map(|p| schedule_one(prepared, p))
        .collect();
    let (errors, warnings) = crate::input::diagnostics::partition(prepared.diagnostics.clone());
    PlacementReport {
        placements,
        errors,
        warnings,
        notices: prepared.notices.clone(),
    }
}

/// Schedules every placement in the input against the fleet in the input.
///
/// Reports only the diagnostics it finds itself; [`crate::place`] adds the input's.
pub fn place(input: &Input, options: &PlaceOptions) -> PlacementReport {
    let mut report = evaluate(&prepare(input, options));
    locate_invalid_quantities(input, &mut report);
    report
}

/// A property value that is not a quantity aborts the scheduling cycle of every placement
/// that compares it (as in KubeFleet); the cycle error names the cluster, and this error
/// points at the value itself, once per cluster and property.
fn locate_invalid_quantities(input: &Input, report: &mut PlacementReport) {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut found = Vec::new();
    for p in &report.placements {
        let Some(CycleError::PropertyNotAQuantity {
            cluster,
            property,
            value,
            error,
        }) = p.cycle_error.as_ref().map(|e| &e.error)
        else {
            continue;
        };
        if seen.contains(&(cluster.as_str(), property.as_str())) {
            continue;
        }
        seen.push((cluster, property));
        let Some(doc) = input
            .of_kind("MemberCluster")
            .find(|d| d.name.as_deref() == Some(cluster.as_str()))
        else {
            continue;
        };
        found.push(doc.error(
            &FieldPath::parse("status.properties").key(property).key("value"),
            format!(
                "value {value:?} is not a quantity ({error}): the scheduling cycle of {} {} aborts on it",
                p.kind, p.name
            ),
        ));
    }
    report.errors.extend(found);
}
