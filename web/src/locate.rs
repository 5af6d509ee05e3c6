//! Where things are in the editors: the lines of the policy term (and the fleet document)
//! behind a placement decision, and the key labels/properties of each cluster. It reads the
//! engine's own YAML tree (with spans); the decision itself comes from the report.

use crate::json::{arr, i, s};
use crate::views::placement::Facts;
use fleet_policy::input::node::{FieldPath, Node, PathSeg};
use fleet_policy::{Input, Source};
use serde_json::Value;

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

/// Lines to highlight in (policy, fleet) for a cluster of a placement.
pub fn decision_lines(
    policy: &str,
    fleet: &str,
    placement: &Value,
    cluster: &str,
) -> (Vec<u32>, Vec<u32>) {
    let pname = s(placement, "name");
    let pin = Input::parse(&[Source::new("policy", policy)]);
    let fin = Input::parse(&[Source::new("fleet", fleet)]);
    let doc = pin.documents.iter().find(|d| {
        (d.kind == "ClusterResourcePlacement" || d.kind == "ResourcePlacement")
            && d.name.as_deref() == Some(pname)
    });
    let cdoc = fin
        .documents
        .iter()
        .chain(pin.documents.iter())
        .find(|d| d.kind == "MemberCluster" && d.name.as_deref() == Some(cluster));
    let mut paths: Vec<String> = Vec::new();
    let mut fleet_paths: Vec<&str> = vec!["metadata.name"];
    let find = |key: &str| {
        arr(placement, key)
            .iter()
            .find(|c| s(c, "cluster") == cluster)
    };
    if let Some(f) = find("filtered") {
        let e = &f["explanation"];
        match s(e, "type") {
            "clusterAffinityMismatch" => {
                for t in arr(e, "terms") {
                    let term = i(t, "term").unwrap_or(0);
                    let base = format!("{REQUIRED}[{term}]");
                    match s(t, "type") {
                        "property" | "propertyMissing" => paths.push(format!(
                            "{base}.propertySelector.matchExpressions[{}]",
                            i(t, "expression").unwrap_or(0)
                        )),
                        _ => {
                            let src = &t["mismatch"]["requirement"]["source"];
                            match i(src, "index") {
                                Some(ix) => paths
                                    .push(format!("{base}.labelSelector.matchExpressions[{ix}]")),
                                None => paths.push(format!("{base}.labelSelector.matchLabels")),
                            }
                        }
                    }
                    paths.push(base);
                }
            }
            "taintNotTolerated" => {
                paths.push("spec.policy.tolerations".into());
                fleet_paths.push("spec.taints");
            }
            "topologySpreadViolated" => paths.push(format!(
                "spec.policy.topologySpreadConstraints[{}]",
                i(e, "constraint").unwrap_or(0)
            )),
            _ => fleet_paths.push("status"),
        }
    } else if let Some(p) = find("picked").or_else(|| find("notPicked")) {
        let bd = &p["scoreBreakdown"];
        for t in arr(bd, "affinity") {
            if i(t, "score").unwrap_or(0) != 0 {
                paths.push(format!("{PREFERRED}[{}]", i(t, "term").unwrap_or(0)));
            }
        }
        for c in arr(bd, "topologySpread") {
            if i(c, "score").unwrap_or(0) != 0 {
                paths.push(format!(
                    "spec.policy.topologySpreadConstraints[{}]",
                    i(c, "constraint").unwrap_or(0)
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
    let policy_lines = doc
        .map(|d| {
            paths
                .iter()
                .filter_map(|p| node_at(&d.root, p))
                .map(|n| n.span.line)
                .collect()
        })
        .unwrap_or_default();
    let fleet_lines = cdoc
        .filter(|d| d.source == "fleet")
        .map(|d| {
            fleet_paths
                .iter()
                .filter_map(|p| node_at(&d.root, p))
                .map(|n| n.span.line)
                .collect()
        })
        .unwrap_or_default();
    (policy_lines, fleet_lines)
}

/// Of [`all_facts`], the labels and properties whose key the policy text mentions.
pub fn facts(all: &Facts, policy: &str) -> Facts {
    all.iter()
        .map(|(c, list)| {
            let keep = list
                .iter()
                .filter(|(k, _)| policy.contains(k.as_str()))
                .cloned()
                .collect();
            (c.clone(), keep)
        })
        .collect()
}

/// Every label and property of each MemberCluster read from the Fleet editor.
pub fn all_facts(input: &Input) -> Facts {
    let mut out = Facts::new();
    for d in input
        .of_kind("MemberCluster")
        .filter(|d| d.source == crate::evaluation::FLEET)
    {
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
