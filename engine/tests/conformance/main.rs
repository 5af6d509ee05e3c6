//! Conformance: runs every case of the three shared cases files in `FLEET_POLICY_SPEC_DIR`
//! (default: `shared/spec` beside the repository), then the project's own cases files in
//! `engine/tests/conformance/cases/` (same schemas, extended keys documented in
//! `cases/README.md`), and prints one summary line per file. A case that cannot be loaded,
//! that asserts something the engine does not produce, that names a key the harness does not
//! know, or that panics counts as failed. The target fails if any case fails or if any of the
//! three shared files is missing.

mod disruption;
mod placement;
mod rollout;

use std::panic::{catch_unwind, UnwindSafe};
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

/// Runs one case, turning a panic into a failed case: one broken case must not hide the
/// results of the others.
pub fn guarded(f: impl FnOnce() -> Result<(), String> + UnwindSafe) -> Result<(), String> {
    catch_unwind(f).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(format!("panicked: {what}"))
    })
}

/// Fails on a key of `v` outside `known`: a misspelt key would otherwise assert nothing.
pub fn only_keys(what: &str, v: &serde_json::Value, known: &[&str]) -> Result<(), String> {
    let Some(m) = v.as_object() else {
        return Err(format!("{what} is not a mapping"));
    };
    let unknown: Vec<&str> = m
        .keys()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(format!("unknown {what} key(s) {unknown:?}"))
    }
}

/// The shared cases files every run needs.
const SHARED: [&str; 3] = [
    "placement-cases.yaml",
    "disruption-cases.yaml",
    "rollout-cases.yaml",
];

/// The shared files absent from `dir`.
fn missing_shared(dir: &Path) -> Vec<&'static str> {
    SHARED
        .into_iter()
        .filter(|n| !dir.join(n).is_file())
        .collect()
}

/// The harness checks itself each run: each safeguard must catch what it is there for.
fn self_test() -> Result<(), String> {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let panicked = guarded(|| panic!("boom"));
    std::panic::set_hook(prev);
    if panicked != Err("panicked: boom".into()) {
        return Err(format!("a panicking case gave {panicked:?}"));
    }
    let typo = placement::run_case(
        &serde_json::json!({"id": "t", "clusters": [{"name": "a"}], "policy": {"placementType": "PickAll"}, "expect": {"pickd": []}}),
        &serde_json::Value::Null,
    );
    if !typo.as_ref().is_err_and(|e| e.contains("\"pickd\"")) {
        return Err(format!("a misspelt expect key gave {typo:?}"));
    }
    let empty = std::env::temp_dir().join(format!("fleet-conformance-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&empty);
    let _ = std::fs::write(empty.join("rollout-cases.yaml"), "cases: []\n");
    let missing = missing_shared(&empty);
    let _ = std::fs::remove_dir_all(&empty);
    if missing != ["placement-cases.yaml", "disruption-cases.yaml"] {
        return Err(format!("a folder without two files gave {missing:?}"));
    }
    Ok(())
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

/// The project's own cases files (schemas extended; see `cases/README.md`).
fn project_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases")
}

/// The `*-cases.yaml` files of `dir`, sorted.
fn cases_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("-cases.yaml"))
        })
        .collect();
    files.sort();
    Ok(files)
}

fn main() -> ExitCode {
    if let Err(e) = self_test() {
        eprintln!("conformance: the harness's self-test failed: {e}");
        return ExitCode::FAILURE;
    }
    let dir = spec_dir();
    let missing = missing_shared(&dir);
    if !missing.is_empty() {
        eprintln!(
            "conformance: {} missing in {} (set FLEET_POLICY_SPEC_DIR)",
            missing.join(", "),
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    let mut files = Vec::new();
    for d in [dir.clone(), project_dir()] {
        match cases_files(&d) {
            Ok(f) => files.extend(f),
            Err(e) => {
                eprintln!("conformance: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let verbose = std::env::var_os("CONFORMANCE_VERBOSE").is_some();
    let mut any_failed = false;
    for path in files {
        let base = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        let name = if path.starts_with(&dir) {
            base.clone()
        } else {
            format!("project/{base}")
        };
        let outcome = match base.as_str() {
            "placement-cases.yaml" => placement::run(&path),
            "disruption-cases.yaml" => disruption::run(&path),
            "rollout-cases.yaml" => rollout::run(&path),
            _ => {
                println!("conformance {name}: not a known cases file, not run");
                any_failed = true;
                continue;
            }
        };
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
    if any_failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
