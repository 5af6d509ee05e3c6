//! `--format table` for budget results.

use super::budget::{is_unbounded, PerReason};
use super::report::BudgetReport;
use crate::text::Escaped;
use std::fmt::Write;

fn n(v: i64) -> String {
    if is_unbounded(v) {
        // Karpenter's MaxInt32 (minus disrupting nodes) means "no budget limits this".
        "unbounded".to_string()
    } else {
        v.to_string()
    }
}

fn reasons(p: &PerReason) -> String {
    format!(
        "Drifted {:>9}  Empty {:>9}  Underutilized {:>9}",
        n(p.drifted),
        n(p.empty),
        n(p.underutilized)
    )
}

/// Renders a budget report as a terminal table.
pub fn render(report: &BudgetReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Karpenter rules: {}", report.karpenter_version);
    for p in &report.node_pools {
        let _ = writeln!(s, "\nNodePool {}", Escaped(&p.name));
        let _ = writeln!(
            s,
            "  nodes: total {}, disrupting {}{}",
            p.nodes.total,
            p.nodes.disrupting,
            if p.fail_closed {
                "  (FAIL CLOSED: a budget is in error)"
            } else {
                ""
            }
        );
        let _ = writeln!(s, "  allowed  {}", reasons(&p.allowed_disruptions));
        let _ = writeln!(s, "  raw      {}", reasons(&p.raw_allowed_disruptions));
        let _ = writeln!(
            s,
            "  {:<3} {:<6} {:<10} {:<22} {:<9} {:<30} window",
            "#", "active", "nodes", "schedule", "duration", "reasons"
        );
        for b in &p.budgets {
            let window = match (b.active, b.active_until, b.next_open, b.never_closes) {
                (_, _, _, true) => "never closes".to_string(),
                (true, Some(u), _, _) => format!("until {}", u.to_rfc3339()),
                (false, _, Some(o), _) => format!("opens {}", o.to_rfc3339()),
                _ => String::new(),
            };
            let err = b
                .error
                .as_ref()
                .map(|e| format!("  ERROR {}", Escaped(e.message())))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  {:<3} {:<6} {:<10} {:<22} {:<9} {:<30} {}{}",
                b.index,
                if b.active { "yes" } else { "no" },
                b.nodes,
                Escaped(b.schedule.as_deref().unwrap_or("-")),
                Escaped(b.duration.as_deref().unwrap_or("-")),
                Escaped(
                    &b.reasons
                        .as_ref()
                        .map_or("all".to_string(), |r| format!("[{}]", r.join(",")))
                ),
                window,
                err
            );
        }
        if p.timeline.len() > 1 {
            let _ = writeln!(s, "  timeline:");
            for t in &p.timeline {
                let _ = writeln!(
                    s,
                    "    {}  {}",
                    t.at.to_rfc3339(),
                    reasons(&t.allowed_disruptions)
                );
            }
        }
        for m in &p.candidates {
            let picked: Vec<&str> = m
                .candidates
                .iter()
                .filter(|c| c.selected)
                .map(|c| c.node.as_str())
                .collect();
            let _ = writeln!(
                s,
                "  {:?}: {} candidate(s), would take [{}], {} excluded",
                m.method,
                m.candidates.len(),
                Escaped(&picked.join(", ")),
                m.excluded.len()
            );
        }
    }
    render_pass(report, &mut s);
    s
}

/// The controller pass over all NodePools: which method acts, with which commands.
fn render_pass(report: &BudgetReport, s: &mut String) {
    if report.pass.methods.iter().all(|m| m.candidates.is_empty()) {
        return;
    }
    let _ = writeln!(
        s,
        "\nThis pass (all NodePools): {}",
        report
            .pass
            .acting
            .map_or("no method builds a command", |m| m.as_str())
    );
    for m in &report.pass.methods {
        if m.candidates.is_empty() {
            continue;
        }
        let commands: Vec<String> = m
            .commands
            .iter()
            .map(|c| {
                let nodes: Vec<&str> = c.iter().map(|n| n.as_str()).collect();
                format!("[{}]", Escaped(&nodes.join(", ")))
            })
            .collect();
        let budgets: Vec<String> = m
            .budgets
            .iter()
            .map(|b| format!("{} {}/{}", Escaped(&b.node_pool), b.used, n(b.allowed)))
            .collect();
        let _ = writeln!(
            s,
            "  {}: {} candidate(s), commands {}, budget used {}",
            m.method.as_str(),
            m.candidates.len(),
            if commands.is_empty() {
                "none".to_string()
            } else {
                commands.join(" ")
            },
            budgets.join(", ")
        );
    }
}
