//! Where things are in the editors: the lines of the policy term (and the fleet document)
//! behind a placement decision, and the key labels/properties of each cluster. It reads the
//! engine's own YAML tree (with spans); the decision itself comes from the report.

use crate::evaluation::{FLEET, POLICY};
use fleet_policy::input::documents::Document;
use fleet_policy::input::node::{FieldPath, Node, PathSeg};
use fleet_policy::placement::properties::document_facts;
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
    let (paths, fleet_paths) = placement.decision_paths(doc.map(|d| &d.root), cluster);
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

/// Every label and property of a MemberCluster document of the Fleet editor (the engine's
/// [`document_facts`]).
pub fn cluster_facts(d: &Document) -> Option<(String, Vec<(String, String)>)> {
    if d.source != FLEET {
        return None;
    }
    document_facts(d)
}
