//! Rollout results.

use crate::input::Diagnostic;
use serde::Serialize;

/// Result of [`crate::rollout`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutReport {
    /// One entry per rollout.
    pub rollouts: Vec<serde_json::Value>,
    /// Errors in the input.
    pub errors: Vec<Diagnostic>,
    /// Warnings about the input.
    pub warnings: Vec<Diagnostic>,
}
