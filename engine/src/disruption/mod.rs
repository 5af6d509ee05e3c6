//! Karpenter NodePool disruption: budgets, windows, timelines and candidates
//! (specification: `shared/spec/disruption.md`; input forms: `README.md` beside this file).
//!
//! Flow: documents → [`crate::model::disruption`] manifests → [`validation`] (what the CRD
//! admits, what the runtime parser rejects) → [`budget`] arithmetic over [`schedule`] windows
//! → [`timeline`] and [`candidates`] → [`report`] (data), worded by [`table`] and the UI.

pub mod budget;
pub mod candidates;
pub mod crd_pattern;
pub mod pass;
pub mod report;
pub mod schedule;
pub mod table;
pub mod timeline;
pub mod timing;
pub mod validation;
pub mod version;

use crate::input::documents::first_of_each;
use crate::input::duration::GoDuration;
use crate::input::kinds::KindInfo;
use crate::input::{Diagnostic, Document, FieldPath, Input};
use crate::model::disruption::{
    Budget, K8sNode, NodeClaim, NodeCountsSpec, NodePool, Pod, PodDisruptionBudget,
};
use crate::sorted_map::SortedMap;
use budget::{NodeCounts, Reason, RuntimeBudget};
use candidates::{NodeName, Pdbs, PoolContext, StateNode};
use chrono::{DateTime, Duration, Utc};
use report::{ActiveBudget, BudgetState, NodePoolResult, NodesSummary};
use serde::Deserialize;
use validation::{FieldCheck, Runtime};
use version::KarpenterVersion;

pub use report::BudgetReport;

/// Kinds the disruption engine reads.
pub const KINDS: &[KindInfo] = &[
    KindInfo {
        kind: "NodePool",
        api_versions: &["karpenter.sh/v1", "karpenter.sh/v1beta1"],
    },
    KindInfo {
        kind: "NodeClaim",
        api_versions: &["karpenter.sh/v1", "karpenter.sh/v1beta1"],
    },
    KindInfo {
        kind: "Node",
        api_versions: &["v1"],
    },
    KindInfo {
        kind: "Pod",
        api_versions: &["v1"],
    },
    KindInfo {
        kind: "PodDisruptionBudget",
        api_versions: &["policy/v1"],
    },
    KindInfo {
        kind: "NodeCounts",
        api_versions: &["fleet-policy.dev/v1alpha1"],
    },
];

/// Options of a budget evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BudgetOptions {
    /// The evaluation instant.
    #[serde(deserialize_with = "crate::input::rfc3339::utc")]
    pub at: DateTime<Utc>,
    /// Timeline horizon as a Go duration ("168h"); default 7 days.
    #[serde(default)]
    pub horizon: Option<String>,
    /// Karpenter core release whose rules apply: "head" (default, the newest) or "v1.0" …
    /// "v1.14".
    #[serde(default)]
    pub karpenter_version: Option<String>,
}

impl BudgetOptions {
    /// Default options at an instant.
    pub fn at(at: DateTime<Utc>) -> Self {
        BudgetOptions {
            at,
            horizon: None,
            karpenter_version: None,
        }
    }
}

/// Default timeline horizon.
pub const DEFAULT_HORIZON_HOURS: i64 = 168;
/// How far ahead `activeUntil`/`nextOpen` look: one 400-year Gregorian cycle, after which
/// every schedule repeats exactly (weekdays included).
const WINDOW_LOOKAHEAD_DAYS: i64 = 146_097 + 1;

/// Whether the input holds anything this engine evaluates.
pub fn applies(input: &Input) -> bool {
    input.of_kind("NodePool").next().is_some()
}

fn decode_all<'a, T: crate::input::FromNode>(
    input: &'a Input,
    kind: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(&'a Document, T)> {
    first_of_each(input, kind, diags)
        .into_iter()
        .filter_map(|d| {
            let (v, errors) = d.decode_lenient::<T>();
            diags.extend(errors);
            Some((d, v?))
        })
        .collect()
}

/// Evaluates every NodePool in the input at `options.at`.
pub fn budgets(input: &Input, options: &BudgetOptions) -> BudgetReport {
    prepare(input).evaluate(options)
}

