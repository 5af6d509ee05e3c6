//! Exact conversions between `f64` and decimal text, with the results of Rust's own
//! (`str::parse::<f64>`, `{}`, `{:.N}`) but without core's tables and formatting code, which
//! were about 6% of the npm `.wasm` gzipped. Floats are rare in the engine's work (a YAML value
//! that looks like a float, an annotation, a weight in an error message), so exactness matters
//! and speed hardly does.

mod big;
mod format;
mod parse;

pub use format::{Fixed, Shortest};
pub use parse::parse_f64;
