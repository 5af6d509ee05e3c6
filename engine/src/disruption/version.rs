//! Which Karpenter core release's rules apply (spec §10). Default: the newest behaviour in the
//! spec (the HEAD snapshot after v1.14.1); an option selects an older v1 minor.

use serde::Serialize;
use std::fmt;

/// A Karpenter core v1 minor release, or the HEAD snapshot the spec was written from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KarpenterVersion {
    /// Minor version of v1.x.
    pub minor: u32,
    /// The snapshot after v1.14.1 (`consolidateAfter` defaults on its own).
    pub head: bool,
}

impl Default for KarpenterVersion {
    fn default() -> Self {
        KarpenterVersion {
            minor: 14,
            head: true,
        }
    }
}

impl KarpenterVersion {
    /// Oldest and newest minor the engine models.
    pub const OLDEST_MINOR: u32 = 0;
    /// Newest minor.
    pub const NEWEST_MINOR: u32 = 14;

    /// Parses `head`, `v1.12`, `1.12`, `v1.12.3`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("head") || t.eq_ignore_ascii_case("latest") {
            return Ok(Self::default());
        }
        let body = t.strip_prefix(['v', 'V']).unwrap_or(t);
        let mut parts = body.split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        match (major, minor) {
            (Some(1), Some(m)) if m <= Self::NEWEST_MINOR => Ok(KarpenterVersion {
                minor: m,
                head: false,
            }),
            _ => Err(format!(
                "karpenterVersion \"{text}\": expected head or v1.0 … v1.{}",
                Self::NEWEST_MINOR
            )),
        }
    }

    /// At least v1.`minor`.
    pub fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }
}

impl fmt::Display for KarpenterVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.head {
            f.write_str("head (v1.14.1 + 20 commits, 2266468104f3)")
        } else {
            write!(f, "v1.{}", self.minor)
        }
    }
}

impl Serialize for KarpenterVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}
