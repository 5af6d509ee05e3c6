//! Disruption results.

use crate::input::Diagnostic;
use serde::Serialize;

/// Result of [`crate::budgets`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    /// One entry per NodePool.
    pub node_pools: Vec<serde_json::Value>,
    /// Errors in the input.
    pub errors: Vec<Diagnostic>,
    /// Warnings about the input.
    pub warnings: Vec<Diagnostic>,
}
