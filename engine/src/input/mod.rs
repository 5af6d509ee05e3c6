//! Text → typed manifests: YAML documents with spans, kinds, and shared value types.

pub(crate) mod arm;
mod block;
mod bytes;
pub mod de;
pub mod diagnostics;
pub mod documents;
pub mod duration;
pub mod from_node;
pub mod go_float;
pub(crate) mod json;
pub mod kinds;
pub mod node;
pub mod quantity;
pub mod rfc3339;
pub mod stream;
mod tags;

pub use diagnostics::{Diagnostic, Severity, Span};
pub use documents::{Document, Input, Source};
pub use from_node::FromNode;
pub use node::{FieldPath, Node};
