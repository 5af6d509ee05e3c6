//! `--format table` for rollout results.

use super::report::RolloutReport;
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
            r.kind,
            r.name,
            r.state,
            time(&r.start),
            time(&r.end)
        );
        if let Some(m) = &r.message {
            let _ = writeln!(out, "  {m}");
        }
        let _ = writeln!(
            out,
            "  {:<24} {:<20} {:<28} {:<11} {:<17} {:<17}",
            "STAGE", "GROUP", "MEMBER", "STATE", "START", "END"
        );
        for s in &r.stages {
            for g in &s.groups {
                for m in &g.members {
                    let _ = writeln!(
                        out,
                        "  {:<24} {:<20} {:<28} {:<11} {:<17} {:<17}",
                        s.name,
                        g.name,
                        m.cluster,
                        format!("{:?}", m.state),
                        time(&m.start),
                        time(&m.end)
                    );
                }
            }
            for w in &s.waits {
                let _ = writeln!(
                    out,
                    "  {:<24} {:<20} {:<28} {:<11} {:<17} {:<17}",
                    s.name,
                    format!("{:?}", w.kind),
                    w.name,
                    format!("{:?}", w.state),
                    time(&w.start),
                    time(&w.end)
                );
            }
        }
        for e in &r.excluded {
            let _ = writeln!(out, "  excluded {}: {}", e.cluster, e.message);
        }
    }
    if report.rollouts.is_empty() {
        out.push_str("no rollouts\n");
    }
    out
}
