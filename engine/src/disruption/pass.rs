//! One pass of Karpenter's disruption controller over every NodePool at once
//! (`pkg/controllers/disruption/controller.go` `Reconcile`/`disrupt`, read at 2266468104f3):
//! each method gathers the candidates of all pools, gets a fresh per-pool budget mapping
//! (`BuildDisruptionBudgetMapping`) and builds its commands; the first method that builds one
//! starts it and the pass ends (the next pass counts those nodes as disrupting).

use super::budget::Reason;
use super::candidates::{
    balanced_delete_score, score_move, Blocked, Method, NodeFacts, NodeName, StateNode,
};
use super::report::NodePoolResult;
use super::version::KarpenterVersion;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// What one controller pass would do across all NodePools.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisruptionPass {
    /// The method whose commands Karpenter starts this pass: the first, in the controller's
    /// order, that builds one. The methods after it do not run until the next pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acting: Option<Method>,
    /// Every method in the controller's order, as if it ran now.
    pub methods: Vec<PassMethod>,
}

/// One method over all NodePools.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PassMethod {
    /// The method.
    pub method: Method,
    /// Its budget reason.
    pub reason: Reason,
    /// Per NodePool with candidates: the allowed disruptions the method starts with and how
    /// many its commands use.
    pub budgets: Vec<PoolBudgetUse>,
    /// The candidates of every pool in the order the method walks them.
    pub candidates: Vec<PassCandidate>,
    /// The commands it would start, each the nodes it disrupts together.
    pub commands: Vec<Vec<NodeName>>,
    /// What this result approximates, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approximation: Option<String>,
}

/// A NodePool's budget within one method.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolBudgetUse {
    /// The NodePool.
    pub node_pool: String,
    /// Allowed disruptions for the method's reason (2147483647 less disrupting = unbounded).
    pub allowed: i64,
    /// Nodes of this pool in the method's commands.
    pub used: i64,
}

/// A candidate in a method's cross-pool order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PassCandidate {
    /// Node name.
    pub node: NodeName,
    /// Its NodePool.
    pub node_pool: String,
    /// 1-based position in the order.
    pub order: usize,
    /// In one of the method's commands.
    pub selected: bool,
    /// Why not, when the method looked at it and passed it over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_selected: Option<Blocked>,
}

struct Entry<'a> {
    /// Insertion order: the last tie-break, so that the unstable sort is deterministic.
    idx: usize,
    /// The pool's position in name order.
    pool_rank: usize,
    /// Single-node: how many candidates of its pool come before it.
    turn: usize,
    pool: usize,
    pool_name: String,
    facts: &'a NodeFacts,
    drifted_at: Option<DateTime<Utc>>,
    price: f64,
    resched_cost: f64,
    /// No reschedulable pod: Drift's "empty" in every version.
    no_pods: bool,
    /// The per-pool view's choice (StaticDrift is decided per pool).
    pool_selected: bool,
    pool_not_selected: Option<Blocked>,
}

