//! Holder crate for the wasm tests in `tests/` (they only build for wasm32).
