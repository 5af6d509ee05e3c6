//! Budget arithmetic (spec §3): when a budget is active, its node value, the per-reason
//! minimum, the subtraction of disrupting nodes and the fail-closed rule.

use super::schedule::{CronSchedule, ScheduleError, Window};
use crate::input::duration::GoDuration;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Go `math.MaxInt32`: Karpenter's "no active budget limits this reason".
pub const UNBOUNDED: i64 = 2_147_483_647;

/// Whether a per-reason count means "no budget limits this reason": Karpenter's MaxInt32, less
/// the disrupting nodes subtracted from it.
pub fn is_unbounded(v: i64) -> bool {
    v >= UNBOUNDED - 1_000_000
}

/// A disruption reason a budget can be scoped to (`spec.disruption.budgets[].reasons`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Reason {
    /// Drift (and static drift).
    Drifted,
    /// Emptiness.
    Empty,
    /// Multi- and single-node consolidation.
    Underutilized,
}

impl Reason {
    /// Every reason, in the order results list them.
    pub const ALL: [Reason; 3] = [Reason::Drifted, Reason::Empty, Reason::Underutilized];

    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Drifted => "Drifted",
            Reason::Empty => "Empty",
            Reason::Underutilized => "Underutilized",
        }
    }
}

/// One number per reason, serialised as `{"Drifted":…, "Empty":…, "Underutilized":…}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PerReason {
    /// Drift.
    #[serde(rename = "Drifted")]
    pub drifted: i64,
    /// Emptiness.
    #[serde(rename = "Empty")]
    pub empty: i64,
    /// Consolidation.
    #[serde(rename = "Underutilized")]
    pub underutilized: i64,
}

impl PerReason {
    /// The same value for every reason.
    pub fn all(v: i64) -> Self {
        PerReason {
            drifted: v,
            empty: v,
            underutilized: v,
        }
    }

    /// The value for one reason.
    pub fn get(&self, r: Reason) -> i64 {
        match r {
            Reason::Drifted => self.drifted,
            Reason::Empty => self.empty,
            Reason::Underutilized => self.underutilized,
        }
    }

    /// Sets the value for one reason.
    pub fn set(&mut self, r: Reason, v: i64) {
        match r {
            Reason::Drifted => self.drifted = v,
            Reason::Empty => self.empty = v,
            Reason::Underutilized => self.underutilized = v,
        }
    }
}

/// Node counts of one NodePool (spec §3.2 buckets).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeCounts {
    /// Initialized, Ready, not deleting.
    pub ready: i64,
    /// Initialized, Ready, deleting or marked for deletion.
    pub deleting: i64,
    /// Initialized, not Ready, not deleting.
    pub not_ready: i64,
    /// Initialized, not Ready and deleting (counted once).
    pub deleting_not_ready: i64,
    /// Not initialized yet: not counted.
    pub uninitialized: i64,
    /// Without a NodeClaim: not counted.
    pub unmanaged: i64,
    /// NodeClaim InstanceTerminating=True: not counted from v1.1.
    pub instance_terminating: i64,
}

impl NodeCounts {
    /// The `total` Karpenter takes percentages of.
    pub fn total(&self, count_instance_terminating: bool) -> i64 {
        let base = self.ready + self.deleting + self.not_ready + self.deleting_not_ready;
        if count_instance_terminating {
            base + self.instance_terminating
        } else {
            base
        }
    }

    /// Nodes already being disrupted (deleting or not Ready), subtracted from every reason.
    pub fn disrupting(&self, count_instance_terminating: bool) -> i64 {
        let base = self.deleting + self.not_ready + self.deleting_not_ready;
        if count_instance_terminating {
            base + self.instance_terminating
        } else {
            base
        }
    }

    /// Adds another set of counts.
    pub fn add(&mut self, o: &NodeCounts) {
        self.ready += o.ready;
        self.deleting += o.deleting;
        self.not_ready += o.not_ready;
        self.deleting_not_ready += o.deleting_not_ready;
        self.uninitialized += o.uninitialized;
        self.unmanaged += o.unmanaged;
        self.instance_terminating += o.instance_terminating;
    }
}

