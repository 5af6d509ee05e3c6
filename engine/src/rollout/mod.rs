//! Rollouts: Azure Fleet update runs, KubeFleet RollingUpdate and staged update runs.

pub mod report;
pub mod table;

use crate::input::kinds::KindInfo;
use crate::input::{Diagnostic, FieldPath, Input};
use chrono::{DateTime, Utc};
use serde::Deserialize;

pub use report::RolloutReport;

/// Kinds the rollout engine reads.
pub const KINDS: &[KindInfo] = &[
    KindInfo {
        kind: "ClusterStagedUpdateStrategy",
        api_versions: &[
            "placement.kubernetes-fleet.io/v1",
            "placement.kubernetes-fleet.io/v1beta1",
        ],
    },
    KindInfo {
        kind: "ClusterStagedUpdateRun",
        api_versions: &[
            "placement.kubernetes-fleet.io/v1",
            "placement.kubernetes-fleet.io/v1beta1",
        ],
    },
];

/// Options of a rollout evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutOptions {
    /// The evaluation instant (also the default start of a simulated run).
    pub at: DateTime<Utc>,
}

/// Whether the input holds anything this engine evaluates.
pub fn applies(input: &Input) -> bool {
    input.of_kind("ClusterStagedUpdateRun").next().is_some()
}

/// Plans and simulates every rollout in the input.
pub fn rollout(input: &Input, _options: &RolloutOptions) -> RolloutReport {
    let errors: Vec<Diagnostic> = input
        .of_kind("ClusterStagedUpdateRun")
        .map(|d| {
            d.error(
                &FieldPath::root(),
                "rollout evaluation is not implemented yet",
            )
        })
        .collect();
    RolloutReport {
        errors,
        ..RolloutReport::default()
    }
}
