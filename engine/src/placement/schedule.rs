//! The scheduling run for one placement: binding classification, the plugin pipeline and the
//! PickAll / PickN / PickFixed cycles (placement.md §3, §7, §8).

use super::affinity::{Extremes, Miss, PreferredAffinity, RequiredAffinity};
use super::fleet::Fleet;
use super::report::{
    ClusterScore, CycleErrorReport, Decision, FilterReason, Filtered, Picked, PlacementResult,
    ScoreBreakdown, TermMismatch, TermScore,
};
use super::spread::{self, Spread};
use super::{status, taints, CycleError};
use crate::model::placement::Toleration;
use rustc_hash::FxHashMap;
use std::cmp::{Ordering, Reverse};
use std::collections::HashSet;
use std::sync::Arc;

/// At most this many unselected decisions are written (`maxUnselectedClusterDecisionCount`).
const MAX_UNSELECTED_DECISIONS: usize = 20;
/// `clustersDecisionArrayLengthLimitInAPI`: the policy snapshot holds at most 1,000 decisions.
const API_DECISION_LIMIT: usize = 1000;

/// Not-picked clusters that carry a score breakdown (best first).
pub const MAX_NOT_PICKED_BREAKDOWNS: usize = 100;

/// `PickAll`, `PickN` or `PickFixed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementType {
    /// Every feasible cluster.
    PickAll,
    /// The N best clusters.
    PickN,
    /// The named clusters.
    PickFixed,
}

impl PlacementType {
    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PlacementType::PickAll => "PickAll",
            PlacementType::PickN => "PickN",
            PlacementType::PickFixed => "PickFixed",
        }
    }
}

/// A policy after defaulting, compiled against a fleet.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Placement type.
    pub placement_type: PlacementType,
    /// PickFixed targets.
    pub cluster_names: Vec<String>,
    /// PickN count.
    pub number_of_clusters: Option<i32>,
    /// Required affinity.
    pub required: RequiredAffinity,
    /// Preferred affinity.
    pub preferred: PreferredAffinity,
    /// Topology spread constraints.
    pub spread: Spread,
    /// Tolerations, operator defaulted.
    pub tolerations: Vec<Toleration>,
    /// A `ResourcePlacement`'s namespace: the NamespaceAffinity filter runs (PickAll and
    /// PickN; PickFixed only checks eligibility). `None` for a ClusterResourcePlacement.
    pub namespace: Option<String>,
}

/// State of an existing binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingState {
    /// Picked, not rolled out yet.
    Scheduled,
    /// Rolled out.
    Bound,
    /// Released.
    Unscheduled,
}

/// A binding that exists before the run.
#[derive(Debug, Clone, PartialEq)]
pub struct ExistingBinding {
    /// Target cluster.
    pub cluster: String,
    /// State.
    pub state: BindingState,
    /// Made for the current policy (else: an earlier policy snapshot).
    pub current: bool,
    /// Scores recorded at pick time.
    pub score: Option<ClusterScore>,
    /// Being deleted.
    pub deleting: bool,
}

/// Result of the Filter steps that do not change between cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Static {
    Pass,
    Affinity,
    Ineligible,
    /// NamespaceAffinity: `true` when the namespace is missing, `false` when the cluster lists
    /// no namespaces at all.
    Namespace(bool),
    // Position in the cluster's taint list; u32 keeps the per-cluster list at 8 bytes.
    Taint(u32),
}

#[derive(Debug, Clone, Copy)]
struct Held {
    cluster: usize,
    score: Option<ClusterScore>,
}

/// Bindings after `classifyBindings`.
#[derive(Debug, Default)]
struct Classified {
    scheduled: Vec<Held>,
    bound: Vec<Held>,
    obsolete: Vec<usize>,
    unscheduled: Vec<usize>,
    dangling: Vec<String>,
}

fn classify(fleet: &Fleet, bindings: &[ExistingBinding]) -> Classified {
    let mut out = Classified::default();
    let mut seen: HashSet<&str> = HashSet::new();
    for b in bindings {
        if b.deleting || !seen.insert(b.cluster.as_str()) {
            continue;
        }
        let idx = fleet.index_of(&b.cluster);
        if b.state == BindingState::Unscheduled {
            if let Some(i) = idx {
                out.unscheduled.push(i);
            }
            continue;
        }
        let Some(i) = idx.filter(|&i| fleet.clusters.get(i).is_some_and(|c| !c.leaving)) else {
            out.dangling.push(b.cluster.clone());
            continue;
        };
        if !b.current {
            out.obsolete.push(i);
        } else if b.state == BindingState::Scheduled {
            out.scheduled.push(Held {
                cluster: i,
                score: b.score,
            });
        } else {
            out.bound.push(Held {
                cluster: i,
                score: b.score,
            });
        }
    }
    out
}

