//! Karpenter NodePool disruption: budgets, windows, timelines and candidates.

pub mod report;
pub mod table;

use crate::input::kinds::KindInfo;
use crate::input::{Diagnostic, FieldPath, Input};
use chrono::{DateTime, Utc};
use serde::Deserialize;

pub use report::BudgetReport;

/// Kinds the disruption engine reads.
pub const KINDS: &[KindInfo] = &[KindInfo {
    kind: "NodePool",
    api_versions: &["karpenter.sh/v1"],
}];

/// Options of a budget evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetOptions {
    /// The evaluation instant.
    pub at: DateTime<Utc>,
    /// Timeline horizon as a Go duration ("168h"); default 7 days.
    #[serde(default)]
    pub horizon: Option<String>,
}

/// Whether the input holds anything this engine evaluates.
pub fn applies(input: &Input) -> bool {
    input.of_kind("NodePool").next().is_some()
}

/// Evaluates every NodePool in the input at `options.at`.
pub fn budgets(input: &Input, _options: &BudgetOptions) -> BudgetReport {
    let errors: Vec<Diagnostic> = input
        .of_kind("NodePool")
        .map(|d| {
            d.error(
                &FieldPath::root(),
                "NodePool evaluation is not implemented yet",
            )
        })
        .collect();
    BudgetReport {
        errors,
        ..BudgetReport::default()
    }
}
