//! `--format table` for budget results.

use super::report::BudgetReport;

/// Renders a budget report as a terminal table.
pub fn render(report: &BudgetReport) -> String {
    format!("{} node pool(s)\n", report.node_pools.len())
}
