//! Conformance: runs every case of the `*-cases.yaml` files in `FLEET_POLICY_SPEC_DIR`
//! (default: `shared/spec` beside the repository) and prints one summary line per file.
//! A case that cannot be loaded, or that asserts something the engine does not produce,
//! counts as failed. The target fails if any case fails.

mod disruption;
mod placement;
mod rollout;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Reports checked by [`same_json`].
static JSON_CHECKED: AtomicUsize = AtomicUsize::new(0);

/// Returns `report` after checking that it serialises (what every front end reads).
pub fn same_json<T: serde::Serialize>(report: T) -> T {
    assert!(serde_json::to_string(&report).is_ok());
    JSON_CHECKED.fetch_add(1, Ordering::Relaxed);
    report
}

/// Inputs written so far by [`seed`].
static SEEDS: AtomicUsize = AtomicUsize::new(0);

/// Returns `text` after writing it, when `FLEET_POLICY_SEEDS_DIR` is set, as a file of that
/// folder: `make fuzz` starts its campaign from the exact inputs the cases evaluate.
pub fn seed(suite: &str, text: String) -> String {
    if let Some(dir) = std::env::var_os("FLEET_POLICY_SEEDS_DIR") {
        let n = SEEDS.fetch_add(1, Ordering::Relaxed);
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{suite}-{n:04}.yaml")), &text);
    }
    text
}

/// The outcome of one file.
#[derive(Default)]
pub struct Outcome {
    /// Cases that passed.
    pub passed: usize,
    /// Failed cases: `id: what differed`.
    pub failed: Vec<String>,
}

impl Outcome {
    /// Records one case.
    pub fn record(&mut self, id: &str, result: Result<(), String>) {
        match result {
            Ok(()) => self.passed += 1,
            Err(e) => self.failed.push(format!("{id}: {e}")),
        }
    }
}

/// Reads a cases file as JSON.
pub fn load(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    fleet_policy::input::documents::yaml_to_json(&text)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn spec_dir() -> PathBuf {
    match std::env::var_os("FLEET_POLICY_SPEC_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec"),
    }
}

fn main() -> ExitCode {
    let dir = spec_dir();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with("-cases.yaml"))
            })
            .collect(),
        Err(e) => {
            eprintln!("conformance: cannot read {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    };
    files.sort();
    let verbose = std::env::var_os("CONFORMANCE_VERBOSE").is_some();
    let mut any_failed = false;
    let mut ran = 0;
    for path in files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        let outcome = match name.as_str() {
            "placement-cases.yaml" => placement::run(&path),
            "disruption-cases.yaml" => disruption::run(&path),
            "rollout-cases.yaml" => rollout::run(&path),
            _ => {
                println!("conformance {name}: not a known cases file, not run");
                continue;
            }
        };
        ran += 1;
        let shown = if verbose { usize::MAX } else { 25 };
        for f in outcome.failed.iter().take(shown) {
            println!("  FAILED {name} {f}");
        }
        if outcome.failed.len() > shown {
            println!(
                "  … {} more failures (CONFORMANCE_VERBOSE=1 shows all)",
                outcome.failed.len() - shown
            );
        }
        println!(
            "conformance {name}: {} passed, {} failed",
            outcome.passed,
            outcome.failed.len()
        );
        any_failed |= !outcome.failed.is_empty();
    }
    println!(
        "conformance JSON: {} reports serialised",
        JSON_CHECKED.load(Ordering::Relaxed)
    );
    if ran == 0 {
        eprintln!("conformance: no cases file found in {}", dir.display());
        return ExitCode::FAILURE;
    }
    if any_failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