/// Runs the scheduler for one placement. Fills everything but name/kind/validation.
pub fn run(fleet: &Fleet, policy: &Policy, bindings: &[ExistingBinding]) -> PlacementResult {
    let cls = classify(fleet, bindings);
    let mut r = PlacementResult {
        placement_type: policy.placement_type.as_str().to_string(),
        unscheduled: cls.dangling.clone(),
        ..PlacementResult::default()
    };
    let outcome = match policy.placement_type {
        PlacementType::PickFixed => {
            pick_fixed(fleet, policy, &cls, &mut r);
            Ok(())
        }
        PlacementType::PickAll => pick_all(fleet, policy, &cls, &mut r),
        PlacementType::PickN => pick_n(fleet, policy, &cls, &mut r),
    };
    if let Err(e) = outcome {
        r.condition = status::pending();
        r.cycle_error = Some(CycleErrorReport {
            message: e.to_string(),
            error: e,
        });
    }
    r.unscheduled.sort();
    r.kept.sort();
    r
}

/// Cluster `i`'s name, copied from the fleet's compact name list.
fn name(fleet: &Fleet, i: usize) -> String {
    fleet.name_str(i).to_string()
}

/// Cluster `i`'s name, shared with the fleet (no copy).
fn shared_name(fleet: &Fleet, i: usize) -> Arc<str> {
    fleet.name_of(i)
}

fn held_decision(fleet: &Fleet, h: &Held) -> Decision {
    let cluster = fleet.name_of(h.cluster);
    match h.score {
        Some(s) => Decision {
            cluster_name: cluster.clone(),
            reason: status::picked(cluster, s.affinity_score, s.topology_spread_score),
            selected: true,
            cluster_score: Some(s),
        },
        None => Decision {
            cluster_name: cluster.clone(),
            reason: status::picked_fixed(cluster),
            selected: true,
            cluster_score: None,
        },
    }
}

/// A picked cluster's decision.
fn picked_decision(fleet: &Fleet, i: usize, affinity: i32, topology: i32) -> Decision {
    let cluster = fleet.name_of(i);
    Decision {
        cluster_name: cluster.clone(),
        reason: status::picked(cluster, affinity, topology),
        selected: true,
        cluster_score: Some(ClusterScore {
            affinity_score: affinity,
            topology_spread_score: topology,
        }),
    }
}

/// The static filter chain: ClusterAffinity → ClusterEligibility → NamespaceAffinity (a
/// ResourcePlacement) → TaintToleration (`pkg/scheduler/profile/profile.go`'s order).
fn static_filter(fleet: &Fleet, policy: &Policy) -> Result<Vec<Static>, CycleError> {
    let check_affinity = !policy.required.is_empty();
    // Whether each of the fleet's distinct taints is tolerated, worked out once.
    let tolerated: Vec<bool> = fleet
        .index
        .distinct_taints()
        .iter()
        .map(|taint| {
            policy
                .tolerations
                .iter()
                .any(|t| taints::tolerates(t, taint))
        })
        .collect();
    // Required affinity for the whole fleet at once when it cannot fail (the usual case).
    let required = if check_affinity {
        policy.required.passes_all(fleet)
    } else {
        None
    };
    let mut out = Vec::with_capacity(fleet.len());
    for i in 0..fleet.len() {
        let passes = match &required {
            Some(all) => all.get(i).copied().unwrap_or(false),
            None => !check_affinity || policy.required.passes(fleet, i)?,
        };
        if !passes {
            out.push(Static::Affinity);
            continue;
        }
        if !fleet.index.eligible(i) {
            out.push(Static::Ineligible);
            continue;
        }
        if let Some(ns) = &policy.namespace {
            let miss = fleet.clusters.get(i).and_then(|c| c.namespaces.filter(ns));
            if let Some(reason) = miss {
                out.push(Static::Namespace(matches!(
                    reason,
                    super::eligibility::Ineligible::NamespaceNotFound { .. }
                )));
                continue;
            }
        }
        // The first taint (in list order) that no toleration tolerates.
        match fleet
            .index
            .taints_of(i)
            .iter()
            .position(|&t| !tolerated.get(t as usize).copied().unwrap_or(false))
        {
            Some(pos) => out.push(Static::Taint(u32::try_from(pos).unwrap_or(u32::MAX))),
            None => out.push(Static::Pass),
        }
    }
    Ok(out)
}

