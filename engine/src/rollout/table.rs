//! `--format table` for rollout results.

use super::report::RolloutReport;
use crate::text::{escape_controls, Escaped};
use std::fmt::Write;

fn time(t: &Option<chrono::DateTime<chrono::Utc>>) -> String {
    t.map_or_else(
        || "-".to_string(),
        |t| t.format("%Y-%m-%d %H:%M").to_string(),
    )
}

/// Renders a rollout report as a terminal table: one block per rollout, one line per member.
pub fn render(report: &RolloutReport) -> String {
    let mut out = String::new();
    for r in &report.rollouts {
        let _ = writeln!(
            out,
            "{} {} — {:?} (start {}, end {})",
            Escaped(&r.kind),
            Escaped(&r.name),
            r.state,
            time(&r.start),
            time(&r.end)
        );
        if let Some(m) = &r.message {
            let _ = writeln!(out, "  {}", Escaped(m));
        }
        // Rows first, then columns as wide as their longest cell (names can be long).
        let mut rows: Vec<[String; 6]> = vec![[
            "STAGE".into(),
            "GROUP".into(),
            "MEMBER".into(),
            "STATE".into(),
            "START".into(),
            "END".into(),
        ]];
        for s in &r.stages {
            for g in &s.groups {
                for m in &g.members {
                    rows.push([
                        escape_controls(&s.name).into_owned(),
                        escape_controls(&g.name).into_owned(),
                        escape_controls(&m.cluster).into_owned(),
                        format!("{:?}", m.state),
                        time(&m.start),
                        time(&m.end),
                    ]);
                }
            }
            for w in &s.waits {
                rows.push([
                    escape_controls(&s.name).into_owned(),
                    format!("{:?}", w.kind),
                    escape_controls(&w.name).into_owned(),
                    format!("{:?}", w.state),
                    time(&w.start),
                    time(&w.end),
                ]);
            }
        }
        let mut widths = [0usize; 6];
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in &rows {
            let mut line = String::new();
            for (cell, w) in row.iter().zip(widths) {
                let _ = write!(line, "  {cell:<w$}");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        for e in &r.excluded {
            let _ = writeln!(
                out,
                "  excluded {}: {}",
                Escaped(&e.cluster),
                Escaped(&e.message)
            );
        }
    }
    if report.rollouts.is_empty() {
        out.push_str("no rollouts\n");
    }
    out
}