/// Why a budget failed at run time (which makes the whole NodePool fail closed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BudgetError {
    /// robfig could not parse the schedule.
    Schedule {
        /// Karpenter's text: `invalid schedule <robfig error>`.
        message: String,
    },
    /// The `nodes` value is neither an integer nor `<int>%`.
    Nodes {
        /// Karpenter's text: `parsing percent value …`.
        message: String,
    },
    /// The duration is not a Go duration (the object would not even decode).
    Duration {
        /// Go's text.
        message: String,
    },
}

impl BudgetError {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            BudgetError::Schedule { message }
            | BudgetError::Nodes { message }
            | BudgetError::Duration { message } => message,
        }
    }
}

/// A budget as the runtime sees it, with its schedule parsed once.
#[derive(Debug, Clone)]
pub struct RuntimeBudget {
    /// `nodes` (the CRD default "10%" already applied).
    pub nodes: String,
    /// `reasons`; `None` = applies to every reason, `Some([])` = to none.
    pub reasons: Option<Vec<String>>,
    /// Whether a schedule or a duration is set (otherwise always active).
    pub scheduled: bool,
    /// The parsed `"TZ=UTC " + schedule` (an absent schedule parses as "").
    pub schedule: Result<CronSchedule, ScheduleError>,
    /// The duration (absent = 0).
    pub duration: Result<GoDuration, String>,
}

/// One budget's answer at an instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetValue {
    /// Whether the budget is active (false when its schedule is broken).
    pub active: bool,
    /// Its node value: MAXINT when inactive, 0 when in error.
    pub value: i64,
    /// The runtime error, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<BudgetError>,
}

impl RuntimeBudget {
    /// Builds the runtime view of one budget.
    pub fn new(
        nodes: Option<&str>,
        schedule: Option<&str>,
        duration: Option<&str>,
        reasons: Option<Vec<String>>,
    ) -> Self {
        RuntimeBudget {
            nodes: nodes.unwrap_or("10%").to_string(),
            reasons,
            scheduled: schedule.is_some() || duration.is_some(),
            schedule: CronSchedule::parse(schedule.unwrap_or("")),
            duration: match duration {
                None => Ok(GoDuration(0)),
                Some(d) => GoDuration::parse(d).map_err(|e| e.0),
            },
        }
    }

    /// Whether the budget applies to a reason.
    pub fn applies_to(&self, r: Reason) -> bool {
        self.reasons
            .as_ref()
            .is_none_or(|rs| rs.iter().any(|x| x == r.as_str()))
    }

    /// The window (schedule + duration), when both parsed.
    pub fn window(&self) -> Option<Window<'_>> {
        match (&self.schedule, &self.duration) {
            (Ok(s), Ok(d)) if self.scheduled => Some(Window {
                schedule: s,
                duration: d.to_chrono(),
            }),
            _ => None,
        }
    }

    /// `Budget.IsActive`.
    pub fn is_active(&self, t: DateTime<Utc>) -> Result<bool, BudgetError> {
        if !self.scheduled {
            return Ok(true);
        }
        if let Err(e) = &self.duration {
            return Err(BudgetError::Duration { message: e.clone() });
        }
        match self.window() {
            Some(w) => Ok(w.is_active(t)),
            None => Err(BudgetError::Schedule {
                message: match &self.schedule {
                    Err(e) => format!("invalid schedule {e}"),
                    Ok(_) => "invalid schedule".to_string(),
                },
            }),
        }
    }

    /// `Budget.GetAllowedDisruptions` at `t` for a pool of `total` nodes.
    pub fn value_at(&self, t: DateTime<Utc>, total: i64) -> BudgetValue {
        match self.is_active(t) {
            Err(e) => BudgetValue {
                active: false,
                value: 0,
                error: Some(e),
            },
            Ok(active) => self.value_given(active, total),
        }
    }

    /// The value for a known activity (used by the timeline, which tracks activity itself).
    pub fn value_given(&self, active: bool, total: i64) -> BudgetValue {
        if !active {
            return BudgetValue {
                active: false,
                value: UNBOUNDED,
                error: None,
            };
        }
        match nodes_value(&self.nodes, total) {
            Ok(v) => BudgetValue {
                active: true,
                value: v,
                error: None,
            },
            Err(message) => BudgetValue {
                active: true,
                value: 0,
                error: Some(BudgetError::Nodes { message }),
            },
        }
    }
}

