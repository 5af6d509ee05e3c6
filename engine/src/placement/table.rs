//! `--format table` for placement results.

use super::report::PlacementReport;
use super::status;
use crate::text::{escape_controls, Escaped};
use std::fmt::Write;

/// Renders a placement report as a terminal table.
pub fn render(report: &PlacementReport) -> String {
    let mut out = String::new();
    for p in &report.placements {
        let _ = writeln!(
            out,
            "{} {} ({}, {}): {} {}: {}",
            Escaped(&p.kind),
            Escaped(&p.name),
            p.placement_type,
            p.validation,
            p.condition.status,
            Escaped(&p.condition.reason),
            Escaped(&p.condition.message)
        );
        if let Some(e) = &p.cycle_error {
            let _ = writeln!(out, "  scheduling cycle aborted: {}", Escaped(&e.message));
        }
        let width = p
            .picked
            .iter()
            .chain(&p.not_picked)
            .map(|c| escape_controls(&c.cluster).len())
            .chain(p.filtered.iter().map(|c| escape_controls(&c.cluster).len()))
            .chain(
                p.kept
                    .iter()
                    .chain(&p.unscheduled)
                    .map(|c| escape_controls(c).len()),
            )
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
                Escaped(&c.cluster),
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
                Escaped(c),
                "kept",
                "",
                ""
            );
        }
        for c in &p.unscheduled {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  binding released",
                Escaped(c),
                "unscheduled",
                "",
                ""
            );
        }
        for c in &p.not_picked {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  does not score high enough",
                Escaped(&c.cluster),
                "not picked",
                c.affinity_score,
                c.topology_spread_score
            );
        }
        for c in &p.filtered {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  {}: {}",
                Escaped(&c.cluster),
                "filtered",
                "",
                "",
                c.plugin,
                Escaped(&status::explain(&c.explanation))
            );
        }
    }
    out
}