/// At most this many distinct ClusterAffinity explanations are kept for sharing (a fleet has
/// few; the bound keeps a fleet of all-different values from growing the table for nothing).
const MAX_SHARED_EXPLANATIONS: usize = 4096;

/// ClusterAffinity explanations, shared between the filtered clusters that fail alike: a
/// 10k-cluster fleet has thousands of filtered clusters but a handful of distinct reasons,
/// so each is built once and the others hold the same list.
#[derive(Default)]
struct Explanations {
    misses: Vec<(usize, Miss)>,
    /// The explanation built for each distinct list of misses.
    shared: FxHashMap<Vec<(usize, Miss)>, Arc<[TermMismatch]>>,
}

impl Explanations {
    fn affinity(
        &mut self,
        fleet: &Fleet,
        required: &RequiredAffinity,
        i: usize,
    ) -> Arc<[TermMismatch]> {
        required.misses(fleet, i, &mut self.misses);
        if let Some(t) = self.shared.get(self.misses.as_slice()) {
            return t.clone();
        }
        let terms: Arc<[TermMismatch]> = self
            .misses
            .iter()
            .filter_map(|&(term, miss)| required.describe(fleet, term, miss))
            .collect::<Vec<_>>()
            .into();
        if self.shared.len() < MAX_SHARED_EXPLANATIONS {
            self.shared.insert(self.misses.clone(), terms.clone());
        }
        terms
    }
}

fn filtered_entry(
    fleet: &Fleet,
    policy: &Policy,
    explanations: &mut Explanations,
    i: usize,
    s: Static,
) -> Option<Filtered> {
    let explanation = match s {
        Static::Pass => return None,
        Static::Affinity => FilterReason::ClusterAffinityMismatch {
            terms: explanations.affinity(fleet, &policy.required, i),
        },
        Static::Ineligible => FilterReason::Ineligible {
            reason: fleet.clusters.get(i)?.eligibility.clone().err()?,
        },
        Static::Namespace(missing) => FilterReason::Ineligible {
            reason: match (missing, &policy.namespace) {
                (true, Some(ns)) => super::eligibility::Ineligible::NamespaceNotFound {
                    namespace: ns.clone(),
                },
                _ => super::eligibility::Ineligible::NoNamespaceInformation,
            },
        },
        Static::Taint(pos) => {
            // The explanation and the reason quote the fleet's shared copy of the taint.
            let id = *fleet.index.taints_of(i).get(pos as usize)?;
            let [key, value, effect] = fleet.index.taint_parts(id)?.clone();
            let explanation = FilterReason::TaintNotTolerated {
                index: pos as usize,
                key,
                value,
                effect,
            };
            let reason = match fleet.index.distinct_taints().get(id as usize) {
                Some(taint) => status::taint_filtered(taint.clone()),
                None => status::filtered(&explanation),
            };
            return Some(Filtered {
                cluster: shared_name(fleet, i),
                plugin: status::plugin(&explanation),
                reason,
                explanation,
            });
        }
    };
    Some(make_filtered(shared_name(fleet, i), explanation))
}

fn make_filtered(cluster: Arc<str>, explanation: FilterReason) -> Filtered {
    Filtered {
        cluster,
        plugin: status::plugin(&explanation),
        reason: status::filtered(&explanation),
        explanation,
    }
}

/// `newSchedulingDecisionsFromBindings` (kubefleet `pkg/scheduler/framework/frameworkutils.go`):
/// the selected decisions set by set (the scheduler's binding groups, in its order) up to the
/// API's 1,000 entries, then at most 20 unselected ones: not picked first, then filtered.
/// Its arithmetic is kept as it is: a set that crosses the limit leaves a negative count of
/// free slots, which stops the filtered entries but not the not-picked ones, and a filtered
/// cluster that is also selected is skipped but still uses one of the 20.
fn decisions(
    sets: Vec<Vec<Decision>>,
    not_picked: &[Picked],
    filtered: &[Filtered],
) -> Vec<Decision> {
    let mut out: Vec<Decision> = Vec::new();
    let mut seen: HashSet<Arc<str>> = HashSet::new();
    let mut slots_left = API_DECISION_LIMIT as i64;
    for set in sets {
        let len = set.len() as i64;
        for d in set.into_iter().take(slots_left.max(0) as usize) {
            seen.insert(d.cluster_name.clone());
            out.push(d);
        }
        slots_left -= len;
        if slots_left <= 0 {
            break;
        }
    }
    let mut max_unselected = MAX_UNSELECTED_DECISIONS as i64;
    for p in not_picked {
        if slots_left == 0 || max_unselected == 0 {
            break;
        }
        if seen.contains(&p.cluster) {
            continue;
        }
        out.push(Decision {
            cluster_name: p.cluster.clone(),
            selected: false,
            cluster_score: Some(ClusterScore {
                affinity_score: p.affinity_score,
                topology_spread_score: p.topology_spread_score,
            }),
            reason: status::not_picked(
                p.cluster.clone(),
                p.affinity_score,
                p.topology_spread_score,
            ),
        });
        slots_left -= 1;
        max_unselected -= 1;
    }
    let take = max_unselected.min(slots_left).max(0) as usize;
    for f in filtered.iter().take(take) {
        if seen.contains(&f.cluster) {
            continue;
        }
        out.push(Decision {
            cluster_name: f.cluster.clone(),
            selected: false,
            cluster_score: None,
            reason: f.reason.clone(),
        });
    }
    out
}