/// The input decoded and joined once (manifests → NodePools, state nodes, PDBs), ready to
/// be evaluated at any instant: nothing here depends on the evaluation time.
#[derive(Debug, Clone)]
pub struct Prepared<'a> {
    pools: Vec<(&'a Document, NodePool)>,
    counts: Vec<(&'a Document, NodeCountsSpec)>,
    nodes: Vec<StateNode>,
    pdbs: Vec<candidates::PdbInfo>,
    diagnostics: Vec<Diagnostic>,
}

/// Decodes and joins the disruption manifests of the input.
pub fn prepare(input: &Input) -> Prepared<'_> {
    let mut diags: Vec<Diagnostic> = Vec::new();
    let pools: Vec<(&Document, NodePool)> = first_of_each(input, "NodePool", &mut diags)
        .into_iter()
        .map(|d| (d, NodePool::read(d, &mut diags)))
        .collect();
    let counts: Vec<(&Document, NodeCountsSpec)> = first_of_each(input, "NodeCounts", &mut diags)
        .into_iter()
        .filter_map(|d| {
            let (v, errors) = d.decode_at_lenient::<NodeCountsSpec>(&"spec".into());
            diags.extend(errors);
            Some((d, v?))
        })
        .collect();
    let claims: Vec<(&Document, NodeClaim)> = decode_all(input, "NodeClaim", &mut diags);
    let nodes: Vec<(&Document, K8sNode)> = decode_all(input, "Node", &mut diags);
    let pods: Vec<(&Document, Pod)> = decode_all(input, "Pod", &mut diags);
    let pdbs: Vec<(&Document, PodDisruptionBudget)> =
        decode_all(input, "PodDisruptionBudget", &mut diags);

    // Without any NodeClaim in the input, Nodes labelled with a NodePool stand for managed
    // nodes (a pasted `kubectl get nodes -o yaml` rarely comes with its NodeClaims).
    let mut implied_claims: Vec<NodeClaim> = Vec::new();
    if claims.is_empty() {
        for (_, n) in &nodes {
            if n.metadata.labels.contains_key(candidates::NODEPOOL_LABEL) {
                let mut c = NodeClaim::default();
                c.metadata.name = n.metadata.name.clone();
                c.metadata.labels = n.metadata.labels.clone();
                c.metadata.creation_timestamp = n.metadata.creation_timestamp.clone();
                // A deleting Node's NodeClaim is deleted at once (the termination controller).
                c.metadata.deletion_timestamp = n.metadata.deletion_timestamp.clone();
                c.status.node_name = Some(n.metadata.name.clone());
                implied_claims.push(c);
            }
        }
        if let (false, Some((d, _))) = (implied_claims.is_empty(), nodes.first()) {
            diags.push(d.warning(
                &FieldPath::root(),
                "no NodeClaims in the input: Nodes with the karpenter.sh/nodepool label are taken as managed by Karpenter",
            ));
        }
    }
    let claim_refs: Vec<&NodeClaim> = claims
        .iter()
        .map(|(_, c)| c)
        .chain(implied_claims.iter())
        .collect();
    let pdb_refs: Vec<&PodDisruptionBudget> = pdbs.iter().map(|(_, p)| p).collect();
    let pdb_index = Pdbs::new(&pdb_refs);
    let pdb_infos = pdb_index.infos();
    let state = state_nodes(&claim_refs, &nodes, &pods, &pdb_index)
        .into_iter()
        .map(|n| n.with_pdbs(&pdb_infos))
        .collect();
    Prepared {
        pools,
        counts,
        nodes: state,
        pdbs: pdb_infos,
        diagnostics: diags,
    }
}

/// The Karpenter rules and the timeline horizon the options ask for; the default of each, with
/// an error, for a value refused (also when no NodePool is evaluated: `evaluate` reports them).
pub(crate) fn read_options(
    options: &BudgetOptions,
    diags: &mut Vec<Diagnostic>,
) -> (KarpenterVersion, Duration) {
    let version = match options
        .karpenter_version
        .as_deref()
        .map(KarpenterVersion::parse)
    {
        None => KarpenterVersion::default(),
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            diags.push(Diagnostic::of_options(crate::Severity::Error, e));
            KarpenterVersion::default()
        }
    };
    let horizon = match options.horizon.as_deref().map(GoDuration::parse) {
        None => Duration::hours(DEFAULT_HORIZON_HOURS),
        Some(Ok(d)) if d.0 > 0 => d.to_chrono(),
        Some(r) => {
            let msg = match r {
                Err(e) => format!("horizon: {e}"),
                Ok(_) => "horizon must be positive".to_string(),
            };
            diags.push(Diagnostic::of_options(crate::Severity::Error, msg));
            Duration::hours(DEFAULT_HORIZON_HOURS)
        }
    };
    (version, horizon)
}

