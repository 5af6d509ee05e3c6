//! Where things are in the editors: the lines of the policy term (and the fleet document)
//! behind a placement decision, and the key labels/properties of each cluster. It reads the
//! engine's own YAML tree (with spans); the decision itself comes from the report.

use crate::evaluation::{FLEET, POLICY};
use fleet_policy::input::documents::Document;
use fleet_policy::input::node::{FieldPath, Node, PathSeg};
use fleet_policy::placement::properties::CapacityType;
use fleet_policy::placement::report::PlacementResult;
use fleet_policy::Input;

/// The node at exactly `path` (None when any part is missing).
fn node_at<'a>(root: &'a Node, path: &FieldPath) -> Option<&'a Node> {
    let mut n = root;
    for seg in &path.0 {
        n = match seg {
            PathSeg::Key(k) => n.get(k)?,
            PathSeg::Index(i) => n.as_seq()?.get(*i)?,
        };
    }
    Some(n)
}

/// Lines to highlight in (policy, fleet) for a cluster of a placement: the fields the engine
/// says decided (its explanation's paths), mapped to the spans of the input the playground
/// already read (no editor is parsed again per click).
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
    let mut paths: Vec<FieldPath> = Vec::new();
    let mut fleet_paths = vec![FieldPath::parse("metadata.name")];
    if let Some(f) = placement.filtered.iter().find(|c| &*c.cluster == cluster) {
        paths = f.explanation.policy_paths();
        fleet_paths.extend(f.explanation.cluster_paths());
    } else if let Some(p) = placement
        .picked
        .iter()
        .chain(&placement.not_picked)
        .find(|c| &*c.cluster == cluster)
    {
        if let Some(bd) = &p.score_breakdown {
            paths = bd.policy_paths();
        }
        if paths.is_empty() {
            // PickFixed names it; otherwise the required terms (or no policy) let it through.
            let names = FieldPath::parse("spec.policy.clusterNames");
            if let Some(ix) = doc
                .and_then(|d| node_at(&d.root, &names))
                .and_then(|n| n.as_seq())
                .and_then(|seq| seq.iter().position(|x| x.as_str() == Some(cluster)))
            {
                paths.push(names.index(ix));
            } else {
                paths.push(FieldPath::parse(
                    "spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms",
                ));
                paths.push(FieldPath::parse("spec.policy.placementType"));
            }
        }
    }
    // A field the input lacks (a missing label, no tolerations) points at the nearest
    // enclosing field the user wrote.
    let lines = |d: Option<&Document>, paths: &[FieldPath]| -> (String, Vec<u32>) {
        d.map(|d| {
            let mut lines: Vec<u32> = paths.iter().map(|p| line_of(&d.root, p)).collect();
            lines.sort_unstable();
            lines.dedup();
            (d.source.clone(), lines)
        })
        .unwrap_or_default()
    };
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

/// The line of the field at `path`: a key's own line (a list's key rather than its first
/// item), else the nearest enclosing field the input has.
fn line_of(root: &Node, path: &FieldPath) -> u32 {
    if let Some((PathSeg::Key(k), parent)) = path.0.split_last() {
        let parent = FieldPath(parent.to_vec());
        if let Some(key) = node_at(root, &parent).and_then(|n| n.key_node(k)) {
            return key.span().line;
        }
    }
    root.locate(path).span().line
}

/// Every label and property of a MemberCluster document of the Fleet editor: its name and
/// (key, value) pairs (labels, then properties, then resource usage as the engine names them).
pub fn cluster_facts(d: &Document) -> Option<(String, Vec<(String, String)>)> {
    if d.source != FLEET {
        return None;
    }
    let name = d.name.clone()?;
    let mut list = Vec::new();
    for (k, v) in d.labels() {
        list.push((k.to_string(), v.to_string()));
    }
    let status = d.root.get("status");
    if let Some(props) = status
        .and_then(|s| s.get("properties"))
        .and_then(Node::as_map)
    {
        for (k, v) in props {
            let (Some(k), Some(v)) = (k.as_str(), v.get("value").and_then(Node::as_scalar)) else {
                continue;
            };
            list.push((k.to_string(), v.to_string()));
        }
    }
    let usage = status.and_then(|s| s.get("resourceUsage"));
    for capacity in CapacityType::ALL {
        if let Some(res) = usage
            .and_then(|u| u.get(capacity.field()))
            .and_then(Node::as_map)
        {
            for (k, v) in res {
                let (Some(k), Some(v)) = (k.as_str(), v.as_scalar()) else {
                    continue;
                };
                list.push((capacity.property_name(k), v.to_string()));
            }
        }
    }
    Some((name, list))
}
