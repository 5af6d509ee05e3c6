//! Policy validation as the CRD schema and the KubeFleet webhook do it (placement.md §1):
//! each finding names the field. A rejected policy is still scheduled the way the scheduler
//! would if the object reached it, and reported as rejected.

use super::affinity::PropertyOperator;
use super::properties::RESOURCE_PREFIX;
use crate::input::diagnostics::out_of_range;
use crate::input::quantity::Quantity;
use crate::input::FieldPath;
use crate::model::placement::{
    ClusterSelectorTerm, MemberCluster, PlacementPolicy, PropertySelectorRequirement,
};
use crate::selectors::{check_key, check_name_part, check_value, is_dns_subdomain};
use crate::sorted_map::SortedMap;
use std::cmp::Ordering;
use std::collections::HashSet;

/// One validation finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The field.
    pub path: FieldPath,
    /// What is wrong.
    pub message: String,
    /// A warning (the object is accepted) rather than an error.
    pub warning: bool,
}

struct Out {
    findings: Vec<Finding>,
}

impl Out {
    fn error(&mut self, path: FieldPath, message: impl Into<String>) {
        self.findings.push(Finding {
            path,
            message: message.into(),
            warning: false,
        });
    }

    /// The API server's check of every custom resource's name (`NameIsDNSSubdomain`).
    fn object_name(&mut self, name: &str) {
        if !is_dns_subdomain(name) {
            self.error(
                FieldPath::parse("metadata.name"),
                format!("Invalid value: {name:?}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"),
            );
        }
    }
}

/// Validates a placement's name: the API server's check of every custom resource's name,
/// then the KubeFleet webhook's length limit (`validatePlacement`: the name is used in the
/// labels of the objects it creates).
pub fn validate_name(name: &str) -> Vec<Finding> {
    let mut out = Out {
        findings: Vec::new(),
    };
    out.object_name(name);
    if out.findings.is_empty() && name.len() > 63 {
        out.error(
            FieldPath::parse("metadata.name"),
            "the name field cannot have length exceeding 63",
        );
    }
    out.findings
}