fn pick_all(
    fleet: &Fleet,
    policy: &Policy,
    cls: &Classified,
    r: &mut PlacementResult,
) -> Result<(), CycleError> {
    r.cycles = 1;
    let statics = static_filter(fleet, policy)?;
    let mut current = vec![false; fleet.len()];
    for h in cls.scheduled.iter().chain(&cls.bound) {
        if let Some(c) = current.get_mut(h.cluster) {
            *c = true;
        }
    }
    // Every list sized once from the filter results: the report is the bulk of the work, and
    // regrowing (or over-allocating) its lists costs more than counting.
    let passing = statics.iter().filter(|&&s| s == Static::Pass).count();
    let held = cls.scheduled.len() + cls.bound.len();
    let mut created = Vec::with_capacity(passing + held + MAX_UNSELECTED_DECISIONS);
    let mut patched = Vec::new();
    let mut repicked = vec![false; fleet.len()];
    // Clusters whose binding is re-pointed (obsolete) or restored (unscheduled) when picked.
    let mut rebound = vec![false; fleet.len()];
    for &i in cls.obsolete.iter().chain(&cls.unscheduled) {
        if let Some(x) = rebound.get_mut(i) {
            *x = true;
        }
    }
    r.picked.reserve(passing);
    r.filtered.reserve(fleet.len().saturating_sub(passing));
    let mut explanations = Explanations::default();
    for (i, s) in statics.iter().enumerate() {
        let is_current = current.get(i).copied().unwrap_or(false);
        if is_current && *s == Static::Pass {
            // SamePlacementAntiAffinity: silently dropped.
            continue;
        }
        if *s == Static::Pass {
            let d = picked_decision(fleet, i, 0, 0);
            let cluster = d.cluster_name.clone();
            if rebound.get(i).copied().unwrap_or(false) {
                patched.push(d);
            } else {
                created.push(d);
            }
            if let Some(x) = repicked.get_mut(i) {
                *x = true;
            }
            r.picked.push(Picked::unscored(cluster));
        } else if let Some(f) = filtered_entry(fleet, policy, &mut explanations, i, *s) {
            r.filtered.push(f);
        }
    }
    for &o in &cls.obsolete {
        if !repicked.get(o).copied().unwrap_or(false) {
            r.unscheduled.push(name(fleet, o));
        }
    }
    r.kept = cls
        .scheduled
        .iter()
        .chain(&cls.bound)
        .map(|h| name(fleet, h.cluster))
        .collect();
    let held = |v: &[Held]| {
        v.iter()
            .map(|h| held_decision(fleet, h))
            .collect::<Vec<_>>()
    };
    let sets = vec![created, patched, held(&cls.scheduled), held(&cls.bound)];
    let count = sets.iter().map(Vec::len).sum();
    r.decisions = decisions(sets, &[], &r.filtered);
    r.condition = status::condition(count, true);
    Ok(())
}

