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
        versions.extend_from_slice(info.api_versions);
    }
    if versions.is_empty() {
        Err(KindError::UnknownKind)
    } else {
        Err(KindError::UnsupportedVersion(versions))
    }
}
