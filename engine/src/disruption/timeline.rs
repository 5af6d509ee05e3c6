//! The moments over a horizon where a NodePool's allowed disruptions change (spec §3.7), and
//! each scheduled budget's windows, for drawing.

use super::budget::{BudgetValue, PerReason, Reason, RuntimeBudget, UNBOUNDED};
use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use serde::Serialize;

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
    let mut changes: Vec<(DateTime<Utc>, usize)> = Vec::new();
    for (i, b) in budgets.iter().enumerate() {
        if state.get(i).is_some_and(|s| s.is_ok()) {
            changes.extend(transitions(b, from, to).into_iter().map(|c| (c, i)));
        }
    }
    let flips = SortedMap::grouped(changes);
    // A budget's value only depends on whether it is active: compute both once.
    let when: Vec<(BudgetValue, BudgetValue)> = budgets
        .iter()
        .map(|b| (b.value_given(false, total), b.value_given(true, total)))
        .collect();
    let applies: Vec<[bool; 3]> = budgets
        .iter()
        .map(|b| Reason::ALL.map(|r| b.applies_to(r)))
        .collect();
    // The same arithmetic as `budget::combine`, without allocating (it runs per change).
    let value = |i: usize, s: &'_ Result<bool, BudgetValue>| {
        value_of(&when, i, s).map(|v| (v.active, v.value, v.error.is_some()))
    };
    let answer = |state: &[Result<bool, BudgetValue>]| -> (PerReason, PerReason, bool) {
        let mut raw = PerReason::all(UNBOUNDED);
        let mut fail = false;
        for (i, s) in state.iter().enumerate() {
            let Some((active, v, error)) = value(i, s) else {
                continue;
            };
            fail |= error;
            if !active {
                continue;
            }
            for (k, r) in Reason::ALL.into_iter().enumerate() {
                if applies.get(i).is_some_and(|a| a.get(k) == Some(&true)) && v < raw.get(r) {
                    raw.set(r, v);
                }
            }
        }
        if fail {
            raw = PerReason::all(0);
        }
        let mut allowed = PerReason::default();
        for r in Reason::ALL {
            allowed.set(r, raw.get(r).saturating_sub(disrupting).max(0));
        }
        (raw, allowed, fail)
    };
    let active_of = |state: &[Result<bool, BudgetValue>]| -> Vec<usize> {
        state
            .iter()
            .enumerate()
            .filter(|(i, s)| value(*i, s).is_some_and(|v| v.0))
            .map(|(i, _)| i)
            .collect()
    };
    let (raw, allowed, fail_closed) = answer(&state);
    let mut out = vec![TimelinePoint {
        at: from,
        allowed_disruptions: allowed,
        raw,
        active_budgets: active_of(&state),
        fail_closed,
    }];
    for (at, who) in flips {
        for i in who {
            if let Some(Ok(a)) = state.get_mut(i) {
                *a = !*a;
            }
        }
        let (raw, allowed, fail_closed) = answer(&state);
        let changed = out.last().is_none_or(|l| {
            l.allowed_disruptions != allowed || l.raw != raw || l.fail_closed != fail_closed
        });
        if changed {
            out.push(TimelinePoint {
                at,
                allowed_disruptions: allowed,
                raw,
                active_budgets: active_of(&state),
                fail_closed,
            });
        }
    }
    out
}

fn value_of<'a>(
    when: &'a [(BudgetValue, BudgetValue)],
    i: usize,
    s: &'a Result<bool, BudgetValue>,
) -> Option<&'a BudgetValue> {
    match s {
        Ok(true) => when.get(i).map(|w| &w.1),
        Ok(false) => when.get(i).map(|w| &w.0),
        Err(v) => Some(v),
    }
}