impl Prepared<'_> {
    /// What decoding the disruption manifests found (each document's errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Evaluates every NodePool at `options.at`.
    pub fn evaluate(&self, options: &BudgetOptions) -> BudgetReport {
        let mut diags = self.diagnostics.clone();
        let mut report = BudgetReport::default();
        let (version, horizon) = read_options(options, &mut diags);
        report.karpenter_version = version.to_string();
        let at = options.at;
        let end = at.checked_add_signed(horizon).unwrap_or(at);
        report.at = Some(at);
        report.horizon_end = Some(end);
        let pool_exists = |name: &str| self.pools.iter().any(|(_, p)| p.name == name);
        for (doc, pool) in &self.pools {
            let mut summary = NodesSummary {
                counts: NodeCounts::default(),
                total: 0,
                disrupting: 0,
                from: Vec::new(),
            };
            for (_, c) in self
                .counts
                .iter()
                .filter(|(d, _)| d.name.as_deref() == Some(pool.name.as_str()))
            {
                summary.counts.add(&NodeCounts {
                    ready: c.ready.into(),
                    deleting: c.deleting.into(),
                    not_ready: c.not_ready.into(),
                    deleting_not_ready: c.deleting_not_ready.into(),
                    uninitialized: c.uninitialized.into(),
                    unmanaged: c.unmanaged.into(),
                    instance_terminating: c.instance_terminating.into(),
                });
                if !summary.from.iter().any(|f| f == "NodeCounts") {
                    summary.from.push("NodeCounts".into());
                }
            }
            let members: Vec<&StateNode> = self
                .nodes
                .iter()
                .filter(|n| n.pool() == Some(pool.name.as_str()))
                .collect();
            if !members.is_empty() {
                summary.from.push("nodes".into());
                summary.counts.add(&count_nodes(&members));
            }
            if summary.from.is_empty() {
                diags.push(doc.warning(
                    &FieldPath::root(),
                    format!(
                        "no nodes and no NodeCounts for NodePool \"{}\": budgets are evaluated over 0 nodes",
                        pool.name
                    ),
                ));
            }
            let old_total = !version.at_least(1);
            summary.total = summary.counts.total(old_total);
            summary.disrupting = summary.counts.disrupting(old_total);
            let r = evaluate_pool(
                doc,
                pool,
                summary,
                &members,
                &self.pdbs,
                &pool_exists,
                version,
                at,
                end,
                &mut diags,
            );
            report.node_pools.push(r);
        }
        let balanced = |name: &str| {
            let (_, pool) = self.pools.iter().find(|(_, p)| p.name == name)?;
            // Only Balanced pools have totals: skip the scan over the nodes for the others.
            pool.disruption
                .consolidation_policy
                .as_ref()
                .filter(|f| f.value == "Balanced")?;
            let members: Vec<&StateNode> = self
                .nodes
                .iter()
                .filter(|n| n.pool() == Some(name))
                .collect();
            balanced_totals(pool, &members, version)
        };
        report.pass = pass::build(&report.node_pools, &self.nodes, &balanced, version);
        let (errors, warnings) = crate::input::diagnostics::partition(diags);
        report.errors = errors;
        report.warnings = warnings;
        report
    }
}

