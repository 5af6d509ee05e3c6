//! `--format table` for rollout results.

use super::report::RolloutReport;

/// Renders a rollout report as a terminal table.
pub fn render(report: &RolloutReport) -> String {
    format!("{} rollout(s)\n", report.rollouts.len())
}
