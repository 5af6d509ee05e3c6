//! KubeFleet ClusterResourcePlacement scheduling.

pub mod report;
pub mod table;

use crate::input::kinds::KindInfo;
use crate::input::{Diagnostic, FieldPath, Input};
use crate::model::placement::{ClusterResourcePlacement, MemberCluster};
use crate::selectors::{LabelMismatch, Selector};
use chrono::{DateTime, Utc};
use serde::Deserialize;

pub use report::{Condition, FilterReason, Filtered, Picked, PlacementReport, PlacementResult};

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
];

/// Options of a placement evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaceOptions {
    /// The evaluation instant ("now" for heartbeats and health).
    pub at: DateTime<Utc>,
}

impl PlaceOptions {
    /// Options for an evaluation at `at`.
    pub fn at(at: DateTime<Utc>) -> Self {
        PlaceOptions { at }
    }
}

/// Whether the input holds anything this engine evaluates.
pub fn applies(input: &Input) -> bool {
    input.of_kind("ClusterResourcePlacement").next().is_some()
}

/// Schedules every placement in the input against the fleet in the input.
///
/// Reports only the diagnostics it finds itself; [`crate::place`] adds the input's.
pub fn place(input: &Input, _options: &PlaceOptions) -> PlacementReport {
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut clusters: Vec<MemberCluster> = Vec::new();
    for doc in input.of_kind("MemberCluster") {
        match doc.decode::<MemberCluster>() {
            Ok(c) => clusters.push(c),
            Err(d) => diags.push(d),
        }
    }
    clusters.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));

    let mut placements = Vec::new();
    for doc in input.of_kind("ClusterResourcePlacement") {
        let crp = match doc.decode::<ClusterResourcePlacement>() {
            Ok(c) => c,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        let policy = crp.spec.policy.clone().unwrap_or_default();
        let placement_type = policy.placement_type.as_deref().unwrap_or("PickAll");
        if placement_type != "PickAll" {
            diags.push(doc.error(
                &FieldPath::parse("spec.policy.placementType"),
                format!("placementType {placement_type} is not supported yet"),
            ));
            continue;
        }
        let terms = policy
            .affinity
            .and_then(|a| a.cluster_affinity)
            .and_then(|c| c.required_during_scheduling_ignored_during_execution)
            .map(|r| r.cluster_selector_terms)
            .unwrap_or_default();
        let base = FieldPath::parse(
            "spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms",
        );
        let mut selectors: Vec<Option<Selector>> = Vec::new();
        let mut bad = false;
        for (i, term) in terms.iter().enumerate() {
            match term.label_selector.as_ref().map(|s| s.compile()) {
                None => selectors.push(None),
                Some(Ok(s)) => selectors.push(Some(s)),
                Some(Err(e)) => {
                    let path =
                        FieldPath::parse(&format!("{}[{i}].labelSelector.{}", base, e.field));
                    diags.push(doc.error(&path, e.message));
                    bad = true;
                }
            }
        }
        if bad {
            continue;
        }
        let mut result = PlacementResult {
            name: crp.metadata.name.clone(),
            ..PlacementResult::default()
        };
        for c in &clusters {
            let mismatches: Vec<(usize, LabelMismatch)> = selectors
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    s.as_ref()
                        .and_then(|s| s.first_mismatch(&c.metadata.labels))
                        .map(|m| (i, m))
                })
                .collect();
            let matched = terms.is_empty() || mismatches.len() < selectors.len();
            if matched {
                result.picked.push(Picked {
                    cluster: c.metadata.name.clone(),
                    affinity_score: 0,
                    topology_spread_score: 0,
                });
            } else {
                let reason = FilterReason::ClusterAffinityMismatch {
                    terms: mismatches
                        .into_iter()
                        .map(|(term, mismatch)| report::TermMismatch { term, mismatch })
                        .collect(),
                };
                result.filtered.push(Filtered {
                    cluster: c.metadata.name.clone(),
                    plugin: reason.plugin().to_string(),
                    reason: reason.status_reason(),
                    explanation: reason,
                });
            }
        }
        result.condition = Condition::scheduled(result.picked.len(), true);
        placements.push(result);
    }
    let (errors, warnings) = crate::input::diagnostics::partition(diags);
    PlacementReport {
        placements,
        errors,
        warnings,
    }
}