/// Joins NodeClaims, Nodes and Pods into Karpenter's state nodes, sorted by name.
fn state_nodes(
    claims: &[&NodeClaim],
    nodes: &[(&Document, K8sNode)],
    pods: &[(&Document, Pod)],
    pdbs: &Pdbs<'_>,
) -> Vec<StateNode> {
    // Names are unique (`first_of_each`); of Nodes sharing a provider id, the last wins.
    let node_by_name: SortedMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, (_, n))| (n.metadata.name.as_str(), i))
        .collect();
    let node_by_provider: SortedMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, (_, n))| Some((n.spec.provider_id.as_deref()?, i)))
        .collect();
    // Pods by the position `node_by_name` gives their node's name: no map of its own, and
    // nodes sharing a name share one list (the first of them to ask takes it, as before).
    let mut pods_of: Vec<Vec<candidates::PodInfo>> = nodes.iter().map(|_| Vec::new()).collect();
    for (_, p) in pods {
        if let Some(nn) = p.spec.node_name.as_deref() {
            let info = candidates::PodInfo::new(p, pdbs);
            if let Some(list) = node_by_name.get(nn).and_then(|&i| pods_of.get_mut(i)) {
                list.push(info);
            }
        }
    }
    let mut pods_on = |n: &K8sNode| {
        node_by_name
            .get(n.metadata.name.as_str())
            .and_then(|&i| pods_of.get_mut(i))
            .map(std::mem::take)
            .unwrap_or_default()
    };
    let mut used = vec![false; nodes.len()];
    let mut out: Vec<StateNode> = Vec::with_capacity(claims.len() + nodes.len());
    for c in claims {
        let found = c
            .status
            .node_name
            .as_deref()
            .and_then(|n| node_by_name.get(n))
            .or_else(|| {
                c.status
                    .provider_id
                    .as_deref()
                    .and_then(|p| node_by_provider.get(p))
            })
            .copied();
        let node = found.and_then(|i| {
            if let Some(u) = used.get_mut(i) {
                *u = true;
            }
            nodes.get(i).map(|(_, n)| n)
        });
        let pods = node.map(&mut pods_on).unwrap_or_default();
        out.push(StateNode::new(Some(c), node, pods));
    }
    for (i, (_, n)) in nodes.iter().enumerate() {
        if !used.get(i).copied().unwrap_or(false) {
            let pods = pods_on(n);
            out.push(StateNode::new(None, Some(n), pods));
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    // One shared table for the names every evaluation lists again and again.
    let names = NodeName::table(out.iter().map(|n| Box::from(n.name.as_str())).collect());
    for (n, name) in out.iter_mut().zip(names) {
        n.name = name;
    }
    out
}

/// A `Balanced` pool's totals (v1.14+; `computeNodePoolTotals`): the NodeClaims' prices
/// (ClusterCost) and every node's 1 + Σ positive eviction costs of its reschedulable pods.
fn balanced_totals(
    pool: &NodePool,
    members: &[&StateNode],
    version: KarpenterVersion,
) -> Option<(f64, f64)> {
    let policy = pool.disruption.consolidation_policy.as_ref();
    (version.at_least(14) && policy.map(|f| f.value.as_str()) == Some("Balanced")).then(|| {
        let cost = members
            .iter()
            .filter(|n| n.claim.is_some())
            .map(|n| n.price)
            .sum();
        let disruption = members.iter().map(|n| 1.0 + n.resched_cost).sum();
        (cost, disruption)
    })
}

/// How many StaticDrift replacements a static pool may start (`StaticDrift.ComputeCommands`):
/// none while it has more active NodeClaims than `replicas`, else what `limits.nodes` leaves
/// after the active and deleting ones (`ReserveNodeCount`; nodes pending disruption are not
/// in the input).
fn static_room(
    pool: &NodePool,
    members: &[&StateNode],
    version: KarpenterVersion,
) -> Result<i64, candidates::Blocked> {
    let Some(replicas) = pool.replicas.filter(|_| version.at_least(8)) else {
        return Ok(0);
    };
    let claims = members.iter().filter(|n| n.claim.is_some());
    let deleting = claims.clone().filter(|n| n.deleting || n.queued).count() as i64;
    let active = claims.count() as i64 - deleting;
    if active > replicas {
        return Err(candidates::Blocked::StaticOverscaled);
    }
    match pool.node_limit {
        None => Ok(i64::MAX),
        Some(limit) if limit - active - deleting > 0 => Ok(limit - active - deleting),
        Some(_) => Err(candidates::Blocked::NodeLimit),
    }
}

/// Buckets state nodes like `BuildDisruptionBudgetMapping`.
fn count_nodes(nodes: &[&StateNode]) -> NodeCounts {
    let mut c = NodeCounts::default();
    for n in nodes {
        if n.claim.is_none() {
            c.unmanaged += 1;
        } else if !n.initialized {
            c.uninitialized += 1;
        } else if n.instance_terminating {
            c.instance_terminating += 1;
        } else {
            // A node in a queued command is marked for deletion (`MarkedForDeletion`).
            match (n.deleting || n.queued, n.ready) {
                (false, true) => c.ready += 1,
                (true, true) => c.deleting += 1,
                (false, false) => c.not_ready += 1,
                (true, false) => c.deleting_not_ready += 1,
            }
        }
    }
    c
}

fn runtime_error(check: &FieldCheck) -> Option<&str> {
    match &check.runtime {
        Some(Runtime::Error { message }) => Some(message),
        _ => None,
    }
}

/// Validates the disruption fields, turning verdicts into diagnostics.
fn validate(
    doc: &Document,
    pool: &NodePool,
    version: KarpenterVersion,
    diags: &mut Vec<Diagnostic>,
) -> Vec<FieldCheck> {
    let mut checks = Vec::new();
    let d = &pool.disruption;
    if let Some(f) = &d.consolidation_policy {
        if pool.v1beta1 {
            let ok = f.value == "WhenEmpty" || f.value == "WhenUnderutilized";
            checks.push(validation::rule(
                &f.path.to_string(),
                ok,
                "v1beta1 supported values: WhenEmpty, WhenUnderutilized",
            ));
        } else {
            checks.push(validation::consolidation_policy(
                &f.path.to_string(),
                &f.value,
                version,
            ));
        }
    }
    if let Some(f) = &d.consolidate_after {
        checks.push(validation::nillable_duration(
            &f.path.to_string(),
            &f.value,
            version,
        ));
    } else if d.present && !version.head {
        let p = FieldPath::root()
            .key("spec")
            .key("disruption")
            .key("consolidateAfter");
        checks.push(validation::rule(
            &p.to_string(),
            false,
            "Required value: consolidateAfter is required inside an explicit disruption block (before the HEAD default)",
        ));
    }
    if let Some(f) = &pool.expire_after {
        checks.push(validation::nillable_duration(
            &f.path.to_string(),
            &f.value,
            version,
        ));
    }
    if let Some(f) = &pool.termination_grace_period {
        checks.push(validation::termination_grace_period(
            &f.path.to_string(),
            &f.value,
        ));
    }
    if let Some(budgets) = &d.budgets {
        let bpath = d.budgets_path.to_string();
        let pairs_ok = budgets
            .iter()
            .all(|b| b.schedule.is_some() == b.duration.is_some());
        checks.push(validation::rule(
            &bpath,
            pairs_ok,
            "'schedule' must be set with 'duration' (CEL: self.all(x, has(x.schedule) == has(x.duration)))",
        ));
        if budgets.len() > 50 {
            checks.push(validation::rule(
                &bpath,
                false,
                "must have at most 50 items",
            ));
        }
        for b in budgets {
            validate_budget(b, &mut checks);
        }
    }
    for c in &checks {
        let path = FieldPath::parse(&c.path);
        if !c.crd_accepts {
            let rule = c.crd_rule.as_deref().unwrap_or("invalid");
            let value = if c.value.is_empty() {
                String::new()
            } else {
                format!("{:?}: ", c.value)
            };
            diags.push(doc.error(&path, format!("the API server rejects this: {value}{rule}")));
        }
        if let Some(m) = runtime_error(c) {
            let consequence = c.effect.as_deref().unwrap_or("Karpenter cannot use it");
            diags.push(doc.error(
                &path,
                format!("Karpenter's runtime parser rejects this ({m}); {consequence}"),
            ));
        }
    }
    checks
}

fn validate_budget(b: &Budget, checks: &mut Vec<FieldCheck>) {
    if let Some(f) = &b.nodes {
        checks.push(validation::nodes(&f.path.to_string(), &f.value));
    }
    if let Some(f) = &b.schedule {
        let mut c = validation::schedule(&f.path.to_string(), &f.value);
        if b.duration.is_none() && runtime_error(&c).is_none() {
            c.effect = Some("no duration: the budget is never active (duration 0)".into());
        }
        checks.push(c);
    }
    if let Some(f) = &b.duration {
        checks.push(validation::duration(&f.path.to_string(), &f.value));
    }
    if let Some(reasons) = &b.reasons {
        let mut seen: Vec<&str> = Vec::new();
        for r in reasons {
            checks.push(validation::reason(&r.path.to_string(), &r.value));
            if seen.contains(&r.value.as_str()) {
                checks.push(validation::rule(
                    &r.path.to_string(),
                    false,
                    "Duplicate value (reasons is a set)",
                ));
            }
            seen.push(&r.value);
        }
        if reasons.len() > 50 {
            checks.push(validation::rule(
                &b.path.key("reasons").to_string(),
                false,
                "must have at most 50 items",
            ));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn evaluate_pool(
    doc: &Document,
    pool: &NodePool,
    nodes: NodesSummary,
    members: &[&StateNode],
    pdbs: &[candidates::PdbInfo],
    pool_exists: &dyn Fn(&str) -> bool,
    version: KarpenterVersion,
    at: DateTime<Utc>,
    end: DateTime<Utc>,
    diags: &mut Vec<Diagnostic>,
) -> NodePoolResult {
    let mut notes = Vec::new();
    let checks = validate(doc, pool, version, diags);
    let d = &pool.disruption;
    if pool.v1beta1 {
        notes.push("karpenter.sh/v1beta1 NodePool: read with the v1 rules (expireAfter from spec.disruption, WhenUnderutilized = WhenEmptyOrUnderutilized)".into());
    }
    // v1.0's CRD gives an absent `spec.disruption` no default (v1.1 added
    // `{consolidateAfter: 0s}`), so its budgets' default never applies: no budget, and
    // consolidateAfter unset (`GetAllowedDisruptionsByReason`, emptiness, consolidation).
    let bare = !d.present && !version.at_least(1);
    let default_budgets = d.budgets.is_none() && !bare;
    let written: Vec<Budget> = match &d.budgets {
        _ if bare => Vec::new(),
        Some(b) => b.clone(),
        None => vec![Budget::default()],
    };
    if bare {
        notes.push("spec.disruption absent: Karpenter v1.0's CRD gives it no default, so no budget limits any reason (unbounded) and consolidateAfter is unset (no emptiness or consolidation)".into());
    } else if default_budgets {
        notes.push("budgets absent: the CRD default [{nodes: \"10%\"}] applies".into());
    } else if written.is_empty() {
        diags.push(doc.warning(
            &d.budgets_path,
            "budgets: [] is assumed to be kept by the API server (CRD defaults fill absent fields, not empty lists): no budget limits any reason (unbounded)",
        ));
    }
    let runtime: Vec<RuntimeBudget> = written
        .iter()
        .map(|b| {
            RuntimeBudget::new(
                b.nodes.as_ref().map(|f| f.value.as_str()),
                b.schedule.as_ref().map(|f| f.value.as_str()),
                b.duration.as_ref().map(|f| f.value.as_str()),
                b.reasons
                    .as_ref()
                    .map(|rs| rs.iter().map(|r| r.value.clone()).collect()),
            )
        })
        .collect();
    for (b, rb) in written.iter().zip(&runtime) {
        if b.reasons.as_ref().is_some_and(Vec::is_empty) {
            diags.push(doc.warning(
                &b.path.key("reasons"),
                "reasons: [] is assumed to be kept as an empty list: this budget applies to no reason (omit reasons to apply it to all)",
            ));
        }
        if let (Some(s), Ok(sched)) = (&b.schedule, &rb.schedule) {
            if sched.never_fires() {
                diags.push(doc.warning(
                    &s.path,
                    "this schedule never fires: robfig/cron returns the zero time, which Karpenter reads as active, so this budget is ALWAYS active",
                ));
            }
        }
    }
    let eval = budget::evaluate(&runtime, at, nodes.total, nodes.disrupting);
    if eval.fail_closed {
        diags.push(doc.error(
            &d.budgets_path,
            format!(
                "NodePool \"{}\" fails closed: a budget is in error, so Karpenter allows 0 disruptions for every reason",
                pool.name
            ),
        ));
    }
    let lookahead = at
        .checked_add_signed(Duration::days(WINDOW_LOOKAHEAD_DAYS))
        .unwrap_or(at);
    let mut states = Vec::new();
    let mut active_budgets = Vec::new();
    for (i, ((b, rb), v)) in written.iter().zip(&runtime).zip(&eval.budgets).enumerate() {
        let mut st = BudgetState {
            index: i,
            path: b.path.to_string(),
            nodes: rb.nodes.clone(),
            schedule: b.schedule.as_ref().map(|f| f.value.clone()),
            duration: b.duration.as_ref().map(|f| f.value.clone()),
            reasons: rb.reasons.clone(),
            active: v.active,
            value: v.value,
            error: v.error.clone(),
            active_until: None,
            next_open: None,
            next_close: None,
            never_closes: false,
            windows: Vec::new(),
        };
        if let (Some(w), true) = (rb.window(), rb.scheduled) {
            let active = w.is_active(at);
            let first = w.next_change(at, lookahead);
            if active {
                st.active_until = first;
                st.never_closes = first.is_none();
            } else if let Some(o) = first {
                st.next_open = Some(o);
                st.next_close = w.next_change(o, lookahead);
            }
            st.windows = timeline::spans(rb, at, end);
        }
        if v.active {
            let binding: Vec<Reason> = eval
                .binding
                .iter()
                .filter(|(_, who)| *who == Some(i))
                .map(|(r, _)| *r)
                .collect();
            active_budgets.push(ActiveBudget {
                index: i,
                nodes: rb.nodes.clone(),
                value: v.value,
                reasons: rb.reasons.clone(),
                binding,
                active_until: st.active_until,
                never_closes: st.never_closes,
            });
        }
        states.push(st);
    }
    let timeline = timeline::timeline(&runtime, at, end, nodes.total, nodes.disrupting);
    let next_change = timeline.get(1).map(|p| p.at);

    // Candidates.
    let consolidate_after = match d.consolidate_after.as_ref().map(|f| f.value.as_str()) {
        Some("Never") => None,
        None if bare => None,
        Some(s) => Some(GoDuration::parse(s).unwrap_or_default()),
        None => Some(GoDuration(0)),
    };
    let expire_after = match pool.expire_after.as_ref().map(|f| f.value.as_str()) {
        Some("Never") => None,
        Some(s) => GoDuration::parse(s).ok(),
        None => Some(GoDuration(720 * 3_600_000_000_000)),
    };
    let ctx = PoolContext {
        at,
        version,
        pool_exists,
        pdbs,
        consolidate_after,
        policy: match d.consolidation_policy.as_ref().map(|f| f.value.as_str()) {
            None => "WhenEmptyOrUnderutilized".to_string(),
            // v1beta1's WhenUnderutilized became v1's WhenEmptyOrUnderutilized.
            Some("WhenUnderutilized") if pool.v1beta1 => "WhenEmptyOrUnderutilized".to_string(),
            Some(p) => p.to_string(),
        },
        // `spec.replicas` exists from v1.8.0; older CRDs prune it.
        is_static: pool.replicas.is_some() && version.at_least(8),
        expire_after,
        static_room: static_room(pool, members, version),
        balanced: balanced_totals(pool, members, version),
        warnings: std::cell::RefCell::new(Vec::new()),
    };
    let (node_facts, methods) = candidates::evaluate(members, &ctx, eval.allowed);
    for w in ctx.warnings.into_inner() {
        diags.push(doc.warning(&FieldPath::root(), w));
    }
    if pool.replicas.is_some() && !version.at_least(8) {
        notes.push("spec.replicas (static NodePools) exists from v1.8.0: with these rules the CRD prunes it and the NodePool is dynamic".into());
    }
    if !members.is_empty() {
        notes.push(
            "ties in every candidate order are broken by node name (Karpenter's sort is unstable)"
                .into(),
        );
    }
    NodePoolResult {
        name: pool.name.clone(),
        source: doc.source.clone(),
        document: doc.index,
        nodes,
        allowed_disruptions: eval.allowed,
        raw_allowed_disruptions: eval.raw,
        fail_closed: eval.fail_closed,
        active_budgets,
        budgets: states,
        default_budgets,
        next_change,
        timeline,
        candidates: methods,
        node_facts,
        validation: checks,
        notes,
    }
}
