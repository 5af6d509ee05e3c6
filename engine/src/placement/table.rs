//! `--format table` for placement results.

use super::report::PlacementReport;
use super::status;
use std::fmt::Write;

/// Renders a placement report as a terminal table.
pub fn render(report: &PlacementReport) -> String {
    let mut out = String::new();
    for p in &report.placements {
        let _ = writeln!(
            out,
            "{} {} ({}, {}): {} {}: {}",
            p.kind,
            p.name,
            p.placement_type,
            p.validation,
            p.condition.status,
            p.condition.reason,
            p.condition.message
        );
        if let Some(e) = &p.cycle_error {
            let _ = writeln!(out, "  scheduling cycle aborted: {}", e.message);
        }
        let width = p
            .picked
            .iter()
            .chain(&p.not_picked)
            .map(|c| c.cluster.len())
            .chain(p.filtered.iter().map(|c| c.cluster.len()))
            .chain(p.kept.iter().chain(&p.unscheduled).map(String::len))
            .max()
            .unwrap_or(7)
            .max(7);
        let _ = writeln!(
            out,
            "  {:<width$}  {:<11}  {:>8}  {:>8}  DETAIL",
            "CLUSTER", "RESULT", "AFFINITY", "TOPOLOGY"
        );
        for (n, c) in p.picked.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  pick #{}",
                c.cluster,
                "picked",
                c.affinity_score,
                c.topology_spread_score,
                n + 1
            );
        }
        for c in &p.kept {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  existing binding kept",
                c, "kept", "", ""
            );
        }
        for c in &p.unscheduled {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  binding released",
                c, "unscheduled", "", ""
            );
        }
        for c in &p.not_picked {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  does not score high enough",
                c.cluster, "not picked", c.affinity_score, c.topology_spread_score
            );
        }
        for c in &p.filtered {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  {}: {}",
                c.cluster,
                "filtered",
                "",
                "",
                c.plugin,
                status::explain(&c.explanation)
            );
        }
    }
    out
}