fn pick_fixed(fleet: &Fleet, policy: &Policy, cls: &Classified, r: &mut PlacementResult) {
    r.cycles = 1;
    if policy.cluster_names.is_empty() {
        // The cycle does nothing: no bindings change, no status is written.
        r.cycles = 0;
        r.condition = status::pending();
        r.kept = cls
            .scheduled
            .iter()
            .chain(&cls.bound)
            .map(|h| name(fleet, h.cluster))
            .collect();
        return;
    }
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    let mut not_found = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for n in &policy.cluster_names {
        if !seen.insert(n.as_str()) {
            continue;
        }
        match fleet.index_of(n) {
            None => not_found.push(n.clone()),
            Some(i) => match fleet.clusters.get(i).map(|c| &c.eligibility) {
                Some(Err(reason)) => invalid.push((n.clone(), reason.message())),
                _ => valid.push(i),
            },
        }
    }
    let current: Vec<usize> = cls
        .scheduled
        .iter()
        .chain(&cls.bound)
        .map(|h| h.cluster)
        .collect();
    for &i in &valid {
        if current.contains(&i) {
            r.kept.push(name(fleet, i));
        } else {
            r.picked.push(Picked::unscored(shared_name(fleet, i)));
        }
    }
    // `crossReferenceValidTargetsWithBindings`: only bindings made for an older policy
    // snapshot whose target is no longer valid are unscheduled. A binding of the current
    // snapshot stays, even on a cluster that became ineligible (its decision says why).
    for &i in &current {
        if !valid.contains(&i) {
            r.kept.push(name(fleet, i));
        }
    }
    for &i in &cls.obsolete {
        if !valid.contains(&i) {
            r.unscheduled.push(name(fleet, i));
        }
    }
    let mut d: Vec<Decision> = valid
        .iter()
        .map(|&i| {
            let cluster = fleet.name_of(i);
            Decision {
                cluster_name: cluster.clone(),
                reason: status::picked_fixed(cluster),
                selected: true,
                cluster_score: None,
            }
        })
        .collect();
    d.extend(invalid.iter().map(|(n, reason)| Decision {
        cluster_name: Arc::from(n.as_str()),
        selected: false,
        cluster_score: None,
        reason: status::fixed_ineligible(n, reason),
    }));
    d.extend(not_found.iter().map(|n| Decision {
        cluster_name: Arc::from(n.as_str()),
        selected: false,
        cluster_score: None,
        reason: status::fixed_not_found(n),
    }));
    r.decisions = d;
    r.condition = status::condition(valid.len(), invalid.is_empty() && not_found.is_empty());
}

/// One scored candidate of a cycle.
#[derive(Debug, Clone, Copy)]
struct Scored {
    cluster: usize,
    topology: i32,
    affinity: i32,
    obsolete: bool,
    name_rank: u32,
}

impl Scored {
    /// The scheduler's order as an integer key, best largest: (topology, affinity, obsolete)
    /// descending, then the name sorting later first (fleet order is name order), then the
    /// earlier cluster (a stable sort's order).
    fn key(&self) -> (i32, i32, bool, u32, Reverse<usize>) {
        (
            self.topology,
            self.affinity,
            self.obsolete,
            self.name_rank,
            Reverse(self.cluster),
        )
    }

    /// [`Scored::key`] packed into one integer with the same order (sorting thousands of
    /// candidates compares integers, not tuples): each field is offset to an unsigned value
    /// and given its own bits, the cluster index (a fleet is far below 2^31 clusters) last
    /// and inverted.
    fn packed_key(&self) -> u128 {
        let unsigned = |x: i32| u128::from(x as u32 ^ 0x8000_0000);
        let cluster = u32::try_from(self.cluster).unwrap_or(u32::MAX) & 0x7fff_ffff;
        (unsigned(self.topology) << 96)
            | (unsigned(self.affinity) << 64)
            | (u128::from(self.obsolete) << 63)
            | (u128::from(self.name_rank) << 31)
            | u128::from(0x7fff_ffff - cluster)
    }
}

/// Best first. The keys are worked out once and compare as one integer each (thousands of
/// candidates are sorted in the last cycle).
fn sort_best_first(v: &mut Vec<Scored>) {
    let mut keyed: Vec<(u128, Scored)> = v.iter().map(|s| (s.packed_key(), *s)).collect();
    keyed.sort_unstable_by_key(|k| Reverse(k.0));
    v.clear();
    v.extend(keyed.into_iter().map(|(_, s)| s));
}

/// The pool grouped by spread domains (every constraint's), each group best first by the
/// keys that stay fixed after the first cycle; `None` when the domain tuples do not pack into
/// 64 bits (the caller then scans the pool).
fn spread_groups(
    fleet: &Fleet,
    policy: &Policy,
    pool: &[usize],
    affinity: &[i32],
) -> Option<Vec<Vec<usize>>> {
    // Members by domain tuple (packed in a u64), and the tuples in first-seen order (the
    // groups' order).
    let mut by_key: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    let mut order: Vec<u64> = Vec::new();
    for &i in pool {
        let key = policy.spread.domain_tuple(i)?;
        let members = by_key.entry(key).or_default();
        if members.is_empty() {
            order.push(key);
        }
        members.push(i);
    }
    let mut groups: Vec<Vec<usize>> = order.iter().filter_map(|k| by_key.remove(k)).collect();
    for members in &mut groups {
        // Keys worked out once, not per comparison.
        let mut keyed: Vec<_> = members
            .iter()
            .map(|&i| {
                (
                    Reverse((affinity.get(i).copied().unwrap_or(0), fleet.name_rank(i))),
                    i,
                )
            })
            .collect();
        keyed.sort_unstable();
        *members = keyed.into_iter().map(|(_, i)| i).collect();
    }
    Some(groups)
}

