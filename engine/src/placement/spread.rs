//! Topology spread constraints (`topologyspreadconstraints`, placement.md §6): domains over
//! ALL clusters, one evaluation per cycle.

use super::fleet::Fleet;
use super::report::ConstraintScore;
use crate::model::placement::TopologySpreadConstraint;

const NO_DOMAIN: u32 = u32::MAX;

/// A constraint after defaulting.
#[derive(Debug, Clone)]
pub struct Constraint {
    /// Index in `topologySpreadConstraints`.
    pub index: usize,
    /// Label key.
    pub topology_key: String,
    /// Default 1.
    pub max_skew: i32,
    /// `DoNotSchedule` (the default). Any other value is treated as `ScheduleAnyway`;
    /// values other than the two are reported by validation.
    pub do_not_schedule: bool,
    /// Domain id of every cluster (`NO_DOMAIN` without the key).
    domain_of: Vec<u32>,
    /// Domain values by id.
    domains: Vec<String>,
}

/// The effect of one more placement in a domain (`willViolate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Effect {
    skew_change: i32,
    violated: bool,
}

/// The constraints of a policy, with each cluster's domain worked out once.
#[derive(Debug, Clone, Default)]
pub struct Spread {
    /// Constraints in evaluation order: DoNotSchedule ones first, then ScheduleAnyway.
    pub constraints: Vec<Constraint>,
}

/// One cluster's outcome in a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Filtered by the DoNotSchedule constraint at this position (evaluation order).
    Violated(usize),
    /// Topology spread score.
    Score(i32),
}

/// Domain counts and per-domain effects of one cycle.
#[derive(Debug, Clone, Default)]
pub struct Evaluation {
    counts: Vec<Vec<u32>>,
    effects: Vec<Vec<Effect>>,
    /// Per constraint: (smallest, largest).
    bounds: Vec<(u32, u32)>,
}

impl Spread {
    /// Defaults and indexes the constraints against the fleet.
    pub fn new(list: &[TopologySpreadConstraint], fleet: &Fleet) -> Self {
        let mut constraints: Vec<Constraint> = list
            .iter()
            .enumerate()
            .map(|(index, c)| {
                // Domain ids in order of first appearance, keyed by the label value's id.
                let mut ids: Vec<u32> = vec![NO_DOMAIN; fleet.index.value_count()];
                let mut domains = Vec::new();
                let key = fleet.index.key_id(&c.topology_key);
                let domain_of = (0..fleet.len())
                    .map(|i| match key.and_then(|k| fleet.index.label(i, k)) {
                        None => NO_DOMAIN,
                        Some(v) => match ids.get_mut(v as usize) {
                            Some(d) if *d != NO_DOMAIN => *d,
                            Some(d) => {
                                domains.push(
                                    fleet
                                        .clusters
                                        .get(i)
                                        .and_then(|cl| cl.labels.get(&c.topology_key))
                                        .cloned()
                                        .unwrap_or_default(),
                                );
                                *d = (domains.len() - 1) as u32;
                                *d
                            }
                            None => NO_DOMAIN,
                        },
                    })
                    .collect();
                Constraint {
                    index,
                    topology_key: c.topology_key.clone(),
                    max_skew: c.max_skew.unwrap_or(1),
                    do_not_schedule: c
                        .when_unsatisfiable
                        .as_deref()
                        .is_none_or(|w| w.is_empty() || w == "DoNotSchedule"),
                    domain_of,
                    domains,
                }
            })
            .collect();
        // All DoNotSchedule constraints are processed first, then ScheduleAnyway (stable).
        constraints.sort_by_key(|c| !c.do_not_schedule);
        Spread { constraints }
    }