/// A budget's `nodes` at run time (`GetIntStrFromValue` then
/// `intstr.GetScaledValueFromIntOrPercent(…, roundUp=true)`).
pub fn nodes_value(nodes: &str, total: i64) -> Result<i64, String> {
    if let Ok(n) = super::schedule::go_atoi(nodes) {
        // intstr.FromInt keeps an int32: larger values wrap as Go's conversion does.
        return Ok(i64::from(n as i32));
    }
    let wrap = |m: String| format!("parsing percent value invalid value for IntOrString: {m}");
    let Some(number) = nodes.strip_suffix('%') else {
        return Err(wrap("invalid type: string is not a percentage".to_string()));
    };
    match super::schedule::go_atoi(number) {
        Ok(p) => {
            let v = (p as f64 * total as f64 / 100.0).ceil();
            // Go's float→int conversion of out-of-range values is undefined; saturate.
            Ok(if v >= i64::MAX as f64 {
                i64::MAX
            } else if v <= i64::MIN as f64 {
                i64::MIN
            } else {
                v as i64
            })
        }
        Err(e) => Err(wrap(format!(
            "invalid value {}: {e}",
            super::schedule::go_quote(nodes)
        ))),
    }
}

/// The NodePool's answer at an instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    /// Per budget, in list order.
    pub budgets: Vec<BudgetValue>,
    /// Per reason, the minimum over active applicable budgets (before subtraction); 0 for
    /// every reason when any budget is in error.
    pub raw: PerReason,
    /// Per reason, `max(raw − disrupting, 0)`.
    pub allowed: PerReason,
    /// True when a budget error made the NodePool fail closed.
    pub fail_closed: bool,
    /// Per reason, the index of the budget that sets `raw` (the first one at the minimum);
    /// `None` when no active budget applies (unbounded) or the pool failed closed.
    pub binding: Vec<(Reason, Option<usize>)>,
}

/// Combines budget values (`GetAllowedDisruptionsByReason`, `MustGetAllowedDisruptions`,
/// `BuildDisruptionBudgetMapping`).
pub fn combine(budgets: &[RuntimeBudget], values: Vec<BudgetValue>, disrupting: i64) -> Evaluation {
    let fail_closed = values.iter().any(|v| v.error.is_some());
    let mut raw = PerReason::all(UNBOUNDED);
    let mut allowed = PerReason::default();
    let mut binding = Vec::with_capacity(3);
    for r in Reason::ALL {
        let mut min = UNBOUNDED;
        let mut who = None;
        for (i, (b, v)) in budgets.iter().zip(&values).enumerate() {
            if b.applies_to(r) && v.active && v.value < min {
                min = v.value;
                who = Some(i);
            }
        }
        if fail_closed {
            min = 0;
            who = None;
        }
        raw.set(r, min);
        allowed.set(r, min.saturating_sub(disrupting).max(0));
        binding.push((r, who));
    }
    Evaluation {
        budgets: values,
        raw,
        allowed,
        fail_closed,
        binding,
    }
}

/// Evaluates all budgets of a NodePool at `t`.
pub fn evaluate(
    budgets: &[RuntimeBudget],
    t: DateTime<Utc>,
    total: i64,
    disrupting: i64,
) -> Evaluation {
    let values = budgets.iter().map(|b| b.value_at(t, total)).collect();
    combine(budgets, values, disrupting)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_up() {
        assert_eq!(nodes_value("10%", 25), Ok(3));
        assert_eq!(nodes_value("99%", 101), Ok(100));
        assert_eq!(nodes_value("0%", 25), Ok(0));
        assert_eq!(nodes_value("007", 0), Ok(7));
        assert_eq!(nodes_value("-10", 0), Ok(-10));
        assert!(nodes_value("1000a%", 100).is_err());
        assert!(nodes_value("abc", 100).is_err());
    }
}
