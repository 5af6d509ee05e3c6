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
            .chain(
                p.decisions
                    .iter()
                    .filter(|d| !d.selected)
                    .map(|d| escape_controls(&d.cluster_name).len()),
            )
            .max()
            .unwrap_or(7)
            .max(7);
        let _ = writeln!(
            out,
            "  {:<width$}  {:<11}  {:>8}  {:>8}  DETAIL",
            "CLUSTER", "RESULT", "AFFINITY", "TOPOLOGY"
        );
        // PickFixed picks are not scored.
        let fixed = p.placement_type == "PickFixed";
        for (n, c) in p.picked.iter().enumerate() {
            let (affinity, topology) = if fixed {
                (String::new(), String::new())
            } else {
                (
                    c.affinity_score.to_string(),
                    c.topology_spread_score.to_string(),
                )
            };
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  pick #{}",
                Escaped(&c.cluster),
                "picked",
                affinity,
                topology,
                n + 1
            );
        }
        // A kept binding's cluster may fail a filter for new picks (a stale heartbeat): one
        // row says both, rather than a "kept" row and a "filtered" one for the same cluster.
        let filtered = |name: &str| p.filtered.iter().find(|f| &*f.cluster == name);
        for c in &p.kept {
            let also = filtered(c).map_or_else(String::new, |f| {
                format!(
                    "; filtered for new picks: {}: {}",
                    f.plugin,
                    Escaped(&status::explain(&f.explanation))
                )
            });
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  existing binding kept{also}",
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
        for c in p
            .filtered
            .iter()
            .filter(|f| !p.kept.iter().any(|k| **k == *f.cluster))
        {
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
        // Clusters the scheduler decided on without a row above: a PickFixed name that is not
        // found or not eligible (no filter runs for PickFixed), with the decision's reason.
        let shown = |name: &str| {
            p.picked.iter().any(|c| &*c.cluster == name)
                || p.not_picked.iter().any(|c| &*c.cluster == name)
                || p.filtered.iter().any(|c| &*c.cluster == name)
                || p.kept.iter().chain(&p.unscheduled).any(|c| &**c == name)
        };
        for d in p.decisions.iter().filter(|d| !d.selected) {
            if shown(&d.cluster_name) {
                continue;
            }
            let _ = writeln!(
                out,
                "  {:<width$}  {:<11}  {:>8}  {:>8}  {}",
                Escaped(&d.cluster_name),
                "unselected",
                "",
                "",
                Escaped(&d.reason.to_string())
            );
        }
    }
    out
}
