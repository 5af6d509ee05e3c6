//! The moments over a horizon where a NodePool's allowed disruptions change (spec §3.7), and
//! each scheduled budget's windows, for drawing.

use super::budget::{combine, BudgetValue, PerReason, RuntimeBudget};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;

/// The NodePool's answer from `at` until the next point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelinePoint {
    /// From this instant (inclusive).
    pub at: DateTime<Utc>,
    /// Allowed disruptions per reason (after subtracting disrupting nodes).
    pub allowed_disruptions: PerReason,
    /// Before subtraction.
    pub raw: PerReason,
    /// Indexes of the active budgets.
    pub active_budgets: Vec<usize>,
    /// The NodePool fails closed (a budget error).
    pub fail_closed: bool,
}

/// One window `[start, end)` of a scheduled budget, clipped to the horizon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveSpan {
    /// Start (inclusive; the horizon start when already active).
    pub start: DateTime<Utc>,
    /// End (exclusive; `None` when still active at the horizon end).
    pub end: Option<DateTime<Utc>>,
}

/// Instants in `(from, to]` where each budget's activity flips.
pub fn transitions(
    budget: &RuntimeBudget,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<DateTime<Utc>> {
    let mut out = Vec::new();
    let Some(w) = budget.window() else { return out };
    let mut t = from;
    // Bounded: each step moves strictly forward; the cap guards pathological schedules.
    while out.len() < 100_000 {
        match w.next_change(t, to) {
            Some(c) if c > t => {
                out.push(c);
                t = c;
            }
            _ => break,
        }
    }
    out
}

/// The active spans of one budget over `[from, to]`.
pub fn spans(budget: &RuntimeBudget, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<ActiveSpan> {
    let mut active = budget.is_active(from).unwrap_or(false);
    let mut start = active.then_some(from);
    let mut out = Vec::new();
    for c in transitions(budget, from, to) {
        if active {
            out.push(ActiveSpan {
                start: start.unwrap_or(from),
                end: Some(c),
            });
            start = None;
        } else {
            start = Some(c);
        }
        active = !active;
    }
    if let (true, Some(s)) = (active, start) {
        out.push(ActiveSpan {
            start: s,
            end: None,
        });
    }
    out
}

/// The timeline of a NodePool over `[from, to]`: a first point at `from`, then one per change
/// of the allowed disruptions (or of the fail-closed state).
pub fn timeline(
    budgets: &[RuntimeBudget],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    total: i64,
    disrupting: i64,
) -> Vec<TimelinePoint> {
    let mut state: Vec<Result<bool, BudgetValue>> = budgets
        .iter()
        .map(|b| {
            b.is_active(from).map_err(|e| BudgetValue {
                active: false,
                value: 0,
                error: Some(e),
            })
        })
        .collect();
    let mut flips: BTreeMap<DateTime<Utc>, Vec<usize>> = BTreeMap::new();
    for (i, b) in budgets.iter().enumerate() {
        if state.get(i).is_some_and(|s| s.is_ok()) {
            for c in transitions(b, from, to) {
                flips.entry(c).or_default().push(i);
            }
        }
    }
    let point = |at: DateTime<Utc>, state: &[Result<bool, BudgetValue>]| {
        let values: Vec<BudgetValue> = budgets
            .iter()
            .zip(state)
            .map(|(b, s)| match s {
                Ok(a) => b.value_given(*a, total),
                Err(v) => v.clone(),
            })
            .collect();
        let active_budgets = values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.active)
            .map(|(i, _)| i)
            .collect();
        let e = combine(budgets, values, disrupting);
        TimelinePoint {
            at,
            allowed_disruptions: e.allowed,
            raw: e.raw,
            active_budgets,
            fail_closed: e.fail_closed,
        }
    };
    let mut out = vec![point(from, &state)];
    for (at, who) in flips {
        for i in who {
            if let Some(Ok(a)) = state.get_mut(i) {
                *a = !*a;
            }
        }
        let p = point(at, &state);
        let changed = out.last().is_none_or(|l| {
            l.allowed_disruptions != p.allowed_disruptions
                || l.raw != p.raw
                || l.fail_closed != p.fail_closed
        });
        if changed {
            out.push(p);
        }
    }
    out
}