/// `sortByClusterScoreAndName`: ascending; bindings without a score first; then name.
fn trim_order(fleet: &Fleet, held: &mut [Held]) {
    held.sort_by(|a, b| {
        let key = |h: &Held| h.score.map(|s| (s.topology_spread_score, s.affinity_score));
        match (key(a), key(b)) {
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (x, y) => x.cmp(&y),
        }
        .then_with(|| fleet.name_str(a.cluster).cmp(fleet.name_str(b.cluster)))
    });
}

fn breakdown(
    fleet: &Fleet,
    policy: &Policy,
    extremes: &[Option<Extremes>],
    ev: Option<&spread::Evaluation>,
    s: &Scored,
) -> Option<Box<ScoreBreakdown>> {
    fleet.clusters.get(s.cluster)?;
    Some(Box::new(ScoreBreakdown {
        affinity: policy
            .preferred
            .breakdown(fleet, s.cluster, extremes)
            .into_iter()
            .enumerate()
            .map(|(term, (weight, score, outcome))| TermScore {
                term,
                weight,
                score,
                outcome,
            })
            .collect(),
        topology_spread: ev
            .map(|ev| policy.spread.breakdown(ev, s.cluster))
            .unwrap_or_default(),
        obsolete_placement: s.obsolete,
    }))
}