/// Validates `spec.policy` (absent is valid: PickAll).
pub fn validate(policy: Option<&PlacementPolicy>, base: &FieldPath) -> Vec<Finding> {
    let mut out = Out {
        findings: Vec::new(),
    };
    let Some(p) = policy else {
        return out.findings;
    };
    let ty = p.placement_type.as_deref().unwrap_or("PickAll");
    let ty = if ty.is_empty() { "PickAll" } else { ty };
    if !matches!(ty, "PickAll" | "PickN" | "PickFixed") {
        out.error(
            base.key("placementType"),
            format!("Unsupported value: \"{ty}\": supported values: \"PickAll\", \"PickN\", \"PickFixed\""),
        );
    }
    let affinity = p
        .affinity
        .as_ref()
        .and_then(|a| a.cluster_affinity.as_ref());
    let required = affinity.and_then(|a| {
        a.required_during_scheduling_ignored_during_execution
            .as_ref()
    });
    let preferred = affinity
        .map(|a| {
            a.preferred_during_scheduling_ignored_during_execution
                .as_slice()
        })
        .unwrap_or(&[]);
    let aff_path = base.key("affinity").key("clusterAffinity");

    match ty {
        "PickFixed" => {
            if p.cluster_names.len() > 100 {
                out.error(
                    base.key("clusterNames"),
                    format!("must have at most 100 items, got {}", p.cluster_names.len()),
                );
            }
            let mut seen: HashSet<&str> = HashSet::new();
            for (i, n) in p.cluster_names.iter().enumerate() {
                if let Err(m) = check_dns_subdomain(n) {
                    out.error(base.key("clusterNames").index(i), m);
                }
                if !seen.insert(n.as_str()) {
                    out.error(
                        base.key("clusterNames").index(i),
                        format!("duplicate cluster name {n}"),
                    );
                }
            }
            if p.number_of_clusters.is_some() {
                out.error(
                    base.key("numberOfClusters"),
                    "number of clusters must be nil for policy type PickFixed",
                );
            }
            if p.affinity.is_some() {
                out.error(
                    base.key("affinity"),
                    "affinity must be nil for policy type PickFixed",
                );
            }
            if !p.topology_spread_constraints.is_empty() {
                out.error(
                    base.key("topologySpreadConstraints"),
                    "topology spread constraints needs to be empty for policy type PickFixed",
                );
            }
            if !p.tolerations.is_empty() {
                out.error(
                    base.key("tolerations"),
                    "tolerations needs to be empty for policy type PickFixed",
                );
            }
        }
        "PickAll" | "PickN" => {
            if !p.cluster_names.is_empty() {
                out.error(
                    base.key("clusterNames"),
                    format!("cluster names needs to be empty for policy type {ty}"),
                );
            }
            if ty == "PickAll" {
                if p.number_of_clusters.is_some() {
                    out.error(
                        base.key("numberOfClusters"),
                        "number of clusters must be nil for policy type PickAll",
                    );
                }
                if !preferred.is_empty() {
                    out.error(
                        aff_path.key("preferredDuringSchedulingIgnoredDuringExecution"),
                        "PreferredDuringSchedulingIgnoredDuringExecution will be ignored for placement policy type PickAll",
                    );
                }
                if !p.topology_spread_constraints.is_empty() {
                    out.error(
                        base.key("topologySpreadConstraints"),
                        "topology spread constraints needs to be empty for policy type PickAll",
                    );
                }
            } else {
                match p.number_of_clusters {
                    None => out.error(base.key("numberOfClusters"), "number of clusters cannot be nil for policy type PickN"),
                    Some(n) if n < 0 => out.error(
                        base.key("numberOfClusters"),
                        format!("number of clusters cannot be {n} for policy type PickN: must be 0 or more"),
                    ),
                    _ => {}
                }
            }
        }
        _ => {}
    }

    if let Some(req) = required {
        let rp = aff_path
            .key("requiredDuringSchedulingIgnoredDuringExecution")
            .key("clusterSelectorTerms");
        if req.cluster_selector_terms.len() > 10 {
            out.error(
                rp.clone(),
                format!(
                    "must have at most 10 items, got {}",
                    req.cluster_selector_terms.len()
                ),
            );
        }
        for (i, t) in req.cluster_selector_terms.iter().enumerate() {
            validate_term(&mut out, t, &rp.index(i), true);
        }
    }
    let pp = aff_path.key("preferredDuringSchedulingIgnoredDuringExecution");
    for (i, t) in preferred.iter().enumerate() {
        let tp = pp.index(i);
        if !(-100..=100).contains(&t.weight) {
            out.error(
                tp.key("weight"),
                format!("weight {} is out of range [-100, 100]", t.weight),
            );
        }
        validate_term(&mut out, &t.preference, &tp.key("preference"), false);
    }

    let tsp = base.key("topologySpreadConstraints");
    for (i, c) in p.topology_spread_constraints.iter().enumerate() {
        let cp = tsp.index(i);
        if let Some(s) = c.max_skew {
            if s < 1 {
                out.error(
                    cp.key("maxSkew"),
                    format!("maxSkew must be at least 1, got {s}"),
                );
            }
        }
        // Required (an empty key reads as a missing one here). KubeFleet does not check the
        // key's format: validateTopologySpreadConstraints reads only whenUnsatisfiable.
        if c.topology_key.is_empty() {
            out.error(
                cp.key("topologyKey"),
                "Required value: topologyKey must be set",
            );
        }
        if let Some(w) = &c.when_unsatisfiable {
            if !matches!(w.as_str(), "" | "DoNotSchedule" | "ScheduleAnyway") {
                out.error(
                    cp.key("whenUnsatisfiable"),
                    format!("Unsupported value: \"{w}\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""),
                );
            }
        }
    }

    let tp = base.key("tolerations");
    if p.tolerations.len() > 100 {
        out.error(
            tp.clone(),
            format!("must have at most 100 items, got {}", p.tolerations.len()),
        );
    }
    let mut seen: HashSet<(&str, &str, &str, &str)> = HashSet::new();
    for (i, t) in p.tolerations.iter().enumerate() {
        let path = tp.index(i);
        let op = t
            .operator
            .as_deref()
            .filter(|o| !o.is_empty())
            .unwrap_or("Equal");
        if !t.key.is_empty() {
            if let Err(m) = check_key(&t.key) {
                out.error(path.key("key"), m);
            }
        }
        match op {
            "Exists" => {
                if !t.value.is_empty() {
                    out.error(
                        path.key("value"),
                        "toleration value needs to be empty, when operator is Exists",
                    );
                }
            }
            "Equal" => {
                if t.key.is_empty() {
                    out.error(
                        path.key("key"),
                        "toleration key cannot be empty, when operator is Equal",
                    );
                }
                if let Err(m) = check_value(&t.value) {
                    out.error(path.key("value"), m);
                }
            }
            other => out.error(
                path.key("operator"),
                format!("Unsupported value: \"{other}\": supported values: \"Equal\", \"Exists\""),
            ),
        }
        if !matches!(t.effect.as_str(), "" | "NoSchedule") {
            out.error(
                path.key("effect"),
                format!(
                    "Unsupported value: \"{}\": supported values: \"NoSchedule\"",
                    t.effect
                ),
            );
        }
        let key = (t.key.as_str(), op, t.value.as_str(), t.effect.as_str());
        if !seen.insert(key) {
            out.error(
                path,
                format!("toleration {:?} already exists in tolerations", t.key),
            );
        }
    }
    out.findings
}

/// Validates a MemberCluster as the API server does: every custom resource's name (an RFC 1123
/// subdomain) and labels, its CRD schema and KubeFleet's webhook
/// (`apis/cluster/v1beta1/membercluster_types.go`, `pkg/utils/validator/membercluster.go`):
/// the name's length, the heartbeat period and the taints. The API server would refuse such
/// an object; the cluster is still scheduled as written, with the errors beside it.
pub fn validate_member(m: &MemberCluster) -> Vec<Finding> {
    let mut out = Out {
        findings: Vec::new(),
    };
    let meta = FieldPath::parse("metadata");
    let name = &m.metadata.name;
    if name.len() > 63 {
        out.error(meta.key("name"), "metadata.name max length is 63");
    } else {
        out.object_name(name);
    }
    for (key, value) in m.metadata.labels.iter() {
        let path = meta.key("labels").key(key);
        if let Err(e) = check_key(key).and_then(|()| check_value(value)) {
            out.error(path, e);
        }
    }
    let spec = FieldPath::parse("spec");
    if let Some(message) = m
        .spec
        .heartbeat_period_seconds
        .and_then(|s| out_of_range("spec.heartbeatPeriodSeconds", s.into(), 1, 600))
    {
        out.error(spec.key("heartbeatPeriodSeconds"), message);
    }
    let tp = spec.key("taints");
    if m.spec.taints.len() > 100 {
        out.error(
            tp.clone(),
            format!("must have at most 100 items, got {}", m.spec.taints.len()),
        );
    }
    for (i, t) in m.spec.taints.iter().enumerate() {
        let path = tp.index(i);
        if let Err(m) = check_key(&t.key) {
            out.error(path.key("key"), format!("invalid taint key: {m}"));
        }
        if let Err(m) = check_value(&t.value) {
            out.error(path.key("value"), format!("invalid taint value: {m}"));
        }
        if t.effect != "NoSchedule" {
            out.error(
                path.key("effect"),
                format!(
                    "Unsupported value: \"{}\": supported values: \"NoSchedule\"",
                    t.effect
                ),
            );
        }
        // At most 100 taints (the CRD's bound, checked above): the earlier ones are looked over.
        let earlier = &m.spec.taints[..i];
        if earlier
            .iter()
            .any(|o| o.key == t.key && o.value == t.value && o.effect == t.effect)
        {
            out.error(
                path,
                format!("taint {:?} already exists, taints must be unique", t.key),
            );
        }
    }
    out.findings
}

fn validate_term(out: &mut Out, t: &ClusterSelectorTerm, path: &FieldPath, required: bool) {
    if t.metric_sorter.is_some() {
        out.error(
            path.key("metricSorter"),
            "unknown field \"metricSorter\" (the API field is \"propertySorter\"); a server that prunes it instead would give this term its full weight",
        );
    }
    if let Some(ls) = &t.label_selector {
        if let Err(e) = ls.compile() {
            out.error(
                FieldPath::parse(&format!("{}.labelSelector.{}", path, e.field)),
                e.message,
            );
        }
    }
    if required {
        if t.property_sorter.is_some() {
            out.error(path.key("propertySorter"), "PropertySorter is not allowed for RequiredDuringSchedulingIgnoredDuringExecution affinity");
        }
        if let Some(ps) = &t.property_selector {
            validate_property_selector(
                out,
                &ps.match_expressions,
                &path.key("propertySelector").key("matchExpressions"),
            );
        }
    } else {
        if t.property_selector.is_some() {
            out.error(path.key("propertySelector"), "PropertySelector is not allowed for PreferredDuringSchedulingIgnoredDuringExecution affinity");
        }
        if let Some(s) = &t.property_sorter {
            let sp = path.key("propertySorter");
            if let Err(m) = check_property_name(&s.name) {
                out.error(sp.key("name"), m);
            }
            if !matches!(s.sort_order.as_str(), "Ascending" | "Descending") {
                out.error(
                    sp.key("sortOrder"),
                    format!("Unsupported value: \"{}\": supported values: \"Ascending\", \"Descending\"", s.sort_order),
                );
            }
        }
    }
}

/// Bounds collected per property name for the consistency checks.
#[derive(Default)]
struct Bounds {
    eq: Vec<(usize, Quantity)>,
    ne: Vec<(usize, Quantity)>,
    lower: Option<(usize, Quantity, bool)>,
    upper: Option<(usize, Quantity, bool)>,
}

fn validate_property_selector(
    out: &mut Out,
    exprs: &[PropertySelectorRequirement],
    path: &FieldPath,
) {
    let mut by_name: SortedMap<&str, Bounds> = SortedMap::new();
    for (i, e) in exprs.iter().enumerate() {
        let ep = path.index(i);
        if let Err(m) = check_property_name(&e.name) {
            out.error(ep.key("name"), m);
        }
        let op = PropertyOperator::parse(&e.operator);
        if op.is_none() {
            out.error(
                ep.key("operator"),
                format!("Unsupported value: \"{}\": supported values: \"Gt\", \"Ge\", \"Eq\", \"Ne\", \"Lt\", \"Le\"", e.operator),
            );
        }
        if e.values.len() != 1 {
            out.error(
                ep.key("values"),
                format!(
                    "operator {} requires exactly one value, got {}",
                    e.operator,
                    e.values.len()
                ),
            );
            continue;
        }
        let Some(v) = e.values.first() else { continue };
        let q = match Quantity::parse(v) {
            Ok(q) => q,
            Err(err) => {
                out.error(
                    ep.key("values").index(0),
                    format!("value {v} is not a valid quantity: {err}"),
                );
                continue;
            }
        };
        let b = by_name.get_or_insert_with(e.name.as_str(), Bounds::default);
        let tighter_lower =
            |cur: &Option<(usize, Quantity, bool)>, q: &Quantity, incl: bool| match cur {
                None => true,
                Some((_, c, ci)) => match q.cmp_exact(c) {
                    Ordering::Greater => true,
                    Ordering::Equal => *ci && !incl,
                    Ordering::Less => false,
                },
            };
        let tighter_upper =
            |cur: &Option<(usize, Quantity, bool)>, q: &Quantity, incl: bool| match cur {
                None => true,
                Some((_, c, ci)) => match q.cmp_exact(c) {
                    Ordering::Less => true,
                    Ordering::Equal => *ci && !incl,
                    Ordering::Greater => false,
                },
            };
        match op {
            Some(PropertyOperator::Eq) => b.eq.push((i, q)),
            Some(PropertyOperator::Ne) => b.ne.push((i, q)),
            Some(PropertyOperator::Gt) | Some(PropertyOperator::Ge) => {
                let incl = op == Some(PropertyOperator::Ge);
                if tighter_lower(&b.lower, &q, incl) {
                    b.lower = Some((i, q, incl));
                }
            }
            Some(PropertyOperator::Lt) | Some(PropertyOperator::Le) => {
                let incl = op == Some(PropertyOperator::Le);
                if tighter_upper(&b.upper, &q, incl) {
                    b.upper = Some((i, q, incl));
                }
            }
            None => {}
        }
    }
    for (name, b) in by_name {
        if let Some((i, first)) = b.eq.first() {
            for (j, other) in b.eq.iter().skip(1) {
                if other != first {
                    out.error(
                        path.index(*j),
                        format!("property {name} cannot be equal to both {first} and {other}"),
                    );
                }
            }
            for (j, ne) in &b.ne {
                if ne == first {
                    out.error(
                        path.index(*j),
                        format!("property {name} cannot be both equal and not equal to {ne}"),
                    );
                }
            }
            let below = b
                .lower
                .as_ref()
                .is_some_and(|(_, l, incl)| match first.cmp_exact(l) {
                    Ordering::Less => true,
                    Ordering::Equal => !incl,
                    Ordering::Greater => false,
                });
            let above = b
                .upper
                .as_ref()
                .is_some_and(|(_, u, incl)| match first.cmp_exact(u) {
                    Ordering::Greater => true,
                    Ordering::Equal => !incl,
                    Ordering::Less => false,
                });
            if below || above {
                out.error(path.index(*i), format!("property {name} is required to equal {first}, which is outside the other bounds"));
            }
        }
        if let (Some((_, l, li)), Some((j, u, ui))) = (&b.lower, &b.upper) {
            let empty = match l.cmp_exact(u) {
                Ordering::Greater => true,
                Ordering::Equal => !(*li && *ui),
                Ordering::Less => false,
            };
            if empty {
                out.error(
                    path.index(*j),
                    format!("property {name} has an empty range: lower bound {l}, upper bound {u}"),
                );
            }
        }
    }
}

/// Property name checks, as the webhook's `validateName`: resource properties must be
/// `<prefix>/<capacityType>-<resource>` (split into two parts, as the webhook does:
/// `available-ephemeral-storage` passes here and fails in the scheduler, placement.md §10.9)
/// and a qualified name; any other name is segments separated by `/`, the first a DNS
/// subdomain or a qualified name, each other one a qualified name without a prefix.
fn check_property_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("property name cannot be empty".to_string());
    }
    let invalid = |m: String| format!("property name {name} is not valid: {m}");
    if let Some(rest) = name.strip_prefix(RESOURCE_PREFIX) {
        let Some((capacity, _)) = rest.split_once('-') else {
            return Err(format!(
                "invalid resource property name {name}, expected format is [PREFIX]/[CAPACITY_TYPE]-[RESOURCE_NAME]"
            ));
        };
        if !matches!(capacity, "total" | "allocatable" | "available") {
            return Err(format!(
                "invalid capacity type in resource property name {name}, supported values are [allocatable available total]"
            ));
        }
        return check_key(name).map_err(invalid);
    }
    let Some((first, rest)) = name.split_once('/') else {
        return check_key(name).map_err(invalid);
    };
    if !is_dns_subdomain(first) && check_name_part(first, "name").is_err() {
        return Err(format!(
            "property name first segment {first} is not valid: it is neither a valid DNS subdomain nor a valid qualified name"
        ));
    }
    for segment in rest.split('/') {
        check_name_part(segment, "name part")
            .map_err(|m| format!("property name segment {segment} is not valid: {m}"))?;
    }
    Ok(())
}

/// DNS-1123 subdomain of at most 63 characters (cluster names).
fn check_dns_subdomain(n: &str) -> Result<(), String> {
    let ok = n.len() <= 63 && is_dns_subdomain(n);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "cluster name {n:?} is not a valid DNS-1123 subdomain of at most 63 characters"
        ))
    }
}
