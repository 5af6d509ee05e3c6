//! The manifest kinds the engine reads, and the apiVersions accepted for each.
//!
//! Each domain module declares its own kinds (`placement::KINDS`, …); this module only joins
//! them, so adding a kind never touches another domain's code.

/// A supported kind and the apiVersions it may be written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindInfo {
    /// The `kind` value.
    pub kind: &'static str,
    /// Accepted `apiVersion` values (v1 and v1beta1 map to one model).
    pub api_versions: &'static [&'static str],
}

/// Why a manifest's apiVersion/kind was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KindError {
    /// No domain reads this kind.
    UnknownKind,
    /// The kind is known under other apiVersions (listed).
    UnsupportedVersion(Vec<&'static str>),
}

/// Every supported kind.
pub fn all() -> impl Iterator<Item = &'static KindInfo> {
    crate::placement::KINDS
        .iter()
        .chain(crate::disruption::KINDS)
        .chain(crate::rollout::KINDS)
}

/// Names of every supported kind, sorted and deduplicated (for messages).
pub fn supported_kinds() -> Vec<&'static str> {
    let mut v: Vec<_> = all().map(|k| k.kind).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A small id of a supported kind (equal ids, equal kinds), so documents can be filtered by
/// kind without reading their kind strings.
pub fn id(kind: &str) -> Option<u16> {
    let i = all().position(|k| k.kind == kind)?;
    u16::try_from(i).ok()
}

/// Checks an apiVersion/kind pair.
pub fn check(api_version: &str, kind: &str) -> Result<(), KindError> {
    let mut versions = Vec::new();
    for info in all().filter(|k| k.kind == kind) {
        if info.api_versions.contains(&api_version) {
            return Ok(());
        }
        // Several engines read some kinds (MemberCluster): each version once.
        for v in info.api_versions {
            if !versions.contains(v) {
                versions.push(*v);
            }
        }
    }
    if versions.is_empty() {
        Err(KindError::UnknownKind)
    } else {
        Err(KindError::UnsupportedVersion(versions))
    }
}

/// Kinds of the reference systems that change what they do but whose effect the engine does
/// not simulate (overrides change what is applied, not where; the disruption budget and
/// eviction of placements act on evictions, which no engine here performs).
const NOT_MODELLED: &[&str] = &[
    "ClusterResourceOverride",
    "ResourceOverride",
    "ClusterResourceOverrideSnapshot",
    "ResourceOverrideSnapshot",
    "ClusterResourcePlacementDisruptionBudget",
    "ClusterResourcePlacementEviction",
];

/// Whether `kind` is one of [`NOT_MODELLED`].
pub fn not_modelled(kind: &str) -> bool {
    NOT_MODELLED.contains(&kind)
}

/// The supported kind that `kind` misspells (case aside, at most two edits away), if any.
pub fn near_miss(kind: &str) -> Option<&'static str> {
    let lower = kind.to_ascii_lowercase();
    all()
        .map(|k| k.kind)
        .filter(|k| !NOT_MODELLED.contains(k))
        .map(|k| (edit_distance(&lower, &k.to_ascii_lowercase()), k))
        .filter(|(d, k)| *d <= 2 && *d < k.len() / 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over bytes (kinds are ASCII).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_of_read_kinds_are_near_misses_and_neighbours_are_not() {
        assert_eq!(near_miss("MemberClustr"), Some("MemberCluster"));
        assert_eq!(
            near_miss("ClusterResourcePlacment"),
            Some("ClusterResourcePlacement")
        );
        assert_eq!(near_miss("nodepool"), Some("NodePool"));
        for neighbour in [
            "EC2NodeClass",
            "AKSNodeClass",
            "Namespace",
            "Deployment",
            "ClusterResourceOverride",
            "ConfigMap",
            "Node2",
        ] {
            assert_eq!(near_miss(neighbour), None, "{neighbour}");
        }
    }
}
