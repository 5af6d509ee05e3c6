//! Views: each renders one engine result type from its serialised form; none recomputes a
//! decision.

pub mod diagnostics;
pub mod disruption;
pub mod placement;
pub mod rollout;

/// An instant as the UI shows it: `2026-03-02 08:00 UTC`.
pub fn when(t: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(t) {
        Ok(t) => t.to_utc().format("%a %Y-%m-%d %H:%M UTC").to_string(),
        Err(_) => t.to_string(),
    }
}

/// An instant in a table cell: `03-02 08:00`.
pub fn short(t: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(t) {
        Ok(t) => t.to_utc().format("%m-%d %H:%M").to_string(),
        Err(_) => t.to_string(),
    }
}
