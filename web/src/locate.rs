//! Where things are in the editors: the lines of the policy term (and the fleet document)
//! behind a placement decision, and the key labels/properties of each cluster. It reads the
//! engine's own YAML tree (with spans); the decision itself comes from the report.

use crate::evaluation::{FLEET, POLICY};
use crate::views::placement::Facts;
use fleet_policy::input::documents::Document;
use fleet_policy::input::node::{FieldPath, Node, PathSeg};
use fleet_policy::placement::report::{FilterReason, PlacementResult, TermMismatch};
use fleet_policy::selectors::RequirementSource;
use fleet_policy::Input;

/// The node at exactly `path` (None when any part is missing).
fn node_at<'a>(root: &'a Node, path: &str) -> Option<&'a Node> {
    let mut n = root;
    for seg in FieldPath::parse(path).0 {
        n = match seg {
            PathSeg::Key(k) => n.get(&k)?,
            PathSeg::Index(i) => n.as_seq()?.get(i)?,
        };
    }
    Some(n)
}

const REQUIRED: &str = "spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms";
const PREFERRED: &str =
    "spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution";

/// Lines to highlight in (policy, fleet) for a cluster of a placement. `input` is what the
/// playground already read from both editors (no editor is parsed again per click).
pub fn decision_lines(
    input: &Input,
    placement: &PlacementResult,
    cluster: &str,
) -> (Vec<u32>, Vec<u32>) {
    let doc = input.documents.iter().find(|d| {
        (d.kind == "ClusterResourcePlacement" || d.kind == "ResourcePlacement")
            && d.name.as_deref() == Some(placement.name.as_str())
    });
    let cdoc = input
        .of_kind("MemberCluster")
        .find(|d| d.name.as_deref() == Some(cluster));
    let mut paths: Vec<String> = Vec::new();
    let mut fleet_paths: Vec<&str> = vec!["metadata.name"];
    if let Some(f) = placement.filtered.iter().find(|c| &*c.cluster == cluster) {
        match &f.explanation {
            FilterReason::ClusterAffinityMismatch { terms } => {
                for t in terms.iter() {
                    let (term, path) = match t {
                        TermMismatch::Property {
                            term, expression, ..
                        }
                        | TermMismatch::PropertyMissing {
                            term, expression, ..
                        } => (
                            *term,
                            format!("propertySelector.matchExpressions[{expression}]"),
                        ),
                        TermMismatch::Label { term, mismatch } => (
                            *term,
                            match mismatch.requirement.source {
                                RequirementSource::MatchExpressions(ix) => {
                                    format!("labelSelector.matchExpressions[{ix}]")
                                }
                                RequirementSource::MatchLabels => {
                                    "labelSelector.matchLabels".into()
                                }
                            },
                        ),
                    };
                    let base = format!("{REQUIRED}[{term}]");
                    paths.push(format!("{base}.{path}"));
                    paths.push(base);
                }
            }
            FilterReason::TaintNotTolerated { .. } => {
                paths.push("spec.policy.tolerations".into());
                fleet_paths.push("spec.taints");
            }
            FilterReason::TopologySpreadViolated { constraint, .. } => paths.push(format!(
                "spec.policy.topologySpreadConstraints[{constraint}]"
            )),
            FilterReason::Ineligible { .. } => fleet_paths.push("status"),
        }
    } else if let Some(p) = placement
        .picked
        .iter()
        .chain(&placement.not_picked)
        .find(|c| &*c.cluster == cluster)
    {
        if let Some(bd) = &p.score_breakdown {
            for t in bd.affinity.iter().filter(|t| t.score != 0) {
                paths.push(format!("{PREFERRED}[{}]", t.term));
            }
            for c in bd.topology_spread.iter().filter(|c| c.score != 0) {
                paths.push(format!(
                    "spec.policy.topologySpreadConstraints[{}]",
                    c.constraint
                ));
            }
        }
        if paths.is_empty() {
            // PickFixed names it; otherwise the required terms (or no policy) let it through.
            if let Some(ix) = doc
                .and_then(|d| node_at(&d.root, "spec.policy.clusterNames"))
                .and_then(|n| n.as_seq())
                .and_then(|seq| seq.iter().position(|x| x.as_str() == Some(cluster)))
            {
                paths.push(format!("spec.policy.clusterNames[{ix}]"));
            } else {
                paths.push(REQUIRED.into());
                paths.push("spec.policy.placementType".into());
            }
        }
    }
    let lines = |d: Option<&Document>, paths: &[&str]| -> (String, Vec<u32>) {
        d.map(|d| {
            (
                d.source.clone(),
                paths
                    .iter()
                    .filter_map(|p| node_at(&d.root, p))
                    .map(|n| n.span.line)
                    .collect(),
            )
        })
        .unwrap_or_default()
    };
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let mut out = (Vec::new(), Vec::new());
    for (source, l) in [lines(doc, &paths), lines(cdoc, &fleet_paths)] {
        match source.as_str() {
            POLICY => out.0.extend(l),
            FLEET => out.1.extend(l),
            _ => {}
        }
    }
    out
}

/// The keys of [`all_facts`] that the policy text mentions, sorted.
pub fn mentioned_keys(all: &Facts, policy: &str) -> Vec<String> {
    let mut keys: Vec<&str> = all
        .values()
        .flatten()
        .map(|(k, _)| k.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|k| policy.contains(k))
        .collect();
    keys.dedup();
    keys.into_iter().map(str::to_string).collect()
}

/// Of [`all_facts`], the labels and properties whose key is one of `keys`.
pub fn facts(all: &Facts, keys: &[String]) -> Facts {
    all.iter()
        .map(|(c, list)| {
            let keep = list
                .iter()
                .filter(|(k, _)| keys.contains(k))
                .cloned()
                .collect();
            (c.clone(), keep)
        })
        .collect()
}

/// Every label and property of each MemberCluster read from the Fleet editor.
pub fn all_facts(input: &Input) -> Facts {
    let mut out = Facts::new();
    for d in input.of_kind("MemberCluster").filter(|d| d.source == FLEET) {
        let Some(name) = d.name.clone() else { continue };
        let mut list = Vec::new();
        for (k, v) in d.labels() {
            list.push((k.to_string(), v.to_string()));
        }
        if let Some(props) = node_at(&d.root, "status.properties").and_then(Node::as_map) {
            for (k, v) in props {
                let (Some(k), Some(v)) = (k.as_str(), v.get("value").and_then(Node::as_scalar))
                else {
                    continue;
                };
                list.push((k.to_string(), v.to_string()));
            }
        }
        for (kind, prefix) in [
            ("capacity", "total"),
            ("allocatable", "allocatable"),
            ("available", "available"),
        ] {
            if let Some(res) =
                node_at(&d.root, &format!("status.resourceUsage.{kind}")).and_then(Node::as_map)
            {
                for (k, v) in res {
                    let (Some(k), Some(v)) = (k.as_str(), v.as_scalar()) else {
                        continue;
                    };
                    let prop = format!("resources.kubernetes-fleet.io/{prefix}-{k}");
                    list.push((prop, v.to_string()));
                }
            }
        }
        out.insert(name, list);
    }
    out
}