fn pick_n(
    fleet: &Fleet,
    policy: &Policy,
    cls: &Classified,
    r: &mut PlacementResult,
) -> Result<(), CycleError> {
    let n = i64::from(
        policy
            .number_of_clusters
            .ok_or(CycleError::MissingNumberOfClusters)?,
    );
    let mut scheduled = cls.scheduled.clone();
    let mut bound = cls.bound.clone();
    let present = (scheduled.len() + bound.len()) as i64;

    if n <= present {
        if present - n + cls.obsolete.len() as i64 > 0 {
            // Downscale (and clean up obsolete bindings); no scoring.
            r.cycles = 1;
            r.unscheduled
                .extend(cls.obsolete.iter().map(|&i| name(fleet, i)));
            let count = (present - n) as usize;
            let mut trimmed: Vec<Held> = Vec::new();
            if count < scheduled.len() {
                trim_order(fleet, &mut scheduled);
                trimmed.extend(scheduled.drain(..count));
            } else if count < scheduled.len() + bound.len() {
                let left = count - scheduled.len();
                trimmed.append(&mut scheduled);
                trim_order(fleet, &mut bound);
                trimmed.extend(bound.drain(..left));
            } else {
                trimmed.append(&mut scheduled);
                trimmed.append(&mut bound);
            }
            r.unscheduled
                .extend(trimmed.iter().map(|h| name(fleet, h.cluster)));
        }
        r.kept = scheduled
            .iter()
            .chain(&bound)
            .map(|h| name(fleet, h.cluster))
            .collect();
        let held = |v: &[Held]| {
            v.iter()
                .map(|h| held_decision(fleet, h))
                .collect::<Vec<_>>()
        };
        let sets = vec![held(&scheduled), held(&bound)];
        let count = sets.iter().map(Vec::len).sum::<usize>();
        r.decisions = decisions(sets, &[], &[]);
        r.condition = status::condition(count, count as i64 >= n);
        return Ok(());
    }

    let statics = static_filter(fleet, policy)?;
    let len = fleet.len();
    let mut current = vec![false; len];
    let mut current_list: Vec<usize> = Vec::new();
    for h in scheduled.iter().chain(&bound) {
        if let Some(c) = current.get_mut(h.cluster) {
            if !*c {
                *c = true;
                current_list.push(h.cluster);
            }
        }
    }
    let mut obsolete_live = vec![false; len];
    for &o in &cls.obsolete {
        if let Some(x) = obsolete_live.get_mut(o) {
            *x = true;
        }
    }
    let mut restored = vec![false; len];
    for &u in &cls.unscheduled {
        if let Some(x) = restored.get_mut(u) {
            *x = true;
        }
    }
    let is = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
    // PreScore: min/max over the whole fleet (runs even without candidates).
    let ex: Vec<Option<Extremes>> = if policy.preferred.is_empty() {
        Vec::new()
    } else {
        policy.preferred.extremes(fleet)?
    };
    // The clusters every cycle considers: past the static filters and not selected. Their
    // affinity scores do not change between cycles, so they are worked out once; a failed
    // score aborts the first cycle in which its cluster is a candidate, as in the scheduler.
    let mut pool: Vec<usize> = Vec::new();
    let mut affinity = vec![0i32; len];
    let mut failed: Vec<(usize, CycleError)> = Vec::new();
    for (i, s) in statics.iter().enumerate() {
        if *s != Static::Pass || is(&current, i) {
            continue;
        }
        if !policy.preferred.is_empty() {
            match policy.preferred.score(fleet, i, &ex) {
                Ok(a) => {
                    if let Some(x) = affinity.get_mut(i) {
                        *x = a;
                    }
                }
                Err(e) => {
                    failed.push((i, e));
                    continue;
                }
            }
        }
        pool.push(i);
    }
    // Picks made by earlier cycles of this run: they are "scheduled" bindings now.
    let mut earlier: Vec<Decision> = Vec::new();
    let has_spread = !policy.spread.is_empty();
    // With spread constraints each cycle picks one cluster. Pool members in the same domain
    // of every constraint share their spread outcome, so after the first cycle (the only one
    // where the obsolete tie-breaker counts) a cycle compares the best remaining member of
    // each such group: O(groups) per cycle instead of O(clusters).
    let groups = if has_spread {
        spread_groups(fleet, policy, &pool, &affinity)
    } else {
        None
    };
    let mut cursors = vec![0usize; groups.as_ref().map_or(0, Vec::len)];

    loop {
        r.cycles += 1;
        let desired = n - current_list.len() as i64;
        let limit = if has_spread { 1 } else { desired };
        let ev = if has_spread {
            Some(policy.spread.evaluate(&current_list))
        } else {
            None
        };
        // The topology score of a candidate, `None` when a DoNotSchedule constraint filters it.
        let topology_of = |i: usize| match ev.as_ref().map(|ev| policy.spread.outcome(ev, i)) {
            Some(spread::Outcome::Violated(_)) => None,
            Some(spread::Outcome::Score(t)) => Some(t),
            None => Some(0),
        };
        let scored = |i: usize, topology: i32, obsolete_live: &[bool]| Scored {
            cluster: i,
            topology,
            affinity: affinity.get(i).copied().unwrap_or(0),
            obsolete: is(obsolete_live, i),
            name_rank: fleet.name_rank(i),
        };
        if let Some((_, e)) = failed.iter().find(|(i, _)| topology_of(*i).is_some()) {
            return Err(e.clone());
        }
        let mut picked_now: Vec<Scored> = Vec::new();
        // The other candidates, best first (filled for the final cycle only).
        let mut rest: Vec<Scored> = Vec::new();
        if has_spread {
            // One pick per cycle: the best candidate, without sorting.
            let mut best: Option<Scored> = None;
            let mut consider = |i: usize| {
                if let Some(t) = topology_of(i) {
                    let s = scored(i, t, &obsolete_live);
                    if best.is_none_or(|b| s.key() > b.key()) {
                        best = Some(s);
                    }
                }
            };
            match &groups {
                Some(groups) if r.cycles > 1 => {
                    for (members, cursor) in groups.iter().zip(cursors.iter_mut()) {
                        // Members only ever become selected, so the cursor only moves on.
                        while members.get(*cursor).is_some_and(|&i| is(&current, i)) {
                            *cursor += 1;
                        }
                        if let Some(&i) = members.get(*cursor) {
                            consider(i);
                        }
                    }
                }
                _ => {
                    for &i in &pool {
                        if !is(&current, i) {
                            consider(i);
                        }
                    }
                }
            }
            if desired >= 1 {
                picked_now.extend(best);
            }
        } else {
            let mut candidates: Vec<Scored> = pool
                .iter()
                .filter(|&&i| !is(&current, i))
                .map(|&i| scored(i, 0, &obsolete_live))
                .collect();
            sort_best_first(&mut candidates);
            let k = desired.min(limit).min(candidates.len() as i64).max(0) as usize;
            rest = candidates.split_off(k);
            picked_now = candidates;
        }
        let final_cycle = !(has_spread && desired > limit && picked_now.len() as i64 == limit);
        if final_cycle && has_spread {
            let picked_one = picked_now.first().map(|s| s.cluster);
            rest = pool
                .iter()
                .filter(|&&i| !is(&current, i) && Some(i) != picked_one)
                .filter_map(|&i| topology_of(i).map(|t| scored(i, t, &obsolete_live)))
                .collect();
            sort_best_first(&mut rest);
        }
        // Bindings: created, re-pointed (obsolete) or restored (unscheduled).
        let mut created = Vec::new();
        let mut patched = Vec::new();
        for s in &picked_now {
            let d = picked_decision(fleet, s.cluster, s.affinity, s.topology);
            let cluster = d.cluster_name.clone();
            if is(&obsolete_live, s.cluster) || is(&restored, s.cluster) {
                patched.push(d);
            } else {
                created.push(d);
            }
            r.picked.push(Picked {
                cluster,
                affinity_score: s.affinity,
                topology_spread_score: s.topology,
                score_breakdown: breakdown(fleet, policy, &ex, ev.as_ref(), s),
            });
            if let Some(c) = current.get_mut(s.cluster) {
                *c = true;
            }
            current_list.push(s.cluster);
            if let Some(x) = obsolete_live.get_mut(s.cluster) {
                *x = false;
            }
        }
        // Obsolete bindings not picked in this cycle are released now.
        for &o in &cls.obsolete {
            if let Some(live) = obsolete_live.get_mut(o) {
                if *live {
                    *live = false;
                    r.unscheduled.push(name(fleet, o));
                }
            }
        }
        if !final_cycle {
            earlier.extend(created);
            earlier.extend(patched);
            continue;
        }
        // Final cycle: write the status.
        // Breakdowns for the best not-picked clusters only (those the decisions list): a
        // 10k-cluster fleet would otherwise spend most of its time on explanations nobody
        // reads; `MAX_NOT_PICKED_BREAKDOWNS` bounds it.
        r.not_picked = rest
            .iter()
            .enumerate()
            .map(|(pos, s)| Picked {
                cluster: shared_name(fleet, s.cluster),
                affinity_score: s.affinity,
                topology_spread_score: s.topology,
                score_breakdown: if pos < MAX_NOT_PICKED_BREAKDOWNS {
                    breakdown(fleet, policy, &ex, ev.as_ref(), s)
                } else {
                    None
                },
            })
            .collect();
        // Filtered clusters of this cycle, in fleet order: a selected cluster that now fails
        // an earlier filter is reported by that filter (its decision is skipped: it stays
        // selected, §7.4); then the DoNotSchedule spread violations.
        let mut explanations = Explanations::default();
        r.filtered = statics
            .iter()
            .enumerate()
            .filter_map(|(i, st)| {
                if *st != Static::Pass {
                    return filtered_entry(fleet, policy, &mut explanations, i, *st);
                }
                if is(&current, i) {
                    return None;
                }
                let ev = ev.as_ref()?;
                let spread::Outcome::Violated(pos) = policy.spread.outcome(ev, i) else {
                    return None;
                };
                let c = policy.spread.at(pos)?;
                let (domain, domain_count, (smallest, largest)) = policy.spread.domain(ev, pos, i);
                Some(make_filtered(
                    shared_name(fleet, i),
                    FilterReason::TopologySpreadViolated {
                        constraint: c.index,
                        topology_key: c.topology_key.clone(),
                        max_skew: c.max_skew,
                        domain,
                        domain_count,
                        smallest,
                        largest,
                    },
                ))
            })
            .collect();
        r.kept = scheduled
            .iter()
            .chain(&bound)
            .map(|h| name(fleet, h.cluster))
            .collect();
        let held = |v: &[Held]| {
            v.iter()
                .map(|h| held_decision(fleet, h))
                .collect::<Vec<_>>()
        };
        // Bindings created by earlier cycles of this run (topology spread picks one per
        // cycle) are Scheduled bindings by the last cycle.
        let mut scheduled_set = earlier;
        scheduled_set.extend(held(&scheduled));
        let sets = vec![created, patched, scheduled_set, held(&bound)];
        let count = sets.iter().map(Vec::len).sum::<usize>();
        r.decisions = decisions(sets, &r.not_picked, &r.filtered);
        r.condition = status::condition(count, count as i64 >= n);
        return Ok(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_sort_key_orders_like_the_tuple_key() {
        let values = [i32::MIN, -1000, -2, -1, 0, 1, 2, 100, i32::MAX];
        let mut all = Vec::new();
        for (n, &topology) in values.iter().enumerate() {
            for &affinity in &values {
                for obsolete in [false, true] {
                    for name_rank in [0u32, 1, 7, u32::MAX] {
                        for cluster in [0usize, 3, n, 0x7fff_fffe] {
                            all.push(Scored {
                                cluster,
                                topology,
                                affinity,
                                obsolete,
                                name_rank,
                            });
                        }
                    }
                }
            }
        }
        for a in all.iter().step_by(7) {
            for b in &all {
                assert_eq!(
                    a.packed_key().cmp(&b.packed_key()),
                    a.key().cmp(&b.key()),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }
}
