//! What every fuzz target checks, and the clock they keep. The targets feed text through an
//! entry point; whatever the text, the engine must not panic, must locate every diagnostic
//! (a document and a line, or the input as a whole), must cap its lists, must give results
//! that serialise, and must answer in well under a second.

use fleet_policy::{Diagnostic, EvaluateOptions, Source};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The instant every target evaluates at (examples pin theirs; fuzzed text has none).
pub fn options() -> EvaluateOptions {
    EvaluateOptions::at(
        chrono::DateTime::parse_from_rfc3339("2026-03-04T12:00:00Z")
            .map(|t| t.to_utc())
            .unwrap_or_default(),
    )
}

/// The bytes as the CLI reads a file: UTF-8 or UTF-16 with a BOM; `None` when refused (the
/// refusal itself is checked to be located).
pub fn source(data: &[u8]) -> Option<Source> {
    match fleet_policy::sources::decode("fuzz.yaml", data.to_vec()) {
        Ok(s) => Some(s),
        Err(d) => {
            located(std::slice::from_ref(&d));
            None
        }
    }
}

/// Every diagnostic names a document and a line, or is about the input as a whole; at most
/// 1,000 are listed plus one "… and N more".
pub fn located(diagnostics: &[Diagnostic]) {
    assert!(
        diagnostics.len() <= 1001,
        "{} diagnostics",
        diagnostics.len()
    );
    for d in diagnostics {
        assert!(
            (d.document >= 1 && d.line >= 1 && d.column >= 1) || d.document == 0,
            "not located: {d:?}"
        );
        // Text output escapes control characters: one diagnostic is one line.
        assert!(!d.to_string().contains('\n'), "{d}");
    }
}

/// The result serialises (every front end reads it as JSON).
pub fn serialises<T: serde::Serialize>(report: &T) {
    assert!(serde_json::to_string(report).is_ok());
}

/// The slowest call so far, in microseconds.
static SLOWEST: AtomicU64 = AtomicU64::new(0);

/// Runs `f`, timing it; a new slowest call is printed (`make fuzz` reports the last one).
pub fn timed<T>(len: usize, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    if micros > SLOWEST.fetch_max(micros, Ordering::Relaxed) {
        eprintln!("#fleet-policy slowest call: {micros} us ({len} bytes)");
    }
    out
}