    /// Whether there are no constraints.
    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }

    /// Counts current bindings per domain and works out the effect of one more placement.
    pub fn evaluate(&self, current: &[usize]) -> Evaluation {
        let mut ev = Evaluation::default();
        for c in &self.constraints {
            let mut counts = vec![0u32; c.domains.len()];
            for &i in current {
                if let Some(&d) = c.domain_of.get(i) {
                    if let Some(n) = counts.get_mut(d as usize) {
                        *n += 1;
                    }
                }
            }
            let mut sorted = counts.clone();
            sorted.sort_unstable();
            let (smallest, second, largest) = match sorted.as_slice() {
                [] => (0, 0, 0),
                [a] => (*a, *a, *a),
                [a, b] => {
                    if a == b {
                        (*a, *a, *a)
                    } else {
                        (*a, *b, *b)
                    }
                }
                [a, b, .., z] => (*a, *b, *z),
            };
            let skew = i64::from(largest) - i64::from(smallest);
            let max_skew = i64::from(c.max_skew);
            let effects = counts
                .iter()
                .map(|&n| {
                    let change: i64 = if largest == smallest {
                        1
                    } else if n == smallest && smallest != second {
                        -1
                    } else if n == largest {
                        1
                    } else {
                        0
                    };
                    Effect {
                        skew_change: change as i32,
                        violated: skew + change > max_skew,
                    }
                })
                .collect();
            ev.counts.push(counts);
            ev.effects.push(effects);
            ev.bounds.push((smallest, largest));
        }
        ev
    }

    /// One cluster's outcome (`evaluateAllConstraints`).
    pub fn outcome(&self, ev: &Evaluation, cluster: usize) -> Outcome {
        let mut score: i32 = 0;
        for (pos, c) in self.constraints.iter().enumerate() {
            let d = c.domain_of.get(cluster).copied().unwrap_or(NO_DOMAIN);
            let Some(effect) = ev.effects.get(pos).and_then(|e| e.get(d as usize)) else {
                continue;
            };
            if c.do_not_schedule {
                if effect.violated {
                    return Outcome::Violated(pos);
                }
                score -= effect.skew_change;
            } else if effect.violated {
                score -= 1000;
            } else {
                score -= effect.skew_change;
            }
        }
        Outcome::Score(score)
    }

    /// Per-constraint contributions for one cluster, in spec order.
    pub fn breakdown(&self, ev: &Evaluation, cluster: usize) -> Vec<ConstraintScore> {
        let mut out: Vec<ConstraintScore> = self
            .constraints
            .iter()
            .enumerate()
            .map(|(pos, c)| {
                let d = c.domain_of.get(cluster).copied().unwrap_or(NO_DOMAIN);
                let effect = ev.effects.get(pos).and_then(|e| e.get(d as usize));
                let (smallest, largest) = ev.bounds.get(pos).copied().unwrap_or((0, 0));
                ConstraintScore {
                    constraint: c.index,
                    topology_key: c.topology_key.clone(),
                    when_unsatisfiable: if c.do_not_schedule {
                        "DoNotSchedule"
                    } else {
                        "ScheduleAnyway"
                    }
                    .to_string(),
                    max_skew: c.max_skew,
                    domain: c.domains.get(d as usize).cloned(),
                    domain_count: ev.counts.get(pos).and_then(|v| v.get(d as usize)).copied(),
                    smallest,
                    largest,
                    skew_change: effect.map(|e| e.skew_change).unwrap_or(0),
                    violated: effect.is_some_and(|e| e.violated),
                    score: match effect {
                        None => 0,
                        Some(e) if e.violated && !c.do_not_schedule => -1000,
                        Some(e) if e.violated => 0,
                        Some(e) => -e.skew_change,
                    },
                }
            })
            .collect();
        out.sort_by_key(|e| e.constraint);
        out
    }

    /// A number equal for two clusters exactly when they are in the same domain of every
    /// constraint (so they have the same outcome in every cycle); `None` when it does not fit
    /// in 64 bits.
    pub fn domain_tuple(&self, cluster: usize) -> Option<u64> {
        let mut key: u64 = 0;
        for c in &self.constraints {
            // Digits 0..domains for a domain, `domains` for none: a mixed-radix number.
            let radix = c.domains.len() as u64 + 1;
            let d = match c.domain_of.get(cluster).copied() {
                Some(d) if d != NO_DOMAIN => u64::from(d),
                _ => radix - 1,
            };
            key = key.checked_mul(radix)?.checked_add(d)?;
        }
        Some(key)
    }

    /// The constraint at evaluation position `pos`.
    pub fn at(&self, pos: usize) -> Option<&Constraint> {
        self.constraints.get(pos)
    }

    /// The domain value of a cluster for the constraint at `pos`, with its count.
    pub fn domain(
        &self,
        ev: &Evaluation,
        pos: usize,
        cluster: usize,
    ) -> (Option<String>, Option<u32>, (u32, u32)) {
        let Some(c) = self.constraints.get(pos) else {
            return (None, None, (0, 0));
        };
        let d = c.domain_of.get(cluster).copied().unwrap_or(NO_DOMAIN) as usize;
        (
            c.domains.get(d).cloned(),
            ev.counts.get(pos).and_then(|v| v.get(d)).copied(),
            ev.bounds.get(pos).copied().unwrap_or((0, 0)),
        )
    }
}