/// Builds the pass from the per-pool results. `nodes` are the state nodes sorted by name;
/// `balanced(pool)` gives a `Balanced` pool's totals.
pub fn build(
    pools: &[NodePoolResult],
    nodes: &[StateNode],
    balanced: &dyn Fn(&str) -> Option<(f64, f64)>,
    v: KarpenterVersion,
) -> DisruptionPass {
    // Node facts come in name order (the state nodes' order).
    fn facts_of<'p>(p: &'p NodePoolResult, name: &str) -> Option<&'p NodeFacts> {
        p.node_facts
            .binary_search_by(|f| f.node.as_str().cmp(name))
            .ok()
            .and_then(|i| p.node_facts.get(i))
    }
    // Each pool's position in name order (then input order); pools are few.
    let pool_rank: Vec<usize> = pools
        .iter()
        .enumerate()
        .map(|(i, p)| {
            pools
                .iter()
                .enumerate()
                .filter(|(j, q)| (q.name.as_str(), *j) < (p.name.as_str(), i))
                .count()
        })
        .collect();
    let state = |name: &str| {
        nodes
            .binary_search_by(|n| n.name.as_str().cmp(name))
            .ok()
            .and_then(|i| nodes.get(i))
    };
    let totals: Vec<Option<(f64, f64)>> = pools.iter().map(|p| balanced(&p.name)).collect();
    let mut pass = DisruptionPass::default();
    for m in Method::order(v) {
        let reason = m.reason();
        let mut entries: Vec<Entry<'_>> = Vec::new();
        let mut left: Vec<i64> = vec![0; pools.len()];
        let mut used: Vec<i64> = vec![0; pools.len()];
        let mut has_candidates = vec![false; pools.len()];
        for (pi, p) in pools.iter().enumerate() {
            let Some(mc) = p.candidates.iter().find(|c| c.method == m) else {
                continue;
            };
            if let Some(l) = left.get_mut(pi) {
                *l = mc.allowed;
            }
            for c in &mc.candidates {
                let Some(f) = facts_of(p, c.node.as_str()) else {
                    continue;
                };
                let sn = state(c.node.as_str());
                entries.push(Entry {
                    idx: entries.len(),
                    pool_rank: pool_rank.get(pi).copied().unwrap_or(pi),
                    turn: 0,
                    pool: pi,
                    pool_name: p.name.clone(),
                    facts: f,
                    drifted_at: sn.and_then(|n| n.drifted_at),
                    price: sn.map_or(0.0, |n| n.price),
                    resched_cost: sn.map_or(0.0, |n| n.resched_cost),
                    no_pods: sn.is_some_and(|n| n.resched_count == 0),
                    pool_selected: c.selected,
                    pool_not_selected: c.not_selected.clone(),
                });
                if let Some(h) = has_candidates.get_mut(pi) {
                    *h = true;
                }
            }
        }
        let pool_name =
            |e: &Entry<'_>| -> &str { pools.get(e.pool).map_or("", |p| p.name.as_str()) };
        sort_entries(
            &mut entries,
            match m {
                Method::Drift => Key::Drift,
                Method::StaticDrift => Key::Static,
                _ => Key::Consolidation,
            },
            v,
        );
        // `shuffleCandidates` (v1.4.0+): each pool's sorted candidates, the pools taking turns
        // (Karpenter: Go map order after pools a timed-out pass did not reach; here by name).
        if m == Method::SingleNodeConsolidation && v.at_least(4) {
            let mut seen = vec![0usize; pools.len()];
            for e in &mut entries {
                if let Some(k) = seen.get_mut(e.pool) {
                    e.turn = *k;
                    *k += 1;
                }
            }
            sort_entries(&mut entries, Key::Turns, v);
        }
        // v1.0–v1.13 consolidation passes over a candidate without reschedulable pods once
        // its pool has budget, without using the budget.
        let skips_empty = |e: &Entry<'_>| {
            matches!(
                m,
                Method::MultiNodeConsolidation | Method::SingleNodeConsolidation
            ) && !v.at_least(14)
                && e.no_pods
        };
        let mut out: Vec<PassCandidate> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| PassCandidate {
                node: e.facts.node.clone(),
                node_pool: pool_name(e).to_string(),
                order: i + 1,
                selected: false,
                not_selected: None,
            })
            .collect();
        let mut commands: Vec<Vec<NodeName>> = Vec::new();
        // Takes entry `i` if its pool has budget left (decrementing it), else records why not.
        let mut take = |i: usize, out: &mut Vec<PassCandidate>, left: &mut Vec<i64>| -> bool {
            let (Some(e), Some(c)) = (entries.get(i), out.get_mut(i)) else {
                return false;
            };
            match left.get_mut(e.pool) {
                Some(l) if *l > 0 => {
                    *l -= 1;
                    if let Some(u) = used.get_mut(e.pool) {
                        *u += 1;
                    }
                    c.selected = true;
                    true
                }
                _ => {
                    c.not_selected = Some(Blocked::BudgetExhausted { reason });
                    false
                }
            }
        };
        match m {
            // `Emptiness.ComputeCommands`: every empty candidate whose pool has budget, in
            // one command.
            Method::Emptiness => {
                for i in 0..entries.len() {
                    take(i, &mut out, &mut left);
                }
                push_selected(&out, &mut commands);
            }
            // `StaticDrift.ComputeCommands`: per pool, one command per node, up to the budget
            // and the node limit (decided per pool).
            Method::StaticDrift => {
                for (e, c) in entries.iter().zip(out.iter_mut()) {
                    c.selected = e.pool_selected;
                    c.not_selected = e.pool_not_selected.clone();
                    if c.selected {
                        commands.push(vec![c.node.clone()]);
                        if let Some(u) = used.get_mut(e.pool) {
                            *u += 1;
                        }
                    }
                }
            }
            // `Drift.ComputeCommands`: the first candidate whose pool has budget (its
            // scheduling simulation assumed to succeed). v1.0–v1.4 batched the empty ones.
            Method::Drift => {
                if !v.at_least(5) {
                    for i in 0..entries.len() {
                        if entries.get(i).is_some_and(|e| e.no_pods) {
                            take(i, &mut out, &mut left);
                        }
                    }
                }
                if out.iter().any(|c| c.selected) {
                    push_selected(&out, &mut commands);
                } else {
                    for i in 0..entries.len() {
                        if take(i, &mut out, &mut left) {
                            break;
                        }
                    }
                    push_selected(&out, &mut commands);
                }
            }
            // `MultiNodeConsolidation.ComputeCommands`: drop candidates over budget
            // (decrementing per pool), then `firstNConsolidationOption` binary-searches the
            // largest prefix (at least 2) that consolidates and that every Balanced pool
            // approves. The simulation is assumed to succeed with a delete, so the search is
            // run on the Balanced scoring alone.
            Method::MultiNodeConsolidation => {
                let mut kept: Vec<usize> = Vec::new();
                for (i, (e, c)) in entries.iter().zip(out.iter_mut()).enumerate() {
                    match left.get_mut(e.pool) {
                        Some(l) if *l > 0 => {
                            if skips_empty(e) {
                                c.not_selected = Some(Blocked::Empty);
                            } else {
                                *l -= 1;
                                kept.push(i);
                            }
                        }
                        _ => c.not_selected = Some(Blocked::BudgetExhausted { reason }),
                    }
                }
                let batch: Vec<&Entry<'_>> = kept.iter().filter_map(|i| entries.get(*i)).collect();
                let (best, last, rejected) = largest_batch(&batch, &totals);
                for (k, i) in kept.iter().enumerate() {
                    let (Some(c), Some(e)) = (out.get_mut(*i), entries.get(*i)) else {
                        continue;
                    };
                    if k < best {
                        c.selected = true;
                        if let Some(u) = used.get_mut(e.pool) {
                            *u += 1;
                        }
                    } else if kept.len() == 1 {
                        c.not_selected = Some(Blocked::BatchOfOne);
                    } else if k <= last {
                        c.not_selected = Some(rejected.clone().unwrap_or(Blocked::BeyondBatch));
                    } else {
                        c.not_selected = Some(Blocked::BeyondBatch);
                    }
                }
                push_selected(&out, &mut commands);
            }
            // `SingleNodeConsolidation.ComputeCommands`: the first candidate, in the
            // interleaved order, whose pool has budget and that can pass a Balanced pool's
            // threshold.
            Method::SingleNodeConsolidation => {
                for i in 0..entries.len() {
                    let Some(e) = entries.get(i) else { break };
                    if left.get(e.pool).copied().unwrap_or(0) > 0 && skips_empty(e) {
                        if let Some(c) = out.get_mut(i) {
                            c.not_selected = Some(Blocked::Empty);
                        }
                        continue;
                    }
                    if left.get(e.pool).copied().unwrap_or(0) > 0 {
                        let score = totals
                            .get(e.pool)
                            .copied()
                            .flatten()
                            .and_then(|t| balanced_delete_score(e.price, e.resched_cost, t))
                            .filter(|s| *s < 0.5);
                        if let (Some(score), Some(c)) = (score, out.get_mut(i)) {
                            c.not_selected = Some(Blocked::BalancedThreshold { score });
                            continue;
                        }
                    }
                    if take(i, &mut out, &mut left) {
                        break;
                    }
                }
                push_selected(&out, &mut commands);
            }
        }
        let budgets = pools
            .iter()
            .enumerate()
            .filter(|(i, _)| has_candidates.get(*i).copied().unwrap_or(false))
            .map(|(i, p)| PoolBudgetUse {
                node_pool: p.name.clone(),
                allowed: p
                    .candidates
                    .iter()
                    .find(|c| c.method == m)
                    .map_or(0, |c| c.allowed),
                used: used.get(i).copied().unwrap_or(0),
            })
            .collect();
        if pass.acting.is_none() && !commands.is_empty() {
            pass.acting = Some(m);
        }
        pass.methods.push(PassMethod {
            method: m,
            reason,
            budgets,
            candidates: out,
            commands,
            approximation: approximation(m),
        });
    }
    pass
}

