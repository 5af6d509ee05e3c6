//! The manifests as plain Rust types, decoded from [`crate::input::Document`]s.

pub mod disruption;
pub mod meta;
pub mod placement;
pub mod rollout;

pub use meta::ObjectMeta;
