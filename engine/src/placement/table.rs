//! `--format table` for placement results.

use super::report::PlacementReport;
use std::fmt::Write;

/// Renders a placement report as a terminal table.
pub fn render(report: &PlacementReport) -> String {
    let mut out = String::new();
    for p in &report.placements {
        let _ = writeln!(out, "placement {}: {}", p.name, p.condition.message);
        let width = p
            .picked
            .iter()
            .map(|c| c.cluster.len())
            .chain(p.filtered.iter().map(|c| c.cluster.len()))
            .max()
            .unwrap_or(7)
            .max(7);
        let _ = writeln!(out, "  {:<width$}  {:<10}  REASON", "CLUSTER", "RESULT");
        for c in &p.picked {
            let _ = writeln!(out, "  {:<width$}  {:<10}", c.cluster, "picked");
        }
        for c in &p.filtered {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<10}  {}",
                c.cluster, "filtered", c.reason
            );
        }
    }
    out
}