/// `firstNConsolidationOption` over the budget-filtered candidates, every prefix taken to
/// consolidate by deletion: the prefix length found (0 = none), the last index the search may
/// reach, and why the smallest larger prefix it tried was refused.
fn largest_batch(
    batch: &[&Entry<'_>],
    totals: &[Option<(f64, f64)>],
) -> (usize, usize, Option<Blocked>) {
    let n = batch.len();
    if n < 2 {
        return (0, 0, None);
    }
    // `max = clamp(len, 0, 100)`, lowered to len - 1 when len <= max: a batch of 101 is
    // reachable when more than 100 candidates are within budget.
    let mut max = n.min(100);
    if n <= max {
        max = n - 1;
    }
    let last = max;
    let (mut min, mut best, mut rejected) = (1usize, 0usize, None);
    while min <= max {
        let mid = (min + max) / 2;
        match approve(batch.get(..=mid).unwrap_or(&[]), totals) {
            Ok(()) => {
                best = mid + 1;
                min = mid + 1;
            }
            Err(b) => {
                rejected = Some(b);
                // `mid >= min >= 1`.
                max = mid - 1;
            }
        }
    }
    (best, last, rejected)
}

/// `EvaluateBalancedMove` for a delete: each Balanced pool in the batch scores its share of the
/// savings (its nodes' prices) against its nodes' disruption cost.
fn approve(batch: &[&Entry<'_>], totals: &[Option<(f64, f64)>]) -> Result<(), Blocked> {
    let source: f64 = batch.iter().map(|e| e.price).sum();
    let mut pools: Vec<usize> = batch.iter().map(|e| e.pool).collect();
    pools.sort_unstable();
    pools.dedup();
    for &p in &pools {
        let Some(t) = totals.get(p).copied().flatten() else {
            continue;
        };
        let mine = batch.iter().filter(|e| e.pool == p);
        let cost: f64 = mine.clone().map(|e| e.price).sum();
        let disruption: f64 = mine.map(|e| 1.0 + e.resched_cost).sum();
        // Across pools the savings are split by each pool's share of the source price
        // (`savings * poolCost / totalCost`, which for a delete is the pool's own price).
        let savings = if source > 0.0 && pools.len() > 1 {
            cost
        } else {
            source
        };
        let score = score_move(savings, disruption, t);
        if score < 0.5 {
            return Err(Blocked::BalancedBatch {
                node_pool: batch
                    .iter()
                    .find(|e| e.pool == p)
                    .map(|e| e.pool_name.clone())
                    .unwrap_or_default(),
                score,
                size: batch.len(),
            });
        }
    }
    Ok(())
}

fn push_selected(out: &[PassCandidate], commands: &mut Vec<Vec<NodeName>>) {
    let nodes: Vec<NodeName> = out
        .iter()
        .filter(|c| c.selected)
        .map(|c| c.node.clone())
        .collect();
    if !nodes.is_empty() {
        commands.push(nodes);
    }
}

/// The orders the methods walk their candidates in.
#[derive(Clone, Copy)]
enum Key {
    /// Savings ratio, highest first (v1.14+), else disruption cost, lowest first.
    Consolidation,
    /// Drifted time (v1.7+: nodes without reschedulable pods first).
    Drift,
    /// By pool.
    Static,
    /// Single-node's turns: each pool's first candidate, then each pool's second, …
    Turns,
}

/// Sorts by `key`, then node name, pool name and input order: a total order, so the unstable
/// sort (one instantiation for every order) is deterministic.
fn sort_entries(entries: &mut [Entry<'_>], key: Key, v: KarpenterVersion) {
    entries.sort_unstable_by(|a, b| {
        let first = match key {
            Key::Consolidation if v.at_least(14) => {
                b.facts.savings_ratio.total_cmp(&a.facts.savings_ratio)
            }
            Key::Consolidation => a.facts.disruption_cost.total_cmp(&b.facts.disruption_cost),
            Key::Drift if v.at_least(7) => b
                .no_pods
                .cmp(&a.no_pods)
                .then(a.drifted_at.cmp(&b.drifted_at)),
            Key::Drift => a.drifted_at.cmp(&b.drifted_at),
            Key::Static => a.pool_rank.cmp(&b.pool_rank),
            Key::Turns => a.turn.cmp(&b.turn).then(a.pool_rank.cmp(&b.pool_rank)),
        };
        first
            .then_with(|| a.facts.node.as_str().cmp(b.facts.node.as_str()))
            .then(a.pool_rank.cmp(&b.pool_rank))
            .then(a.idx.cmp(&b.idx))
    });
}

fn approximation(m: Method) -> Option<String> {
    match m {
        Method::Emptiness => None,
        Method::StaticDrift => {
            Some("pools and their candidates are walked by name (Karpenter: map order)".to_string())
        }
        Method::Drift => {
            Some("the replacement's scheduling simulation is assumed to succeed".to_string())
        }
        Method::MultiNodeConsolidation => Some(
            "Karpenter binary-searches the largest prefix (at least 2) of the selected \
             candidates that consolidates to at most one cheaper node; the simulation is not \
             run, so the whole batch is shown, and a Balanced pool's scoring of the batch is \
             not applied"
                .to_string(),
        ),
        Method::SingleNodeConsolidation => Some(
            "the first candidate within budget (and, for a Balanced pool, whose deletion \
             passes the threshold) is taken: the scheduling and price simulation is not run. \
             Pools take turns by name (Karpenter: map order)"
                .to_string(),
        ),
    }
}
