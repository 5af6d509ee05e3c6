//! The manifests as plain Rust types, decoded from [`crate::input::Document`]s.

pub mod disruption;
pub mod meta;
pub mod placement;
pub mod rollout;

pub use meta::ObjectMeta;

/// A field the engine accepts and ignores but for its presence (`systemData`, `status`,
/// preview gates, …): any value, read as `serde_json::Value` would be (same acceptance and
/// errors) without keeping it: the engine only tests these fields with `is_some()`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Opaque;

impl<'de> serde::Deserialize<'de> for Opaque {
    /// Whatever `serde_json::Value` accepts (native serde path only: the reference the
    /// `FromNode` decoder is compared with).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde_json::Value::deserialize(d).map(|_| Opaque)
    }
}
